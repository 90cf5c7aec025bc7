#!/usr/bin/python3
"""Minimal pub/sub reader for the notification benchmark: PSUBSCRIBE to one pattern and read
everything as fast as the socket delivers it, without parsing (so the reader costs the client
core as little as possible and is the same for every server). Whenever a message containing
MARKER arrives it prints "drained <bytes read>": the benchmark publishes the marker after a run
and waits for that line, so everything the run caused has been delivered. On SIGTERM prints the
bytes read. Usage: subscriber.py PORT PATTERN MARKER"""
import signal, socket, sys

port, pattern, marker = int(sys.argv[1]), sys.argv[2].encode(), sys.argv[3].encode()
s = socket.create_connection(("127.0.0.1", port))
s.sendall(b"*2\r\n$10\r\nPSUBSCRIBE\r\n$%d\r\n%s\r\n" % (len(pattern), pattern))
buf = bytearray(1 << 20)
view = memoryview(buf)
total = 0
tail = b""


def done(*_):
    print(total, flush=True)
    sys.exit(0)


signal.signal(signal.SIGTERM, done)
while True:
    n = s.recv_into(buf)
    if not n:
        break
    total += n
    # The marker is the last message of a run, so it ends a chunk (or straddles two).
    chunk = tail + bytes(view[max(0, n - 256):n])
    if marker in chunk:
        print("drained", total, flush=True)
    tail = bytes(view[max(0, n - len(marker)):n])
done()
