#!/usr/bin/python3
"""Damaged DUMP payloads and RDB files against a running server (tests/integration/rdb-corrupt.tcl).

  rdb_corrupt.py restore --db N --seconds S --seed X
      DUMPs every key of db N (and takes every payload of the fixtures' contents.jsonl, written
      by Redis 6.2 to 7.4 and Valkey: ziplists, zipmaps, listpacks, intsets, quicklists), then
      until S seconds have passed: flips, overwrites, inserts, deletes or truncates bytes of a
      payload (three times in four only its value, its footer then put back with a correct CRC, so
      the value parser sees the damage) and
      RESTOREs it with REPLACE over a key holding a sentinel, sanitize-dump-payload switching
      between no and yes. A refusal must be exactly "ERR Bad data format..." or "ERR DUMP
      payload version or checksum are wrong" and leave the sentinel; an accepted value must read
      back whole, DUMP and RESTORE again to the same value. Prints "ok: ...".
  rdb_corrupt.py files --tool PATH --scratch DIR --dump FILE --seconds S --seed X
      Damages FILE and the fixtures' dump.rdb files the same way (CRC fixed half of the time),
      and runs the checker PATH (keel-check-rdb) on each: exit 0 with "RDB looks OK" or exit 1
      with "RDB ERROR DETECTED", never a signal. One file in four is also loaded by the server
      (copied over its dbfilename, DEBUG RELOAD NOSAVE): OK or "ERR Error trying to load the RDB
      dump, check server logs.", and the server answers PING afterwards.
Any violation prints the case and exits 1.
"""
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import time

import redis

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# CRC-64/Jones, reflected, as in the RDB format.
_POLY = 0x95AC9329AC4BC9B5
_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ _POLY if _c & 1 else _c >> 1
    _TABLE.append(_c)


def crc64(data):
    c = 0
    for byte in data:
        c = _TABLE[(c ^ byte) & 0xFF] ^ (c >> 8)
    return c


INTERESTING = [0x00, 0x01, 0x3F, 0x40, 0x7F, 0x80, 0x81, 0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xFE, 0xFF,
               0x0E, 0x10, 0x11, 0x12, 0x14]


def mutate(data, rng):
    b = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        if not b:
            break
        pos = rng.randrange(len(b))
        op = rng.randrange(6)
        if op == 0:
            b[pos] ^= 1 << rng.randrange(8)
        elif op == 1:
            b[pos] = rng.choice(INTERESTING)
        elif op == 2:
            b[pos] = rng.randrange(256)
        elif op == 3:
            b.insert(pos, rng.randrange(256))
        elif op == 4:
            del b[pos:pos + rng.randint(1, 4)]
        else:
            del b[pos:]
    return bytes(b)


def fix_payload_crc(p):
    if len(p) < 10:
        return p
    return p[:-8] + crc64(p[:-8]).to_bytes(8, "little")


def fix_file_crc(img):
    if len(img) < 9:
        return img
    return img[:-8] + crc64(img[:-8]).to_bytes(8, "little")


def connect():
    return redis.Redis(host=os.environ.get("KEEL_HOST", "127.0.0.1"),
                       port=int(os.environ["KEEL_PORT"]), decode_responses=False)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def read_value(r, key):
    t = r.type(key)
    if t == b"string":
        return (t, r.get(key))
    if t == b"list":
        return (t, r.lrange(key, 0, -1))
    if t == b"set":
        return (t, sorted(r.smembers(key)))
    if t == b"zset":
        return (t, r.zrange(key, 0, -1, withscores=True))
    if t == b"hash":
        return (t, sorted(r.hgetall(key).items()))
    fail("restored key of type %r" % t)


def fixture_payloads():
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "assets", "rdb", "*", "contents.jsonl"))):
        with open(path) as f:
            for line in f:
                v = json.loads(line)
                if "dump_hex" in v:
                    out.append(bytes.fromhex(v["dump_hex"]))
    return out


