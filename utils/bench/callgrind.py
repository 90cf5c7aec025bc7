#!/usr/bin/python3
"""User-space instructions per operation, Keel vs the reference, under valgrind's callgrind.

perf (profile.py) samples time, which this VM's memory latency and scheduling make noisy from run
to run; callgrind counts the instructions each server executes in user space (Ir), which is
exact and repeatable, so small changes on the hot path show up. The kernel's share (system calls,
TCP loopback), which perf shows is 50-90% of the time on small commands, is not in these counts.

For each -P 16 workload of bench.py's throughput group (fewer requests: the servers run ~50x
slower under valgrind) each server is started under callgrind with instrumentation off, the
workload's prep runs, instrumentation is switched on for the measured run only, and the counts
are read back with callgrind_annotate. Prints Ir per operation for both servers, their ratio,
and Keel's top self-cost functions. With `--groups types` the workloads are
utils/bench/datatypes.py's (streams, HyperLogLog, geo, SORT): each one's data is loaded (not
counted) before instrumentation is switched on, and the request count is scaled as there
(`--n` is the count of the 100k-request rows; the heavy rows run a tenth of it). Usage:
    utils/bench/callgrind.py [--groups throughput|types] [--only REGEX] [--top 3] [--n 100000] [--keel ...] [--reference ...]
                             [--keel-args "..."] [--reference-args "..."] [--replica]
With --replica each master has a replica of the same binary attached (run natively) while it is
measured: compare with a run without it for the master's user-space cost of replication.
Two configurations of one binary: --reference src/keel-server --reference-args "--latency-tracking no".
"""
import argparse, glob, os, re, shlex, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402
import datatypes  # noqa: E402


def strip_params(fn):
    """'ns::(anonymous namespace)::f(int, char*) const' -> 'ns::(anonymous namespace)::f'."""
    fn = re.sub(r"\s+const$", "", fn)
    if not fn.endswith(")"):
        return fn
    depth = 0
    for i in range(len(fn) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(fn[i], 0)
        if depth == 0:
            return fn[:i]
    return fn


def annotate(out_file):
    """(total Ir, [(self Ir, function)]) from callgrind_annotate's function table."""
    rep = subprocess.run(["callgrind_annotate", "--inclusive=no", "--auto=no", out_file],
                         capture_output=True, text=True).stdout
    total, funcs, in_table = 0, [], False
    for line in rep.splitlines():
        if "PROGRAM TOTALS" in line:
            total = int(line.split()[0].replace(",", ""))
        elif re.match(r"Ir\s+file:function", line):
            in_table = True
        elif in_table:
            m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)$", line)
            if not m:
                continue
            # "file:function [object]": the same function may appear once per source file of
            # inlined code (hash.h:keel::Client::run_batch()); merge them by name.
            fn = re.sub(r"\s+\[[^\]]*\]$", "", m.group(2).strip()).split(":", 1)[-1]
            fn = strip_params(fn)
            funcs.append((int(m.group(1).replace(",", "")), fn))
    return total, funcs


def attach_replica(name, binary, master):
    """A replica of the same binary (not under valgrind) following `master`, synced."""
    rep = bench.Server(f"{name}-replica", binary, None)
    rep.cli("REPLICAOF", "127.0.0.1", master.port)
    for _ in range(12000):
        info = rep.cli("INFO", "replication")
        if "master_link_status:up" in info and "master_sync_in_progress:0" in info:
            return rep
        time.sleep(0.01)
    rep.stop()
    raise SystemExit(f"{name}-replica did not finish its sync")


def measure(name, binary, wl, client_pin, extra=(), replica=False):
    outdir = tempfile.mkdtemp(prefix="callgrind-")
    out = os.path.join(outdir, "callgrind.out")
    srv = bench.Server(name, binary, None, extra=extra, wrap=[
        "valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}"])
    rep = None
    try:
        if replica:
            # Master side only: the replica runs natively; the master's counts then include
            # encoding the stream, the backlog and the writes to the replica's socket.
            rep = attach_replica(name, binary, srv)
        if "prep" in wl:
            bench.bench(srv, wl["prep"], client_pin)
        if "load" in wl:
            wl["load"](srv)
        subprocess.run(["callgrind_control", "-i", "on", str(srv.proc.pid)],
                       capture_output=True, check=True)
        r = bench.bench(srv, wl["args"], client_pin)
        subprocess.run(["callgrind_control", "-i", "off", str(srv.proc.pid)],
                       capture_output=True, check=True)
        if r.returncode != 0 or "error" in r.stdout.lower():
            raise SystemExit(f"redis-benchmark failed on {name}: {r.stdout} {r.stderr}")
    finally:
        if rep is not None:
            rep.stop()
        srv.stop()
    files = sorted(glob.glob(out + "*"))
    total, funcs = 0, {}
    for f in files:
        t, fs = annotate(f)
        total += t
        for ir, fn in fs:
            funcs[fn] = funcs.get(fn, 0) + ir
        os.unlink(f)
    os.rmdir(outdir)
    return total, sorted(((ir, fn) for fn, ir in funcs.items()), reverse=True)


def with_n(args, n):
    args = list(args)
    if "-n" in args:
        args[args.index("-n") + 1] = str(n)
    return args


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keel", default=os.path.join(bench.ROOT, "src/keel-server"))
    ap.add_argument("--reference", default="/usr/bin/redis-server")
    ap.add_argument("--groups", default="throughput", choices=["throughput", "types"])
    ap.add_argument("--only", default="", help="regular expression on workload names (case-insensitive)")
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--n", type=int, default=100000, help="requests per measured run")
    ap.add_argument("--keel-args", default="", help="extra server arguments for --keel "
                    "(e.g. \"--latency-tracking no\")")
    ap.add_argument("--reference-args", default="", help="extra server arguments for --reference")
    ap.add_argument("--replica", action="store_true", help="each master (under callgrind) has one "
                    "replica of the same binary attached (issue 20's master cost of a replica)")
    a = ap.parse_args()
    client_pin = 1 if (os.cpu_count() or 1) >= 2 else None
    print(f"{'workload':24} {'keel Ir/op':>11} {'ref Ir/op':>11} {'ratio':>6} | keel's top self cost")
    if a.groups == "types":
        wls = datatypes.workloads(True, bench)
    else:
        wls = bench.throughput_workloads(True)
    for wl in wls:
        if "-P16" not in wl["name"] or wl.get("tool") == "loadgen":
            continue
        if a.only and not re.search(a.only, wl["name"], re.I):
            continue
        if a.groups == "types":
            n = max(1, a.n * wl["n"] // 100000)  # quick counts are 100000 or a tenth of it
        else:
            n = a.n // 10 if "LRANGE" in wl["name"] else a.n
        wl = dict(wl, args=with_n(wl["args"], n))
        k_total, k_funcs = measure("keel", a.keel, wl, client_pin, shlex.split(a.keel_args),
                                    a.replica)
        r_total, _ = measure("reference", a.reference, wl, client_pin,
                             shlex.split(a.reference_args), a.replica)
        top = "; ".join(f"{fn} {100.0 * ir / k_total:.1f}%" for ir, fn in k_funcs[:a.top])
        print(f"{wl['name']:24} {k_total / n:11,.0f} {r_total / n:11,.0f} "
              f"{k_total / r_total:6.2f} | {top}", flush=True)


if __name__ == "__main__":
    main()
