#!/usr/bin/python3
"""What each command propagates: Debian's redis-server (as a replica receives it) next to Keel.

For every command of a list this prints, per server, the reply, the change of
rdb_changes_since_last_save and the commands the server propagated, and marks the lines where
the two differ. Redis's side is read from a replication link this script opens itself
(`PSYNC ? -1`, the RDB payload skipped, then the command stream); Keel's side comes from
`DEBUG PROPAGATED` (Keel-only; see src/README.md, "One unit of execution").

Usage:
    tests/replstream/replstream.py [--keel src/keel-server] [--redis /usr/bin/redis-server]
                                   [--only-diff] FILE [FILE ...]

Command files: one command per line, split like a shell line (quotes, backslash escapes).
`#` starts a comment line. A command followed by `  #7.4 <why>` is a known difference between
Debian's 7.0 and the 7.4 behaviour Keel follows: it is shown with `~~` and not counted.
Directives:
    !sleep SECONDS      pause (keys with a short TTL expire meanwhile)
    !defer CMD ...      send CMD on a second connection without reading its reply (a blocking
                        command that waits); its reply is read by the next `!collect`
    !collect            read the reply of the deferred command
    !resp3              switch the main connection of both servers to RESP3 (HELLO 3)
Absolute millisecond timestamps in the stream (PEXPIREAT, SET ... PXAT) differ between the two
runs; numbers within an hour of now are shown as <ms>.
Exit status 1 when a stream or a dirty count differs.
"""
import argparse
import os
import shlex
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'fuzz', 'cmdfuzz'))
import resp  # noqa: E402


def text(frame):
    """A reply frame as short readable text."""
    t, v = frame
    if v is None:
        return '(nil)'
    if t in '*~>':
        return '[' + ' '.join(text(f) for f in v) + ']'
    if t == '%':
        return '{' + ' '.join(text(k) + ':' + text(x) for k, x in v) + '}'
    if t == ':':
        return str(v)
    if t in '-!':
        return '(error) ' + v.decode('latin-1')
    return v.decode('latin-1') if isinstance(v, bytes) else str(v)


def normalize(argv):
    now = time.time() * 1000
    out = []
    for a in argv:
        s = a.decode('latin-1')
        if s.isdigit() and abs(int(s) - now) < 3600 * 1000:
            s = '<ms>'
        out.append(s)
    return ' '.join(x if x and not any(c.isspace() or c in '"\'' for c in x) else shlex.quote(x)
                    for x in out)


class ReplicaLink:
    """A replication link to redis-server: full sync, then the propagated command stream."""

    def __init__(self, port):
        self.c = resp.Conn(port)
        self.c.send(resp.encode([b'PSYNC', b'?', b'-1']))
        self._line()  # +FULLRESYNC <replid> <offset>
        head = self._line()
        n = int(head[1:])
        while len(self.c.buf) - self.c.pos < n:
            self._fill()
        self.c.pos += n

    def _fill(self):
        self.c.sock.settimeout(10)
        data = self.c.sock.recv(1 << 20)
        if not data:
            raise resp.ConnClosed()
        self.c.buf += data

    def _line(self):
        while True:
            while self.c.pos < len(self.c.buf) and self.c.buf[self.c.pos:self.c.pos + 1] == b'\n':
                self.c.pos += 1  # keep-alive newlines while the master prepares the payload
            end = self.c.buf.find(b'\r\n', self.c.pos)
            if end >= 0:
                line = bytes(self.c.buf[self.c.pos:end])
                self.c.pos = end + 2
                return line
            self._fill()

    def until_marker(self, marker):
        """Commands up to (not including) PUBLISH __replstream__ <marker>; PINGs dropped."""
        cmds = []
        while True:
            t, v = self.c.read_frame(10)
            argv = [x[1] for x in v]
            if argv[0].upper() == b'PUBLISH' and argv[1] == b'__replstream__':
                if argv[2] == marker:
                    return cmds
                continue
            if argv[0].upper() == b'PING':
                continue
            cmds.append(argv)


def dirty(conn):
    t, v = conn.call([b'INFO', b'persistence'])
    for line in v.decode().splitlines():
        if line.startswith('rdb_changes_since_last_save:'):
            return int(line.split(':')[1])
    raise RuntimeError('no rdb_changes_since_last_save in INFO')


