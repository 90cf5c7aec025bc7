#!/usr/bin/python3
"""Issue 21's CPU-per-op figures under callgrind: user-space instructions per operation.

evict.py measures wall-clock throughput and utime+stime, which need a quiet machine; this counts
the instructions each server executes (callgrind's Ir, exact and repeatable; the kernel's share
is not in it), so it can be run on a busy machine.

ceiling: SET -P 16 -c 50 of 100-byte values over 10M random keys. Every server first gets the
  same warm-up (SETs until `maxmemory` -- default 8 MB -- is reached and keys are being evicted;
  with no ceiling the same number of warm-up SETs), then instrumentation is switched on for the
  measured run only. Rows: no ceiling, allkeys-lru, allkeys-lfu; Ir/op for Keel and the
  reference, and each row against its server's no-ceiling row.
acl: SET and GET -P 16 of `app:__rand_int__` as the default user and as a user restricted by a
  key pattern (`ACL SETUSER app on >pw ~app:* +@all`): marginal Ir per request (runs of n and
  2n requests, difference / n), so connection set-up and AUTH do not count.

    utils/bench/evict_callgrind.py [--groups ceiling,acl] [--n 50000] [--maxmemory-mb 8]
                                   [--keel src/keel-server] [--reference /usr/bin/redis-server]
                                   [--top 5] [--no-reference]
"""
import argparse, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import callgrind  # noqa: E402

SET_ARGS = ["-c", "50", "-P", "16", "-r", "10000000", "-d", "100", "-t", "set"]


def evicted(srv):
    for line in srv.cli("INFO", "stats").splitlines():
        if line.startswith("evicted_keys:"):
            return int(line.split(":")[1])
    return 0


def run_under_callgrind(name, binary, prepare, measured_args, client_pin):
    """Starts `binary` under callgrind (instrumentation off), calls prepare(srv), then counts the
    instructions of one load-generator run of measured_args. Returns (Ir, [(Ir, function)])."""
    import glob, tempfile
    outdir = tempfile.mkdtemp(prefix="callgrind-")
    out = os.path.join(outdir, "callgrind.out")
    srv = bench.Server(name, binary, None, wrap=[
        "valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}"])
    try:
        prepare(srv)
        subprocess.run(["callgrind_control", "-i", "on", str(srv.proc.pid)], capture_output=True, check=True)
        r = bench.bench(srv, measured_args, client_pin)
        subprocess.run(["callgrind_control", "-i", "off", str(srv.proc.pid)], capture_output=True, check=True)
        if r.returncode != 0 or "error" in r.stdout.lower():
            raise SystemExit(f"redis-benchmark failed on {name}: {r.stdout} {r.stderr}")
    finally:
        srv.stop()
    total, funcs = 0, {}
    for f in sorted(glob.glob(out + "*")):
        t, fs = callgrind.annotate(f)
        total += t
        for ir, fn in fs:
            funcs[fn] = funcs.get(fn, 0) + ir
        os.unlink(f)
    os.rmdir(outdir)
    return total, sorted(((ir, fn) for fn, ir in funcs.items()), reverse=True)


