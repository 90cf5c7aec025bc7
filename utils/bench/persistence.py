"""The `persistence` group of bench.py (issue 17's figures): RDB save and load against the
reference redis-server, side by side, rounds interleaved.

Datasets: DEBUG POPULATE of N keys (default 10M: "key:N" -> "value:N"), then 1M small hashes,
sets and zsets (5 fields / members each) loaded with `redis-cli --pipe`. Per dataset, for Keel
writing its default RDB version (11), Keel writing version 10 (`rdb-version 10`, the files Redis
7.0 loads) and the reference (which writes 10):
- SAVE: wall time of the SAVE command (write, fsync, rename; the file is then in the page
  cache for both servers alike);
- load: the server restarted on that file; the "DB loaded from disk: S seconds" log line (both
  servers print it) and the wall time from exec until PING answers PONG;
- file size.
On the first dataset, under a running SET load (keel-loadgen, 50 connections, -P 16, random
keys over the populated names, so every SET overwrites a populated key): BGSAVE's fork time
(latest_fork_usec), the copy-on-write it caused (rdb_last_cow_size), and the SET rate while
the child runs against the rate in windows before and after it (total_commands_processed
deltas). Twice: with the child on the server's core (it inherits the server's pinning) and
moved to the client's core right after the fork (`taskset -p`, what bgsave_cpulist does);
then at an offered load (keel-loadgen --rate) of 80% of the reference's saturated rate, the
same for both servers, which shows whether each keeps up with that load during the BGSAVE.
"""
import os, re, shutil, socket, statistics, subprocess, tempfile, time

