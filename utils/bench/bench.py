#!/usr/bin/python3
"""Side-by-side benchmark: Keel vs a reference redis-server, interleaved (A B A B ...).

For each workload it runs redis-benchmark against both servers in alternation, then prints the
median throughput, p50 latency, server CPU time per operation (utime+stime of the server process
from /proc/PID/stat over the run, divided by requests) and the Keel/reference ratios. A CSV copy
goes to utils/bench/out/. Servers bind 127.0.0.1 only; with two cores the servers are pinned to
core 0 and the client to core 1.
"""
import argparse, csv, os, re, shutil, socket, statistics, subprocess, sys, tempfile, time

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
    def __init__(self, name, binary, pin):
        self.name, self.binary = name, binary
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix=f"bench-{name}-")
        cmd = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
               "--appendonly", "no", "--dir", self.dir, "--enable-debug-command", "yes"]
        if pin is not None and shutil.which("taskset"):
            cmd = ["taskset", "-c", str(pin)] + cmd
        self.proc = subprocess.Popen(cmd, stdout=open(os.path.join(self.dir, "log"), "w"),
                                     stderr=subprocess.STDOUT)
        for _ in range(100):
            if self.cli("PING") == "PONG":
                return
            time.sleep(0.05)
        raise SystemExit(f"{name} did not start; see {self.dir}/log")

    def cli(self, *args):
        r = subprocess.run(["redis-cli", "-p", str(self.port)] + list(args),
                           capture_output=True, text=True)
        return r.stdout.strip()

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


def run_workload(srv, wl, client_pin):
    srv.cli("FLUSHALL")
    for cmd in wl.get("setup", []):
        srv.cli(*cmd)
    base = ["redis-benchmark", "-p", str(srv.port), "-q", "--csv"] + wl["args"]
    if client_pin is not None and shutil.which("taskset"):
        base = ["taskset", "-c", str(client_pin)] + base
    t0 = cpu_ticks(srv.proc.pid)
    r = subprocess.run(base, capture_output=True, text=True)
    t1 = cpu_ticks(srv.proc.pid)
    rows = [l for l in r.stdout.splitlines() if l.startswith('"') and not l.startswith('"test"')]
    if not rows:
        raise SystemExit(f"redis-benchmark failed on {srv.name}: {r.stdout} {r.stderr}")
    f = [x.strip('"') for x in rows[-1].split('","')]
    rps, p50 = float(f[1]), float(f[4]) if len(f) > 4 else float("nan")
    n = wl["n"]
    cpu_us_per_op = (t1 - t0) / CLK * 1e6 / n
    return rps, p50, cpu_us_per_op


def workloads(quick):
    n = 200000 if quick else 1000000
    common = ["-c", "50", "-P", "16", "-r", "1000000", "-n", str(n)]
    v64 = "x" * 64
    wl = []
    for t in ["ping_mbulk", "set", "get", "incr", "mset"]:
        wl.append({"name": f"{t.upper()} -P16", "args": common + ["-t", t], "n": n})
    wl.append({"name": "SET 64B bench:set -P16", "n": n,
               "args": common + ["SET", "bench:set:__rand_int__", v64]})
    wl.append({"name": "DEL bench:set -P16", "n": n,
               "args": common + ["DEL", "bench:set:__rand_int__"]})
    n1 = 100000 if quick else 300000
    for t in ["set", "get"]:
        wl.append({"name": f"{t.upper()} -P1", "n": n1,
                   "args": ["-c", "50", "-P", "1", "-r", "1000000", "-n", str(n1), "-t", t]})
    return wl


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keel", default=os.path.join(ROOT, "src/keel-server"))
    ap.add_argument("--reference", default="/usr/bin/redis-server")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="", help="substring filter on workload names")
    a = ap.parse_args()
    pin = (0, 1) if os.cpu_count() >= 2 else (None, None)
    keel = Server("keel", a.keel, pin[0])
    ref = Server("reference", a.reference, pin[0])
    results = []
    try:
        for wl in workloads(a.quick):
            if a.only and a.only.lower() not in wl["name"].lower():
                continue
            k, r = [], []
            for _ in range(a.rounds):
                k.append(run_workload(keel, wl, pin[1]))
                r.append(run_workload(ref, wl, pin[1]))
            med = lambda xs, i: statistics.median(x[i] for x in xs)
            row = [wl["name"], med(k, 0), med(r, 0), med(k, 0) / med(r, 0), med(k, 1), med(r, 1),
                   med(k, 2), med(r, 2), med(k, 2) / med(r, 2)]
            results.append(row)
            print("%-24s keel %10.0f rps  ref %10.0f rps  x%.2f   p50 %.3f/%.3f ms   "
                  "cpu/op %.3f/%.3f us  x%.2f" % tuple(row), flush=True)
    finally:
        keel.stop()
        ref.stop()
    out = os.path.join(ROOT, "utils/bench/out")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, time.strftime("bench-%Y%m%d-%H%M%S.csv"))
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["workload", "keel_rps", "ref_rps", "rps_ratio", "keel_p50_ms", "ref_p50_ms",
                    "keel_cpu_us_per_op", "ref_cpu_us_per_op", "cpu_ratio"])
        w.writerows(results)
    print(f"csv: {path}")


if __name__ == "__main__":
    main()
