#!/usr/bin/python3
"""Issue 21's memory-ceiling figures: Keel vs the reference redis-server, rounds interleaved.

1. SET throughput and server CPU per op at the ceiling: redis-benchmark (or keel-loadgen with
   --loadgen) SET -P 16 -c 50 of 100-byte values over 10M random keys, with no ceiling, and with
   `maxmemory` (default 64 MB) under allkeys-lru and allkeys-lfu. Each ceiling run is preceded
   by a warm-up that fills the server up to the ceiling, so every measured SET evicts. CPU per
   op from utime+stime in /proc/PID/stat over the measured run. Ratios: ceiling vs no ceiling
   (per server) and Keel vs reference.
2. Hit rate of a cache workload: GET of a Zipf(0.99) key over N keys (default 1M, 100-byte
   values); a miss is followed by a SET of the key (cache-aside). maxmemory is set so that 10%
   of the dataset fits: the memory of all N keys is measured first on the same server (used
   memory with all of them minus used memory empty). Warm-up requests, then hit rate over the
   measured requests, for allkeys-lru and allkeys-lfu.
3. The event loop's longest stall while a 10M-element set is freed: a pinger thread sends a PING
   every ~0.5 ms on its own connection and records the worst round trip while the main thread
   sends UNLINK (and, for comparison, DEL) of the set. With two CPUs both servers run their
   main thread on CPU 0 (taskset) and their background threads on CPU 1 (`bio_cpulist 1`,
   which both Redis 7 and Keel honour), so the background free competes with the load generator
   side, not with the loop it is meant to spare.

Run by the lead (the figures need a quiet machine); `--quick` shrinks everything for a smoke
run. Servers bind 127.0.0.1 only.

    python3 utils/bench/evict.py [--quick] [--rounds 3] [--keel src/keel-server]
                                 [--reference /usr/bin/redis-server] [--groups ceiling,hitrate,stall]
"""
import argparse, bisect, os, random, socket, statistics, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402  (utils/bench/bench.py: Server, bench(), cpu_ticks, CLK, LOADGEN)