LOADED_RE = re.compile(r"DB loaded from disk: ([0-9.]+) seconds")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def command(port, *args, timeout=3600):
    """One command over a fresh connection; returns the reply's first line (None when the
    server does not answer)."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    except OSError:
        return None
    try:
        req = b"*%d\r\n" % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            req += b"$%d\r\n%s\r\n" % (len(a), a)
        s.sendall(req)
        buf = b""
        while b"\r\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                return None
            buf += chunk
        return buf.split(b"\r\n", 1)[0].decode(errors="replace")
    except OSError:
        return None
    finally:
        s.close()


class RdbServer:
    """A server in its own directory that can be stopped and started again on its dump."""

    def __init__(self, name, binary, pin, extra=()):
        self.name, self.binary, self.pin, self.extra = name, binary, pin, list(extra)
        self.dir = tempfile.mkdtemp(prefix=f"bench-rdb-{name}-")
        self.port = free_port()
        self.proc = None
        self.log = os.path.join(self.dir, "log")

    def start(self, dbfilename="dump.rdb"):
        """Starts on dir/dbfilename; returns the seconds from exec until PING answers PONG."""
        cmd = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
               "--appendonly", "no", "--dir", self.dir, "--dbfilename", dbfilename,
               "--logfile", self.log, "--enable-debug-command", "yes",
               "--enable-protected-configs", "yes"] + self.extra
        if self.pin is not None and shutil.which("taskset"):
            cmd = ["taskset", "-c", str(self.pin)] + cmd
        t0 = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while time.monotonic() - t0 < 600:
            if command(self.port, "PING", timeout=5) == "+PONG":
                return time.monotonic() - t0
            if self.proc.poll() is not None:
                break
            time.sleep(0.005)
        raise SystemExit(f"{self.name} did not start; see {self.log}")

    def stop(self):
        """SIGKILL: nothing is saved, and the time a server takes to free its memory is not
        part of any figure."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def cli(self, *args):
        r = subprocess.run(["redis-cli", "-p", str(self.port)] + [str(a) for a in args],
                           capture_output=True, text=True)
        return r.stdout.strip()

    def info(self, field, section="all"):
        for line in self.cli("INFO", section).splitlines():
            if line.startswith(field + ":"):
                return line.split(":", 1)[1].strip()
        return ""

    def last_load_seconds(self):
        with open(self.log, errors="replace") as f:
            found = LOADED_RE.findall(f.read())
        return float(found[-1]) if found else float("nan")

    def timed_save(self, dbfilename):
        self.cli("CONFIG", "SET", "dbfilename", dbfilename)
        t0 = time.monotonic()
        r = command(self.port, "SAVE")
        if r != "+OK":
            raise SystemExit(f"SAVE failed on {self.name}: {r}")
        return time.monotonic() - t0

    def remove(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def load_pipe(port, count, make):
    """make(0..count-1) -> a command (list of str); sent with `redis-cli --pipe`, in chunks."""
    for lo in range(0, count, 200000):
        data = bytearray()
        for i in range(lo, min(count, lo + 200000)):
            args = make(i)
            data += b"*%d\r\n" % len(args)
            for x in args:
                x = x.encode()
                data += b"$%d\r\n%s\r\n" % (len(x), x)
        r = subprocess.run(["redis-cli", "-p", str(port), "--pipe"], input=bytes(data),
                           capture_output=True)
        if b"errors: 0" not in r.stdout:
            raise SystemExit(f"--pipe load failed on port {port}: {r.stdout!r}")


def cpu_s(pid):
    """utime + stime of one process (not its children), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def cpu_count_ok():
    return (os.cpu_count() or 1) >= 2 and shutil.which("taskset")


def bgsave_under_load(srv, keys, loadgen, client_pin, move_child, window=4.0, rate=0):
    """SET rate without and during a BGSAVE, fork time and copy-on-write (see the docstring).
    rate > 0: an offered load of that many SETs per second instead of as many as the server
    takes."""
    cmd = [loadgen, "-p", str(srv.port), "-c", "50", "-P", "16", "-n", "2000000000", "-r",
           str(keys), "-t", "set", "--plain-keys"] + (["--rate", str(int(rate))] if rate else [])
    if client_pin is not None and shutil.which("taskset"):
        cmd = ["taskset", "-c", str(client_pin)] + cmd
    gen = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def processed():
        return int(srv.info("total_commands_processed", "stats")), time.monotonic(), cpu_s(srv.proc.pid)

    try:
        time.sleep(1.0)
        c0, t0, u0 = processed()
        time.sleep(window)
        c1, t1, u1 = processed()
        before = (c1 - c0) / (t1 - t0)
        c2, t2, u2 = processed()
        if command(srv.port, "BGSAVE") != "+Background saving started":
            raise SystemExit(f"BGSAVE refused on {srv.name}")
        if move_child and client_pin is not None:
            child = ""
            for _ in range(200):
                child = subprocess.run(["pgrep", "-P", str(srv.proc.pid)], capture_output=True,
                                       text=True).stdout.split()
                if child:
                    break
                time.sleep(0.005)
            for pid in child:
                subprocess.run(["taskset", "-p", "-c", str(client_pin), pid],
                               capture_output=True)
        while srv.info("rdb_bgsave_in_progress", "persistence") == "1":
            time.sleep(0.05)
        c3, t3, u3 = processed()
        during = (c3 - c2) / (t3 - t2)
        status = srv.info("rdb_last_bgsave_status", "persistence")
        fork_us = int(srv.info("latest_fork_usec", "stats"))
        cow = int(srv.info("rdb_last_cow_size", "persistence"))
        time.sleep(0.5)
        c4, t4, u4 = processed()
        time.sleep(window)
        c5, t5, u5 = processed()
        after = (c5 - c4) / (t5 - t4)
    finally:
        gen.kill()
        gen.wait()
    if status != "ok":
        raise SystemExit(f"BGSAVE failed on {srv.name}")
    without = (before + after) / 2
    # The parent's CPU per SET (the child's CPU is its own process): what the copy-on-write
    # faults and the fork cost the server, apart from the cores it shares with the child and
    # the load generator.
    cpu_without = ((u1 - u0) + (u5 - u4)) / max(1, (c1 - c0) + (c5 - c4))
    cpu_during = (u3 - u2) / max(1, c3 - c2)
    return {"fork_us": fork_us, "cow": cow, "bgsave_s": t3 - t2, "without": without,
            "during": during, "ratio": during / without,
            "cpu_us_without": cpu_without * 1e6, "cpu_us_during": cpu_during * 1e6,
            "cpu_ratio": cpu_during / cpu_without if cpu_without else 0.0}


def run(keel_bin, ref_bin, loadgen, pin, rounds, quick, rows, n_big=0, n_small=0):
    n_big = n_big or (1000000 if quick else 10000000)
    n_small = n_small or (100000 if quick else 1000000)
    datasets = [
        (f"DEBUG POPULATE {n_big}", lambda s: s.cli("DEBUG", "POPULATE", n_big)),
        (f"{n_small} hashes of 5 fields", lambda s: load_pipe(s.port, n_small, lambda i: [
            "HSET", f"hash:{i}"] + [x for j in range(5) for x in (f"field{j}", f"value{j}")])),
        (f"{n_small} sets of 5 members", lambda s: load_pipe(s.port, n_small, lambda i: [
            "SADD", f"set:{i}"] + [f"member{j}" for j in range(5)])),
        (f"{n_small} zsets of 5 members", lambda s: load_pipe(s.port, n_small, lambda i: [
            "ZADD", f"zset:{i}"] + [x for j in range(5) for x in (str(j * 1.5), f"member{j}")])),
    ]
    # The configurations compared: (label, server, dbfilename, rdb-version or None).
    for di, (label, fill) in enumerate(datasets):
        keel = RdbServer("keel", keel_bin, pin[0])
        ref = RdbServer("reference", ref_bin, pin[0])
        try:
            for s in (keel, ref):
                s.start()
                fill(s)
            if keel.cli("DBSIZE") != ref.cli("DBSIZE"):
                raise SystemExit(f"{label}: different key counts")
            configs = [("keel v11", keel, "dump11.rdb", 11), ("keel v10", keel, "dump10.rdb", 10),
                       ("redis 7.0 v10", ref, "dump.rdb", None)]
            save = {c[0]: [] for c in configs}
            load = {c[0]: [] for c in configs}
            ready = {c[0]: [] for c in configs}
            for _ in range(rounds):
                for name, srv, fname, ver in configs:
                    if ver is not None:
                        srv.cli("CONFIG", "SET", "rdb-version", ver)
                    save[name].append(srv.timed_save(fname))
            size = {name: os.path.getsize(os.path.join(srv.dir, fname))
                    for name, srv, fname, _ in configs}
            bg = {}
            if di == 0:
                # Saturating load with the child on the server's core, then on the client's;
                # then an offered load of 80% of what the reference served without a BGSAVE
                # (the same rate for both servers, child on the server's core).
                for mode in ("server-core", "client-core", "offered"):
                    rate = 0
                    if mode == "offered":
                        rate = 0.8 * bg[("reference", "server-core")]["without"]
                    for srv in (keel, ref):
                        if srv is keel:
                            srv.cli("CONFIG", "SET", "rdb-version", 11)
                        srv.cli("CONFIG", "SET", "dbfilename", "bg.rdb")
                        bg[(srv.name, mode)] = bgsave_under_load(
                            srv, n_big, loadgen, pin[1], mode == "client-core", rate=rate)
                        bg[(srv.name, mode)]["rate"] = rate
            for _ in range(rounds):
                for name, srv, fname, _ in configs:
                    srv.stop()
                    ready[name].append(srv.start(fname))
                    load[name].append(srv.last_load_seconds())
                    if srv.cli("DBSIZE") == "0":
                        raise SystemExit(f"{name} loaded nothing from {fname}")
            ref_save = statistics.median(save["redis 7.0 v10"])
            ref_load = statistics.median(load["redis 7.0 v10"])
            ref_size = size["redis 7.0 v10"]
            print(f"== {label}")
            for name, _, _, _ in configs:
                sv, ld, rd = (statistics.median(x[name]) for x in (save, load, ready))
                print(f"  {name:14} SAVE {sv:7.3f} s (x{sv / ref_save:.2f})  load {ld:7.3f} s "
                      f"(x{ld / ref_load:.2f}, PING after {rd:.3f} s)  file {size[name]} B "
                      f"({100 * (size[name] / ref_size - 1):+.2f}%)", flush=True)
                rows.append([f"rdb {label} {name} save_s", sv, ref_save, sv / ref_save])
                rows.append([f"rdb {label} {name} load_s", ld, ref_load, ld / ref_load])
                rows.append([f"rdb {label} {name} ready_s", rd, "", ""])
                rows.append([f"rdb {label} {name} file_bytes", size[name], ref_size,
                             size[name] / ref_size])
            order = {"server-core": 0, "client-core": 1, "offered": 2}
            for (sname, mode), r in sorted(bg.items(), key=lambda kv: (order[kv[0][1]], kv[0][0])):
                where = {"server-core": "child on the server's core",
                         "client-core": "child on the client's core",
                         "offered": f"offered {r['rate']:.0f} SET/s, child on the server's core"}[mode]
                print(f"  BGSAVE under SET load, {where}: {sname:9} fork {r['fork_us'] / 1000:.1f} ms, "
                      f"CoW {r['cow'] / 2**20:.1f} MB, BGSAVE {r['bgsave_s']:.1f} s, SET "
                      f"{r['during']:.0f} rps during vs {r['without']:.0f} without "
                      f"(x{r['ratio']:.2f}); server CPU {r['cpu_us_during']:.2f} us/SET during vs "
                      f"{r['cpu_us_without']:.2f} without (x{r['cpu_ratio']:.2f})", flush=True)
                tag = mode
                rows.append([f"bgsave {label} {sname} {tag} fork_us", r["fork_us"], "", ""])
                rows.append([f"bgsave {label} {sname} {tag} cow_bytes", r["cow"], "", ""])
                rows.append([f"bgsave {label} {sname} {tag} set_rps_during/without",
                             r["during"], r["without"], r["ratio"]])
                rows.append([f"bgsave {label} {sname} {tag} cpu_us_per_set_during/without",
                             r["cpu_us_during"], r["cpu_us_without"], r["cpu_ratio"]])
        finally:
            keel.remove()
            ref.remove()
