# cmdfuzz: RESP2/RESP3 wire code, one raw socket connection, and a server process.
# Raw sockets rather than redis-py: the fuzzer needs exact reply bytes and types, pipelines of
# its own making, half-sent commands and abrupt closes.
import os
import signal
import socket
import subprocess
import time

CRLF = b'\r\n'


def encode(args):
    """One command as a RESP multibulk. args: list of bytes."""
    out = [b'*%d\r\n' % len(args)]
    for a in args:
        out.append(b'$%d\r\n' % len(a))
        out.append(a)
        out.append(CRLF)
    return b''.join(out)


class ProtocolViolation(Exception):
    """The server sent bytes that are not RESP."""


# Frames are tuples so they compare, hash and print plainly:
#   ('+', b'OK') ('-', b'ERR x') (':', 5) ('$', b'..' | None) ('*', (frames) | None)
#   ('%', ((k, v), ...)) ('~', (frames)) ('>', (frames)) (',', b'1.5') ('#', b't')
#   ('_', None) ('(', b'123') ('=', b'txt:..') ('!', b'ERR ..')
_LINE_TYPES = frozenset(b'+-:,#(_')


def parse(buf, pos):
    """Parses one frame at buf[pos:]; returns (frame, new_pos) or None when incomplete."""
    end = buf.find(CRLF, pos)
    if end < 0:
        return None
    t = buf[pos]
    line = bytes(buf[pos + 1:end])
    p = end + 2
    if t in _LINE_TYPES:
        c = chr(t)
        if c == ':':
            try:
                return (':', int(line)), p
            except ValueError:
                raise ProtocolViolation('bad integer %r' % line)
        if c == '_':
            return ('_', None), p
        return (c, line), p
    if t in b'$=!':
        c = chr(t)
        try:
            n = int(line)
        except ValueError:
            raise ProtocolViolation('bad bulk length %r' % line)
        if n < 0:
            return (c, None), p
        if len(buf) < p + n + 2:
            return None
        if buf[p + n:p + n + 2] != CRLF:
            raise ProtocolViolation('bulk not terminated by CRLF')
        return (c, bytes(buf[p:p + n])), p + n + 2
    if t in b'*~>%|':
        c = chr(t)
        try:
            n = int(line)
        except ValueError:
            raise ProtocolViolation('bad aggregate length %r' % line)
        if n < 0:
            return (c, None), p
        count = n * 2 if c in '%|' else n
        items = []
        for _ in range(count):
            r = parse(buf, p)
            if r is None:
                return None
            items.append(r[0])
            p = r[1]
        if c == '|':
            # An attribute precedes the real reply; neither server sends them unasked. Drop it.
            r = parse(buf, p)
            if r is None:
                return None
            return r
        if c == '%':
            return ('%', tuple(zip(items[0::2], items[1::2]))), p
        return (c, tuple(items)), p
    raise ProtocolViolation('unknown type byte %r at offset %d' % (chr(t), pos))


class ReplyTimeout(Exception):
    pass


class ConnClosed(Exception):
    pass


class Conn:
    """A blocking TCP connection with its own read buffer."""

    def __init__(self, port, connect_timeout=5.0):
        self.sock = socket.create_connection(('127.0.0.1', port), timeout=connect_timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = bytearray()
        self.pos = 0
        self.closed = False

    def send(self, data):
        self.sock.settimeout(30)
        self.sock.sendall(data)

    def read_frame(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            if self.pos < len(self.buf):
                r = parse(self.buf, self.pos)
                if r is not None:
                    frame, self.pos = r
                    if self.pos > 65536 and self.pos * 2 > len(self.buf):
                        del self.buf[:self.pos]
                        self.pos = 0
                    return frame
            left = deadline - time.monotonic()
            if left <= 0:
                raise ReplyTimeout()
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(1 << 20)
            except socket.timeout:
                raise ReplyTimeout()
            except ConnectionError:
                raise ConnClosed()
            if not data:
                raise ConnClosed()
            self.buf += data

    def read_until_eof(self, timeout):
        """Frames until the server closes or `timeout` of silence; returns (frames, closed)."""
        frames = []
        while True:
            try:
                frames.append(self.read_frame(timeout))
            except ReplyTimeout:
                return frames, False
            except ConnClosed:
                return frames, True

    def has_data(self, timeout):
        if self.pos < len(self.buf):
            return True
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(1 << 20, socket.MSG_PEEK)
        except socket.timeout:
            return False
        except ConnectionError:
            return True
        return True if data is not None else False

    def call(self, args, timeout=10.0):
        self.send(encode(args))
        return self.read_frame(timeout)

    def close(self):
        if not self.closed:
            self.closed = True
            try:
                self.sock.close()
            except OSError:
                pass


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


SANITIZER_MARKERS = (b'ERROR: AddressSanitizer', b'ERROR: LeakSanitizer', b'runtime error:',
                     b'SUMMARY: UndefinedBehaviorSanitizer', b'SUMMARY: AddressSanitizer',
                     b'ERROR: ThreadSanitizer')


class Server:
    """One server process on a free 127.0.0.1 port, with its stdout/stderr in files."""

    def __init__(self, name, binary, workdir, args=(), env=None):
        self.name = name
        self.binary = os.path.abspath(binary) if os.sep in binary else binary
        self.dir = os.path.join(workdir, name)
        os.makedirs(self.dir, exist_ok=True)
        self.args = list(args)
        self.env = env
        self.proc = None
        self.port = None
        self.stderr_path = os.path.join(self.dir, 'stderr.log')
        self.stdout_path = os.path.join(self.dir, 'stdout.log')

    def start(self):
        for _ in range(20):
            port = free_port()
            argv = [self.binary, '--port', str(port), '--bind', '127.0.0.1', '--save', '',
                    '--appendonly', 'no', '--dir', self.dir, '--daemonize', 'no'] + self.args
            out = open(self.stdout_path, 'ab')
            err = open(self.stderr_path, 'ab')
            self.proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                         env=self.env, cwd=self.dir)
            out.close()
            err.close()
            self.port = port
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                try:
                    c = Conn(port, 1.0)
                    if c.call([b'PING'], 5.0) == ('+', b'PONG'):
                        c.close()
                        return
                    c.close()
                except (OSError, ConnClosed, ReplyTimeout):
                    time.sleep(0.02)
            self.stop()
        raise RuntimeError('%s (%s) did not start; see %s' % (self.name, self.binary, self.dir))

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def exit_status(self):
        return None if self.proc is None else self.proc.poll()

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def sanitizer_report(self):
        """The sanitizer report in stderr, or None."""
        try:
            with open(self.stderr_path, 'rb') as f:
                data = f.read()
        except OSError:
            return None
        for m in SANITIZER_MARKERS:
            i = data.find(m)
            if i >= 0:
                return data[max(0, i - 200):i + 4000].decode('latin-1')
        return None

    def log_tail(self, n=30):
        parts = []
        for p in (self.stdout_path, self.stderr_path):
            try:
                with open(p, 'rb') as f:
                    lines = f.read().decode('latin-1').splitlines()[-n:]
                if lines:
                    parts.append('--- %s\n%s' % (p, '\n'.join(lines)))
            except OSError:
                pass
        return '\n'.join(parts)
