"""Benchmarks of the stream, HyperLogLog, geo and SORT commands (bench.py --groups types).

Each workload runs on both servers, interleaved (bench.side_by_side): throughput and server CPU
per operation at -P 16 -c 50 for XADD, XRANGE of 10 entries, XREADGROUP (one new entry per call)
and XACK, PFADD, PFCOUNT of one key and of three keys, PFMERGE, GEOADD, GEOSEARCH returning
100 members, SORT of a 100-element list. Then memory: a 1M-entry stream, 1M HLL keys and a
1M-member geo set, each loaded into fresh servers, used_memory and RSS compared.
The data each read workload needs is loaded with `redis-cli --pipe` first (not timed), the same
on both servers.
"""
import random


def _P(n):
    return ["-c", "50", "-P", "16", "-n", str(n)]


def _geo_members(count, seed=20261201):
    """Deterministic points around Palermo (about 40 km square): GEOSEARCH of 1.06 km from the
    centre returns about 100 of 50k members."""
    rng = random.Random(seed)
    return [(13.0 + rng.uniform(0, 0.5), 38.0 + rng.uniform(0, 0.36), f"m{i}") for i in range(count)]


def workloads(quick, bench):
    n = 100000 if quick else 1000000
    wl = []
    # Streams. XADD with auto IDs into one stream (the common shape: an event log).
    wl.append({"name": "XADD * -P16", "n": n,
               "args": _P(n) + ["XADD", "bench:stream", "*", "field", "value"]})
    # XRANGE of 10 from a random place in a 100k-entry stream whose IDs are i-1.
    entries = 100000

    def fill_stream(srv, key="bench:xr"):
        bench.load_pipe(srv, entries, lambda i: ["XADD", key, f"{i + 1}-1", "f", f"v{i}"])
    wl.append({"name": "XRANGE 10 -P16", "n": n, "load": fill_stream,
               "args": _P(n) + ["-r", str(entries - 20), "XRANGE", "bench:xr",
                                "__rand_int__", "+", "COUNT", "10"]})

    # XREADGROUP: each call delivers the next entry to one consumer (the PEL grows); XACK then
    # acknowledges random IDs of that PEL (a first ack removes, later ones find nothing).
    def fill_group(srv):
        fill_stream(srv, "bench:xg")
        srv.cli("XGROUP", "CREATE", "bench:xg", "g", "0")
    rn = min(n, entries)
    wl.append({"name": "XREADGROUP > -P16", "n": rn, "load": fill_group,
               "args": _P(rn) + ["XREADGROUP", "GROUP", "g", "c1", "COUNT", "1", "STREAMS",
                                 "bench:xg", ">"]})

    def fill_pel(srv):
        fill_group(srv)
        srv.cli("XREADGROUP", "GROUP", "g", "c1", "STREAMS", "bench:xg", ">")
    wl.append({"name": "XACK -P16", "n": n, "load": fill_pel,
               "args": _P(n) + ["-r", str(entries), "XACK", "bench:xg", "g", "__rand_int__-1"]})
    # HyperLogLog.
    wl.append({"name": "PFADD -P16", "n": n,
               "args": _P(n) + ["-r", "100000000", "PFADD", "bench:hll", "el:__rand_int__"]})

    def fill_hll(srv):
        for k in ("bench:h1", "bench:h2", "bench:h3"):
            bench.load_pipe(srv, 2000, lambda i, k=k: ["PFADD", k] + [f"{k}:{i}:{j}" for j in range(50)])
    # PFCOUNT of one key answers from the cached cardinality after the first call; of three
    # keys it merges the registers on every call (Redis's rules, both servers).
    wl.append({"name": "PFCOUNT 1 key -P16", "n": n, "load": fill_hll,
               "args": _P(n) + ["PFCOUNT", "bench:h1"]})
    wl.append({"name": "PFCOUNT 3 keys -P16", "n": n // 10, "load": fill_hll,
               "args": _P(n // 10) + ["PFCOUNT", "bench:h1", "bench:h2", "bench:h3"]})
    wl.append({"name": "PFMERGE 3 keys -P16", "n": n // 10, "load": fill_hll,
               "args": _P(n // 10) + ["PFMERGE", "bench:hm", "bench:h1", "bench:h2", "bench:h3"]})
    # The light rows again from keel-loadgen: redis-benchmark's one thread saturates before
    # the server does on them (the rows the house rule judges on 2 cores).
    wl.append({"name": "XADD * -P16 loadgen", "n": n, "tool": "loadgen",
               "args": _P(n) + ["XADD", "bench:stream", "*", "field", "value"]})
    wl.append({"name": "XACK -P16 loadgen", "n": n, "load": fill_pel, "tool": "loadgen",
               "args": _P(n) + ["-r", str(entries), "XACK", "bench:xg", "g", "__rand_int__-1"]})
    wl.append({"name": "PFADD -P16 loadgen", "n": n, "tool": "loadgen",
               "args": _P(n) + ["-r", "100000000", "PFADD", "bench:hll", "el:__rand_int__"]})
    wl.append({"name": "PFCOUNT 1 key -P16 loadgen", "n": n, "load": fill_hll, "tool": "loadgen",
               "args": _P(n) + ["PFCOUNT", "bench:h1"]})
    # Geo.
    wl.append({"name": "GEOADD -P16", "n": n,
               "args": _P(n) + ["-r", "1000000", "GEOADD", "bench:geo", "13.361389", "38.115556",
                                "member:__rand_int__"]})
    pts = _geo_members(50000)

    def fill_geo(srv):
        bench.load_pipe(srv, len(pts) // 100, lambda i: ["GEOADD", "bench:g"] + [
            x for lon, lat, m in pts[i * 100:(i + 1) * 100] for x in (repr(lon), repr(lat), m)])
    wl.append({"name": "GEOSEARCH ~100 -P16", "n": n // 10, "load": fill_geo,
               "args": _P(n // 10) + ["GEOSEARCH", "bench:g", "FROMLONLAT", "13.25", "38.18",
                                      "BYRADIUS", "1.06", "km", "ASC"]})
    # SORT of a 100-element list of numbers.

    def fill_list(srv):
        rng = random.Random(7)
        srv.cli("RPUSH", "bench:sortlist", *[str(rng.randint(0, 1000000)) for _ in range(100)])
    wl.append({"name": "SORT 100 -P16", "n": n // 10, "load": fill_list,
               "args": _P(n // 10) + ["SORT", "bench:sortlist"]})
    return wl


def run(keel, ref, bench, a, pin, rows, seconds):
    import re
    for wl in workloads(a.quick, bench):
        if a.only and not re.search(a.only, wl["name"], re.I):
            continue
        if "load" in wl:
            for s in (keel, ref):
                s.cli("FLUSHALL")
                wl["load"](s)
            wl = dict(wl, flush=False)
        # A fitted request count would change how far XREADGROUP walks the stream: fixed counts.
        bench.side_by_side(keel, ref, wl, a.rounds, pin[1], rows, 0)


def memory(keel, ref, bench, a, pin, rows):
    """used_memory and RSS of each dataset, on fresh servers each."""
    count = 100000 if a.quick else 1000000
    pts = _geo_members(count, seed=99)
    kinds = [
        (f"{count}-entry stream", lambda srv: bench.load_pipe(
            srv, count, lambda i: ["XADD", "bench:s", "*", "field", f"value{i}"])),
        (f"{count} HLL keys of 10 elements", lambda srv: bench.load_pipe(
            srv, count, lambda i: ["PFADD", f"hll:{i}"] + [f"e{j}" for j in range(10)])),
        (f"{count}-member geo set", lambda srv: bench.load_pipe(
            srv, count // 100, lambda i: ["GEOADD", "bench:geo"] + [
                x for lon, lat, m in pts[i * 100:(i + 1) * 100] for x in (repr(lon), repr(lat), m)])),
    ]
    for label, load in kinds:
        keel.stop()
        ref.stop()
        keel = bench.Server("keel", a.keel, pin[0])
        ref = bench.Server("reference", a.reference, pin[0])
        per = {}
        for srv in (keel, ref):
            u0, r0 = srv.info("used_memory"), srv.info("used_memory_rss")
            load(srv)
            u1, r1 = srv.info("used_memory"), srv.info("used_memory_rss")
            per[srv.name] = (u1 - u0, r1 - r0)
        k, r = per["keel"], per["reference"]
        print(f"memory ({label}): used_memory keel {k[0] / 1e6:.1f} MB ref {r[0] / 1e6:.1f} MB "
              f"(x{k[0] / r[0]:.2f}); RSS keel {k[1] / 1e6:.1f} MB ref {r[1] / 1e6:.1f} MB "
              f"(x{k[1] / r[1]:.2f})", flush=True)
        rows.append([f"memory used_memory {label}", k[0], r[0], k[0] / r[0]] + [""] * 7)
        rows.append([f"memory rss {label}", k[1], r[1], k[1] / r[1]] + [""] * 7)
    return keel, ref
