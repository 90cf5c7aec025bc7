#!/usr/bin/python3
"""Where Keel's time goes, per benchmark workload: runs each workload of bench.py's throughput
group against Keel under `perf record -e cpu-clock` (this VM has no hardware counters) and prints
the kernel's share of the server's samples plus the top user-space functions by self time.
Server pinned to core 0, client to core 1 (as bench.py). Usage:
    utils/bench/profile.py [--only REGEX] [--top 3] [--keel src/keel-server] [--quick]
"""
import argparse, os, re, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keel", default=os.path.join(bench.ROOT, "src/keel-server"))
    ap.add_argument("--only", default="", help="regular expression on workload names (case-insensitive)")
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    pin = (0, 1) if (os.cpu_count() or 1) >= 2 else (None, None)
    srv = bench.Server("keel", a.keel, pin[0])
    data = tempfile.mktemp(suffix=".perf")
    try:
        for wl in bench.throughput_workloads(a.quick):
            if a.only and not re.search(a.only, wl["name"], re.I):
                continue
            srv.cli("FLUSHALL")
            if "prep" in wl:
                bench.bench(srv, wl["prep"], pin[1])
            perf = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-p",
                                     str(srv.proc.pid), "-o", data],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            r = bench.bench(srv, wl["args"], pin[1], wl.get("tool", "redis-benchmark"))
            perf.send_signal(2)
            perf.wait()
            rep = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "sym",
                                  "--stdio"], capture_output=True, text=True).stdout
            kernel, user = 0.0, []
            for line in rep.splitlines():
                m = re.match(r"\s+([\d.]+)%\s+\[(.)\]\s+(.*)", line)
                if not m:
                    continue
                pct, kind, sym = float(m.group(1)), m.group(2), m.group(3).strip()
                if kind == "k":
                    kernel += pct
                else:
                    user.append((pct, sym))
            user.sort(reverse=True)
            top = "; ".join(f"{s} {p:.1f}%" for p, s in user[:a.top])
            rps = re.findall(r'"([\d.]+)"', r.stdout)
            print(f"{wl['name']:24} kernel {kernel:4.1f}% | {top}", flush=True)
    finally:
        srv.stop()
        if os.path.exists(data):
            os.unlink(data)


if __name__ == "__main__":
    main()