def restore_mode(db, seconds, seed):
    rng = random.Random(seed)
    r = connect()
    r.select(db)
    payloads = [r.dump(k) for k in sorted(r.keys("*"))]
    own = len(payloads)
    payloads += fixture_payloads()
    r.select(0)
    sentinel = b"sentinel-value"
    bad_errors = ("Bad data format", "DUMP payload version or checksum are wrong")
    counts = {"runs": 0, "accepted": 0, "bad-format": 0, "checksum": 0}
    start = time.time()
    sanitize = "no"
    while time.time() - start < seconds:
        if counts["runs"] % 50 == 0:
            sanitize = "yes" if sanitize == "no" else "no"
            r.config_set("sanitize-dump-payload", sanitize)
        counts["runs"] += 1
        src = payloads[rng.randrange(len(payloads))]
        if rng.randrange(4) != 0:
            # The value damaged, the footer (version, a correct CRC) put back on.
            body = mutate(src[:-10], rng)
            p = fix_payload_crc(body + src[-10:])
        else:
            p = mutate(src, rng)
        r.set("target", sentinel)
        try:
            r.restore("target", 0, p, replace=True)
        except redis.ResponseError as e:
            msg = str(e)
            if not msg.startswith(bad_errors):
                fail("RESTORE of %s: unexpected error %r" % (p.hex(), msg))
            counts["checksum" if "checksum" in msg else "bad-format"] += 1
            if r.get("target") != sentinel:
                fail("RESTORE of %s refused (%s) but the key changed" % (p.hex(), msg))
            continue
        except redis.ConnectionError as e:
            fail("server gone after RESTORE of %s (sanitize %s): %s" % (p.hex(), sanitize, e))
        counts["accepted"] += 1
        value = read_value(r, "target")
        again = r.dump("target")
        r.restore("copy", 0, again, replace=True)
        if read_value(r, "copy") != value:
            fail("payload %s: DUMP/RESTORE of the restored value differs" % p.hex())
    if not r.ping():
        fail("no PING")
    r.delete("target", "copy")
    r.config_set("sanitize-dump-payload", "no")
    print("ok: %d payloads (%d the server's, %d fixtures'), %d restores: %d accepted, %d bad format, "
          "%d checksum" % (len(payloads), own, len(payloads) - own, counts["runs"], counts["accepted"],
                           counts["bad-format"], counts["checksum"]))


def files_mode(tool, scratch, dump, seconds, seed):
    rng = random.Random(seed)
    r = connect()
    server_dir = r.execute_command("CONFIG", "GET", "dir")[1].decode()
    dbfilename = r.execute_command("CONFIG", "GET", "dbfilename")[1].decode()
    images = []
    with open(dump, "rb") as f:
        images.append(f.read())
    for path in sorted(glob.glob(os.path.join(ROOT, "assets", "rdb", "*", "dump.rdb"))):
        with open(path, "rb") as f:
            images.append(f.read())
    counts = {"files": 0, "ok": 0, "error": 0, "reloads": 0, "reload-ok": 0}
    path = os.path.join(scratch, "damaged.rdb")
    start = time.time()
    while time.time() - start < seconds:
        counts["files"] += 1
        img = mutate(images[rng.randrange(len(images))], rng)
        if rng.randrange(2):
            img = fix_file_crc(img)
        with open(path, "wb") as f:
            f.write(img)
        proc = subprocess.run([tool, path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)
        out = proc.stdout.decode("latin-1")
        keep = os.path.join(scratch, "failed-%d.rdb" % counts["files"])
        if proc.returncode == 0 and "RDB looks OK" in out:
            counts["ok"] += 1
        elif proc.returncode == 1 and "--- RDB ERROR DETECTED ---" in out:
            counts["error"] += 1
        else:
            shutil.copy(path, keep)
            fail("checker exit %d on %s:\n%s" % (proc.returncode, keep, out[-2000:]))
        if counts["files"] % 4 == 0:
            counts["reloads"] += 1
            shutil.copy(path, os.path.join(server_dir, dbfilename))
            try:
                r.execute_command("DEBUG", "RELOAD", "NOSAVE")
                counts["reload-ok"] += 1
            except redis.ResponseError as e:
                if str(e) != "Error trying to load the RDB dump, check server logs.":
                    shutil.copy(path, keep)
                    fail("DEBUG RELOAD of %s: %r" % (keep, str(e)))
            except redis.ConnectionError as e:
                shutil.copy(path, keep)
                fail("server gone after DEBUG RELOAD of %s: %s" % (keep, e))
            if not r.ping():
                fail("no PING after DEBUG RELOAD")
    r.flushall()
    r.function_flush()
    print("ok: %d damaged files: checker %d ok, %d errors; %d loaded by the server (%d accepted)" % (
        counts["files"], counts["ok"], counts["error"], counts["reloads"], counts["reload-ok"]))


def main():
    args = sys.argv[1:]
    opts = {}
    mode = args[0]
    for i in range(1, len(args), 2):
        opts[args[i].lstrip("-")] = args[i + 1]
    if mode == "restore":
        restore_mode(int(opts["db"]), float(opts["seconds"]), int(opts["seed"]))
    elif mode == "files":
        files_mode(opts["tool"], opts["scratch"], opts["dump"], float(opts["seconds"]), int(opts["seed"]))
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main()
