#!/usr/bin/python3
"""Run one command with redis-py against the server of the calling test.

Usage: pyclient.py COMMAND [ARG ...]

Connects to $KEEL_HOST:$KEEL_PORT (set by python_client_script), sends the
command and prints the reply as a Tcl list, so a test can compare it
directly. Must run under Debian's /usr/bin/python3 (python3-redis).
"""
import os
import sys

import redis


def tcl_quote(s):
    if s == "":
        return "{}"
    special = set(' \t\n\r{}[]$"\\;')
    if not any(ch in special for ch in s):
        return s
    if s.count("{") == s.count("}") and "\\" not in s and not s.endswith("\\"):
        return "{" + s + "}"
    out = []
    for ch in s:
        if ch in special:
            out.append("\\" + ("n" if ch == "\n" else "r" if ch == "\r" else "t" if ch == "\t" else ch))
        else:
            out.append(ch)
    return "".join(out)


def to_tcl(value):
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("latin-1")
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (list, tuple, set)):
        return " ".join(tcl_quote(to_tcl(v)) for v in value)
    if isinstance(value, dict):
        return " ".join(tcl_quote(to_tcl(k)) + " " + tcl_quote(to_tcl(v)) for k, v in value.items())
    return str(value)


def main():
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    host = os.environ.get("KEEL_HOST", "127.0.0.1")
    port = int(os.environ.get("KEEL_PORT", "6379"))
    client = redis.Redis(host=host, port=port, socket_timeout=20)
    try:
        reply = client.execute_command(*sys.argv[1:])
    except redis.ResponseError as exc:
        print("ERROR: " + str(exc))
        return 0
    print(to_tcl(reply))
    return 0


if __name__ == "__main__":
    sys.exit(main())
