"""The `repl` group of bench.py (issue 20's figures), side by side with the reference server.

1. Master write throughput and server CPU per op (utime+stime of the master process from
   /proc/PID/stat, over the measured run) for SET, INCR and LPUSH (what redis-benchmark -t
   sends, from keel-loadgen, which keeps the master busy) at -P 16 -c 50: with no replica and
   with one replica of the same kind attached (Keel->Keel, reference->reference), rounds
   interleaved, medians. While the replica is attached the
   replication lag is sampled every 50 ms during the run: the master's master_repl_offset minus
   the offset the replica acknowledged (INFO replication, slave0 offset=); the mean and the
   maximum of the samples are printed. Each kind has two masters, one with its replica attached
   for the whole run, and every round runs both back to back. With two cores the masters run on
   the server core and the replicas on the client core (a replica has a host of its own: the
   master's CPU per op then counts what it does for its replica, not a share of its core).
   Requests per run: 2M (--quick 200k, --requests N).
   Then the same at a fixed offered load (keel-loadgen --rate R, R = 60% of the reference's
   saturated rate without a replica in the rows above, the same R for both servers, with and
   without the replica): on two cores a saturated run shares the CPU between the master, the
   load generator and the replica, so the master gets fewer commands per wakeup when a replica
   runs and its per-op system-call cost rises; at a rate all three can sustain, the master's CPU
   per op is what the replica itself costs it. Rows "repl <W> at rate R".
2. Full sync of N keys (DEBUG POPULATE N, default 10M, --quick 1M, --keys N): the wall time from
   REPLICAOF on a fresh replica until its INFO says master_link_status:up and
   master_sync_in_progress:0, with repl-diskless-sync no (disk) and yes (diskless, delay 0),
   Keel->Keel vs reference->reference.
"""
import re, statistics, threading, time

import persistence  # noqa: E402  (RdbServer)

OFFSET_RE = re.compile(r"offset=(\d+)")


def repl_info(srv):
    out = {}
    for line in srv.cli("INFO", "replication").splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            out[k.strip()] = v.strip()
    return out


def lag_bytes(master):
    d = repl_info(master)
    m = OFFSET_RE.search(d.get("slave0", ""))
    if not m or "master_repl_offset" not in d:
        return None
    return int(d["master_repl_offset"]) - int(m.group(1))


def wait_synced(replica, timeout=3600):
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        d = repl_info(replica)
        if d.get("master_link_status") == "up" and d.get("master_sync_in_progress") == "0":
            return time.monotonic() - t0
        time.sleep(0.01)
    raise SystemExit(f"{replica.name} did not finish its sync")


class LagSampler:
    """Samples the master's lag behind its replica every `period` seconds in a thread."""

    def __init__(self, master, period=0.05):
        self.master, self.period = master, period
        self.samples, self.stop_flag = [], threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self):
        while not self.stop_flag.is_set():
            v = lag_bytes(self.master)
            if v is not None:
                self.samples.append(v)
            self.stop_flag.wait(self.period)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop_flag.set()
        self.thread.join()


def write_workloads(quick, requests=0):
    n = requests or (200000 if quick else 2000000)
    return [{"name": f"{t.upper()} -P16", "n": n, "t": t,
             "args": ["-c", "50", "-P", "16", "-r", "1000000", "-n", str(n), "-t", t]}
            for t in ("set", "incr", "lpush")]


# What redis-benchmark's -t sends, as a keel-loadgen command (it has -t only for set/get/ping).
LOADGEN_COMMANDS = {"incr": ["INCR", "counter:__rand_int__"], "lpush": ["LPUSH", "mylist", "xxx"]}


def loadgen_workload(wl):
    """The workload from keel-loadgen: it keeps the master busy where redis-benchmark, sharing
    its core with the replica, would be the limit."""
    if wl.get("tool") == "loadgen":
        return wl
    args = list(wl["args"])
    if wl["t"] in LOADGEN_COMMANDS:
        i = args.index("-t")
        del args[i:i + 2]
        args += LOADGEN_COMMANDS[wl["t"]]
    return dict(wl, tool="loadgen", args=args)


def rate_workload(wl, rate):
    """The workload from keel-loadgen at `rate` requests per second in all."""
    wl = loadgen_workload(wl)
    return dict(wl, name=f"{wl['name']} at rate", args=["--rate", str(int(rate))] + wl["args"])