class Side:
    def __init__(self, name, server, is_keel):
        self.name, self.server, self.is_keel = name, server, is_keel
        self.conn = resp.Conn(server.port)
        self.side = resp.Conn(server.port)
        self.admin = resp.Conn(server.port)
        self.link = None if is_keel else ReplicaLink(server.port)
        if is_keel:
            r = self.admin.call([b'DEBUG', b'PROPAGATED', b'ON'])
            if r[0] == '-':
                raise SystemExit('keel: DEBUG PROPAGATED ON failed: %s' % text(r))
        self.marker = 0

    def stream(self):
        """What was propagated since the last call. A marker PUBLISH (propagated to replicas by
        both servers) ends each chunk, so both streams carry the same SELECTs."""
        self.marker += 1
        m = str(self.marker).encode()
        self.admin.call([b'PUBLISH', b'__replstream__', m])
        if not self.is_keel:
            return self.link.until_marker(m)
        t, v = self.admin.call([b'DEBUG', b'PROPAGATED'])
        cmds = []
        for cmd in v:
            argv = [x[1] for x in cmd[1]]
            if argv[0].upper() == b'PUBLISH' and argv[1] == b'__replstream__':
                break
            cmds.append(argv)
        return cmds


def run(files, keel_bin, redis_bin, only_diff):
    work = tempfile.mkdtemp(prefix='replstream-')
    servers = [resp.Server('redis', redis_bin, work, ['--repl-ping-replica-period', '3600',
                                                      '--repl-diskless-sync', 'no', '--enable-debug-command', 'yes'])]
    if keel_bin:
        servers.append(resp.Server('keel', keel_bin, work, ['--enable-debug-command', 'yes']))
    differ = 0
    try:
        for s in servers:
            s.start()
        sides = [Side('redis', servers[0], False)]
        if keel_bin:
            sides.append(Side('keel', servers[1], True))
        for sd in sides:
            sd.stream()  # the SELECT of a fresh link comes with the first command
        for path in files:
            with open(path) as f:
                lines = f.read().splitlines()
            for line in lines:
                line = line.strip()
                if not line or line.startswith('#'):
                    continue
                known = None
                if '  #7.4 ' in line:
                    line, known = line.split('  #7.4 ', 1)
                    line = line.rstrip()
                words = shlex.split(line)
                if words[0] == '!sleep':
                    time.sleep(float(words[1]))
                    continue
                if words[0] == '!resp3':
                    for sd in sides:
                        sd.conn.call([b'HELLO', b'3'])
                    continue
                results = []
                for sd in sides:
                    before = dirty(sd.admin)
                    if words[0] == '!defer':
                        sd.side.send(resp.encode([w.encode() for w in words[1:]]))
                        time.sleep(0.1)
                        reply = '(deferred)'
                    elif words[0] == '!collect':
                        reply = text(sd.side.read_frame(10))
                    else:
                        reply = text(sd.conn.call([w.encode() for w in words]))
                    time.sleep(0.01)
                    after = dirty(sd.admin)
                    results.append((reply, after - before, [normalize(c) for c in sd.stream()]))
                same_stream = all(r[2] == results[0][2] for r in results)
                same_dirty = all(r[1] == results[0][1] for r in results)
                same = same_stream and same_dirty
                if not same and not known:
                    differ += 1
                if only_diff and same:
                    continue
                mark = '  ' if same else '~~' if known else '!!'
                print('%s %s%s' % (mark, line, '   (7.4: %s)' % known if known and not same else ''))
                for sd, (reply, d, stream) in zip(sides, results):
                    print('     %-5s reply %s | dirty +%d | %s' % (
                        sd.name, reply[:100], d, ' ; '.join(stream) if stream else '-'))
    finally:
        for s in servers:
            s.stop()
    print('%d command(s) with a different stream or dirty count' % differ)
    return 1 if differ else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--keel', default=os.path.join(ROOT, 'src', 'keel-server'))
    ap.add_argument('--redis', default='/usr/bin/redis-server')
    ap.add_argument('--only-diff', action='store_true')
    ap.add_argument('--redis-only', action='store_true', help='run the list on redis-server alone')
    ap.add_argument('files', nargs='+')
    a = ap.parse_args()
    sys.exit(run(a.files, None if a.redis_only else a.keel, a.redis, a.only_diff))


if __name__ == '__main__':
    main()
