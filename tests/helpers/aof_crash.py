#!/usr/bin/python3
"""Crash test for the AOF (tests/integration/aof-crash.tcl).

Starts the server with appendonly yes, writes a deterministic sequence of operations (SET,
INCR, LPUSH, HSET, ZADD, EXPIRE, MULTI/EXEC, EVAL) on one connection, each acknowledged
before the next is sent, kills the server with SIGKILL at a random moment, restarts it on the
same directory and checks that the dataset is exactly the result of the first k operations,
where k is at least the number of acknowledged operations (all acknowledged writes present;
the one in flight may or may not have landed) or, with --allow-loss-sec S, at least the
operations acknowledged S seconds before the kill. Writing continues from there in the next
round. With --rewrite, a BGREWRITEAOF is started shortly before some of the kills.

Prints one line per round and "OK <rounds> <ops> <lost>" at the end; exits 1 on a mismatch.
"""
import argparse
import os
import random
import signal
import subprocess
import sys
import threading
import time

import redis

EVAL_SCRIPT = "redis.call('incr', KEYS[1]); return redis.call('rpush', KEYS[2], ARGV[1])"
KINDS = 8


class Model:
    """The dataset after the first n operations, kept incrementally."""

    def __init__(self):
        self.n = 0
        self.sets = 0        # keys s:<i>
        self.counter = 0     # INCR counter
        self.list = []       # LPUSH list (head first)
        self.hash = 0        # HSET hash f<i> <i>
        self.zset = 0        # ZADD zset <i> m<i>
        self.expires = 0     # keys s:<i> given a TTL by EXPIRE
        self.multi = 0       # MULTI: INCR mcount + SET m:<i>
        self.evals = []      # EVAL: INCR ecount + RPUSH elist <i>

    def apply(self, i):
        kind = i % KINDS
        if kind == 0:
            self.sets += 1
        elif kind == 1:
            self.counter += 1
        elif kind == 2:
            self.list.insert(0, str(i))
        elif kind == 3:
            self.hash += 1
        elif kind == 4:
            self.zset += 1
        elif kind == 5:
            self.expires += 1
        elif kind == 6:
            self.multi += 1
        else:
            self.evals.append(str(i))
        self.n = i + 1

    def signature(self):
        return (self.sets, self.counter, len(self.list), self.hash, self.zset, self.expires,
                self.multi, len(self.evals))


def run_op(r, i):
    kind = i % KINDS
    if kind == 0:
        r.set("s:%d" % i, i)
    elif kind == 1:
        r.incr("counter")
    elif kind == 2:
        r.lpush("list", i)
    elif kind == 3:
        r.hset("hash", "f%d" % i, i)
    elif kind == 4:
        r.zadd("zset", {"m%d" % i: i})
    elif kind == 5:
        r.expire("s:%d" % (i - 5), 1000000)  # the key the SET of operation i - 5 wrote
    elif kind == 6:
        p = r.pipeline(transaction=True)
        p.incr("mcount")
        p.set("m:%d" % i, i)
        p.execute()
    else:
        r.eval(EVAL_SCRIPT, 2, "ecount", "elist", i)


def actual_signature(r):
    sets = len(r.keys("s:*"))
    counter = int(r.get("counter") or 0)
    llen = r.llen("list")
    hlen = r.hlen("hash")
    zcard = r.zcard("zset")
    p = r.pipeline(transaction=False)
    for k in r.keys("s:*"):
        p.ttl(k)
    expires = sum(1 for t in p.execute() if t > 0)
    mcount = int(r.get("mcount") or 0)
    ecount = int(r.get("ecount") or 0)
    return (sets, counter, llen, hlen, zcard, expires, mcount, ecount)


def check_contents(r, m):
    """Every key of the matched prefix, exactly."""
    errors = []
    if [x.decode() for x in r.lrange("list", 0, -1)] != m.list:
        errors.append("list contents")
    if [x.decode() for x in r.lrange("elist", 0, -1)] != m.evals:
        errors.append("elist contents")
    if int(r.get("ecount") or 0) != len(m.evals):
        errors.append("ecount")
    if len(r.keys("m:*")) != m.multi:
        errors.append("MULTI keys vs mcount")
    for i in range(m.n):
        kind = i % KINDS
        if kind == 0 and r.get("s:%d" % i) != str(i).encode():
            errors.append("s:%d" % i)
        elif kind == 3 and r.hget("hash", "f%d" % i) != str(i).encode():
            errors.append("hash f%d" % i)
        elif kind == 4 and r.zscore("zset", "m%d" % i) != float(i):
            errors.append("zset m%d" % i)
        elif kind == 5 and r.ttl("s:%d" % (i - 5)) <= 0:
            errors.append("ttl s:%d" % (i - 5))
        if len(errors) > 5:
            break
    return errors


