#!/usr/bin/python3
"""A client that follows Sentinel, as applications do (redis-py's redis.sentinel).

Usage: sentinel_client.py SENTINEL_PORT[,PORT...] MASTER_NAME KEY VALUE
Asks the sentinels for the master, writes KEY=VALUE there, reads it back from the master and
prints "<master host>:<master port> <value read>". Exits non-zero on any error.
"""
import sys

from redis.sentinel import Sentinel


def main():
    ports, name, key, value = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
    sentinel = Sentinel([("127.0.0.1", int(p)) for p in ports.split(",")], socket_timeout=5)
    host, port = sentinel.discover_master(name)
    master = sentinel.master_for(name, socket_timeout=5)
    master.set(key, value)
    print(f"{host}:{port} {master.get(key).decode()}")


if __name__ == "__main__":
    main()
