#!/usr/bin/python3
"""Side-by-side benchmark: Keel vs a reference redis-server, interleaved (A B A B ...).

For each workload it runs redis-benchmark against both servers in alternation (at least 3
rounds by default), then prints the median throughput, p50/p99 latency, server CPU time per
operation (utime+stime of the server process from /proc/PID/stat over the measured run,
divided by its requests), how busy the server's core was over the run (near 100%: the server
was the bottleneck; well below: the client was) and the Keel/reference ratios; a CSV copy goes
to utils/bench/out/. Workloads named "... loadgen" use build/keel-loadgen (loadgen.cc) instead
of redis-benchmark: it spends much less CPU per request, so the server saturates first.
Servers bind 127.0.0.1 only; with two or more cores the servers share core 0 (only one is
loaded at a time) and the client runs on core 1. Every run starts with this machine's costs
(utils/bench/calibrate.c: an empty system call, a small loopback send by write() and by
io_uring, a page fault, a copy-on-write fault), printed and kept in the CSV.

Groups: throughput (-P 16 and -P 1 workloads), prefetch (Keel with batch prefetch on and off:
miss-heavy GETs on a large keyspace, plain GET/SET on 1M keys, SADD/HSET into one big value for
the member stage), seed (the sets issue's SREM and ZREMRANGEBYLEX regression workload on
prefilled sets/zsets), notify, memory (bytes per key), and, only when asked for
(`--groups persistence`: long, and it holds two 10M-key servers), persistence: RDB SAVE and load
times, file sizes, BGSAVE fork time, copy-on-write and SET throughput during BGSAVE
(utils/bench/persistence.py); aof (utils/bench/aof.py) and repl (utils/bench/repl.py: master
writes with and without a replica, replication lag, full sync times) likewise on request.
"""
import argparse, csv, os, random, re, shutil, socket, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import persistence  # noqa: E402  (utils/bench/persistence.py)
import aof  # noqa: E402  (utils/bench/aof.py)
import repl  # noqa: E402  (utils/bench/repl.py)
import datatypes  # noqa: E402  (utils/bench/datatypes.py)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLK = os.sysconf("SC_CLK_TCK")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def cpu_ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return int(parts[11]) + int(parts[12])  # utime + stime


class Server:
    PING_REPLY = "PONG"  # what redis-cli prints for PING once the server is up

    def __init__(self, name, binary, pin, extra=(), wrap=()):
        self.name, self.binary = name, binary
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix=f"bench-{name}-")
        cmd = list(wrap) + self.command_line(extra)
        if pin is not None and shutil.which("taskset"):
            cmd = ["taskset", "-c", str(pin)] + cmd
        self.proc = subprocess.Popen(cmd, stdout=open(os.path.join(self.dir, "log"), "w"),
                                     stderr=subprocess.STDOUT)
        for _ in range(600):
            if self.cli("PING") == self.PING_REPLY:
                return
            time.sleep(0.05)
        raise SystemExit(f"{name} did not start; see {self.dir}/log")

    def command_line(self, extra):
        return [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", self.dir, "--enable-debug-command", "yes",
                *extra]

    def cli(self, *args):
        r = subprocess.run(["redis-cli", "-p", str(self.port)] + [str(a) for a in args],
                           capture_output=True, text=True)
        return r.stdout.strip()

    def info(self, field):
        for line in self.cli("INFO", "memory").splitlines():
            if line.startswith(field + ":"):
                return int(line.split(":")[1])
        return 0

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)


LOADGEN = os.path.join(ROOT, "build/keel-loadgen")
NULLSERVER = os.path.join(ROOT, "build/keel-nullserver")


class NullServer(Server):
    """utils/bench/nullserver.cc: +OK to every command, nothing else. Its CPU per op in the same
    rounds is the floor of a row (what the socket I/O alone costs); `plain` gives Redis's I/O
    shape (a read and a write per client), otherwise Keel's (io_uring batches); `aof` appends
    each iteration's input to a file in its directory before the replies."""

    PING_REPLY = "OK"

    def __init__(self, name, pin, plain=False, aof=False):
        self.plain, self.aof = plain, aof
        super().__init__(name, NULLSERVER, pin)

    def command_line(self, extra):
        aof = ["--aof", os.path.join(self.dir, "null.aof")] if self.aof else []
        return [self.binary] + (["--plain"] if self.plain else []) + aof + [str(self.port)]