def fail(args, msg):
    """Exits 1 with `msg` and what explains it: the manifest, the files' sizes and the server
    log's last lines (CI keeps only the test's output, not its directory)."""
    lines = [msg]
    aof = os.path.join(args.dir, "appendonlydir")
    try:
        with open(os.path.join(aof, "appendonly.aof.manifest")) as f:
            lines.append("manifest: " + f.read().strip().replace("\n", " | "))
        lines.append("files: " + ", ".join("%s %d" % (n, os.path.getsize(os.path.join(aof, n)))
                                           for n in sorted(os.listdir(aof))))
    except OSError as e:
        lines.append("no AOF directory: %s" % e)
    try:
        with open(os.path.join(args.dir, "server.log")) as f:
            lines.append("server.log, last lines:\n" + "".join(f.readlines()[-40:]))
    except OSError:
        pass
    sys.exit("\n".join(lines))


def start_server(args):
    cmd = [args.server, "--port", str(args.port), "--bind", "127.0.0.1", "--dir", args.dir,
           "--appendonly", "yes", "--appendfsync", args.fsync, "--save", "",
           "--logfile", os.path.join(args.dir, "server.log"), "--rdb-key-save-delay", "0"]
    if args.rdb_version:
        cmd += ["--rdb-version", args.rdb_version]
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    r = redis.Redis(host="127.0.0.1", port=args.port, socket_timeout=10)
    deadline = time.time() + 20
    while True:
        try:
            if r.ping():
                break
        except redis.exceptions.BusyLoadingError:
            pass
        except redis.exceptions.ConnectionError:
            pass
        if p.poll() is not None:
            fail(args, "server exited at start-up (status %s)" % p.returncode)
        if time.time() > deadline:
            fail(args, "server did not answer PING")
        time.sleep(0.02)
    return p, r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--fsync", default="always")
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--min-ms", type=int, default=50)
    ap.add_argument("--max-ms", type=int, default=400)
    ap.add_argument("--allow-loss-sec", type=float, default=0.0)
    ap.add_argument("--rewrite", action="store_true")
    ap.add_argument("--rdb-version", default="")
    ap.add_argument("--seed", type=int, default=int(time.time()))
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    model = Model()
    total_lost = 0
    proc, r = start_server(args)
    for rnd_no in range(args.rounds):
        # Write until the kill.
        acked_times = []
        start_i = model.n
        killed = threading.Event()
        delay = rnd.randint(args.min_ms, args.max_ms) / 1000.0
        rewrite_at = delay * rnd.uniform(0.3, 0.9) if args.rewrite and rnd_no % 2 == 0 else None

        def killer():
            t0 = time.time()
            if rewrite_at is not None:
                time.sleep(rewrite_at)
                try:
                    c = redis.Redis(host="127.0.0.1", port=args.port, socket_timeout=5)
                    c.config_set("rdb-key-save-delay", "200")
                    c.bgrewriteaof()
                except redis.exceptions.RedisError:
                    pass
            time.sleep(max(0.0, delay - (time.time() - t0)))
            killed.set()
            os.kill(proc.pid, signal.SIGKILL)

        th = threading.Thread(target=killer)
        th.start()
        i = start_i
        while True:
            try:
                run_op(r, i)
            except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
                break
            acked_times.append(time.time())
            i += 1
        th.join()
        kill_time = time.time()
        proc.wait()
        acked = i  # operations [0, acked) were acknowledged
        # Restart and match the dataset to a prefix of the operations.
        proc, r = start_server(args)
        sig = actual_signature(r)
        candidates = Model()
        candidates.__dict__ = {k: (list(v) if isinstance(v, list) else v) for k, v in model.__dict__.items()}
        matched = None
        probe = candidates
        for k in range(start_i, acked + 2):
            if probe.signature() == sig:
                matched = k
                break
            if k < acked + 1:
                probe.apply(k)
        if matched is None:
            fail(args, "round %d: dataset %s is no prefix of the %d operations (acked %d, seed %d)"
                 % (rnd_no, sig, acked + 1, acked, args.seed))
        lost = max(0, acked - matched)
        lost_age = 0.0
        if lost:
            oldest_lost_ack = acked_times[matched - start_i]
            lost_age = kill_time - oldest_lost_ack
            if args.allow_loss_sec <= 0 or kill_time - oldest_lost_ack > args.allow_loss_sec:
                fail(args, "round %d: %d acknowledged writes lost (acked %d, found %d, seed %d); "
                     "dataset %s, contents against the prefix found: %s"
                     % (rnd_no, lost, acked, matched, args.seed, sig, check_contents(r, probe) or "same"))
        total_lost += lost
        errs = check_contents(r, probe)
        if errs:
            fail(args, "round %d: contents differ: %s (seed %d)" % (rnd_no, errs, args.seed))
        model = probe
        print("round %d: %d ops, acked %d, found %d, lost %d%s%s" % (
            rnd_no, acked - start_i, acked, matched, lost,
            " (acknowledged %.3f s or less before the kill)" % lost_age if lost else "",
            " (rewrite)" if rewrite_at is not None else ""))
        sys.stdout.flush()
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    print("OK %d %d %d" % (args.rounds, model.n, total_lost))


if __name__ == "__main__":
    main()
