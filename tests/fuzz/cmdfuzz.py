#!/usr/bin/python3
# cmdfuzz: a command-level differential fuzzer. Starts Keel (src/keel-server) and the reference
# redis-server (Debian's 7.0.15) on free 127.0.0.1 ports, sends both the same seeded random
# commands in lockstep over several connections (pipelines, MULTI/EXEC, scripts, pub/sub,
# blocking commands, disconnects, malformed protocol) and compares every reply and, every N
# commands, the whole dataset. On a difference, crash, hang or sanitizer report it shrinks the
# command sequence and prints a reproduction, and exits non-zero. See tests/fuzz/cmdfuzz/README.md.
import argparse
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
import time
from collections import deque

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'cmdfuzz'))

import compare as cmp  # noqa: E402
from gen import (BLOCKING, CHAN_PATTERNS, CHANNELS, CONN_STATE, DBS, KEYS, Gen,  # noqa: E402
                 LLONG_MIN, lua_str)
from resp import (ConnClosed, Conn, ProtocolViolation, ReplyTimeout, Server,  # noqa: E402
                  encode, parse)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUBSCRIBE = {'subscribe': 'ch', 'psubscribe': 'pat', 'ssubscribe': 'sh'}
UNSUBSCRIBE = {'unsubscribe': 'ch', 'punsubscribe': 'pat', 'sunsubscribe': 'sh'}
RESP2_SUB_OK = set(SUBSCRIBE) | set(UNSUBSCRIBE) | {'ping', 'quit', 'reset'}
MESSAGE_KINDS = (b'message', b'pmessage', b'smessage')
# Not used inside scripts: random or clock-dependent replies a script would pass through
# unnormalised, and commands scripts may not run at all.
SCRIPT_EXCLUDE = {'spop', 'srandmember', 'hrandfield', 'zrandmember', 'randomkey', 'scan', 'sscan',
                  'hscan', 'zscan', 'time', 'ttl', 'pttl', 'expiretime', 'pexpiretime', 'object',
                  'lastsave', 'info', 'client', 'command', 'hello', 'config', 'reset', 'auth',
                  'pubsub'} | set(SUBSCRIBE) | set(UNSUBSCRIBE) | CONN_STATE
# Also out of scripts: replies 7.0 and 7.4 format differently (zset scores are doubles,
# printed %.17g by 7.0 and shortest-round-trip by 7.4) and the BITCOUNT/BITPOS argument order
# (Redis 8.0); outside scripts the comparison knows these, inside a script it cannot.
SCRIPT_EXCLUDE |= cmp.SCORE_REPLIES | {'bitcount', 'bitpos', 'blpop', 'brpop', 'blmove',
                                       'brpoplpush', 'blmpop', 'bzmpop'}
SCRIPT_SORT = cmp.UNORDERED | {'hgetall'}
FIXED_SCRIPTS = [
    'return {1, 2, 3, "x", {4, 5}}', 'return 3.99', 'return -3.99', 'return true',
    'return false', 'return {err="E custom"}', 'return {ok="fine"}',
    'return redis.error_reply("E x")', 'return redis.status_reply("S")', 'return nil',
    'return {1, nil, 3}', 'return tonumber("0x10")', 'return redis.sha1hex("")',
    'return cjson.encode({1, 2, "a"})', 'return cjson.decode("[1,2,{\\"a\\":3}]")[3].a',
    'return cmsgpack.pack({1, 2, "x"})', 'return struct.pack(">I2", 5)',
    'return bit.band(7, 3)', 'error("boom")', 'return redis.call("nosuch")',
    'return redis.pcall("nosuch")', 'return #KEYS + #ARGV', 'return KEYS', 'return ARGV',
    'return redis.call("get", KEYS[1])', 'return redis.call("set", KEYS[1], ARGV[1])',
    'return redis.pcall("incr", KEYS[1])', 'return redis.call("zscore", KEYS[1], "a")',
    'redis.setresp(3) return redis.call("zscore", KEYS[1], "a")',
    'redis.setresp(3) return redis.call("exists", KEYS[1])', 'return {double=3.5}',
    'return redis.call("exists", "k0", "k1", "k2")', 'return {1.5, 2.7, -0.5}',
    'return 9007199254740993', 'return "\\0binary\\255"', 'return string.rep("x", 3)',
    'local t = {} for i = 1, 10 do t[i] = i end return t', 'return redis.pcall("hset", KEYS[1])',
    'return redis.call("hset", KEYS[1])', 'return pcall(redis.call, "nosuch")',
    'return redis.pcall("lpush", KEYS[1], unpack(ARGV))', 'return select("#", 1, 2)',
    'return redis.REDIS_VERSION ~= nil', 'return type(redis.breakpoint)',
    'return redis.call("eval", "return 1", 0)', 'return redis.call("multi")',
    # A noscript command (BLPOP was one until Redis 7.2, which runs it non-blocking in scripts).
    'return redis.call("subscribe", KEYS[1])', 'return redis.call("ping")', 'return {{}, {{}}}',
    'return redis.call("select", 9)',
]
SCRIPT_LOAD_BODY = 'return redis.call("incr", KEYS[1])'


def b(cmd):
    return [a.encode('latin-1') for a in cmd]


def show_arg(a):
    if a and all(33 <= ord(c) < 127 and c not in '"\\\'' for c in a):
        return a
    out = ['"']
    for c in a:
        o = ord(c)
        if c in '"\\':
            out.append('\\' + c)
        elif 32 <= o < 127:
            out.append(c)
        else:
            out.append('\\x%02x' % o)
    out.append('"')
    return ''.join(out)


def show_cmd(cmd):
    s = ' '.join(show_arg(a) for a in cmd)
    return s if len(s) < 400 else s[:400] + '... (%d bytes)' % len(s)


def show_frame(f, limit=600):
    s = repr(f)
    return s if len(s) < limit else s[:limit] + '...'


class Failure(Exception):
    def __init__(self, kind, msg, cmd=None):
        super().__init__('%s: %s' % (kind, msg))
        self.kind = kind
        self.msg = msg
        self.cmd = cmd

    def signature(self):
        if self.kind == 'diff':
            return (self.kind, cmp.lname(self.cmd) if self.cmd else '')
        return (self.kind,)


class CState:
    """What the fuzzer predicts about one connection, from the commands alone."""
    __slots__ = ('proto', 'in_multi', 'ch', 'pat', 'sh')

    def __init__(self):
        self.proto = 2
        self.in_multi = False
        self.ch = set()
        self.pat = set()
        self.sh = set()

    def copy(self):
        c = CState()
        c.proto = self.proto
        c.in_multi = self.in_multi
        c.ch = set(self.ch)
        c.pat = set(self.pat)
        c.sh = set(self.sh)
        return c

    def nsubs(self):
        return len(self.ch) + len(self.pat) + len(self.sh)

    def resp2_subscribed(self):
        return self.proto == 2 and self.nsubs() > 0


def frames_for(st, cmd):
    """How many non-message frames `cmd` answers with; updates the prediction `st`."""
    name = cmd[0].lower()
    n = len(cmd)
    if st.in_multi and name not in ('exec', 'discard', 'multi', 'watch', 'quit', 'reset'):
        return 1
    if st.resp2_subscribed() and name not in RESP2_SUB_OK:
        return 1
    if name in SUBSCRIBE:
        if n < 2:
            return 1
        s = getattr(st, SUBSCRIBE[name])
        for a in cmd[1:]:
            s.add(a)
        return n - 1
    if name in UNSUBSCRIBE:
        s = getattr(st, UNSUBSCRIBE[name])
        if n < 2:
            r = max(1, len(s))
            s.clear()
            return r
        for a in cmd[1:]:
            s.discard(a)
        return n - 1
    if n == 1 and name == 'multi':
        st.in_multi = True
    elif n == 1 and name in ('exec', 'discard'):
        st.in_multi = False
    elif n == 1 and name == 'reset':
        st.proto = 2
        st.in_multi = False
        st.ch.clear()
        st.pat.clear()
        st.sh.clear()
    elif name == 'hello' and n >= 2 and cmd[1] in ('2', '3') and (
            n == 2 or (n == 4 and cmd[2].lower() == 'setname' and ' ' not in cmd[3])):
        st.proto = int(cmd[1])
    return 1