def bench(srv, args, client_pin, tool="redis-benchmark"):
    """Runs the load generator: redis-benchmark, or keel-loadgen (utils/bench/loadgen.cc, the
    same CSV output) where redis-benchmark's own CPU would be the limit."""
    exe = LOADGEN if tool == "loadgen" else "redis-benchmark"
    cmd = [exe, "-p", str(srv.port), "--csv"] + ([] if tool == "loadgen" else ["-q"]) + args
    if client_pin is not None and shutil.which("taskset"):
        cmd = ["taskset", "-c", str(client_pin)] + cmd
    return subprocess.run(cmd, capture_output=True, text=True)


def run_workload(srv, wl, client_pin):
    if wl.get("flush", True):
        srv.cli("FLUSHALL")
    for cmd in wl.get("setup", []):
        srv.cli(*cmd)
    if "prep" in wl:
        bench(srv, wl["prep"], client_pin)
    t0, w0 = cpu_ticks(srv.proc.pid), time.monotonic()
    r = bench(srv, wl["args"], client_pin, wl.get("tool", "redis-benchmark"))
    if "after" in wl:
        wl["after"]()  # e.g. wait until a subscriber has everything (counted in the CPU time)
    t1, w1 = cpu_ticks(srv.proc.pid), time.monotonic()
    rows = [l for l in r.stdout.splitlines() if l.startswith('"') and not l.startswith('"test"')]
    if (not rows or r.returncode != 0 or "error" in r.stdout.lower()
            or "error" in r.stderr.lower()):
        raise SystemExit(f"{wl.get('tool', 'redis-benchmark')} failed on {srv.name}: "
                         f"{r.stdout} {r.stderr}")
    f = [x.strip('"') for x in rows[-1].split('","')]
    rps = float(f[1])
    p50 = float(f[4]) if len(f) > 6 else float("nan")
    p99 = float(f[6]) if len(f) > 6 else float("nan")
    busy = 100 * (t1 - t0) / CLK / (w1 - w0)  # server CPU %: near 100 means server-bound
    return rps, p50, p99, (t1 - t0) / CLK * 1e6 / wl["n"], busy


def throughput_workloads(quick):
    n = 100000 if quick else 2000000
    n1 = 30000 if quick else 400000
    P = ["-c", "50", "-P", "16", "-r", "1000000", "-n", str(n)]
    v64 = "x" * 64
    wl = []
    for t in ["ping_mbulk", "set", "get", "incr", "lpush", "sadd", "hset", "zadd", "mset"]:
        wl.append({"name": f"{t.upper()} -P16", "args": P + ["-t", t], "n": n})
    # Pops and ranges measure on a structure the same tool filled first (not timed).
    wl.append({"name": "RPOP -P16", "prep": P + ["-t", "lpush"], "args": P + ["-t", "rpop"], "n": n,
               "prep_scales": True})
    wl.append({"name": "SPOP -P16", "prep": P + ["-t", "sadd"], "args": P + ["-t", "spop"], "n": n,
               "prep_scales": True})
    wl.append({"name": "ZPOPMIN -P16", "prep": P + ["-t", "zadd"], "args": P + ["-t", "zpopmin"],
               "n": n, "prep_scales": True})
    nl = n // 10
    wl.append({"name": "LRANGE_100 -P16", "prep": P + ["-t", "lpush"],
               "args": ["-c", "50", "-P", "16", "-n", str(nl), "-t", "lrange_100"], "n": nl})
    wl.append({"name": "SET 64B bench:set -P16", "n": n,
               "args": P + ["SET", "bench:set:__rand_int__", v64]})
    wl.append({"name": "DEL bench:set -P16", "n": n,
               "prep": P + ["SET", "bench:set:__rand_int__", v64],
               "args": P + ["DEL", "bench:set:__rand_int__"]})
    for t in ["set", "get"]:
        wl.append({"name": f"{t.upper()} -P1", "n": n1,
                   "args": ["-c", "50", "-P", "1", "-r", "1000000", "-n", str(n1), "-t", t]})
    # The same shapes from keel-loadgen, which needs far less CPU per request than
    # redis-benchmark: here the server, not the client, is the saturated side (see the
    # "server busy" column), so these rows show which server is faster at -P 1.
    for t in ["set", "get"]:
        wl.append({"name": f"{t.upper()} -P1 loadgen", "n": n1, "tool": "loadgen",
                   "args": ["-c", "50", "-P", "1", "-r", "1000000", "-n", str(n1), "-t", t]})
    for t in ["ping", "set", "get"]:
        wl.append({"name": f"{t.upper()} -P16 loadgen", "n": n, "tool": "loadgen",
                   "args": ["-c", "50", "-P", "16", "-r", "1000000", "-n", str(n), "-t", t]})
    return wl