def ceiling(a, client_pin):
    maxmemory = a.maxmemory_mb << 20
    warm_n = 20000
    print(f"\n== SET -P16 -c50, 100 B values, 10M random keys; ceiling {a.maxmemory_mb} MB; "
          f"{a.n} measured requests (callgrind Ir/op)")
    print(f"{'policy':<14} {'keel Ir/op':>11} {'vs none':>8} {'ref Ir/op':>11} {'vs none':>8} {'keel/ref':>9}"
          f" | keel's top self cost")
    base = {}
    # The no-ceiling rows get as many warm-up SETs as the ceiling needed on that server.
    warm_rounds = {}
    for policy in ("allkeys-lru", "none", "allkeys-lfu"):
        row = {}
        for name, binary in (("keel", a.keel), ("reference", a.reference)):
            if name == "reference" and a.no_reference:
                row[name] = (float("nan"), [], 0)
                continue
            def prepare(srv, policy=policy, name=name):
                if policy != "none":
                    srv.cli("CONFIG", "SET", "maxmemory-policy", policy)
                    srv.cli("CONFIG", "SET", "maxmemory", str(maxmemory))
                    rounds = 0
                    while evicted(srv) == 0:
                        bench.bench(srv, SET_ARGS + ["-n", str(warm_n)], client_pin)
                        rounds += 1
                    # One more round: the pool and the ceiling are in their steady state.
                    bench.bench(srv, SET_ARGS + ["-n", str(warm_n)], client_pin)
                    warm_rounds.setdefault(name, rounds + 1)
                else:
                    for _ in range(warm_rounds.get(name, 4)):
                        bench.bench(srv, SET_ARGS + ["-n", str(warm_n)], client_pin)
            total, funcs = run_under_callgrind(name, binary, prepare, SET_ARGS + ["-n", str(a.n)], client_pin)
            row[name] = (total / a.n, funcs, total)
        if policy == "none":
            base = {k: v[0] for k, v in row.items()}
        k, r = row["keel"][0], row["reference"][0]
        kb, rb = base.get("keel"), base.get("reference")
        top = "; ".join(f"{fn} {100.0 * ir / row['keel'][2]:.1f}%" for ir, fn in row["keel"][1][:a.top])
        print(f"{policy:<14} {k:>11,.0f} {(k / kb if kb else float('nan')):>8.2f} {r:>11,.0f} "
              f"{(r / rb if rb else float('nan')):>8.2f} {k / r:>9.2f} | {top}", flush=True)


def acl(a, client_pin):
    # Marginal instructions per request: each case runs at n and 2n requests and the difference
    # is divided by n, so the fixed costs (the 50 connections, their AUTH with its SHA-256)
    # cancel out.
    n = a.n
    print(f"\n== ACL: -P16 -c50 as the default user vs `app` (~app:* +@all); marginal Ir per request "
          f"between {n} and {2 * n} requests (keel)")
    print(f"{'command':<8} {'default':>11} {'app':>11} {'app/default':>12} | top self cost as app")
    value = "v" * 100
    for cmd in (["SET", "app:__rand_int__", value], ["GET", "app:__rand_int__"]):
        res = {}
        for user in ("default", "app"):
            def prepare(srv):
                srv.cli("ACL", "SETUSER", "app", "on", ">pw", "~app:*", "+@all")
                bench.bench(srv, ["-c", "50", "-P", "16", "-r", "100000", "-n", "100000",
                                  "SET", "app:__rand_int__", value], client_pin)
            auth = ["--user", "app", "-a", "pw"] if user == "app" else []
            runs = []
            for k in (1, 2):
                args = auth + ["-c", "50", "-P", "16", "-r", "100000", "-n", str(k * n)] + cmd
                runs.append(run_under_callgrind("keel", a.keel, prepare, args, client_pin))
            res[user] = ((runs[1][0] - runs[0][0]) / n, runs[1][1], runs[1][0])
        d, u = res["default"][0], res["app"][0]
        top = "; ".join(f"{fn} {100.0 * ir / res['app'][2]:.1f}%" for ir, fn in res["app"][1][:a.top])
        print(f"{cmd[0]:<8} {d:>11,.0f} {u:>11,.0f} {u / d:>12.4f} | {top}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keel", default=os.path.join(bench.ROOT, "src/keel-server"))
    ap.add_argument("--reference", default="/usr/bin/redis-server")
    ap.add_argument("--groups", default="ceiling,acl")
    ap.add_argument("--n", type=int, default=50000)
    ap.add_argument("--maxmemory-mb", type=int, default=8)
    ap.add_argument("--top", type=int, default=5)
    ap.add_argument("--no-reference", action="store_true", help="Keel's rows only (ref columns: nan)")
    a = ap.parse_args()
    client_pin = 1 if (os.cpu_count() or 1) >= 2 else None
    groups = a.groups.split(",")
    if "ceiling" in groups:
        ceiling(a, client_pin)
    if "acl" in groups:
        acl(a, client_pin)


if __name__ == "__main__":
    main()