class Conn:
    """A minimal pipelining RESP client (replies: simple, error, integer, bulk; no arrays)."""

    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    @staticmethod
    def encode(args):
        out = [b"*%d\r\n" % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b"$%d\r\n%s\r\n" % (len(a), a))
        return b"".join(out)

    def _line(self):
        while b"\r\n" not in self.buf:
            chunk = self.s.recv(1 << 16)
            if not chunk:
                raise SystemExit("connection closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def read(self):
        line = self._line()
        if line[:1] == b"$":
            n = int(line[1:])
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.s.recv(1 << 16)
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        if line[:1] == b"-":
            return RuntimeError(line[1:].decode())
        return line[1:]

    def pipeline(self, cmds):
        self.s.sendall(b"".join(self.encode(c) for c in cmds))
        return [self.read() for _ in cmds]

    def call(self, *args):
        return self.pipeline([args])[0]


def used_memory(srv):
    return srv.info("used_memory")


def stat(srv, field):
    for line in srv.cli("INFO", "stats").splitlines():
        if line.startswith(field + ":"):
            return int(line.split(":")[1])
    return 0


# ---- 1. SET at the ceiling -----------------------------------------------------------------

def ceiling_row(srv, policy, maxmemory, n, client_pin, tool):
    srv.cli("CONFIG", "SET", "maxmemory", "0")
    srv.cli("FLUSHALL")
    args = ["-c", "50", "-P", "16", "-r", "10000000", "-d", "100", "-t", "set"]
    if policy != "none":
        srv.cli("CONFIG", "SET", "maxmemory-policy", policy)
        srv.cli("CONFIG", "SET", "maxmemory", str(maxmemory))
        # Warm-up until the ceiling is reached: every measured SET then evicts.
        while stat(srv, "evicted_keys") == 0:
            bench.bench(srv, args + ["-n", str(max(n // 4, 10000))], client_pin)
    t0, w0 = bench.cpu_ticks(srv.proc.pid), time.monotonic()
    r = bench.bench(srv, args + ["-n", str(n)], client_pin, tool)
    t1, w1 = bench.cpu_ticks(srv.proc.pid), time.monotonic()
    rows = [l for l in r.stdout.splitlines() if l.startswith('"') and not l.startswith('"test"')]
    if not rows:
        raise SystemExit(f"load generator failed on {srv.name}: {r.stdout} {r.stderr}")
    rps = float(rows[-1].split('","')[1].strip('"'))
    cpu_us = (t1 - t0) / bench.CLK * 1e6 / n
    over = used_memory(srv) - maxmemory if policy != "none" else 0
    srv.cli("CONFIG", "SET", "maxmemory", "0")
    return rps, cpu_us, over, w1 - w0


def run_ceiling(keel, ref, rounds, quick, maxmemory, client_pin, tool):
    n = 200000 if quick else 3000000
    print(f"\n== SET -P16 -c50, 100 B values, 10M random keys; ceiling {maxmemory >> 20} MB "
          f"({tool}, {n} requests, median of {rounds})")
    print(f"{'policy':<14} {'server':<10} {'ops/s':>12} {'CPU us/op':>10} {'used-max MB':>12} "
          f"{'vs none':>8}")
    policies = ("none", "allkeys-lru", "allkeys-lfu")
    results = {(policy, srv.name): [] for policy in policies for srv in (keel, ref)}
    # Every round measures every policy on both servers, so a drift of the machine during the
    # run moves the "vs none" ratios' two sides alike.
    for _ in range(rounds):
        for policy in policies:
            for srv in (keel, ref):
                results[(policy, srv.name)].append(ceiling_row(srv, policy, maxmemory, n, client_pin, tool))
    for policy in policies:
        for srv in (keel, ref):
            rs = results[(policy, srv.name)]
            rps = statistics.median(r[0] for r in rs)
            cpu = statistics.median(r[1] for r in rs)
            over = max(r[2] for r in rs) / 1e6
            base = statistics.median(r[0] for r in results[("none", srv.name)])
            print(f"{policy:<14} {srv.name:<10} {rps:>12.0f} {cpu:>10.3f} {over:>12.2f} {rps / base:>8.2f}")
        k = statistics.median(r[1] for r in results[(policy, keel.name)])
        r_ = statistics.median(r[1] for r in results[(policy, ref.name)])
        print(f"{'':<14} {'keel/ref':<10} {'':>12} {k / r_:>10.2f}")


# ---- 2. Zipf hit rate ------------------------------------------------------------------------

class Zipf:
    """Zipf(s) over ranks 1..n by inverse CDF (bisect over the cumulative weights)."""

    def __init__(self, n, s, seed):
        acc, self.cdf = 0.0, []
        for k in range(1, n + 1):
            acc += 1.0 / (k ** s)
            self.cdf.append(acc)
        self.total = acc
        self.rng = random.Random(seed)
        # Ranks map to key names through a fixed permutation so hot keys are not adjacent.
        self.perm = list(range(n))
        self.rng.shuffle(self.perm)

    def sample(self):
        return self.perm[bisect.bisect_left(self.cdf, self.rng.random() * self.total)]


def hitrate_row(srv, policy, n_keys, requests, warmup, value):
    srv.cli("CONFIG", "SET", "maxmemory", "0")
    srv.cli("FLUSHALL")
    c = Conn(srv.port)
    empty = used_memory(srv)
    for i in range(0, n_keys, 1000):
        c.pipeline([("SET", f"key:{k}", value) for k in range(i, min(i + 1000, n_keys))])
    full = used_memory(srv)
    srv.cli("FLUSHALL")
    maxmemory = empty + (full - empty) // 10
    srv.cli("CONFIG", "SET", "maxmemory-policy", policy)
    srv.cli("CONFIG", "SET", "maxmemory", str(maxmemory))
    z = Zipf(n_keys, 0.99, seed=21)
    hits = gets = 0
    batch = 100
    done = 0
    while done < warmup + requests:
        keys = [f"key:{z.sample()}" for _ in range(batch)]
        replies = c.pipeline([("GET", k) for k in keys])
        misses = [k for k, r in zip(keys, replies) if r is None]
        if misses:
            c.pipeline([("SET", k, value) for k in misses])
        if done >= warmup:
            gets += len(keys)
            hits += len(keys) - len(misses)
        done += batch
    srv.cli("CONFIG", "SET", "maxmemory", "0")
    return hits / gets, maxmemory


def run_hitrate(keel, ref, rounds, quick):
    n_keys = 20000 if quick else 1000000
    requests = 50000 if quick else 3000000
    warmup = requests // 3
    value = b"v" * 100
    print(f"\n== Zipf(0.99) GET, SET on miss; {n_keys} keys of 100 B, 10% fit in memory; "
          f"{requests} measured requests after {warmup} warm-up (median of {rounds})")
    print(f"{'policy':<14} {'server':<10} {'hit rate':>9} {'maxmemory':>12}")
    for policy in ("allkeys-lru", "allkeys-lfu"):
        rates = {keel.name: [], ref.name: []}
        mm = {}
        for _ in range(rounds):
            for srv in (keel, ref):
                h, mm[srv.name] = hitrate_row(srv, policy, n_keys, requests, warmup, value)
                rates[srv.name].append(h)
        for srv in (keel, ref):
            print(f"{policy:<14} {srv.name:<10} {statistics.median(rates[srv.name]):>9.4f} {mm[srv.name]:>12}")


# ---- 3. The loop's longest stall while a big set is freed ---------------------------------

def stall_row(srv, members, command):
    srv.cli("CONFIG", "SET", "maxmemory", "0")
    srv.cli("FLUSHALL")
    c = Conn(srv.port)
    chunk = 5000
    for start in range(0, members, chunk * 100):
        script = ("local t = {} local base = tonumber(ARGV[1]) local n = tonumber(ARGV[2]) "
                  "for b = 0, 99 do local m = 0 for i = 1, 5000 do local v = base + b * 5000 + i "
                  "if v <= n then m = m + 1 t[m] = v end end "
                  "if m > 0 then for j = m + 1, #t do t[j] = nil end redis.call('sadd', KEYS[1], unpack(t)) end end "
                  "return 1")
        c.call("EVAL", script, 1, "big", start, members)
    assert int(c.call("SCARD", "big")) == members
    worst = [0.0]
    stop = threading.Event()

    def pinger():
        # A PING every ~0.5 ms rather than back to back: a pinger that never sleeps is a CPU
        # hog the scheduler time-slices against the background free on the same CPU, and its
        # round trips then measure the scheduler, not the server's loop.
        p = Conn(srv.port)
        while not stop.is_set():
            t = time.perf_counter()
            p.call("PING")
            worst[0] = max(worst[0], time.perf_counter() - t)
            time.sleep(0.0005)

    th = threading.Thread(target=pinger)
    th.start()
    time.sleep(0.2)
    worst[0] = 0.0
    t = time.perf_counter()
    c.call(command, "big")
    reply_ms = (time.perf_counter() - t) * 1e3
    time.sleep(2.0)  # the background free, if any, runs meanwhile
    stop.set()
    th.join()
    return worst[0] * 1e3, reply_ms


def run_stall(keel, ref, rounds, quick):
    members = 200000 if quick else 10000000
    print(f"\n== longest PING round trip while a {members}-member set is freed (max of {rounds})")
    print(f"{'command':<8} {'server':<10} {'worst PING ms':>14} {'reply ms':>9}")
    for command in ("UNLINK", "DEL"):
        for srv in (keel, ref):
            rows = [stall_row(srv, members, command) for _ in range(rounds)]
            print(f"{command:<8} {srv.name:<10} {max(r[0] for r in rows):>14.3f} {max(r[1] for r in rows):>9.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keel", default=os.path.join(bench.ROOT, "src/keel-server"))
    ap.add_argument("--reference", default="/usr/bin/redis-server")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="tiny sizes: a smoke run")
    ap.add_argument("--groups", default="ceiling,hitrate,stall")
    ap.add_argument("--maxmemory-mb", type=int, default=64)
    ap.add_argument("--loadgen", action="store_true", help="keel-loadgen instead of redis-benchmark")
    a = ap.parse_args()
    ncpu = os.cpu_count() or 1
    pin, client_pin = (0, 1) if ncpu >= 2 else (None, None)
    rounds = 1 if a.quick else a.rounds
    extra = ["--bio_cpulist", str(client_pin)] if client_pin is not None else []
    keel = bench.Server("keel", a.keel, pin, extra)
    ref = bench.Server("redis", a.reference, pin, extra)
    try:
        groups = a.groups.split(",")
        if "ceiling" in groups:
            tool = "loadgen" if a.loadgen and os.path.exists(bench.LOADGEN) else "redis-benchmark"
            mm = (8 if a.quick else a.maxmemory_mb) << 20
            run_ceiling(keel, ref, rounds, a.quick, mm, client_pin, tool)
        if "hitrate" in groups:
            run_hitrate(keel, ref, rounds, a.quick)
        if "stall" in groups:
            run_stall(keel, ref, rounds, a.quick)
    finally:
        keel.stop()
        ref.stop()


if __name__ == "__main__":
    main()
