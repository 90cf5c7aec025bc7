"""The `aof` group of bench.py (issue 18's figures), side by side with the reference server.

1. Write throughput with an append-only file: SET and INCR from redis-benchmark at -P 16 -c 50
   and -P 1 -c 50 (keel-loadgen rows of SET and INCR too at -P 1, where redis-benchmark's own
   CPU is the limit), with `appendfsync everysec` and `always`, both servers started with
   `appendonly yes` in their own directories, and the same rows without an AOF ("aof off": each
   server's ratio without one), rounds interleaved, medians; server CPU per op from
   /proc/PID/stat, which includes Keel's background fsync thread and Redis's bio threads.
   The -P1 rows without `always` also run, in the same rounds, two servers that answer
   +OK to everything and do nothing else (utils/bench/nullserver.cc, with Keel's io_uring I/O
   and with Redis's read/write I/O; with everysec they also append each iteration's input to a
   file before replying): rows "... floor null-uring / null-plain", the CPU per op any server
   pays there for the socket I/O (and the AOF write) alone, so Keel's figure can be read
   against it.
2. BGREWRITEAOF of a DEBUG POPULATE dataset (default 10M keys): wall time from the command until
   `aof_rewrite_in_progress:0`, and the size of the new base.
3. Loading an AOF made of that base (an RDB preamble) and 1M incremental SETs (random
   `key:<12 digits>` names, so some overwrite and most add keys): the server restarted on the directory; the "DB loaded from append only file" log line
   both servers print, and the wall time from exec until PING answers PONG.
"""
import glob, os, re, shutil, statistics, subprocess, time

import persistence  # noqa: E402  (RdbServer, command)

AOF_LOADED_RE = re.compile(r"DB loaded from append only file: ([0-9.]+) seconds")


class AofServer(persistence.RdbServer):
    def __init__(self, name, binary, pin, fsync):
        # fsync "off": no AOF at all (the rows that give each server's ratio without one).
        extra = (["--appendonly", "no"] if fsync == "off" else
                 ["--appendonly", "yes", "--appendfsync", fsync, "--auto-aof-rewrite-percentage", "0"])
        super().__init__(name, binary, pin, extra=extra)

    def aof_dir_bytes(self):
        return sum(os.path.getsize(p) for p in glob.glob(os.path.join(self.dir, "appendonlydir", "*")))

    def base_bytes(self):
        return sum(os.path.getsize(p) for p in glob.glob(os.path.join(self.dir, "appendonlydir", "*.base.*")))

    def last_aof_load_seconds(self):
        with open(self.log, errors="replace") as f:
            found = AOF_LOADED_RE.findall(f.read())
        return float(found[-1]) if found else float("nan")

    def wait_rewrite(self, timeout=3600):
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if (self.info("aof_rewrite_in_progress", "persistence") == "0" and
                    self.info("aof_rewrite_scheduled", "persistence") == "0"):
                return
            time.sleep(0.02)
        raise SystemExit(f"rewrite did not finish on {self.name}")


def write_workloads(quick, loadgen):
    n16 = 200000 if quick else 2000000
    n1 = 30000 if quick else 300000
    wl = []
    for t in ("set", "incr"):
        wl.append({"name": f"{t.upper()} -P16", "n": n16,
                   "args": ["-c", "50", "-P", "16", "-r", "1000000", "-n", str(n16), "-t", t]})
        wl.append({"name": f"{t.upper()} -P1", "n": n1,
                   "args": ["-c", "50", "-P", "1", "-r", "1000000", "-n", str(n1), "-t", t]})
    if os.path.exists(loadgen):
        wl.append({"name": "SET -P1 loadgen", "n": n1, "tool": "loadgen",
                   "args": ["-c", "50", "-P", "1", "-r", "1000000", "-n", str(n1), "-t", "set"]})
        # redis-benchmark -t incr's command (a random counter:N key) from keel-loadgen.
        wl.append({"name": "INCR -P1 loadgen", "n": n1, "tool": "loadgen",
                   "args": ["-c", "50", "-P", "1", "-r", "1000000", "-n", str(n1),
                            "INCR", "counter:__rand_int__"]})
    return wl


def run(keel_bin, ref_bin, bench, loadgen, pin, rounds, quick, rows, only="", n_keys=0):
    run_writes(keel_bin, ref_bin, bench, loadgen, pin, rounds, quick, rows, only)
    run_rewrite_load(keel_bin, ref_bin, bench, pin, rounds, quick, rows, only, n_keys)