def measure(servers, wl, rounds, client_pin):
    res = {s.name: [] for s in servers}
    for _ in range(rounds):
        for s in servers:
            res[s.name].append(run_workload(s, wl, client_pin))
    med = {k: [statistics.median(x[i] for x in v) for i in range(5)] for k, v in res.items()}
    return med


def with_requests(args, n):
    """args with the value after "-n" replaced by n."""
    args = list(args)
    args[args.index("-n") + 1] = str(n)
    return args


def fit_duration(servers, wl, client_pin, seconds):
    """A copy of wl whose measured run lasts about `seconds` on the slower server (the issue
    asks 5-10 s per run; a fixed request count gives a fast server sub-second runs): a pilot of
    a tenth of the requests on each server measures the rates. A prep that the run consumes
    (pops: "prep_scales") grows with it; other preps only fill a keyspace and stay as they are."""
    pilot_n = max(10000, wl["n"] // 10)
    pilot = dict(wl, n=pilot_n, args=with_requests(wl["args"], pilot_n))
    if wl.get("prep_scales"):
        pilot["prep"] = with_requests(wl["prep"], pilot_n)
    rate = min(run_workload(s, pilot, client_pin)[0] for s in servers)
    n = max(10000, int(rate * seconds))
    out = dict(wl, n=n, args=with_requests(wl["args"], n))
    if wl.get("prep_scales"):
        out["prep"] = with_requests(wl["prep"], n)
    return out


def side_by_side(keel, ref, wl, rounds, client_pin, rows, seconds=0, floors=()):
    """One workload on both servers, interleaved: prints and records the medians and ratios.
    With seconds > 0 the request count is first fitted to that run length (fit_duration).
    Each of `floors` (NullServer) runs in the same rounds: a row "<name> floor <server>" with
    its figures in the Keel columns against the reference's."""
    if seconds > 0:
        wl = fit_duration([keel, ref], wl, client_pin, seconds)
    m = measure([keel, ref] + list(floors), wl, rounds, client_pin)
    r = m["reference"]
    labels = [(keel.name, wl["name"])] + [(f.name, f"{wl['name']} floor {f.name}") for f in floors]
    for name, label in labels:
        k = m[name]
        row = [label, k[0], r[0], k[0] / r[0], k[1], r[1], k[2], r[2], k[3], r[3],
               k[3] / r[3] if r[3] else float("nan"), k[4], r[4], wl["n"]]
        rows.append(row)
        print("%-24s keel %9.0f ref %9.0f rps x%.2f | p50 %.3f/%.3f p99 %.3f/%.3f ms | "
              "cpu/op %.3f/%.3f us x%.2f | server busy %.0f%%/%.0f%% | n %d" % tuple(row), flush=True)


def load_pipe(srv, count, make):
    """Loads make(0..count-1) (each a command as a list of str/bytes) with `redis-cli --pipe`."""
    data = bytearray()
    for i in range(count):
        args = make(i)
        data += b"*%d\r\n" % len(args)
        for x in args:
            x = x.encode() if isinstance(x, str) else x
            data += b"$%d\r\n%s\r\n" % (len(x), x)
    r = subprocess.run(["redis-cli", "-p", str(srv.port), "--pipe"], input=bytes(data),
                       capture_output=True)
    if b"errors: 0" not in r.stdout:
        raise SystemExit(f"--pipe load failed on {srv.name}: {r.stdout!r}")


def seed_commands(n_keys):
    """The sets issue's seed regression data: n_keys sets of 15-199 random 50-byte members plus
    test_set (value_set:0..N), n_keys zsets of 100-199 members plus test_zadd1 (sortset0..N).
    A fixed RNG seed, so both servers get the same keys."""
    rng = random.Random(20261130)
    member = lambda: "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(50))
    cmds = []
    for i in range(n_keys):
        cmds.append(["SADD", f"seed:set:{i}"] + [member() for _ in range(rng.randint(15, 199))])
    cmds.append(["SADD", "test_set"] + [f"value_set:{j}" for j in range(rng.randint(160, 299) + 1)])
    for i in range(n_keys):
        zs = []
        for _ in range(rng.randint(100, 199)):
            zs += [repr(rng.uniform(0, 1000)), member()]
        cmds.append(["ZADD", f"seed:zset:{i}"] + zs)
    zs = []
    for j in range(rng.randint(160, 299) + 1):  # one score: a lexicographic range is defined
        zs += ["0", f"sortset{j}"]
    cmds.append(["ZADD", "test_zadd1"] + zs)
    return cmds


def compare_setting(keel, ref, directive, values, workloads, rounds, client_pin, rows):
    """Keel with each value of a config directive, and the reference, interleaved per round.
    values[0] is the default; it is restored afterwards. Prints and records value 0 vs value 1
    and Keel (default) vs reference."""
    for wl in workloads:
        res = {}
        for _ in range(rounds):
            for v in values:
                keel.cli("CONFIG", "SET", directive, v)
                res.setdefault(v, []).append(run_workload(keel, wl, client_pin))
            res.setdefault("ref", []).append(run_workload(ref, wl, client_pin))
        keel.cli("CONFIG", "SET", directive, values[0])
        med = {k: [statistics.median(x[i] for x in v) for i in range(4)] for k, v in res.items()}
        on, off, rf = med[values[0]], med[values[1]], med["ref"]
        print(f"{wl['name']}: keel {directive} {values[0]}: {on[0]:.0f} rps {on[3]:.3f} us/op; "
              f"{values[1]}: {off[0]:.0f} rps {off[3]:.3f} us/op (throughput "
              f"{100 * (on[0] / off[0] - 1):+.1f}%, cpu/op {100 * (on[3] / off[3] - 1):+.1f}%); "
              f"reference {rf[0]:.0f} rps {rf[3]:.3f} us/op (keel x{on[0] / rf[0]:.2f}, "
              f"cpu x{on[3] / rf[3]:.2f})", flush=True)
        rows.append([f"{wl['name']} {directive} {values[0]}/{values[1]}", on[0], off[0],
                     on[0] / off[0], on[1], off[1], on[2], off[2], on[3], off[3], on[3] / off[3]])
        rows.append([f"{wl['name']} keel/ref", on[0], rf[0], on[0] / rf[0], on[1], rf[1], on[2],
                     rf[2], on[3], rf[3], on[3] / rf[3]])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keel", default=os.path.join(ROOT, "src/keel-server"))
    ap.add_argument("--reference", default="/usr/bin/redis-server")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="small runs, under 2 minutes")
    ap.add_argument("--only", default="", help="regular expression on workload names (case-insensitive)")
    ap.add_argument("--groups", default="throughput,seed,prefetch,notify,memory",
                    help="comma-separated; also: types (streams, HLL, geo, SORT: "
                         "utils/bench/datatypes.py), persistence and aof (utils/bench/aof.py: "
                         "writes with appendfsync everysec/always, rewrite and load times), repl "
                         "(utils/bench/repl.py: writes with one replica, lag, full sync times); "
                         "persistence, aof and repl run on their own servers")
    ap.add_argument("--rdb-keys", type=int, default=0,
                    help="persistence and aof: DEBUG POPULATE size (default 10M, --quick 1M)")
    ap.add_argument("--keys", type=int, default=0,
                    help="repl: full sync DEBUG POPULATE size (default 10M, --quick 1M)")
    ap.add_argument("--requests", type=int, default=0,
                    help="repl: requests per write run (default 2M, --quick 200k)")
    ap.add_argument("--rdb-small-keys", type=int, default=0,
                    help="persistence: small hashes/sets/zsets (default 1M, --quick 100k)")
    ap.add_argument("--seconds", type=float, default=6,
                    help="throughput and seed runs: requests fitted to this many seconds on the "
                         "slower server (0: the fixed counts; --quick uses the fixed counts)")
    a = ap.parse_args()
    pin = (0, 1) if (os.cpu_count() or 1) >= 2 else (None, None)
    groups = a.groups.split(",")
    seconds = 0 if a.quick else a.seconds
    rows = []
    calibrate(rows)
    if set(groups) <= {"persistence", "aof", "repl"}:  # their own servers, one dataset at a time
        if "persistence" in groups:
            persistence.run(a.keel, a.reference, LOADGEN, pin, a.rounds, a.quick, rows,
                            a.rdb_keys, a.rdb_small_keys)
        if "aof" in groups:
            aof.run(a.keel, a.reference, sys.modules[__name__], LOADGEN, pin, a.rounds, a.quick,
                    rows, a.only, a.rdb_keys)
        if "repl" in groups:
            repl.run(a.keel, a.reference, sys.modules[__name__], pin, a.rounds, a.quick, rows,
                     a.only, a.keys or a.rdb_keys, a.requests)
        write_csv(rows)
        return
    keel = Server("keel", a.keel, pin[0])
    ref = Server("reference", a.reference, pin[0])
    try:
        if "throughput" in groups:
            for wl in throughput_workloads(a.quick):
                if a.only and not re.search(a.only, wl["name"], re.I):
                    continue
                side_by_side(keel, ref, wl, a.rounds, pin[1], rows, seconds)
        if "prefetch" in groups:
            # Batch key prefetch on (the default, 16) vs off: miss-heavy GETs on a large keyspace,
            # then plain pipelined GET (hits) and SET (overwrites) on 1M keys.
            keys = 300000 if a.quick else 5000000
            n = 300000 if a.quick else 5000000
            for s in (keel, ref):
                s.cli("FLUSHALL")
                s.cli("DEBUG", "POPULATE", keys, "key", 100)
            miss = {"name": f"GET miss -P32 ({keys} keys)", "flush": False, "n": n,
                    "args": ["-c", "50", "-P", "32", "-r", "100000000", "-n", str(n),
                             "GET", "miss:__rand_int__"]}
            compare_setting(keel, ref, "prefetch-batch-max-size", [16, 0], [miss], a.rounds,
                            pin[1], rows)
            n = 200000 if a.quick else 2000000
            P = ["-c", "50", "-P", "16", "-r", "1000000", "-n", str(n)]
            fill = "500000" if a.quick else "3000000"
            for s in (keel, ref):  # key:000000xxxxxx, about 95% of the 1M names (quick: 39%)
                s.cli("FLUSHALL")
                bench(s, ["-c", "50", "-P", "16", "-r", "1000000", "-n", fill, "-t", "set"],
                      pin[1])
            plain = [{"name": f"{t.upper()} -P16 (1M keys)", "flush": False, "n": n,
                      "args": P + ["-t", t]} for t in ("get", "set")]
            compare_setting(keel, ref, "prefetch-batch-max-size", [16, 0], plain, a.rounds,
                            pin[1], rows)
            # The member stage: SADD / HSET into one big set / hash (filled by the same command
            # first, not timed), where the misses are in the member table, not the key table.
            members = [{"name": f"{t.upper()} -P16 (one big value)", "n": n, "prep": P + ["-t", t],
                        "args": P + ["-t", t]} for t in ("sadd", "hset")]
            compare_setting(keel, ref, "prefetch-batch-max-size", [16, 0], members, a.rounds,
                            pin[1], rows)
        if "seed" in groups:
            # The sets issue's seed regression workload: SREM of 8 members (present only on the
            # first call) and an empty-after-first ZREMRANGEBYLEX, 50 deep, on prefilled data.
            cmds = seed_commands(1000 if a.quick else 10000)
            n = 100000 if a.quick else 1000000
            P = ["-c", "50", "-P", "50", "-n", str(n)]
            wls = [{"name": "seed SREM test_set -P50", "flush": False, "n": n, "args": P + [
                        "SREM", "test_set", "value_set:159", "value_set:1", "value_set:91",
                        "value_set:72", "value_set:134", "value_set:13", "value_set:93",
                        "value_set:3"]},
                   {"name": "seed ZREMRANGEBYLEX test_zadd1 -P50", "flush": False, "n": n,
                    "args": P + ["ZREMRANGEBYLEX", "test_zadd1", "[sortset105", "[sortset146"]}]
            for s in (keel, ref):  # each workload touches only its own key
                s.cli("FLUSHALL")
                load_pipe(s, len(cmds), lambda i: cmds[i])
            for wl in wls:
                side_by_side(keel, ref, wl, a.rounds, pin[1], rows, seconds)
        if "notify" in groups:
            # Keyspace notification overhead (issue 5): SET and DEL with notifications off, then
            # with KE$g and one PSUBSCRIBE __key*__:* subscriber reading everything (a raw socket
            # reader pinned to the client core, see subscriber.py; it checks it received bytes).
            # The pubsub output limit is lifted on both servers so the subscriber stays connected.
            # Off and on alternate inside every round, so drift hits both modes alike.
            n = 100000 if a.quick else 1000000
            v64 = "x" * 64
            P = ["-c", "50", "-P", "16", "-r", "1000000", "-n", str(n)]
            cases = [("SET", P + ["SET", "bench:set:__rand_int__", v64], None),
                     ("DEL", P + ["DEL", "bench:set:__rand_int__"],
                      P + ["SET", "bench:set:__rand_int__", v64])]
            sub_cmd = [os.path.join(ROOT, "utils/bench/subscriber.py")]
            if pin[1] is not None and shutil.which("taskset"):
                sub_cmd = ["nice", "-n", "19", "taskset", "-c", str(pin[1]), "/usr/bin/python3"] + sub_cmd
            res = {}
            marker = "bench-drained-marker"
            for _ in range(a.rounds):
                for srv in (keel, ref):
                    srv.cli("CONFIG", "SET", "client-output-buffer-limit", "pubsub 0 0 0")
                    for name, args, prep in cases:
                        for mode in ("off", "on"):
                            # The prep fills keys with notifications off; a subscriber then sees
                            # only the measured run, and the run ends (for the CPU figure) when
                            # the subscriber has read every message it caused.
                            srv.cli("CONFIG", "SET", "notify-keyspace-events", "")
                            srv.cli("FLUSHALL")
                            if prep:
                                bench(srv, prep, pin[1])
                            wl = {"name": name, "args": args, "n": n, "flush": False}
                            sub = None
                            if mode == "on":
                                srv.cli("CONFIG", "SET", "notify-keyspace-events", "KE$g")
                                sub = subprocess.Popen(sub_cmd + [str(srv.port), "__key*__:*", marker],
                                                       stdout=subprocess.PIPE, text=True)
                                time.sleep(0.3)

                                def drained(srv=srv, sub=sub):
                                    srv.cli("PUBLISH", "__keybench__:end", marker)
                                    line = sub.stdout.readline()
                                    if not line.startswith("drained") or int(line.split()[1]) < n:
                                        raise SystemExit(f"subscriber on {srv.name}: {line!r}")
                                wl["after"] = drained
                            res.setdefault((srv.name, mode, name), []).append(
                                run_workload(srv, wl, pin[1]))
                            if sub:
                                sub.terminate()
                                sub.wait()
                            srv.cli("CONFIG", "SET", "notify-keyspace-events", "")
            for name in ("SET", "DEL"):
                for srv in ("keel", "reference"):
                    off = [statistics.median(x[i] for x in res[(srv, "off", name)]) for i in (0, 3)]
                    on = [statistics.median(x[i] for x in res[(srv, "on", name)]) for i in (0, 3)]
                    loss = 100 * (1 - on[0] / off[0])
                    print(f"notify {name:3} {srv:9}: off {off[0]:9.0f} rps {off[1]:.2f} us/op, "
                          f"KE$g+subscriber {on[0]:9.0f} rps {on[1]:.2f} us/op, loss {loss:5.1f}% "
                          f"(cpu/op +{100 * (on[1] / off[1] - 1):.1f}%)")
                    rows.append([f"notify {name} {srv} loss%", off[0], on[0], loss, "", "", "", "",
                                 off[1], on[1], on[1] / off[1]])
        if "memory" in groups:
            # Bytes per key for 1M (quick: 100k) keys of each kind, each kind on fresh servers so
            # RSS reflects only those keys. Strings come from DEBUG POPULATE; the small
            # collections (5 fields / members each: listpack hashes, intset sets, listpack zsets
            # in both servers) are loaded with `redis-cli --pipe`.
            keys = 100000 if a.quick else 1000000

            kinds = [
                ("100-byte strings", lambda srv: srv.cli("DEBUG", "POPULATE", keys, "key", 100)),
                ("hashes of 5 fields", lambda srv: load_pipe(srv, keys, lambda i: [
                    "HSET", f"hash:{i}"] + [x for j in range(5) for x in (f"field{j}", f"value{j}")])),
                ("sets of 5 ints", lambda srv: load_pipe(srv, keys, lambda i: [
                    "SADD", f"set:{i}"] + [str(1000 + j) for j in range(5)])),
                ("zsets of 5 members", lambda srv: load_pipe(srv, keys, lambda i: [
                    "ZADD", f"zset:{i}"] + [x for j in range(5) for x in (str(j), f"member{j}")])),
            ]
            for label, load in kinds:
                keel.stop()
                ref.stop()
                keel = Server("keel", a.keel, pin[0])
                ref = Server("reference", a.reference, pin[0])
                per = {}
                for srv in (keel, ref):
                    u0, r0 = srv.info("used_memory"), srv.info("used_memory_rss")
                    load(srv)
                    time.sleep(0.5)
                    u1, r1 = srv.info("used_memory"), srv.info("used_memory_rss")
                    per[srv.name] = ((u1 - u0) / keys, (r1 - r0) / keys)
                k, r = per["keel"], per["reference"]
                print(f"memory per key ({keys} {label}): used_memory keel {k[0]:.1f} B "
                      f"ref {r[0]:.1f} B (x{k[0] / r[0]:.2f}); RSS keel {k[1]:.1f} B ref {r[1]:.1f} B "
                      f"(x{k[1] / r[1]:.2f})", flush=True)
                rows.append([f"memory/key used_memory {label}", k[0], r[0], k[0] / r[0], "", "", "",
                             "", "", "", ""])
                rows.append([f"memory/key rss {label}", k[1], r[1], k[1] / r[1], "", "", "", "", "",
                             "", ""])
        if "types" in groups:
            datatypes.run(keel, ref, sys.modules[__name__], a, pin, rows, seconds)
            keel, ref = datatypes.memory(keel, ref, sys.modules[__name__], a, pin, rows)
        if "persistence" in groups:
            persistence.run(a.keel, a.reference, LOADGEN, pin, a.rounds, a.quick, rows,
                            a.rdb_keys, a.rdb_small_keys)
    finally:
        keel.stop()
        ref.stop()
    write_csv(rows)