def run_writes(keel_bin, ref_bin, bench, pin, rounds, quick, rows, only, requests):
    # Two masters of each kind, one with its replica attached for the whole run, so that every
    # round measures "none" and "replica" back to back (blocks run minutes apart would let a
    # drift of the machine move the ratio). Masters on the server core; the replicas on the
    # client core: a replica lives on its own host, so the master's CPU per op counts what it
    # does for its replica, not a share of its core taken by the replica process.
    masters, replicas = {}, {}
    for name, binary in (("keel", keel_bin), ("reference", ref_bin)):
        masters[(name, "none")] = persistence.RdbServer(name, binary, pin[0])
        masters[(name, "replica")] = persistence.RdbServer(f"{name}-master", binary, pin[0])
        replicas[name] = persistence.RdbServer(f"{name}-replica", binary, pin[1])
    try:
        for s in list(masters.values()) + list(replicas.values()):
            s.start()
        for name, rep in replicas.items():
            rep.cli("REPLICAOF", "127.0.0.1", masters[(name, "replica")].port)
        for rep in replicas.values():
            wait_synced(rep)
        wls = [loadgen_workload(wl) for wl in write_workloads(quick, requests)
               if not only or re.search(only, wl["name"], re.I)]
        res = {}  # (server, workload, mode) -> [(rps, cpu/op, lag mean, lag max)]
        rated = []  # the fixed-rate workloads, once the saturated no-replica rates are known

        def measure(workloads, prefix):
            for _ in range(rounds):
                for wl in workloads:
                    for (name, mode), m in masters.items():
                        if mode == "replica":
                            with LagSampler(m) as ls:
                                r = bench.run_workload(m, wl, pin[1])
                            lag = ls.samples or [0]
                        else:
                            r = bench.run_workload(m, wl, pin[1])
                            lag = [0]
                        res.setdefault((name, wl["name"], prefix + mode), []).append(
                            (r[0], r[3], statistics.mean(lag), max(lag)))

        measure(wls, "")
        for wl in wls:
            ref_rps = statistics.median(x[0] for x in res[("reference", wl["name"], "none")])
            rated.append(rate_workload(wl, 0.6 * ref_rps))
        measure(rated, "rate ")
        for wl in wls + rated:
            med = {}
            r0 = "rate " if wl in rated else ""
            for name in replicas:
                for mode in ("none", "replica"):
                    v = res[(name, wl["name"], r0 + mode)]
                    med[(name, mode)] = [statistics.median(x[i] for x in v) for i in range(4)]
            for name in replicas:
                n0, n1 = med[(name, "none")], med[(name, "replica")]
                print(f"repl {wl['name']:18} {name:9}: no replica {n0[0]:9.0f} rps {n0[1]:.3f} us/op; "
                      f"one replica {n1[0]:9.0f} rps {n1[1]:.3f} us/op (x{n1[0] / n0[0]:.2f} rps, "
                      f"cpu x{n1[1] / n0[1]:.2f}); lag mean {n1[2]:.0f} B max {n1[3]:.0f} B",
                      flush=True)
            k, r = med[("keel", "replica")], med[("reference", "replica")]
            k0, r0 = med[("keel", "none")], med[("reference", "none")]
            if wl in rated:
                # The offered rate is the same for all four runs: the figure is CPU per op.
                rows.append([f"repl {wl['name']} {wl['args'][1]} cpu us/op with/without replica",
                             k[1] / k0[1], r[1] / r0[1], (k[1] / k0[1]) / (r[1] / r0[1])] + [""] * 10)
                rows.append([f"repl {wl['name']} {wl['args'][1]} one replica cpu us/op", k[1], r[1],
                             k[1] / r[1] if r[1] else float("nan")] + [""] * 10)
                continue
            rows.append([f"repl {wl['name']} one replica rps", k[0], r[0], k[0] / r[0], "", "", "",
                         "", k[1], r[1], k[1] / r[1] if r[1] else float("nan"), "", "", wl["n"]])
            rows.append([f"repl {wl['name']} replica/none rps", k[0] / k0[0], r[0] / r0[0],
                         (k[0] / k0[0]) / (r[0] / r0[0])] + [""] * 10)
            rows.append([f"repl {wl['name']} cpu us/op with/without replica", k[1] / k0[1],
                         r[1] / r0[1], (k[1] / k0[1]) / (r[1] / r0[1])] + [""] * 10)
            rows.append([f"repl {wl['name']} lag mean bytes", k[2], r[2], ""] + [""] * 10)
            rows.append([f"repl {wl['name']} lag max bytes", k[3], r[3], ""] + [""] * 10)
    finally:
        for s in list(replicas.values()) + list(masters.values()):
            s.remove()


def run_fullsync(keel_bin, ref_bin, pin, rounds, rows, n):
    res = {}
    for mode, diskless in (("disk", "no"), ("diskless", "yes")):
        for _ in range(rounds):
            for name, binary in (("keel", keel_bin), ("reference", ref_bin)):
                extra = ["--repl-diskless-sync", diskless, "--repl-diskless-sync-delay", "0"]
                master = persistence.RdbServer(name, binary, pin[0], extra)
                replica = persistence.RdbServer(f"{name}-replica", binary, pin[1])
                try:
                    master.start()
                    master.cli("DEBUG", "POPULATE", n)
                    replica.start()
                    t0 = time.monotonic()
                    replica.cli("REPLICAOF", "127.0.0.1", master.port)
                    wait_synced(replica)
                    secs = time.monotonic() - t0
                    if replica.cli("DBSIZE") != master.cli("DBSIZE"):
                        raise SystemExit(f"{name} {mode}: the replica has a different DBSIZE")
                    res.setdefault((name, mode), []).append(secs)
                finally:
                    replica.remove()
                    master.remove()
        k = statistics.median(res[("keel", mode)])
        r = statistics.median(res[("reference", mode)])
        print(f"full sync {mode} of {n} keys: keel {k:.2f} s ref {r:.2f} s (x{k / r:.2f})",
              flush=True)
        rows.append([f"repl full sync {mode} {n} keys seconds", k, r, k / r] + [""] * 10)


def run(keel_bin, ref_bin, bench, pin, rounds, quick, rows, only="", n_keys=0, requests=0):
    if not only or re.search(only, "SET INCR LPUSH writes", re.I):
        run_writes(keel_bin, ref_bin, bench, pin, rounds, quick, rows, only, requests)
    if not only or re.search(only, "full sync", re.I):
        run_fullsync(keel_bin, ref_bin, pin, rounds, rows, n_keys or (1000000 if quick else 10000000))
