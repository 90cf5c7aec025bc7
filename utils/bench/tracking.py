#!/usr/bin/env python3
"""Client-side caching cost (issue 16's figure): server CPU per operation of a -P 16 SET and GET
load (keel-loadgen, 50 connections, random keys over 100k names) with no tracking clients, and
with 50 RESP3 tracking clients that behave like caches: each reads 2,000 random keys of the same
key space at the start (so the tracking table holds ~100k keys), drains its invalidation pushes,
and reads an invalidated key again (so the table stays populated while the SETs run).

Keel and the reference redis-server run one after the other in each round (rounds interleaved);
servers are pinned to core 0, load generator and tracking clients to core 1. The server's CPU
(utime + stime from /proc) is divided by total_commands_processed, which includes the tracking
clients' own GETs.

    python3 utils/bench/tracking.py [--rounds 3] [--seconds 6]
"""
import argparse, os, random, selectors, socket, statistics, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from persistence import command, cpu_s, free_port  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOADGEN = os.path.join(ROOT, "build/keel-loadgen")
KEYS = 100000


def enc(*args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    return out


class Tracker:
    """50 RESP3 connections with CLIENT TRACKING ON, driven by one thread with a selector."""

    def __init__(self, port, n=50, reads=2000):
        self.socks = []
        self.stop = threading.Event()
        self.invalidations = 0
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", port))
            s.sendall(enc("HELLO", "3") + enc("CLIENT", "TRACKING", "ON"))
            self.socks.append(s)
        self.sel = selectors.DefaultSelector()
        for s in self.socks:
            s.setblocking(False)
            self.sel.register(s, selectors.EVENT_READ)
        rnd = random.Random(7)
        for s in self.socks:
            batch = b"".join(enc("GET", "key:%d" % rnd.randrange(KEYS)) for _ in range(reads))
            s.setblocking(True)
            s.sendall(batch)
            s.setblocking(False)
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        # Replies are not parsed in full: an invalidation push names its keys after "invalidate";
        # each named key is read again (a cache refilling itself).
        while not self.stop.is_set():
            for key, _ in self.sel.select(timeout=0.1):
                s = key.fileobj
                try:
                    data = s.recv(1 << 20)
                except BlockingIOError:
                    continue
                if not data:
                    continue
                n = data.count(b"invalidate")
                if n:
                    self.invalidations += n
                    again = [w for w in data.split(b"\r\n") if w.startswith(b"key:")][:64]
                    try:
                        s.send(b"".join(enc(b"GET", k) for k in again))
                    except BlockingIOError:
                        pass

    def close(self):
        self.stop.set()
        self.thread.join()
        for s in self.socks:
            s.close()


def info_int(port, field):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(enc("INFO", "all"))
    buf = b""
    while True:
        buf += s.recv(1 << 20)
        if buf.endswith(b"\r\n") and buf.count(b"\r\n") > 2:
            # a bulk reply: "$N\r\n" + N bytes + "\r\n"
            n = int(buf[1:buf.index(b"\r\n")])
            if len(buf) >= buf.index(b"\r\n") + 2 + n + 2:
                break
    s.close()
    for line in buf.decode(errors="replace").split("\r\n"):
        if line.startswith(field + ":"):
            return int(line.split(":", 1)[1])
    return 0


def one(binary, name, tracking, seconds, test):
    port = free_port()
    proc = subprocess.Popen(["taskset", "-c", "0", binary, "--port", str(port), "--bind", "127.0.0.1",
                             "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if command(port, "PING") == "+PONG":
                break
            time.sleep(0.02)
        # Every key exists, so GETs hit and are tracked.
        subprocess.run(["taskset", "-c", "1", LOADGEN, "-p", str(port), "-c", "50", "-P", "16",
                        "-n", str(KEYS * 3), "-r", str(KEYS), "-t", "set", "--plain-keys"],
                       stdout=subprocess.DEVNULL, check=True)
        tr = Tracker(port) if tracking else None
        time.sleep(0.5)
        gen = subprocess.Popen(["taskset", "-c", "1", LOADGEN, "-p", str(port), "-c", "50", "-P",
                                "16", "-n", "2000000000", "-r", str(KEYS), "-t", test,
                                "--plain-keys"], stdout=subprocess.DEVNULL)
        time.sleep(1.0)
        c0, u0 = info_int(port, "total_commands_processed"), cpu_s(proc.pid)
        time.sleep(seconds)
        c1, u1 = info_int(port, "total_commands_processed"), cpu_s(proc.pid)
        tracked = info_int(port, "tracking_total_keys") if tracking else 0
        gen.kill()
        gen.wait()
        inval = tr.invalidations if tr else 0
        if tr:
            tr.close()
        return {"us_per_op": (u1 - u0) / max(1, c1 - c0) * 1e6, "rps": (c1 - c0) / seconds,
                "tracked": tracked, "invalidations": inval}
    finally:
        proc.kill()
        proc.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keel", default=os.path.join(ROOT, "src/keel-server"))
    ap.add_argument("--reference", default="/usr/bin/redis-server")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=6)
    a = ap.parse_args()
    res = {}
    for r in range(a.rounds):
        for test in ("set", "get"):
            for tracking in (False, True):
                for name, binary in (("keel", a.keel), ("reference", a.reference)):
                    x = one(binary, name, tracking, a.seconds, test)
                    res.setdefault((test, tracking, name), []).append(x)
                    print(f"round {r + 1} {test} tracking={'50' if tracking else 'none'} {name:9}: "
                          f"{x['rps']:.0f} ops/s, {x['us_per_op']:.3f} us/op, tracked keys "
                          f"{x['tracked']}, invalidation pushes {x['invalidations']}", flush=True)
    print("\nmedians: server CPU us/op (ops/s)")
    print("| load | tracking clients | Keel | Redis | Keel/Redis | Keel with/without |")
    print("|---|---|---|---|---|---|")
    for test in ("set", "get"):
        base = statistics.median(x["us_per_op"] for x in res[(test, False, "keel")])
        for tracking in (False, True):
            k = res[(test, tracking, "keel")]
            rf = res[(test, tracking, "reference")]
            km = statistics.median(x["us_per_op"] for x in k)
            rm = statistics.median(x["us_per_op"] for x in rf)
            kr = statistics.median(x["rps"] for x in k)
            rr = statistics.median(x["rps"] for x in rf)
            print(f"| {test.upper()} -P 16 | {'50' if tracking else 'none'} | {km:.3f} ({kr:.0f}) | "
                  f"{rm:.3f} ({rr:.0f}) | {km / rm:.2f} | {km / base:.3f} |")


if __name__ == "__main__":
    main()