def unsubscribe_all_equal(cmd, fk, fr):
    """(P|S)UNSUBSCRIBE without arguments walks the subscriptions in hash-table order: the same
    channels must come back with the same falling counts, in any order."""
    if len(cmd) != 1 or cmd[0].lower() not in UNSUBSCRIBE or len(fk) != len(fr):
        return False
    try:
        names_k = sorted(f[1][1] for f in fk)
        names_r = sorted(f[1][1] for f in fr)
        rest_k = [(f[0], f[1][0], f[1][2]) for f in fk]
        rest_r = [(f[0], f[1][0], f[1][2]) for f in fr]
    except (IndexError, TypeError):
        return False
    return names_k == names_r and rest_k == rest_r


def is_message(f, resp2_sub):
    if f[0] == '>' or (resp2_sub and f[0] == '*'):
        items = f[1]
        return bool(items) and items[0][0] == '$' and items[0][1] in MESSAGE_KINDS
    return False


class Pair:
    """Keel and the reference, their fuzz connections and an inspector connection each."""

    def __init__(self, args, workdir):
        self.args = args
        env = dict(os.environ)
        env.setdefault('ASAN_OPTIONS', 'detect_leaks=0:abort_on_error=0')
        env.setdefault('UBSAN_OPTIONS', 'print_stacktrace=1')
        self.keel = Server('keel', args.keel, workdir, args.keel_args, env)
        self.ref = Server('ref', args.reference, workdir, args.common_args)
        self.nconns = args.conns
        self.ck = [None] * self.nconns
        self.cr = [None] * self.nconns
        self.idk = [0] * self.nconns
        self.idr = [0] * self.nconns
        self.st = [CState() for _ in range(self.nconns)]
        self.queued = [None] * self.nconns
        self.db = [0] * self.nconns  # SELECTed db of each connection (from the replies)
        self.timeout = args.timeout
        self.extra_clients = 0

    def start(self):
        self.keel.start()
        self.ref.start()
        self.ik = Conn(self.keel.port)
        self.ir = Conn(self.ref.port)
        for i in range(self.nconns):
            self.open_conn(i)

    def stop(self):
        for s in (self.keel, self.ref):
            try:
                s.stop()
            except Exception:
                pass

    def open_conn(self, i):
        self.ck[i] = Conn(self.keel.port)
        self.cr[i] = Conn(self.ref.port)
        self.idk[i] = self.ck[i].call([b'CLIENT', b'ID'], self.timeout)[1]
        self.idr[i] = self.cr[i].call([b'CLIENT', b'ID'], self.timeout)[1]
        self.st[i] = CState()
        self.queued[i] = None
        self.db[i] = 0

    # ---- failure classification ----
    def server_gone(self, which, what):
        srv = self.keel if which == 'keel' else self.ref
        time.sleep(0.2)
        if not srv.alive():
            rep = srv.sanitizer_report()
            kind = 'sanitizer' if (rep and which == 'keel') else (
                'crash' if which == 'keel' else 'reference-crash')
            return Failure(kind, '%s exited (status %s) during %s\n%s' % (
                which, srv.exit_status(), what, rep or srv.log_tail()))
        return None

    def read_side(self, which, conn, plan, resp2_sub, what):
        out = []
        try:
            for n in plan:
                msgs, frames = [], []
                while len(frames) < n:
                    f = conn.read_frame(self.timeout)
                    if is_message(f, resp2_sub):
                        msgs.append(f)
                    else:
                        frames.append(f)
                out.append((msgs, frames))
            # Messages already received behind the last reply (Redis 7.2+ sends a RESP3 client's
            # own pushes after the reply of the command that caused them): take them now.
            trailing = []
            while conn.pos < len(conn.buf):
                r = parse(conn.buf, conn.pos)
                if r is None or not is_message(r[0], resp2_sub):
                    break
                trailing.append(r[0])
                conn.pos = r[1]
            if out and trailing:
                out[-1] = (out[-1][0], out[-1][1], trailing)
        except ReplyTimeout:
            return out, 'timeout'
        except ConnClosed:
            return out, 'closed'
        except ProtocolViolation as e:
            raise Failure('diff', '%s sent invalid RESP during %s: %s' % (which, what, e))
        return out, None

    def icall(self, side, cmds):
        conn = self.ik if side == 'keel' else self.ir
        try:
            conn.send(b''.join(encode(b(c)) for c in cmds))
            return [conn.read_frame(self.timeout) for _ in cmds]
        except (ReplyTimeout, ConnClosed, OSError) as e:
            f = self.server_gone(side, 'inspector ' + show_cmd(cmds[0]))
            raise f or Failure('hang', '%s inspector: %r on %s' % (side, e, show_cmd(cmds[0])))

    def both(self, cmds):
        return self.icall('keel', cmds), self.icall('ref', cmds)

    # ---- one pipelined batch on connection i ----
    def run_batch(self, i, cmds):
        if i < 0:  # the inspectors (restores in reproductions)
            fk, fr = self.both(cmds)
            for c, x, y in zip(cmds, fk, fr):
                w = cmp.compare(c, x, y)
                if w:
                    raise Failure('diff', '%s: %s\n  keel: %s\n  ref:  %s' % (
                        show_cmd(c), w, show_frame(x), show_frame(y)), c)
            return
        st = self.st[i]
        resp2_sub = st.resp2_subscribed() or (st.proto == 2 and any(
            c[0].lower() in SUBSCRIBE for c in cmds))
        plan = [frames_for(st, c) for c in cmds]
        data = b''.join(encode(b(c)) for c in cmds)
        what = 'conn %d: %s' % (i, show_cmd(cmds[0]))
        for which, conn in (('keel', self.ck[i]), ('ref', self.cr[i])):
            try:
                conn.send(data)
            except OSError:
                f = self.server_gone(which, what)
                if f:
                    raise f
        rk, ek = self.read_side('keel', self.ck[i], plan, resp2_sub, what)
        rr, er = self.read_side('ref', self.cr[i], plan, resp2_sub, what)
        quit_last = cmds[-1][0].lower() == 'quit' and len(cmds[-1]) == 1
        self.compare_batch(i, cmds, plan, rk, rr)
        if ek or er:
            if ek == er == 'closed' and quit_last:
                pass
            else:
                for which, e in (('keel', ek), ('ref', er)):
                    if e:
                        f = self.server_gone(which, what)
                        if f:
                            raise f
                n = min(len(rk), len(rr))
                c = cmds[n] if n < len(cmds) else cmds[-1]
                if ek == 'timeout' and er is None:
                    raise Failure('hang', 'keel did not answer %s (reference did)' % show_cmd(c), c)
                raise Failure('diff', 'connection %d: keel %s, reference %s at %s' % (
                    i, ek or 'answered', er or 'answered', show_cmd(c)), c)
        if quit_last:
            self.reopen(i)

    def compare_batch(self, i, cmds, plan, rk, rr):
        first = None
        # A RESP3 client's own messages come before the reply of the command that caused them
        # in 7.0 and after it in 7.2+ (Keel): when the placement differs, the batch's whole
        # message sequence must still be the same.
        all_k = [m for e in rk for m in e[0] + (e[2] if len(e) > 2 else [])]
        all_r = [m for e in rr for m in e[0] + (e[2] if len(e) > 2 else [])]
        msgs_same = cmp.norm_messages(all_k) == cmp.norm_messages(all_r)
        for idx in range(min(len(rk), len(rr))):
            cmd = cmds[idx]
            (mk, fk), (mr, fr) = rk[idx][:2], rr[idx][:2]
            name = cmd[0].lower()
            if mk != mr and cmp.norm_messages(mk) != cmp.norm_messages(mr) and not msgs_same and \
                    not first:
                first = Failure('diff', 'push messages before the reply to %s differ\n  keel: %s'
                                '\n  ref:  %s' % (show_cmd(cmd), show_frame(mk, 2000),
                                                  show_frame(mr, 2000)), cmd)
            if plan[idx] == 1:
                q = self.queued[i] if (name == 'exec' and len(cmd) == 1) else None
                w = cmp.compare(cmd, fk[0], fr[0], q)
                if w and not first:
                    first = Failure('diff', '%s: %s\n  keel: %s\n  ref:  %s' % (
                        show_cmd(cmd), w, show_frame(fk[0]), show_frame(fr[0])), cmd)
                self.track_queue(i, cmd, name, fk[0])
            elif fk != fr and not first and not unsubscribe_all_equal(cmd, fk, fr):
                first = Failure('diff', '%s\n  keel: %s\n  ref:  %s' % (
                    show_cmd(cmd), show_frame(fk, 2000), show_frame(fr, 2000)), cmd)
        if first:
            raise first

    def track_db(self, i, cmd, name, f):
        if name == 'select' and f == ('+', b'OK') and len(cmd) == 2:
            self.db[i] = int(cmd[1])
        elif name == 'reset' and len(cmd) == 1:
            self.db[i] = 0
        elif name == 'exec' and len(cmd) == 1 and self.queued[i] and cmp.arr(f):
            for q, r in zip(self.queued[i], cmp.arr(f)):
                self.track_db(i, q, q[0].lower(), r)

    def track_queue(self, i, cmd, name, f):
        self.track_db(i, cmd, name, f)
        if name == 'multi' and f == ('+', b'OK'):
            self.queued[i] = []
        elif self.queued[i] is not None:
            if len(cmd) == 1 and name in ('exec', 'discard', 'reset'):
                self.queued[i] = None
            elif f == ('+', b'QUEUED'):
                self.queued[i].append(cmd)

    # ---- connection lifecycle ----
    def connected(self, side):
        f = self.icall(side, [['INFO', 'clients']])[0]
        for line in (f[1] or b'').split(b'\r\n'):
            if line.startswith(b'connected_clients:'):
                return int(line.split(b':')[1])
        return -1

    def blocked(self, side):
        f = self.icall(side, [['INFO', 'clients']])[0]
        for line in (f[1] or b'').split(b'\r\n'):
            if line.startswith(b'blocked_clients:'):
                return int(line.split(b':')[1])
        return -1

    def wait_clients(self, expect):
        for side in ('keel', 'ref'):
            deadline = time.monotonic() + 10
            while True:
                n = self.connected(side)
                if n <= expect:
                    break
                if time.monotonic() > deadline:
                    raise Failure('hang', '%s still has %d clients, expected %d after a close'
                                  % (side, n, expect))
                time.sleep(0.002)

    def reopen(self, i):
        self.ck[i].close()
        self.cr[i].close()
        self.wait_clients(self.nconns)  # the other fuzz connections + the inspector
        self.open_conn(i)

    def run_disconnect(self, i, cmds, partial):
        """Pipelined commands (no replies read) then part of one more, then close."""
        data = b''.join(encode(b(c)) for c in cmds) + partial.encode('latin-1')
        for which, conn in (('keel', self.ck[i]), ('ref', self.cr[i])):
            try:
                conn.send(data)
            except OSError:
                f = self.server_gone(which, 'disconnect on conn %d' % i)
                if f:
                    raise f
        self.ck[i].close()
        self.cr[i].close()
        # The commands before the cut ran; wait until both servers freed the client.
        for which in ('keel', 'ref'):
            srv = self.keel if which == 'keel' else self.ref
            if not srv.alive():
                raise self.server_gone(which, 'disconnect on conn %d' % i)
        self.wait_clients(self.nconns)
        self.open_conn(i)

    def run_protocol(self, payload):
        ks = Conn(self.keel.port)
        rs = Conn(self.ref.port)
        data = payload.encode('latin-1')
        ks.send(data)
        rs.send(data)
        fk, closed_k = ks.read_until_eof(0.3)
        fr, closed_r = rs.read_until_eof(0.3)
        ks.close()
        rs.close()
        for which in ('keel', 'ref'):
            f = self.server_gone(which, 'protocol payload') if not (
                self.keel if which == 'keel' else self.ref).alive() else None
            if f:
                raise f
        if fk != fr or closed_k != closed_r:
            if not self.protocol_allowed(payload, fk, fr, closed_k, closed_r):
                raise Failure('diff', 'raw payload %r\n  keel: %s closed=%s\n  ref:  %s closed=%s'
                              % (payload[:200], show_frame(fk), closed_k, show_frame(fr),
                                 closed_r), ['<protocol>'])
        self.wait_clients(self.nconns + 1)

    def protocol_allowed(self, payload, fk, fr, ck, cr):
        return ck == cr and cmp.norm_hello(fk) == cmp.norm_hello(fr)

    def send_alone(self, i, cmd):
        """Sends cmd on connection i to both servers and reads both replies: (plan, keel frames,
        reference frames, resp2_sub). A server that died or a reply that never came raises."""
        st = self.st[i]
        plan = [frames_for(st, cmd)]
        data = encode(b(cmd))
        self.ck[i].send(data)
        self.cr[i].send(data)
        resp2_sub = st.resp2_subscribed()
        rk, ek = self.read_side('keel', self.ck[i], plan, resp2_sub, show_cmd(cmd))
        rr, er = self.read_side('ref', self.cr[i], plan, resp2_sub, show_cmd(cmd))
        if ek or er:
            for which, e in (('keel', ek), ('ref', er)):
                if e:
                    f = self.server_gone(which, show_cmd(cmd))
                    if f:
                        raise f
            raise Failure('hang' if ek == 'timeout' and not er else 'diff',
                          'keel %s, reference %s at %s' % (ek, er, show_cmd(cmd)), cmd)
        return plan, rk, rr, resp2_sub

    def run_spop(self, i, cmd):
        """SPOP outside MULTI: random, so compare counts, then make both sets equal again by
        removing on each server what the other one popped."""
        st = self.st[i]
        plan, rk, rr, resp2_sub = self.send_alone(i, cmd)
        (mk, fk), (mr, fr) = rk[0][:2], rr[0][:2]
        if cmp.norm_messages(mk + (rk[0][2] if len(rk[0]) > 2 else [])) != cmp.norm_messages(
                mr + (rr[0][2] if len(rr[0]) > 2 else [])):
            raise Failure('diff', 'push messages before the reply to %s differ' % show_cmd(cmd),
                          cmd)
        a, c = fk[0], fr[0]
        popped_k = popped_r = None
        if a[0] == '$' and c[0] == '$':
            if (a[1] is None) != (c[1] is None):
                raise Failure('diff', '%s: nil on one side\n  keel: %s\n  ref:  %s' % (
                    show_cmd(cmd), show_frame(a), show_frame(c)), cmd)
            if a[1] is not None:
                popped_k, popped_r = [a[1]], [c[1]]
        elif a[0] in '*~' and c[0] in '*~' and a[0] == c[0]:
            if len(a[1]) != len(c[1]):
                raise Failure('diff', '%s: popped %d vs %d' % (show_cmd(cmd), len(a[1]),
                                                                  len(c[1])), cmd)
            popped_k = [x[1] for x in a[1]]
            popped_r = [x[1] for x in c[1]]
        else:
            w = cmp.compare(cmd, a, c)
            if w:
                raise Failure('diff', '%s: %s\n  keel: %s\n  ref:  %s' % (
                    show_cmd(cmd), w, show_frame(a), show_frame(c)), cmd)
        if popped_k is not None and sorted(popped_k) != sorted(popped_r):
            key = cmd[1]
            fix_k = ['SREM', key] + [x.decode('latin-1') for x in popped_r]
            fix_r = ['SREM', key] + [x.decode('latin-1') for x in popped_k]
            plan = [frames_for(st.copy(), fix_k)]
            self.ck[i].send(encode(b(fix_k)))
            self.cr[i].send(encode(b(fix_r)))
            rk, ek = self.read_side('keel', self.ck[i], plan, resp2_sub, 'spop repair')
            rr, er = self.read_side('ref', self.cr[i], plan, resp2_sub, 'spop repair')
            if ek or er or rk != rr:
                raise Failure('diff', 'SPOP repair replies differ: keel %s %s, ref %s %s' % (
                    rk, ek, rr, er), cmd)

    def run_lex(self, i, cmd):
        """A lexicographic range command, alone. When the zset's members have different scores
        Redis leaves the result unspecified: then a read is compared by shape only and a write
        (ZREMRANGEBYLEX, ZRANGESTORE BYLEX) is not sent at all (both datasets are identical, so
        both servers skip it)."""
        key = cmd[2] if cmd[0].lower() == 'zrangestore' else (cmd[1] if len(cmd) > 1 else '')
        mixed = False
        # Asked on both: the lookup has side effects (a keymiss event) that must happen on both.
        rep = self.both([['SELECT', str(self.db[i])], ['ZRANGE', key, '0', '-1', 'WITHSCORES']])[0][1]
        items = cmp.arr(rep)
        if items and len(set(x[1] for x in items[1::2])) > 1:
            mixed = True
        writes = cmd[0].lower() in ('zremrangebylex', 'zrangestore')
        if mixed and writes:
            return
        plan, rk, rr, _ = self.send_alone(i, cmd)
        if mixed:
            (mk, fk), (mr, fr) = rk[0][:2], rr[0][:2]
            if cmp.is_err(fk[0]) or cmp.is_err(fr[0]) or fk[0][0] != fr[0][0]:
                self.compare_batch(i, [cmd], plan, rk, rr)
            return
        self.compare_batch(i, [cmd], plan, rk, rr)

    def run_block(self, i, cmd, j, cmds, mode):
        """A blocking command on connection i with a long timeout, served (or not) by a batch on
        connection j; if still blocked, CLIENT UNBLOCK ends it. Deterministic: the server
        serves blocked clients right after the command that fed the key."""
        st = self.st[i]
        plan = [frames_for(st, cmd)]
        data = encode(b(cmd))
        self.ck[i].send(data)
        self.cr[i].send(data)
        state = {}
        for side, conn in (('keel', self.ck[i]), ('ref', self.cr[i])):
            deadline = time.monotonic() + 10
            while True:
                if conn.has_data(0.001):
                    state[side] = 'answered'
                    break
                if self.blocked(side) >= 1:
                    state[side] = 'blocked'
                    break
                if time.monotonic() > deadline:
                    f = self.server_gone(side, show_cmd(cmd))
                    raise f or Failure('hang', '%s neither answered nor blocked on %s' % (
                        side, show_cmd(cmd)), cmd)
        if state['keel'] != state['ref']:
            raise Failure('diff', '%s: keel %s, reference %s' % (
                show_cmd(cmd), state['keel'], state['ref']), cmd)
        if state['keel'] == 'answered':
            self.read_blocked(i, cmd, plan)
            if cmds:
                self.run_batch(j, cmds)
            return
        if cmds:
            self.run_batch(j, cmds)
        bk, br = self.blocked('keel'), self.blocked('ref')
        if bk != br:
            raise Failure('diff', 'after %s on another connection, blocked clients: keel %d,'
                          ' reference %d (blocked: %s)' % (show_cmd(cmds[0]), bk, br,
                                                           show_cmd(cmd)), cmd)
        if bk >= 1:
            uk = self.icall('keel', [['CLIENT', 'UNBLOCK', str(self.idk[i]), mode]])[0]
            ur = self.icall('ref', [['CLIENT', 'UNBLOCK', str(self.idr[i]), mode]])[0]
            if uk != ur:
                raise Failure('diff', 'CLIENT UNBLOCK: keel %s, ref %s' % (uk, ur), cmd)
        self.read_blocked(i, cmd, plan)

    def read_blocked(self, i, cmd, plan):
        rk, ek = self.read_side('keel', self.ck[i], plan, False, show_cmd(cmd))
        rr, er = self.read_side('ref', self.cr[i], plan, False, show_cmd(cmd))
        if ek or er:
            for side, e in (('keel', ek), ('ref', er)):
                if e:
                    f = self.server_gone(side, show_cmd(cmd))
                    if f:
                        raise f
            raise Failure('hang' if ek and not er else 'diff',
                          'blocked %s: keel %s, reference %s' % (show_cmd(cmd), ek, er), cmd)
        self.compare_batch(i, [cmd], plan, rk, rr)
        a, c = rk[0][1][0], rr[0][1][0]
        if a != c and cmp.allowed(cmd, a, c) == 'blocked-reprocess':
            # 7.0 popped an element that 7.4 (and Keel) left: start both from empty data.
            self.both([['FLUSHALL']])

    # ---- the dataset ----
    def snapshot_side(self, side):
        """{db: {key: (type, value, ttl>=0?, ttl, encoding)}} plus INFO keyspace counts."""
        out = {}
        for d in range(DBS):
            fr = self.icall(side, [['SELECT', str(d)], ['KEYS', '*']])
            keys = sorted(x[1].decode('latin-1') for x in fr[1][1])
            meta = self.icall(side, [c for k in keys for c in (
                ['TYPE', k], ['PTTL', k], ['OBJECT', 'ENCODING', k])]) if keys else []
            reads = []
            types = []
            for n, k in enumerate(keys):
                t = meta[3 * n][1].decode()
                types.append(t)
                reads.append({'string': ['GET', k], 'list': ['LRANGE', k, '0', '-1'],
                              'set': ['SMEMBERS', k], 'hash': ['HGETALL', k],
                              'zset': ['ZRANGE', k, '0', '-1', 'WITHSCORES']}.get(t, ['TYPE', k]))
            vals = self.icall(side, reads) if reads else []
            db = {}
            for n, k in enumerate(keys):
                t = types[n]
                val = vals[n]
                if t == 'set':
                    val = cmp.norm_unordered(val)
                elif t == 'hash':
                    val = cmp.norm_pairs(val)
                db[k] = (t, val, meta[3 * n + 1][1], meta[3 * n + 2][1])
            out[d] = db
        info = self.icall(side, [['INFO', 'keyspace']])[0][1] or b''
        ks = {}
        for line in info.split(b'\r\n'):
            if line.startswith(b'db') and b':' in line:
                name, rest = line.split(b':', 1)
                fields = dict(x.split(b'=') for x in rest.split(b','))
                ks[name.decode()] = (int(fields[b'keys']), int(fields[b'expires']))
        return out, ks

    def check_dataset(self):
        # A key stored with an absolute expiry in the past (SET ... PXAT 1) stays until an access
        # or the active expiry cycle removes it, at a moment of each server's own: touch every
        # key of the pool first so that both remove them now, then compare.
        # SCAN deletes the expired keys it visits (both servers), EXISTS covers the pool.
        sweep = [c for d in range(DBS) for c in (['SELECT', str(d)], ['EXISTS'] + KEYS)]
        self.both(sweep)
        for side in ('keel', 'ref'):
            for d in range(DBS):
                self.icall(side, [['SELECT', str(d)]])
                cur = '0'
                while True:
                    r = self.icall(side, [['SCAN', cur, 'COUNT', '1000']])[0]
                    cur = r[1][0][1].decode()
                    if cur == '0':
                        break
        sk, kk = self.snapshot_side('keel')
        sr, kr = self.snapshot_side('ref')
        for d in range(DBS):
            a, c = sk[d], sr[d]
            if set(a) != set(c):
                only_k = sorted(set(a) - set(c))
                only_r = sorted(set(c) - set(a))
                raise Failure('dataset', 'db %d keys differ: only on keel %s, only on ref %s' % (
                    d, [show_arg(x) for x in only_k], [show_arg(x) for x in only_r]))
            for key in sorted(a):
                ta, va, pa, ea = a[key]
                tc, vc, pc, ec = c[key]
                where = 'db %d key %s' % (d, show_arg(key))
                if ta != tc:
                    raise Failure('dataset', '%s: type %s vs %s' % (where, ta, tc))
                if va != vc and not (ta == 'zset' and zset_equal(va, vc)):
                    raise Failure('dataset', '%s (%s): values differ\n  keel: %s\n  ref:  %s' % (
                        where, ta, show_frame(va, 3000), show_frame(vc, 3000)))
                if (pa < 0 or pc < 0) and pa != pc or abs(pa - pc) > 2000:
                    raise Failure('dataset', '%s: PTTL %d vs %d' % (where, pa, pc))
                if not encoding_equiv(ta, ea, ec):
                    raise Failure('dataset', '%s (%s): encoding %s vs %s' % (where, ta, ea, ec))
        if kk != kr:
            raise Failure('dataset', 'INFO keyspace (keys, expires) differ: keel %s, ref %s' % (
                kk, kr))
        rep = self.keel.sanitizer_report()
        if rep:
            raise Failure('sanitizer', rep)
        return sk

    def rss_mb(self):
        out = []
        for s in (self.keel, self.ref):
            try:
                with open('/proc/%d/status' % s.proc.pid) as f:
                    for line in f:
                        if line.startswith('VmRSS:'):
                            out.append(int(line.split()[1]) // 1024)
            except (OSError, AttributeError):
                out.append(0)
        return out


def zset_equal(va, vc):
    """ZRANGE WITHSCORES (RESP2): members exact, scores as doubles (see compare.eq_scores)."""
    ia, ic = cmp.arr(va), cmp.arr(vc)
    if ia is None or ic is None or len(ia) != len(ic):
        return False
    for n, (x, y) in enumerate(zip(ia, ic)):
        if (n % 2 == 0 and x != y) or (n % 2 == 1 and not cmp.eq_scores(x, y)):
            return False
    return True


def encoding_equiv(t, ek, er):
    if ek == er:
        return True
    # Redis 7.2+ (Keel follows 7.4): small lists are listpacks and 7.0 says quicklist for every
    # list; sets of strings start as listpacks where 7.0 makes a hashtable.
    if t == 'list' and er == b'quicklist' and ek in (b'listpack', b'quicklist'):
        return True
    if t == 'set' and ek == b'listpack' and er == b'hashtable':
        return True
    # Redis 7.2+ ZADD converts a listpack zset by the number of pairs given before applying them
    # (zsetTypeMaybeConvert), even when NX/XX/GT/LT then add nothing; 7.0 converts only when an
    # element is added. So a skiplist here may be a listpack there, never the reverse.
    if t == 'zset' and ek == b'skiplist' and er == b'listpack':
        return True
    # Likewise Redis 7.4 HSET/HMSET convert by the number of field/value pairs given
    # (hashTypeTryConversion presizes for them), duplicates included; 7.0 by the fields added.
    if t == 'hash' and ek == b'hashtable' and er == b'listpack':
        return True
    # And SADD: 7.2+ creates or converts a set by the number of members given (setTypeCreate /
    # setTypeMaybeConvert with a size hint, duplicates included), so 7.4 may have a listpack or
    # a hashtable where 7.0 still has an intset.
    if t == 'set' and ek in (b'listpack', b'hashtable') and er == b'intset':
        return True
    return False


def restore_cmds(snap):
    """Commands that rebuild a snapshot (for reproductions that start mid-run)."""
    ops = []
    for d, db in sorted(snap.items()):
        for key, (t, val, pttl, _enc) in sorted(db.items()):
            cmds = [['SELECT', str(d)]]
            items = [x[1].decode('latin-1') for x in (cmp.arr(val) or ())] if t != 'hash' else None
            if t == 'string':
                cmds.append(['SET', key, val[1].decode('latin-1')])
            elif t == 'list':
                for s in range(0, len(items), 500):
                    cmds.append(['RPUSH', key] + items[s:s + 500])
            elif t == 'set':
                cmds.append(['SADD', key] + items)
            elif t == 'zset':
                pairs = []
                for s in range(0, len(items), 2):
                    pairs += [items[s + 1], items[s]]
                cmds.append(['ZADD', key] + pairs)
            elif t == 'hash':
                flat = []
                if val[0] == '%':
                    for fk, fv in val[1]:
                        flat += [fk[1].decode('latin-1'), fv[1].decode('latin-1')]
                else:
                    flat = [x[1].decode('latin-1') for x in val[1]]
                cmds.append(['HSET', key] + flat)
            if pttl >= 0:
                cmds.append(['PEXPIRE', key, str(max(pttl, 1000000))])
            ops.append({'t': 'batch', 'c': -1, 'cmds': cmds})
    return ops


class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.gen = Gen(self.rng)
        self.nconns = args.conns
        self.pred = [CState() for _ in range(self.nconns)]  # generation-time prediction
        self.sha_loaded = False
        # Keymiss events may be on (conservative: set once a CONFIG SET asked for them).
        self.notify_m = False

    # ---- generation (uses only self.rng and the predictions) ----
    def gen_cmd(self, st, ci, allow_lex=False):
        g = self.gen
        for _ in range(50):
            if st.resp2_subscribed() and g.p(0.75):
                name = g.ch(['subscribe', 'psubscribe', 'ssubscribe', 'unsubscribe',
                             'punsubscribe', 'sunsubscribe', 'ping', 'publish'])
            elif ci < 2 and not st.in_multi and g.p(0.01):
                name = g.ch(['subscribe', 'psubscribe', 'ssubscribe'])
            else:
                name = g.pick_name()
            if st.in_multi and name in ('subscribe', 'psubscribe', 'ssubscribe', 'unsubscribe',
                                        'punsubscribe', 'sunsubscribe', 'reset'):
                continue
            if name in SUBSCRIBE:
                pool = CHAN_PATTERNS if name == 'psubscribe' else CHANNELS
                return [name.upper()] + [g.ch(pool) for _ in range(g.r.randrange(1, 3))]
            if name in UNSUBSCRIBE:
                pool = CHAN_PATTERNS if name == 'punsubscribe' else CHANNELS
                return [name.upper()] + [g.ch(pool) for _ in range(g.r.randrange(0, 2))]
            cmd = g.table[name][1]()
            if st.in_multi and cmp.version_sensitive(cmd):
                continue
            if self.notify_m and cmp.lookup_differs(cmd):
                continue
            if cmp.is_lex(cmd) and not allow_lex:
                continue
            if name == 'spop' and st.in_multi:
                cmd = cmd[:2] + ['100000']
            if name not in CONN_STATE and name not in BLOCKING and name not in (
                    'spop', 'client', 'hello', 'command') and g.p(0.08):
                cmd = g.mutate(cmd)
                if not safe(cmd) or (st.in_multi and cmp.version_sensitive(cmd)) or (
                        cmp.is_lex(cmd) and not allow_lex) or (
                        self.notify_m and cmp.lookup_differs(cmd)):
                    continue
            return cmd
        return ['PING']

    def next_op(self):
        g = self.gen
        r = g.r.random()
        ci = g.r.randrange(self.nconns)
        st = self.pred[ci]
        if r < 0.004:
            return self.gen_disconnect(ci)
        if r < 0.010 and not st.in_multi and not st.nsubs():
            return self.gen_block(ci)
        if r < 0.012:
            return {'t': 'proto', 'data': self.gen_protocol()}
        if r < 0.015 and not st.in_multi and not st.resp2_subscribed():
            cmds = [self.gen_config()]
            frames_for(st, cmds[0])
            return {'t': 'batch', 'c': ci, 'cmds': cmds}
        if r < 0.06 and not st.in_multi and not st.resp2_subscribed():
            while True:
                cmd = self.gen_cmd(st.copy(), ci, allow_lex=True)
                if cmp.is_lex(cmd):
                    break
            frames_for(st, cmd)
            return {'t': 'lex', 'c': ci, 'cmd': cmd}
        if r < 0.09 and not st.resp2_subscribed():
            cmds = [self.gen_script() for _ in range(1 if g.p(0.7) else g.r.randrange(2, 4))]
            for c in cmds:
                frames_for(st, c)
            return {'t': 'batch', 'c': ci, 'cmds': cmds}
        n = 1 if g.p(0.5) else g.r.randrange(2, self.args.pipeline + 1)
        cmds = []
        for _ in range(n):
            tmp = st.copy()
            cmd = self.gen_cmd(tmp, ci)
            if cmd[0].lower() == 'spop' and not st.in_multi and not st.resp2_subscribed():
                if not cmds:
                    frames_for(st, cmd)
                    return {'t': 'spop', 'c': ci, 'cmd': cmd}
                break
            frames_for(st, cmd)
            cmds.append(cmd)
        return {'t': 'batch', 'c': ci, 'cmds': cmds}

    def gen_disconnect(self, ci):
        g = self.gen
        st = self.pred[ci]
        cmds = []
        if g.p(0.5):
            for _ in range(g.r.randrange(1, 4)):
                c = self.gen_cmd(st.copy(), ci)
                if c[0].lower() in BLOCKING or c[0].lower() == 'spop':
                    continue
                frames_for(st, c)
                cmds.append(c)
        x = g.r.random()
        if x < 0.3:
            # Blocked forever, then gone: the server must drop the waiter.
            last = ['BLPOP', g.k(), '0'] if not st.in_multi else ['GET', g.k()]
            cmds.append(last)
            partial = ''
        else:
            full = encode(b(self.gen_cmd(st.copy(), ci))).decode('latin-1')
            partial = full[:g.r.randrange(1, max(2, len(full)))]
        if x > 0.9:
            # QUIT: replies are read and compared.
            cmds = [c for c in cmds if c[0].lower() != 'blpop'] + [['QUIT']]
            self.pred[ci] = CState()
            return {'t': 'batch', 'c': ci, 'cmds': cmds, 'quit': True}
        self.pred[ci] = CState()
        return {'t': 'disc', 'c': ci, 'cmds': cmds, 'partial': partial}

    def gen_block(self, ci):
        g = self.gen
        k1, k2 = g.k(), g.k()
        t = g.ch(['0', '0', '100'])
        cmd = g.ch([['BLPOP', k1, k2, t], ['BRPOP', k1, t], ['BLMOVE', k1, k2, 'LEFT', 'RIGHT', t],
                    ['BRPOPLPUSH', k1, k2, t], ['BLMPOP', t, '2', k1, k2, 'RIGHT', 'COUNT', '2'],
                    ['BZPOPMIN', k1, k2, t], ['BZPOPMAX', k1, t],
                    ['BZMPOP', t, '1', k1, 'MAX', 'COUNT', '3']])
        j = (ci + 1 + g.r.randrange(self.nconns - 1)) % self.nconns
        stj = self.pred[j]
        cmds = []
        if not stj.resp2_subscribed() and not stj.in_multi:
            feed = g.ch([['LPUSH', k1, g.m()], ['RPUSH', k2, g.m(), g.m()],
                         ['ZADD', k1, '1', g.m()], ['ZADD', k2, '2', 'a', '3', 'b'],
                         ['SET', k1, 'x'], ['DEL', k1], ['LMOVE', g.k(), k1, 'LEFT', 'LEFT'],
                         ['RENAME', g.k(), k1], ['MULTI'], ['SWAPDB', '0', '1']])
            cmds = [feed] if g.p(0.7) else []
            tmp = stj.copy()  # the prediction as the batch goes (MULTI, SUBSCRIBE...)
            for c in cmds:
                frames_for(tmp, c)
            for _ in range(g.r.randrange(0, 3)):
                c = self.gen_cmd(tmp.copy(), j)
                if c[0].lower() == 'spop':
                    continue
                frames_for(tmp, c)
                cmds.append(c)
            if cmds and cmds[0] == ['MULTI']:
                cmds += [['LPUSH', k1, 'a'], ['EXEC']]
            for c in cmds:
                frames_for(stj, c)
        return {'t': 'block', 'c': ci, 'cmd': cmd, 'j': j, 'cmds': cmds,
                'mode': g.ch(['TIMEOUT', 'ERROR'])}

    def gen_protocol(self):
        g = self.gen
        return g.ch([
            '*-5\r\nPING\r\n', '*1\r\n$-5\r\n', '*1\r\n$4\r\nPINGX\r\n', '*0\r\nPING\r\n',
            '*3\r\n$3\r\nSET\r\n$1\r\na\r\n$99999999999\r\n', '$5\r\nhello\r\n',
            '*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$3\r\nabcXY\r\n',
            '*1000000000\r\n', '*2147483648\r\n', '*1\r\n$2147483648\r\n', '*x\r\n', '*1\r\n$x\r\n',
            '*1\r\n:4\r\n', 'PING\r\n', 'PING\n', 'ECHO "a\\x41b"\r\n', "ECHO 'a\\'b'\r\n",
            'ECHO "a"b\r\n', 'ECHO "unterminated\r\n', '\r\n\r\nPING\r\n', ' \r\n',
            'SET "k0" "inline value"\r\nGET k0\r\n', 'ECHO "\\xzz"\r\n', 'ECHO "\\t\\n\\r"\r\n',
            'ECHO  a   b \r\n', 'ECHO ""\r\n', "ECHO ''\r\n", 'GET\r\n', 'x' * 70000,
            '*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\n*1\r\n$4\r\nQUIT\r\nPING\r\n',
            '*1\r\n$4\r\nPING\r\r\n', '*1 \r\n$4\r\nPING\r\n', '*01\r\n$04\r\nPING\r\n',
            '*+1\r\n$4\r\nPING\r\n', '*1\r\n$+4\r\nPING\r\n', '*1\r\n$ 4\r\nPING\r\n',
            '*-1\r\n*1\r\n$4\r\nPING\r\n', '*1\r\n$0\r\n\r\n', '"PING"\r\n', 'PING "\r\n',
            '*1\r\n$4\r\nPING', 'MULTI\r\nPING\r\nEXEC\r\n', 'HELLO 3\r\nPING\r\n',
            '*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n*3\r\n$4\r\nHSET\r\n$2\r\nhz\r\n$1\r\na\r\n',
        ])

    def gen_config(self):
        g = self.gen
        param = g.ch(['hash-max-listpack-entries', 'hash-max-listpack-value',
                      'zset-max-listpack-entries', 'zset-max-listpack-value',
                      'set-max-intset-entries', 'list-max-listpack-size', 'list-compress-depth',
                      'notify-keyspace-events', 'proto-max-bulk-len', 'hash-max-ziplist-entries',
                      'zset-max-ziplist-value', 'list-max-ziplist-size'])
        if param == 'notify-keyspace-events':
            # Never 'x' (or 'A', which includes it): "expired" events come from each server's
            # own expiry cycle, at moments the lockstep cannot line up.
            val = g.ch(['', 'KEg$lshzt', 'Kg$lshz', 'Elg', 'KEgm', 'Km', 'KEm', 'Ed', 'Ksz', 'Kt',
                        'En', 'Kgn', 'bad!', 'KEg$lshzd'])
        elif param == 'proto-max-bulk-len':
            val = g.ch(['1048576', '2097152', '1mb', '1000', 'abc'])
        elif param.startswith('list-max'):
            val = g.ch(['-1', '-2', '-5', '-6', '1', '2', '4', '8', '128', '0', 'abc'])
        elif param == 'list-compress-depth':
            val = g.ch(['0', '1', '2', '-1'])
        elif param == 'set-max-intset-entries':
            val = g.ch(['0', '1', '4', '16', '512', '2000000000', '-1', 'abc'])
        else:
            val = g.ch(['0', '1', '2', '4', '16', '64', '128', '512', '-1', 'abc'])
        cmd = ['CONFIG', 'SET', param, val]
        if g.p(0.1):
            cmd += ['hash-max-listpack-entries', g.ch(['4', '512', 'x'])]
        if param == 'notify-keyspace-events':
            if 'm' in val:
                self.notify_m = True
            elif all(c in 'KEg$lshzxetdmnA' for c in val) and cmd[-1] != 'x':
                self.notify_m = False
        return cmd

    def gen_script(self):
        g = self.gen
        x = g.r.random()
        keys = []
        if x < 0.2:
            body = g.ch(FIXED_SCRIPTS)
            keys = [g.k()]
            return ['EVAL', body, '1'] + keys + [g.v() for _ in range(g.r.randrange(0, 3))]
        if x < 0.25:
            return g.ch([['SCRIPT', 'LOAD', SCRIPT_LOAD_BODY],
                         ['EVALSHA', hashlib.sha1(SCRIPT_LOAD_BODY.encode()).hexdigest(), '1',
                          g.k()],
                         ['EVALSHA', 'ffffffffffffffffffffffffffffffffffffffff', '0'],
                         ['EVALSHA', 'abc', '0'],
                         ['SCRIPT', 'EXISTS', hashlib.sha1(SCRIPT_LOAD_BODY.encode()).hexdigest(),
                          'nope'],
                         ['SCRIPT', 'FLUSH'], ['EVAL', 'return 1', '-1'],
                         ['EVAL', 'return 1', 'abc'], ['EVAL', 'return 1', '3', 'a'],
                         ['EVAL_RO', 'return redis.call("set", "k0", "1")', '0'],
                         ['EVAL_RO', 'return redis.call("get", "k0")', '0'],
                         ['EVAL', 'return redis.call("set", KEYS[1], "1")', '0'],
                         ['FCALL', 'nosuch', '0'], ['EVAL', 'return {', '0'],
                         ['EVAL', 'while true do end', 'x']])
        calls = []
        for _ in range(1 if g.p(0.6) else g.r.randrange(2, 5)):
            while True:
                c = self.gen.plain_command()
                if c[0].lower() not in SCRIPT_EXCLUDE and not cmp.version_sensitive(c) and \
                        not cmp.is_lex(c):
                    break
            calls.append(c)
        fn = g.ch(['redis.call', 'redis.pcall', 'redis.pcall'])
        parts = []
        for n, c in enumerate(calls):
            expr = '%s(%s)' % (fn, ', '.join(lua_str(a) for a in c))
            if c[0].lower() in SCRIPT_SORT:
                expr = 's(%s)' % expr
            parts.append('t[%d] = %s' % (n + 1, expr))
        pre = ('local function s(r) if type(r) == "table" and r.err == nil then '
               'table.sort(r, function(a, b) return tostring(a) < tostring(b) end) end '
               'return r end local t = {} ')
        if len(calls) == 1 and g.p(0.5):
            body = pre + parts[0] + ' return t[1]'
        else:
            body = pre + ' '.join(parts) + ' return t'
        return [g.ch(['EVAL', 'EVAL', 'eval', 'EVAL_RO']), body, '0']


def safe(cmd):
    """False for commands whose reply would be enormous on both servers (see gen.py)."""
    name = cmd[0].lower()
    if name in ('srandmember', 'hrandfield', 'zrandmember') and len(cmd) >= 3:
        try:
            n = int(cmd[2])
        except ValueError:
            return True
        if n >= -100000 or n == LLONG_MIN:
            return True
        opt = {'hrandfield': 'withvalues', 'zrandmember': 'withscores'}.get(name)
        return len(cmd) == 4 and opt is not None and cmd[3].lower() == opt and n < -(2 ** 62 - 1)
    if name in BLOCKING:
        return False
    if name == 'set':
        # A past EXAT/PXAT leaves an expired key for each server's own expiry (see gen.py).
        for i in range(2, len(cmd) - 1):
            opt = cmd[i].lower()
            if opt in ('exat', 'pxat'):
                try:
                    v = int(cmd[i + 1])
                except ValueError:
                    continue
                if 0 < v < (4000000000 if opt == 'exat' else 4000000000000):
                    return False
    return True


class Runner:
    def __init__(self, args):
        self.args = args
        self.workdir = tempfile.mkdtemp(prefix='cmdfuzz-')
        self.pairs_started = 0
        self.noted = {}

    def new_pair(self):
        self.pairs_started += 1
        d = os.path.join(self.workdir, 'p%d' % self.pairs_started)
        p = Pair(self.args, d)
        try:
            p.start()
        except BaseException:
            p.stop()
            raise
        return p

    def exec_op(self, p, op):
        t = op['t']
        if t == 'batch':
            p.run_batch(op['c'], op['cmds'])
        elif t == 'spop':
            p.run_spop(op['c'], op['cmd'])
        elif t == 'disc':
            p.run_disconnect(op['c'], op['cmds'], op['partial'])
        elif t == 'block':
            p.run_block(op['c'], op['cmd'], op['j'], op['cmds'], op['mode'])
        elif t == 'proto':
            p.run_protocol(op['data'])
        elif t == 'lex':
            p.run_lex(op['c'], op['cmd'])
        elif t == 'wait':
            pass
        else:
            raise ValueError(t)

    @staticmethod
    def op_count(op):
        t = op['t']
        if t in ('batch', 'disc'):
            return max(1, len(op['cmds']))
        if t == 'block':
            return 1 + len(op['cmds'])
        return 1

    def replay(self, ops, check=True):
        """Runs ops on a fresh pair; returns the Failure or None."""
        p = None
        try:
            p = self.new_pair()
            for op in ops:
                self.exec_op(p, op)
            if check:
                p.check_dataset()
            return None
        except Failure as f:
            return f
        except (OSError, ConnClosed, ReplyTimeout) as e:
            return Failure('crash' if p and not p.keel.alive() else 'diff', repr(e))
        finally:
            if p:
                p.stop()

    def fuzz(self):
        a = self.args
        fz = Fuzzer(a)
        p = self.new_pair()
        start = time.monotonic()
        sent = 0
        nops = 0
        since_check = 0
        checks = 0
        # Reproduction windows: each successful dataset check starts a new one.
        window_ops = deque()
        windows = deque(maxlen=3)  # (snapshot, ops since it, configs before it)
        configs = []
        cur_snap = {d: {} for d in range(DBS)}
        cur_ops = []
        cur_configs = []
        failure = None
        try:
            while sent < a.count and (not a.seconds or time.monotonic() - start < a.seconds):
                op = fz.next_op()
                cur_ops.append(op)
                nops += 1
                try:
                    self.exec_op(p, op)
                except Failure as f:
                    if not a.keep_going or f.kind not in ('diff', 'dataset'):
                        raise
                    self.note(f, op, cur_ops[:-1])
                n = self.op_count(op)
                sent += n
                since_check += n
                if op['t'] == 'batch' and op['cmds'] and op['cmds'][0][:2] == ['CONFIG', 'SET']:
                    configs.append(op['cmds'][0])
                if since_check >= a.check_every:
                    since_check = 0
                    # Every connection back to a clean state, so that a reproduction can start
                    # at this point with fresh connections.
                    for ci in range(self.args.conns):
                        rop = {'t': 'batch', 'c': ci, 'cmds': [['RESET']]}
                        frames_for(fz.pred[ci], ['RESET'])
                        cur_ops.append(rop)
                        try:
                            self.exec_op(p, rop)
                        except Failure as f:
                            if not a.keep_going or f.kind not in ('diff', 'dataset'):
                                raise
                            self.note(f, rop, cur_ops[:-1])
                    try:
                        snap = p.check_dataset()
                    except Failure as f:
                        if not a.keep_going or f.kind != 'dataset':
                            raise
                        self.note(f, op, cur_ops)
                        # Start again from an empty dataset on both.
                        p.both([['FLUSHALL']])
                        snap = {d: {} for d in range(DBS)}
                    checks += 1
                    windows.append((cur_snap, cur_ops, list(cur_configs)))
                    cur_snap, cur_ops, cur_configs = snap, [], list(configs)
                    rss = p.rss_mb()
                    if max(rss) > a.max_rss_mb:
                        raise Failure('memory', 'RSS keel %d MB, ref %d MB' % tuple(rss))
                    if a.progress and checks % a.progress == 0:
                        el = time.monotonic() - start
                        print('cmdfuzz: %d commands, %d ops, %.1f s (%.0f cmd/s), rss keel %d MB '
                              'ref %d MB' % (sent, nops, el, sent / el, rss[0], rss[1]), flush=True)
            p.check_dataset()
        except Failure as f:
            failure = f
        except (OSError, ConnClosed, ReplyTimeout) as e:
            failure = p.server_gone('keel', 'op %d' % nops) or Failure('diff', repr(e))
        except BaseException:
            p.stop()  # a fuzzer bug or ^C: never leave the two servers running
            raise
        elapsed = time.monotonic() - start
        rep = p.keel.sanitizer_report()
        p.stop()
        if not failure and rep:
            failure = Failure('sanitizer', rep)
        if not failure and p.keel.exit_status() not in (0, None, -15):
            failure = Failure('crash', 'keel exit status %s at shutdown' % p.keel.exit_status())
        summary = 'cmdfuzz: seed %d, %d commands in %d ops, %d dataset checks, %.1f s' % (
            a.seed, sent, nops, checks, elapsed)
        if self.noted:
            summary += ', %d differences noted (%d distinct)' % (
                sum(self.noted.values()), len(self.noted))
        if not failure and self.noted:
            print(summary)
            print('cmdfuzz: 0 passed, 1 failed')
            return 1
        if not failure:
            print(summary + ': no differences, crashes, hangs or sanitizer reports')
            print('cmdfuzz: 1 passed, 0 failed')
            shutil.rmtree(self.workdir, ignore_errors=True)
            return 0
        print(summary)
        print('FAILURE (%s) at op %d: %s' % (failure.kind, nops, failure.msg))
        windows.append((cur_snap, cur_ops, cur_configs))
        try:
            self.report(failure, windows, p)
        finally:
            print('cmdfuzz: 0 passed, 1 failed')
        return 1

    def note(self, f, op, history=()):
        key = f.signature() + (f.msg.split('\n')[0][:80] if f.kind == 'dataset' else '',)
        self.noted[key] = self.noted.get(key, 0) + 1
        if self.noted[key] == 1:
            print('DIFF (%s): %s' % (f.kind, f.msg), flush=True)
            c = op.get('c')
            for h in list(history)[-300:]:
                if h.get('c') == c or h.get('j') == c or h.get('t') == 'proto':
                    print('    before: ' + self.show_op(h).replace('\n', '\n        '))
            print('    in: ' + self.show_op(op).replace('\n', '\n        '), flush=True)

    def report(self, failure, windows, p):
        a = self.args
        last_ops = windows[-1][1]
        print('\nLast operations before the failure (most recent last):')
        for op in last_ops[-12:]:
            print(self.show_op(op))
        os.makedirs(a.out, exist_ok=True)
        base = os.path.join(a.out, 'cmdfuzz-seed%d' % a.seed)
        # Full window, for --replay.
        full = self.window_ops(windows, len(windows) - 1)
        with open(base + '-window.json', 'w') as f:
            json.dump({'seed': a.seed, 'ops': full}, f)
        print('\nwindow (%d ops) saved to %s-window.json' % (len(full), base))
        if a.no_shrink:
            return
        sig = failure.signature()
        deadline = time.monotonic() + a.shrink_seconds
        ops = None
        for w in range(len(windows) - 1, -1, -1):
            cand = self.window_ops(windows, w)
            f = self.replay(cand)
            if f and f.signature() == sig:
                ops = cand
                break
            if time.monotonic() > deadline:
                break
        if ops is None:
            print('could not reproduce the failure on fresh servers from the saved windows '
                  '(timing-dependent?); see the log above')
            return
        ops = self.ddmin(ops, sig, deadline)
        flat = []
        for op in ops:
            if op['t'] == 'batch' and len(op['cmds']) > 1 and not op.get('quit'):
                flat += [{'t': 'batch', 'c': op['c'], 'cmds': [c]} for c in op['cmds']]
            else:
                flat.append(op)
        if len(flat) > len(ops):
            f = self.replay(flat)
            if f and f.signature() == sig:
                ops = self.ddmin(flat, sig, deadline)
        f = self.replay(ops)
        with open(base + '-min.json', 'w') as fh:
            json.dump({'seed': a.seed, 'ops': ops}, fh)
        print('\nMinimal reproduction (%d ops; replay: tests/fuzz/cmdfuzz.py --replay %s-min.json):'
              % (len(ops), base))
        for op in ops:
            print(self.show_op(op))
        if f:
            print('=> %s: %s' % (f.kind, f.msg))

    def window_ops(self, windows, w):
        snap, _, confs = windows[w]
        ops = [{'t': 'batch', 'c': -1, 'cmds': [c]} for c in confs]
        ops += restore_cmds(snap)
        for x in range(w, len(windows)):
            ops += windows[x][1]
        return ops

    def ddmin(self, ops, sig, deadline):
        n = 2
        while len(ops) >= 2 and time.monotonic() < deadline:
            chunk = max(1, len(ops) // n)
            reduced = False
            for s in range(0, len(ops), chunk):
                if time.monotonic() > deadline:
                    break
                cand = ops[:s] + ops[s + chunk:]
                f = self.replay(cand)
                if f and f.signature() == sig:
                    ops = cand
                    n = max(n - 1, 2)
                    reduced = True
                    break
            if not reduced:
                if chunk == 1:
                    break
                n = min(len(ops), n * 2)
        return ops

    @staticmethod
    def show_op(op):
        t = op['t']
        if t == 'batch':
            who = 'inspector' if op['c'] < 0 else 'conn %d' % op['c']
            if len(op['cmds']) == 1:
                return '[%s] %s' % (who, show_cmd(op['cmds'][0]))
            return '[%s] pipeline:\n' % who + '\n'.join('    ' + show_cmd(c) for c in op['cmds'])
        if t == 'spop':
            return '[conn %d] %s   (random: counts compared, then both sets made equal)' % (
                op['c'], show_cmd(op['cmd']))
        if t == 'disc':
            return '[conn %d] send %s then partial %r, then close' % (
                op['c'], ' | '.join(show_cmd(c) for c in op['cmds']) or '(nothing)',
                op['partial'][:60])
        if t == 'block':
            return ('[conn %d] %s (blocks)\n[conn %d] %s\n  then CLIENT UNBLOCK %s if still '
                    'blocked' % (op['c'], show_cmd(op['cmd']), op['j'],
                                 ' | '.join(show_cmd(c) for c in op['cmds']) or '(nothing)',
                                 op['mode']))
        if t == 'proto':
            return '[new conn] raw %r' % op['data'][:200]
        if t == 'lex':
            return '[conn %d] %s   (lex range: compared by shape when scores differ)' % (
                op['c'], show_cmd(op['cmd']))
        return repr(op)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument('--seed', type=int, default=None)
    ap.add_argument('--count', type=int, default=100000, help='commands to send')
    ap.add_argument('--seconds', type=float, default=0, help='stop after this long (0: no limit)')
    ap.add_argument('--conns', type=int, default=6)
    ap.add_argument('--pipeline', type=int, default=12, help='max commands per pipeline')
    ap.add_argument('--check-every', type=int, default=400, help='dataset check interval')
    ap.add_argument('--timeout', type=float, default=10.0, help='reply timeout (hang)')
    ap.add_argument('--keel', default=os.path.join(ROOT, 'src', 'keel-server'))
    ap.add_argument('--reference', default=os.environ.get('KEEL_REFERENCE_SERVER',
                                                          '/usr/bin/redis-server'))
    ap.add_argument('--out', default=tempfile.gettempdir(), help='where repro files go')
    ap.add_argument('--no-shrink', action='store_true')
    ap.add_argument('--keep-going', action='store_true',
                    help='triage: print each distinct difference once and go on (a dataset '
                    'difference flushes both servers); crashes and hangs still stop')
    ap.add_argument('--shrink-seconds', type=float, default=180)
    ap.add_argument('--replay', help='run the ops of a saved JSON file and report')
    ap.add_argument('--progress', type=int, default=0, help='print progress every N checks')
    ap.add_argument('--max-rss-mb', type=int, default=3000)
    a = ap.parse_args()
    if a.replay and a.seed is None:
        with open(a.replay) as f:
            a.seed = json.load(f).get('seed')  # the run's encoding limits come from its seed
    if a.seed is None:
        a.seed = random.SystemRandom().randrange(1 << 31)
    rng = random.Random(a.seed ^ 0x5eed)
    # Encoding limits for this run (same on both servers), picked by the seed so conversions
    # happen at small sizes in some runs and at Redis's defaults in others.
    common = ['--proto-max-bulk-len', '1048576']
    for name, vals in (('hash-max-listpack-entries', ['512', '4', '16', '128']),
                       ('hash-max-listpack-value', ['64', '8']),
                       ('zset-max-listpack-entries', ['128', '4', '16']),
                       ('zset-max-listpack-value', ['64', '8']),
                       ('set-max-intset-entries', ['512', '4', '16']),
                       ('list-max-listpack-size', ['-2', '4', '8', '-1'])):
        common += ['--' + name, rng.choice(vals)]
    a.common_args = common
    # Keel only: the listpack-set limits (Redis 7.2+; 7.0 rejects the directive).
    a.keel_args = common + ['--set-max-listpack-entries', rng.choice(['128', '4', '16']),
                            '--set-max-listpack-value', rng.choice(['64', '8'])]
    print('cmdfuzz: seed %d, keel %s, reference %s, limits %s' % (
        a.seed, a.keel, a.reference, ' '.join(common[2:])), flush=True)
    r = Runner(a)
    if a.replay:
        with open(a.replay) as f:
            ops = json.load(f)['ops']
        fail = r.replay(ops)
        if fail:
            print('replay: %s: %s' % (fail.kind, fail.msg))
            return 1
        print('replay: %d ops, no difference' % len(ops))
        return 0
    return r.fuzz()


if __name__ == '__main__':
    sys.exit(main())