def calibrate(rows):
    """This machine's system-call, loopback-send, page-fault and fsync costs (utils/bench/calibrate.c),
    printed and kept as the first CSV rows: on a virtual machine they move between sessions, and
    every figure here depends on them."""
    exe = os.path.join(ROOT, "build/keel-calibrate")
    src = os.path.join(ROOT, "utils/bench/calibrate.c")
    try:
        if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
            os.makedirs(os.path.dirname(exe), exist_ok=True)
            subprocess.run(["gcc", "-O2", src, "-luring", "-o", exe], check=True,
                           capture_output=True)
        # fsync_us on the file system the servers' directories are made in (tempfile.mkdtemp).
        line = subprocess.run([exe, tempfile.gettempdir()], check=True, capture_output=True,
                              text=True, timeout=120).stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        print(f"machine: calibration failed ({e})")
        return
    print(f"machine: {line}")
    for pair in line.split():
        name, value = pair.split("=")
        rows.append([f"machine {name}", float(value)] + [""] * 12)


def write_csv(rows):
    out = os.path.join(ROOT, "utils/bench/out")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, time.strftime("bench-%Y%m%d-%H%M%S.csv"))
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "keel", "ref", "ratio", "keel_p50_ms", "ref_p50_ms",
                    "keel_p99_ms", "ref_p99_ms", "keel_cpu_us_per_op", "ref_cpu_us_per_op",
                    "cpu_ratio", "keel_server_busy_pct", "ref_server_busy_pct", "requests"])
        w.writerows(rows)
    print(f"csv: {path}")


if __name__ == "__main__":
    main()
