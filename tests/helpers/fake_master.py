#!/usr/bin/env python3
"""A misbehaving replication master for tests/integration/replication-faults.tcl.

fake_master.py PORT MODE RDBFILE COUNTFILE
Answers a replica's handshake (PING, AUTH, REPLCONF, PSYNC) on 127.0.0.1:PORT, then sends the
snapshot RDBFILE damaged as MODE says, for every connection until killed:
  truncated  the $<len> header, then half of the bytes, then closes the connection
  corrupt    the whole length with one byte flipped in the middle (checksum mismatch)
  badstream  the intact snapshot, then bytes that are not RESP
  stall      the $<len> header and half of the bytes, then nothing (the connection stays open)
  eofstream  the intact snapshot in the $EOF:<mark> form and, in the same write, a SET of
             eof-key to "after" (the stream right behind the mark; an intact master)
Each accepted connection appends a line to COUNTFILE.
"""
import socket
import sys


def serve(conn, mode, rdb):
    buf = b""
    while True:
        data = conn.recv(65536)
        if not data:
            return
        buf += data
        while True:
            # Multibulk commands only (what replicas send).
            if not buf:
                break
            if not buf.startswith(b"*"):
                return
            head, sep, rest = buf.partition(b"\r\n")
            if not sep:
                break
            n = int(head[1:])
            args, ok = [], True
            for _ in range(n):
                lh, sep, rest2 = rest.partition(b"\r\n")
                if not sep:
                    ok = False
                    break
                ln = int(lh[1:])
                if len(rest2) < ln + 2:
                    ok = False
                    break
                args.append(rest2[:ln])
                rest = rest2[ln + 2:]
            if not ok:
                break
            buf = rest
            cmd = args[0].upper()
            if cmd == b"PING":
                conn.sendall(b"+PONG\r\n")
            elif cmd == b"PSYNC" or cmd == b"SYNC":
                if mode == "eofstream":
                    mark = b"0123456789abcdef0123456789abcdef01234567"
                    conn.sendall(b"+FULLRESYNC " + b"f" * 40 + b" 0\r\n$EOF:" + mark + b"\r\n" +
                                 rdb + mark + b"*3\r\n$3\r\nSET\r\n$7\r\neof-key\r\n$5\r\nafter\r\n")
                    continue
                conn.sendall(b"+FULLRESYNC " + b"f" * 40 + b" 0\r\n")
                if mode == "truncated":
                    conn.sendall(b"$%d\r\n" % len(rdb) + rdb[: len(rdb) // 2])
                    return
                if mode == "stall":
                    conn.sendall(b"$%d\r\n" % len(rdb) + rdb[: len(rdb) // 2])
                    continue
                if mode == "corrupt":
                    bad = bytearray(rdb)
                    bad[len(bad) // 2] ^= 0xFF
                    conn.sendall(b"$%d\r\n" % len(bad) + bytes(bad))
                    continue
                conn.sendall(b"$%d\r\n" % len(rdb) + rdb)
                conn.sendall(b"*1\r\n$4\r\nPING\r\n" + b"*ZZZ\r\n")
            else:
                conn.sendall(b"+OK\r\n")


def main():
    port, mode, rdbfile, countfile = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    rdb = open(rdbfile, "rb").read()
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(5)
    while True:
        conn, _ = s.accept()
        with open(countfile, "a") as f:
            f.write("conn\n")
        try:
            serve(conn, mode, rdb)
        except OSError:
            pass
        conn.close()


if __name__ == "__main__":
    main()
