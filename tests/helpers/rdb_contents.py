#!/usr/bin/python3
"""Reads a server's dataset for the RDB tests (tests/integration/rdb.tcl, tests/unit/dump.tcl).

  rdb_contents.py check CONTENTS.jsonl [--restore] [--no-functions]
      Compares every key listed in a fixture's contents.jsonl (tests/assets/rdb/*/) with the
      server at KEEL_HOST:KEEL_PORT: type, value and absolute expire time. With --restore, also
      RESTOREs each key's dump_hex (the payload the fixture's server produced) under a scratch
      name and compares that value too. Unless --no-functions, the libraries named on the last
      line must be loaded. Prints "ok <n> keys" or one line per mismatch (exit status 1).
  rdb_contents.py snapshot [--dbs N]
      Prints the whole dataset (every db, key, type, value, absolute expire time) as one
      canonical JSON line, so two servers can be compared byte for byte.

Strings and members are compared as bytes; the fixture stores them as Latin-1 text. Scores are
compared as doubles (the fixture has Python repr text).
"""
import json
import os
import sys

import redis


def connect():
    return redis.Redis(host=os.environ.get("KEEL_HOST", "127.0.0.1"),
                       port=int(os.environ["KEEL_PORT"]), decode_responses=False)


def b(s):
    return s.encode("latin-1")


def read_value(r, key, typ):
    if typ == "string":
        return r.get(key)
    if typ == "list":
        return r.lrange(key, 0, -1)
    if typ == "set":
        return sorted(r.smembers(key))
    if typ == "zset":
        return [(m, float(s)) for m, s in r.zrange(key, 0, -1, withscores=True)]
    if typ == "hash":
        return dict(r.hgetall(key))
    raise ValueError("unexpected type %r" % typ)


def expected_value(typ, v):
    if typ == "string":
        return b(v)
    if typ == "list":
        return [b(x) for x in v]
    if typ == "set":
        return sorted(b(x) for x in v)
    if typ == "zset":
        return [(b(m), float(s)) for m, s in v]
    if typ == "hash":
        return {b(k): b(x) for k, x in v.items()}
    raise ValueError("unexpected type %r" % typ)


def check(path, restore, functions):
    r = connect()
    lines = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]
    keys = [d for d in lines if "key" in d]
    bad = []
    for d in keys:
        r.execute_command("SELECT", d["db"])
        key = b(d["key"])
        typ = r.type(key).decode()
        if typ != d["type"]:
            bad.append("%s: type %s, expected %s" % (d["key"], typ, d["type"]))
            continue
        want = expected_value(typ, d["value"])
        got = read_value(r, key, typ)
        if got != want:
            bad.append("%s: value differs" % d["key"])
        at = r.execute_command("PEXPIRETIME", key)
        if at != d["pexpireat"]:
            bad.append("%s: pexpiretime %s, expected %s" % (d["key"], at, d["pexpireat"]))
        if restore:
            scratch = b"__restored__:" + key
            try:
                r.execute_command("RESTORE", scratch, 0, bytes.fromhex(d["dump_hex"]), "REPLACE")
                if read_value(r, scratch, typ) != want:
                    bad.append("%s: restored value differs" % d["key"])
            except redis.ResponseError as e:
                bad.append("%s: RESTORE failed: %s" % (d["key"], e))
            r.delete(scratch)
    r.execute_command("SELECT", 0)
    if functions:
        last = lines[-1]
        if "functions" in last:
            libs = sorted(x[b"library_name"].decode() if isinstance(x, dict) else
                          x[1].decode() for x in r.execute_command("FUNCTION", "LIST"))
            if libs != sorted(last["functions"]):
                bad.append("functions: %s, expected %s" % (libs, last["functions"]))
    for line in bad:
        print(line)
    if bad:
        sys.exit(1)
    print("ok %d keys" % len(keys))


def snapshot(dbs):
    r = connect()
    out = []
    for db in range(dbs):
        r.execute_command("SELECT", db)
        for key in sorted(r.scan_iter(count=1000)):
            typ = r.type(key).decode()
            v = read_value(r, key, typ)
            if typ == "hash":
                v = sorted(v.items())
            if typ == "zset":
                v = [(m, repr(s)) for m, s in v]
            out.append([db, key.decode("latin-1"), typ, json.loads(json.dumps(v, default=lambda x: x.decode("latin-1"))),
                        r.execute_command("PEXPIRETIME", key)])
    r.execute_command("SELECT", 0)
    print(json.dumps(out, sort_keys=True))


def main():
    args = sys.argv[1:]
    if args and args[0] == "check":
        check(args[1], "--restore" in args, "--no-functions" not in args)
    elif args and args[0] == "snapshot":
        dbs = int(args[args.index("--dbs") + 1]) if "--dbs" in args else 16
        snapshot(dbs)
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main()
