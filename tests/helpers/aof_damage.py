#!/usr/bin/python3
"""Damaged AOF files (tests/integration/aof.tcl): random truncations, byte flips, inserted and
deleted bytes of an incremental file (and of an RDB base), each loaded by the server and checked
by keel-check-aof. The server must either come up (then its dataset must be what the file's
valid part holds: here only checked to answer) or exit with status 1; the checker must exit 0 or
1. A signal (crash), another status, or a hang fails. Bounded by --seconds.

Prints "OK <cases> <loaded> <refused>".
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import time


def resp(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


def sample_incr():
    data = resp("SELECT", 0)
    for i in range(20):
        data += resp("SET", "k%d" % i, "v" * (i % 7))
        data += resp("RPUSH", "l", i)
    data += resp("MULTI") + resp("INCR", "c") + resp("HSET", "h", "f", "v") + resp("EXEC")
    data += b"#TS:1700000000\r\n" + resp("ZADD", "z", 1.5, "m") + resp("PEXPIREAT", "k1", 99999999999999)
    return data


def mutate(rnd, data):
    data = bytearray(data)
    kind = rnd.randrange(4)
    if kind == 0 and len(data) > 1:
        del data[rnd.randrange(1, len(data)):]
    elif kind == 1:
        for _ in range(rnd.randint(1, 3)):
            data[rnd.randrange(len(data))] = rnd.randrange(256)
    elif kind == 2:
        pos = rnd.randrange(len(data))
        data[pos:pos] = bytes(rnd.choice([b"*", b"$", b"\r\n", b"9999999999", b"-1", b"#", b"\x00"]))
    else:
        pos = rnd.randrange(len(data))
        del data[pos:pos + rnd.randint(1, 8)]
    return bytes(data)


# Under ASan/UBSan a report must not pass for the refusal's exit status 1.
ENV = dict(os.environ)
ENV["ASAN_OPTIONS"] = ENV.get("ASAN_OPTIONS", "") + ":exitcode=86"
ENV["UBSAN_OPTIONS"] = ENV.get("UBSAN_OPTIONS", "") + ":exitcode=87"


def run_server(args, d):
    log = os.path.join(d, "log")
    p = subprocess.Popen([args.server, "--port", str(args.port), "--bind", "127.0.0.1", "--dir", d,
                          "--appendonly", "yes", "--save", "", "--logfile", log],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    deadline = time.time() + 20
    while time.time() < deadline:
        rc = p.poll()
        if rc is not None:
            return "exit", rc
        try:
            with open(log, "rb") as f:
                if b"Ready to accept connections" in f.read():
                    p.send_signal(signal.SIGKILL)
                    p.wait()
                    return "ready", 0
        except FileNotFoundError:
            pass
        time.sleep(0.005)
    p.kill()
    p.wait()
    return "hang", None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--checker", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--base", help="an RDB file to use as the base", default="")
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    incr = sample_incr()
    base = open(args.base, "rb").read() if args.base else b""
    cases = loaded = refused = 0
    end = time.time() + args.seconds
    while time.time() < end:
        d = os.path.join(args.dir, "case")
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(os.path.join(d, "appendonlydir"))
        damage_base = base and rnd.randrange(3) == 0
        b = mutate(rnd, base) if damage_base else base
        i = incr if damage_base else mutate(rnd, incr)
        with open(os.path.join(d, "appendonlydir", "appendonly.aof.manifest"), "w") as f:
            f.write("file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n")
        with open(os.path.join(d, "appendonlydir", "appendonly.aof.1.base.rdb"), "wb") as f:
            f.write(b)
        with open(os.path.join(d, "appendonlydir", "appendonly.aof.1.incr.aof"), "wb") as f:
            f.write(i)
        cases += 1
        ck = subprocess.run([args.checker, os.path.join(d, "appendonlydir", "appendonly.aof.manifest")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                            env=ENV)
        if ck.returncode not in (0, 1):
            sys.exit("checker status %d (seed %d, case %d)" % (ck.returncode, args.seed, cases))
        how, rc = run_server(args, d)
        if how == "hang":
            sys.exit("server neither came up nor exited (seed %d, case %d)" % (args.seed, cases))
        if how == "exit" and rc != 1:
            shutil.copytree(d, os.path.join(args.dir, "failed-%d" % cases))
            sys.exit("server exit status %d (seed %d, case %d)" % (rc, args.seed, cases))
        if how == "ready":
            loaded += 1
        else:
            refused += 1
    print("OK %d %d %d" % (cases, loaded, refused))


if __name__ == "__main__":
    main()
