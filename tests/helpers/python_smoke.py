#!/usr/bin/python3
"""Smoke test of a real client library (Debian's python3-redis) against the server.

Connects to $KEEL_HOST:$KEEL_PORT, runs a fixed scenario and prints one line per step:
"ok <step>" or "FAIL <step>: <detail>". Exits 1 when any step failed. Runs under
/usr/bin/python3 (set by python_client_script in the Tcl suite).
"""
import os
import sys

import redis

failures = 0


def check(step, got, want):
    global failures
    if got == want:
        print("ok " + step)
    else:
        failures += 1
        print("FAIL %s: got %r, want %r" % (step, got, want))


def main():
    host = os.environ.get("KEEL_HOST", "127.0.0.1")
    port = int(os.environ.get("KEEL_PORT", "6379"))
    r = redis.Redis(host=host, port=port, socket_timeout=20)
    check("ping", r.ping(), True)
    r.flushdb()
    check("set", r.set("py:str", "hello"), True)
    check("get", r.get("py:str"), b"hello")
    check("get missing", r.get("py:none"), None)
    check("incr", r.incr("py:counter"), 1)
    check("incrby", r.incrby("py:counter", 41), 42)
    check("mset", r.mset({"py:a": "1", "py:b": "2"}), True)
    check("mget", r.mget(["py:a", "py:b", "py:none"]), [b"1", b"2", None])
    check("set ex", r.set("py:ttl", "v", ex=100), True)
    check("ttl", 90 <= r.ttl("py:ttl") <= 100, True)
    check("delete", r.delete("py:a", "py:b", "py:none"), 2)
    check("exists", r.exists("py:str"), 1)
    check("dbsize", r.dbsize(), 3)

    # Errors come back as ResponseError with Redis's text.
    try:
        r.incr("py:str")
        check("incr on string raises", False, True)
    except redis.ResponseError as e:
        check("incr error text", str(e), "value is not an integer or out of range")

    # Pipelines (no transaction) send everything in one write.
    p = r.pipeline(transaction=False)
    for i in range(100):
        p.set("py:p:%d" % i, i)
    for i in range(100):
        p.get("py:p:%d" % i)
    res = p.execute()
    check("pipeline sets", res[:100], [True] * 100)
    check("pipeline gets", res[100:], [str(i).encode() for i in range(100)])

    # Connection commands the library wraps.
    check("client_setname", r.client_setname("pyclient"), True)
    name = r.client_getname()
    check("client_getname", name.decode() if isinstance(name, bytes) else name, "pyclient")
    check("client_id", r.client_id() > 0, True)
    names = [c.get("name") for c in r.client_list()]
    check("client_list has name", "pyclient" in names, True)
    info = r.info()
    check("info parsed", info.get("redis_mode"), "standalone")
    check("info keyspace", info.get("db0", {}).get("keys"), 103)
    check("info section", "used_memory" in r.info("memory"), True)
    check("time", len(r.time()), 2)
    check("echo", r.echo("hi"), b"hi")
    check("select via db", redis.Redis(host=host, port=port, db=3).dbsize(), 0)

    # HELLO 3 on a raw connection: the library (4.x) does not parse RESP3, so only check that
    # the server answers HELLO 2 with the expected map.
    hello = r.execute_command("HELLO", "2")
    check("hello proto", hello[hello.index(b"proto") + 1], 2)

    # Decoding clients.
    d = redis.Redis(host=host, port=port, decode_responses=True)
    check("decoded get", d.get("py:str"), "hello")
    check("slowlog_len", isinstance(d.slowlog_len(), int), True)
    check("command_count", d.command_count() > 20, True)
    d.flushdb()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