def floor_servers(bench, pin, fsync):
    """The floor of the -P1 rows (bench.NullServer): there the client saturates its core first,
    and a server that does nothing pays the kernel's work per request all the same. With
    everysec they also write each iteration's input to a file before replying, as both servers
    do. None for `always`, where the fsync decides."""
    if fsync == "always" or not os.path.exists(bench.NULLSERVER):
        return []
    aof = fsync == "everysec"
    return [bench.NullServer("null-uring", pin[0], aof=aof),
            bench.NullServer("null-plain", pin[0], plain=True, aof=aof)]


def run_writes(keel_bin, ref_bin, bench, loadgen, pin, rounds, quick, rows, only):
    for fsync in ("off", "everysec", "always"):
        keel = AofServer("keel", keel_bin, pin[0], fsync)
        ref = AofServer("reference", ref_bin, pin[0], fsync)
        floors = []
        try:
            keel.start()
            ref.start()
            floors = floor_servers(bench, pin, fsync)
            for wl in write_workloads(quick, loadgen):
                if only and not re.search(only, wl["name"], re.I):
                    continue
                wl = dict(wl, name=f"aof {fsync} {wl['name']}")
                # The write rows with `always` are slow on both servers: fewer requests.
                if fsync == "always":
                    wl["n"] = max(10000, wl["n"] // 4)
                    wl["args"] = bench.with_requests(wl["args"], wl["n"])
                row_floors = floors if re.search(r"-P1\b", wl["name"]) else ()
                bench.side_by_side(keel, ref, wl, rounds, pin[1], rows, 0, row_floors)
                for s in (keel, ref):  # the next row starts from an empty AOF history
                    s.cli("FLUSHALL")
                    if fsync != "off":
                        s.cli("BGREWRITEAOF")
                        s.wait_rewrite()
        finally:
            keel.remove()
            ref.remove()
            for f in floors:
                f.stop()


def run_rewrite_load(keel_bin, ref_bin, bench, pin, rounds, quick, rows, only, n_keys):
    if only and not re.search(only, "rewrite load", re.I):
        return
    n = n_keys or (1000000 if quick else 10000000)
    incr = n // 10
    res = {}
    for _ in range(rounds):
        for name, binary in (("keel", keel_bin), ("reference", ref_bin)):
            srv = AofServer(name, binary, pin[0], "everysec")
            try:
                srv.start()
                srv.cli("DEBUG", "POPULATE", n)
                t0 = time.monotonic()
                if not srv.cli("BGREWRITEAOF").startswith("Background append only file rewriting"):
                    raise SystemExit(f"BGREWRITEAOF refused on {name}")
                srv.wait_rewrite()
                rewrite_s = time.monotonic() - t0
                base = srv.base_bytes()
                r = bench.bench(srv, ["-c", "50", "-P", "16", "-r", str(n), "-n", str(incr),
                                      "SET", "key:__rand_int__", "value"], pin[1])
                if r.returncode != 0:
                    raise SystemExit(f"incremental SETs failed on {name}")
                # Everything written reaches the file within a second with everysec.
                time.sleep(1.5)
                size = srv.aof_dir_bytes()
                before = srv.cli("DBSIZE")
                srv.stop()
                start_s = srv.start()
                keys = srv.cli("DBSIZE")
                if keys != before:
                    raise SystemExit(f"{name} loaded {keys} keys from its AOF, had {before}")
                res.setdefault(name, []).append((rewrite_s, base, size, srv.last_aof_load_seconds(),
                                                 start_s))
            finally:
                srv.remove()
    med = {k: [statistics.median(x[i] for x in v) for i in range(5)] for k, v in res.items()}
    k, r = med["keel"], med["reference"]
    print(f"BGREWRITEAOF of {n} keys: keel {k[0]:.2f} s ref {r[0]:.2f} s (x{k[0] / r[0]:.2f}); "
          f"base file keel {k[1] / 1e6:.1f} MB ref {r[1] / 1e6:.1f} MB", flush=True)
    print(f"load of base + {incr} SETs ({k[2] / 1e6:.0f} / {r[2] / 1e6:.0f} MB): log keel "
          f"{k[3]:.2f} s ref {r[3]:.2f} s (x{k[3] / r[3]:.2f}); exec to PONG keel {k[4]:.2f} s "
          f"ref {r[4]:.2f} s (x{k[4] / r[4]:.2f})", flush=True)
    rows.append([f"aof rewrite {n} keys seconds", k[0], r[0], k[0] / r[0]] + [""] * 7)
    rows.append([f"aof base bytes {n} keys", k[1], r[1], k[1] / r[1]] + [""] * 7)
    rows.append([f"aof load {n} keys + {incr} SETs seconds (log)", k[3], r[3], k[3] / r[3]] + [""] * 7)
    rows.append([f"aof load {n} keys + {incr} SETs seconds (to PONG)", k[4], r[4], k[4] / r[4]] + [""] * 7)
