#!/usr/bin/env python3
"""Writes the seeds of the rdb_load fuzz target (tests/fuzz/rdb_load.cc) into
tests/fuzz/corpus/rdb_load/: python3 tests/fuzz/make_rdb_seeds.py [--keel src/keel-server]

- from the fixtures in tests/assets/rdb: the smallest DUMP payload of every (type, encoding) each
  server wrote (mode 2, as it is; mode 3, without its footer) and two whole dump.rdb files
  (mode 0; the others only differ in version and are reached by mutation);
- with --keel: a Keel server started on port 7131 in a scratch directory writes a small
  snapshot of every type and encoding with TTLs in two dbs (SAVE at rdb-version 11 and 10,
  mode 0 and mode 1 without header and footer) and the DUMP payload of each key (mode 2).
The first byte of each seed is the target's mode byte."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "corpus", "rdb_load")
PORT = 7131


def write(name, data):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def fixtures():
    for server in sorted(os.listdir(os.path.join(ROOT, "tests/assets/rdb"))):
        d = os.path.join(ROOT, "tests/assets/rdb", server)
        if not os.path.isdir(d):
            continue
        best = {}
        with open(os.path.join(d, "contents.jsonl")) as f:
            for line in f:
                v = json.loads(line)
                if "dump_hex" not in v or "type" not in v:
                    continue
                p = bytes.fromhex(v["dump_hex"])
                k = (v["type"], v["encoding"])
                if k not in best or len(p) < len(best[k]):
                    best[k] = p
        for (t, e), p in sorted(best.items()):
            write(f"fixture-{server}-{t}-{e}", b"\x02" + p)
            write(f"fixture-{server}-{t}-{e}-nofooter", b"\x03" + bytes([p[-10]]) + p[:-10])
    for server in ("redis-6.2.9", "redis-7.4.1"):
        with open(os.path.join(ROOT, "tests/assets/rdb", server, "dump.rdb"), "rb") as f:
            write(f"fixture-{server}-dump.rdb", b"\x00\x00" + f.read())


class Client:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.buf = b""

    def _line(self):
        while b"\r\n" not in self.buf:
            data = self.s.recv(65536)
            if not data:
                raise ConnectionError("connection closed")
            self.buf += data
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _reply(self):
        line = self._line()
        if line[:1] == b"$":
            n = int(line[1:])
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.s.recv(65536)
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        if line[:1] == b"*":
            return [self._reply() for _ in range(int(line[1:]))]
        if line[:1] == b"-":
            raise RuntimeError(line.decode())
        return line[1:]

    def call(self, *args):
        out = b"*%d\r\n" % len(args)
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out += b"$%d\r\n%s\r\n" % (len(a), a)
        self.s.sendall(out)
        return self._reply()


def keel(binary):
    tmp = tempfile.mkdtemp(prefix="keel-seeds-")
    proc = subprocess.Popen([os.path.abspath(binary), "--port", str(PORT), "--bind", "127.0.0.1",
                             "--dir", tmp, "--save", "", "--logfile", os.path.join(tmp, "log")])
    try:
        for _ in range(100):
            try:
                c = Client(PORT)
                break
            except OSError:
                time.sleep(0.05)
        for db in (0, 3):
            c.call("SELECT", db)
            c.call("SET", "int", "12345")
            c.call("SET", "embstr", "hello")
            c.call("SET", "raw", "x" * 60)
            c.call("SET", "bin", bytes(range(256)))
            c.call("RPUSH", "list-lp", "a", "1", "-70000", "b" * 70)
            c.call("RPUSH", "list-ql", *[f"item-{i}" for i in range(200)])
            c.call("RPUSH", "list-plain", "p" * 9000, "q")
            c.call("HSET", "hash-lp", "f1", "v1", "f2", "2", "f3", "-3")
            c.call("HSET", "hash-ht", *sum(([f"f{i}", f"v{i}"] for i in range(200)), []))
            c.call("SADD", "set-int", "1", "2", "-300", "70000")
            c.call("SADD", "set-lp", "a", "b", "3")
            c.call("SADD", "set-ht", *[f"m{i}" for i in range(200)])
            c.call("ZADD", "zset-lp", "1", "a", "2.5", "b", "-inf", "c", "inf", "d")
            c.call("ZADD", "zset-sl", *sum(([str(i / 3), f"m{i}"] for i in range(200)), []))
            c.call("PEXPIRE", "embstr", 100000000)
            c.call("PEXPIRE", "hash-lp", 100000000)
            c.call("PEXPIRE", "zset-sl", 100000000)
        c.call("SELECT", 0)
        for version in (11, 10):
            c.call("CONFIG", "SET", "rdb-version", version)
            c.call("SAVE")
            with open(os.path.join(tmp, "dump.rdb"), "rb") as f:
                img = f.read()
            write(f"keel-v{version}-dump.rdb", b"\x00\x00" + img)
            # mode 1: version digit byte, then the records without "REDISnnnn", EOF and CRC
            write(f"keel-v{version}-records", b"\x01" + bytes([version - 1]) + img[9:-9])
            for key in c.call("KEYS", "*"):
                p = c.call("DUMP", key)
                write(f"keel-v{version}-{key.decode()}", b"\x02" + p)
        try:
            c.call("SHUTDOWN", "NOSAVE")
        except ConnectionError:
            pass
    finally:
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    fixtures()
    if len(sys.argv) == 3 and sys.argv[1] == "--keel":
        keel(sys.argv[2])


if __name__ == "__main__":
    main()
