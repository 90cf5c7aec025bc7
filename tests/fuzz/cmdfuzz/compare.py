# cmdfuzz: deciding whether Keel's reply and the reference's reply to the same command agree.
#
# Three layers:
#   1. normalisation of replies that legitimately vary: unordered collections are sorted,
#      random picks are checked by count/shape/consistency, clocks and TTLs get a tolerance,
#      SCAN cursors are opaque, introspection (INFO, CLIENT LIST, HELLO's server fields) is
#      compared by shape only;
#   2. exact comparison of everything else, error texts included;
#   3. ALLOW: the explicit list of known, deliberate differences (Keel follows Redis 7.4/8.0 where
#      the reference, Debian's redis-server 7.0.15, differs). Each entry says why.

import re

LLONG_MIN = -2 ** 63


def lname(cmd):
    return cmd[0].lower() if cmd else ''


def sub(cmd, i=1):
    return cmd[i].lower() if len(cmd) > i else ''


def is_err(f):
    return f is not None and f[0] in '-!'


def err_text(f):
    return f[1].decode('latin-1') if f[1] is not None else ''


def arr(f):
    """The items of an array-like frame, or None."""
    if f is not None and f[0] in '*~>' and f[1] is not None:
        return f[1]
    return None


def sort_frames(items):
    return tuple(sorted(items, key=repr))


def sort_pairs(items):
    pairs = list(zip(items[0::2], items[1::2]))
    pairs.sort(key=repr)
    out = []
    for a, b in pairs:
        out += [a, b]
    return tuple(out)


def norm_unordered(f):
    if f is None:
        return f
    if f[0] in '*~' and f[1] is not None:
        return (f[0], sort_frames(f[1]))
    return f


def norm_pairs(f):
    if f is None:
        return f
    if f[0] == '%':
        return ('%', tuple(sorted(f[1], key=repr)))
    if f[0] == '*' and f[1] is not None:
        return ('*', sort_pairs(f[1]))
    return f


# ---- the allow-list ----------------------------------------------------------------------
# Each entry: (id, reason, predicate(cmd, keel_frame, ref_frame) -> bool). An entry only
# excuses the difference it describes; it is consulted after normalisation failed.

def _ref_err(b, *needles):
    return is_err(b) and any(n in err_text(b) for n in needles)


def _args_have(cmd, word):
    return any(a.lower() == word for a in cmd[1:])


def _c_str(s):
    # Redis hands C functions the sds pointer: an embedded NUL ends the string.
    return s.split('\x00')[0]


def _string2ll_ok(s):
    return bool(re.fullmatch(r'-?(0|[1-9][0-9]*)', s)) and s != '-0' and \
        -2 ** 63 <= int(s) < 2 ** 63


def cursor_valid_70(s):
    """Redis 7.0 parseScanCursorOrReply: strtoul, no leading space, whole string consumed."""
    s = _c_str(s)
    if s == '':
        return True
    if s[0].isspace():
        return False
    m = re.fullmatch(r'[+-]?([0-9]+)', s)
    return bool(m) and int(m.group(1)) < 2 ** 64


def cursor_valid_74(s):
    """Redis 7.4 parseScanCursorOrReply: string2ull (string2ll, negatives rejected, then
    strtoull with at least one character, whole string consumed)."""
    s = _c_str(s)
    if _string2ll_ok(s):
        return int(s) >= 0
    m = re.fullmatch(r'[ \t\n\v\f\r]*[+-]?([0-9]+)', s)
    return bool(m) and int(m.group(1)) < 2 ** 64


def _scan_cursor_arg(c):
    name = lname(c)
    if name == 'scan':
        return c[1] if len(c) > 1 else None
    if name in ('sscan', 'hscan', 'zscan'):
        return c[2] if len(c) > 2 else None
    return None


_SORT_ERR = "One or more scores can't be converted into double"


def _frames_differ_only_by_sort_err(a, b):
    """Script replies equal except where the reference has the SORT conversion error."""
    if a == b:
        return True
    if is_err(b) and _SORT_ERR in err_text(b):
        return not is_err(a)
    x, y = arr(a), arr(b)
    if x is None or y is None or len(x) != len(y) or a[0] != b[0]:
        return False
    return all(_frames_differ_only_by_sort_err(p, q) for p, q in zip(x, y))


ALLOW = [
    ('command-name-nul',
     'Redis 7.0 finds a command in a dict hashed over the whole name (with a seed drawn at '
     'start-up) but compared with strcasecmp, which stops at a NUL: "get\\x00" reaches GET '
     'only when its hash happens to land in GET\'s bucket, so a reference process answers '
     'either "unknown command" (as Keel always does) or GET\'s error. Seen once in CI; 12 '
     'fresh redis-server processes here all said unknown command.',
     lambda c, a, b: '\x00' in c[0] and _ref_err(a, 'unknown command') and
     _ref_err(b, 'wrong number of arguments')),
    ('bit-args-before-key',
     'Redis 8.0 (PR #11734) checks BITCOUNT/BITPOS arguments before the key: a syntax or '
     'number error wins over WRONGTYPE and over the 0 of a missing key. 7.0 looks the key up '
     'first.',
     lambda c, a, b: lname(c) in ('bitcount', 'bitpos') and is_err(a) and
     (_ref_err(b, 'WRONGTYPE') or (b is not None and b[0] == ':'))),
    ('scan-cursor-parse',
     'Redis 7.4 parses SCAN-family cursors with string2ull: "" and negative cursors are '
     '"invalid cursor", leading spaces are accepted; 7.0 used strtoul (the reverse). Only '
     'cursors on which the two parsers disagree are excused.',
     lambda c, a, b: _scan_cursor_arg(c) is not None and
     cursor_valid_70(_scan_cursor_arg(c)) != cursor_valid_74(_scan_cursor_arg(c))),
    ('blocking-timeout-range',
     'Redis 7.2 (PR #11338) answers "timeout is out of range" when timeout*1000 overflows; '
     '7.0 converts the overflowing value and reports it as negative.',
     lambda c, a, b: is_err(a) and err_text(a) == 'ERR timeout is out of range' and
     _ref_err(b, 'timeout is negative')),
    ('lpos-rank-llong-min',
     'Redis 7.2 range-checks LPOS RANK to [-LONG_MAX, LONG_MAX] (negating LLONG_MIN '
     'overflowed); 7.0 accepts RANK -9223372036854775808.',
     lambda c, a, b: lname(c) == 'lpos' and is_err(a) and 'value is out of range' in
     err_text(a) and any(x == str(LLONG_MIN) for x in c)),
    ('client-setinfo',
     'CLIENT SETINFO is Redis 7.2+; 7.0 answers "unknown subcommand". Keel implements it.',
     lambda c, a, b: lname(c) == 'client' and sub(c) == 'setinfo' and
     _ref_err(b, 'unknown subcommand')),
    ('client-no-touch',
     'CLIENT NO-TOUCH is Redis 7.2+; 7.0 answers "unknown subcommand". Keel implements it.',
     lambda c, a, b: lname(c) == 'client' and sub(c) == 'no-touch' and
     _ref_err(b, 'unknown subcommand')),
    ('client-kill-maxage',
     'The CLIENT KILL MAXAGE filter is Redis 7.4; 7.0 answers syntax error.',
     lambda c, a, b: lname(c) == 'client' and sub(c) == 'kill' and _args_have(c, 'maxage') and
     _ref_err(b, 'syntax error')),
    ('refcount-copied-int',
     'Redis COPY duplicates a shared small integer (0..9999) into an object of its own '
     '(refcount 1 until the value is rewritten); Keel keeps no shared objects and answers '
     'OBJECT REFCOUNT from the value (2147483647 for every small integer).',
     lambda c, a, b: lname(c) == 'object' and sub(c) == 'refcount' and
     a == (':', 2147483647) and b == (':', 1)),
    ('blocked-reprocess',
     'Redis 7.2 (PR #11012) re-runs a blocked command when one of its keys is fed, so a key '
     'that meanwhile became another type answers WRONGTYPE; 7.0 serves the fed key instead.',
     lambda c, a, b: lname(c) in ('blpop', 'brpop', 'blmove', 'brpoplpush', 'blmpop',
                                  'bzpopmin', 'bzpopmax', 'bzmpop') and
     is_err(a) and err_text(a).startswith('WRONGTYPE') and not is_err(b)),
    ('expire-gt-lt-clock',
     'A relative EXPIRE/PEXPIRE ... GT|LT compares now+ttl with the current expiry: when the '
     'same ttl was set a moment before, the result depends on whether each server\'s clock '
     'moved a millisecond in between (timing, not semantics). Only the 0/1 reply is excused; '
     'the dataset check still compares the TTL within 2 s.',
     lambda c, a, b: lname(c) in ('expire', 'pexpire') and
     (_args_have(c, 'gt') or _args_have(c, 'lt')) and
     {a, b} == {(':', 0), (':', 1)}),
    ('client-help',
     'HELP texts list each version\'s subcommands; only the shape (an array) is compared.',
     lambda c, a, b: sub(c) == 'help' and arr(a) is not None and arr(b) is not None),
    ('hscan-novalues',
     'HSCAN ... NOVALUES is Redis 7.4; 7.0 answers syntax error.',
     lambda c, a, b: lname(c) == 'hscan' and _args_have(c, 'novalues') and
     _ref_err(b, 'syntax error')),
    ('getrange-negative-end',
     'Redis 8.0 (PR #12272) answers "" when the end index, counted from the end of the string, '
     'is still before its start; 7.0 clamped it to 0 and returned the first byte.',
     lambda c, a, b: lname(c) in ('getrange', 'substr') and a == ('$', b'') and
     b is not None and b[0] == '$' and b[1] is not None and len(b[1]) == 1),
    ('zrank-withscore',
     'ZRANK/ZREVRANK key member [WITHSCORE] is Redis 7.2 (arity -3); 7.0 has arity 3 and '
     'answers a 4th argument with a wrong-number-of-arguments error.',
     lambda c, a, b: lname(c) in ('zrank', 'zrevrank') and len(c) >= 4 and
     _ref_err(b, 'wrong number of arguments')),
    ('geo-count-ties',
     'A geo search with COUNT (and no ANY) sorts with Redis\'s partial quicksort (pqsort), '
     'which leaves points at the same distance in an order of its own; Keel sorts stably. '
     'Only a reordering of the same replies is excused.',
     lambda c, a, b: lname(c) in ('georadius', 'georadius_ro', 'georadiusbymember',
                                  'georadiusbymember_ro', 'geosearch') and
     _args_have(c, 'count') and not _args_have(c, 'any') and arr(a) is not None and
     arr(b) is not None and norm_unordered(a) == norm_unordered(b)),
    ('sort-stale-errno',
     'Redis reads SORT scores with strtod and tests errno == ERANGE without clearing errno '
     'first, so an ERANGE left by an earlier call (a SORT over "1e400", an INCRBYFLOAT '
     'overflow ...) fails a later numeric SORT whose values all convert. Only that error on '
     'the reference side against a result from Keel is excused (also inside a script).',
     lambda c, a, b: (lname(c) in ('sort', 'sort_ro') and not is_err(a) and
                      _ref_err(b, _SORT_ERR)) or
     (lname(c) in ('eval', 'eval_ro') and 'SORT' in ' '.join(c[1:2]).upper() and
      _frames_differ_only_by_sort_err(a, b))),
    ('sort-alpha-cstring-ties',
     'SORT ... ALPHA compares with strcoll, which stops at a NUL byte: members equal up to '
     'their first NUL ("" and "\\x00...") tie and keep the order the set was read in, which '
     'is the encoding\'s (hashtable in 7.0, listpack in 7.4). Only such swaps are excused.',
     lambda c, a, b: lname(c) in ('sort', 'sort_ro') and _args_have(c, 'alpha') and
     arr(a) is not None and arr(b) is not None and len(arr(a)) == len(arr(b)) and
     all(x[0] == y[0] and (x[1] == y[1] or (x[1] is not None and y[1] is not None and
                                            x[1].split(b'\x00')[0] == y[1].split(b'\x00')[0]))
         for x, y in zip(arr(a), arr(b)))),
]


def version_sensitive(cmd):
    """Commands whose very acceptance differs between 7.0 and 7.4 (their replies are
    allow-listed). The runner keeps them out of MULTI (a QUEUED on one side and an error on the
    other would make EXEC differ) and out of scripts (the script sees a different reply)."""
    name = lname(cmd)
    if name in ('zrank', 'zrevrank') and len(cmd) >= 4:
        return True
    if name == 'hscan' and _args_have(cmd, 'novalues'):
        return True
    if name == 'client' and sub(cmd) in ('setinfo', 'no-touch'):
        return True
    if name == 'client' and sub(cmd) == 'kill' and _args_have(cmd, 'maxage'):
        return True
    if name == 'lpos' and str(LLONG_MIN) in cmd:
        return True
    # GETRANGE/SUBSTR with a negative end may answer differently (see getrange-negative-end).
    if name in ('getrange', 'substr') and len(cmd) > 3 and _string2ll_ok(cmd[3]) and \
            int(cmd[3]) < 0:
        return True
    if name == 'command' and sub(cmd) in ('getkeys', 'getkeysandflags') and len(cmd) > 2:
        return version_sensitive(cmd[2:])
    return False


def lookup_differs(cmd):
    """Allowed differences where one version looks the key up and the other rejects the command
    first: the lookup has side effects (a "keymiss" keyspace event, lazy expiry), so the runner
    avoids these while keymiss events are enabled."""
    name = lname(cmd)
    cur = _scan_cursor_arg(cmd)
    if cur is not None and cursor_valid_70(cur) != cursor_valid_74(cur):
        return True
    if name in ('zrank', 'zrevrank') and len(cmd) >= 4:
        return True
    if name == 'lpos' and str(LLONG_MIN) in cmd:
        return True
    if name in ('bitcount', 'bitpos') and len(cmd) > 2:
        return True
    # 7.0's SCAN ... TYPE reads each key with a lookup (an expired one emits keymiss); 7.2+
    # filters by the stored type and only expires.
    if name == 'scan' and _args_have(cmd, 'type'):
        return True
    return False


def check_command_info_keys(a, b):
    """COMMAND INFO name: the legacy key positions (elements 4-6) and the key specs (element 9)
    must match when both servers have the command (flags, ACL categories and tips may differ
    between versions)."""
    if a[0] != b[0]:
        return 'type differs'
    if a[0] != '*' or not a[1] or not b[1]:
        return None
    x, y = a[1][0], b[1][0]
    if x[1] is None or y[1] is None:
        return None  # one of them does not have it (SORT, XADD)
    if x[1][3:6] != y[1][3:6]:
        return 'legacy key positions differ'
    if x[1][8] != y[1][8]:
        return 'key specs differ'
    return None


def allowed(cmd, a, b):
    if lname(cmd) == 'command' and sub(cmd) in ('getkeys', 'getkeysandflags') and \
            version_sensitive(cmd[2:]):
        return 'getkeys-of-version-sensitive'  # the inner command's arity differs (see above)
    for ident, _reason, pred in ALLOW:
        try:
            if pred(cmd, a, b):
                return ident
        except Exception:
            pass
    return None


# ---- error text equivalences -------------------------------------------------------------
# (keel text, reference text, reason): exact texts that differ between 7.0 and 7.4.
ERROR_EQUIV = [
]


def errors_equal(cmd, a, b):
    ta, tb = err_text(a), err_text(b)
    if ta == tb:
        return True
    for ka, kb, _reason in ERROR_EQUIV:
        if ka(cmd, ta) and kb(cmd, tb):
            return True
    return False


# ---- per-command comparison ---------------------------------------------------------------
UNORDERED = {'smembers', 'sinter', 'sunion', 'sdiff', 'hkeys', 'hvals', 'keys'}
TOLERANCE = {'ttl': 2, 'pttl': 2000, 'expiretime': 2, 'pexpiretime': 2000}
SHAPE_ONLY = {'info', 'time', 'lastsave'}


def _num(x):
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if v != v else v


def eq_scores(a, b):
    """Frame equality where two bulks (or RESP3 doubles) holding the same double are equal:
    Redis 7.2+ prints doubles in the shortest round-trip form ("0.1"), 7.0 with %.17g
    ("0.10000000000000001"). Keel follows 7.4."""
    if a == b:
        return True
    if a is None or b is None or a[0] != b[0]:
        return False
    if a[0] in '$,' and a[1] is not None and b[1] is not None:
        x, y = _num(a[1]), _num(b[1])
        return x is not None and x == y
    if a[0] in '*~>' and a[1] is not None and b[1] is not None:
        return len(a[1]) == len(b[1]) and all(eq_scores(x, y) for x, y in zip(a[1], b[1]))
    if a[0] == '%':
        return len(a[1]) == len(b[1]) and all(
            eq_scores(k1, k2) and eq_scores(v1, v2) for (k1, v1), (k2, v2) in zip(a[1], b[1]))
    return False


# Commands whose replies carry zset scores (see eq_scores).
SCORE_REPLIES = {'zscore', 'zmscore', 'zincrby', 'zadd', 'zrange', 'zrangebyscore',
                 'zrevrangebyscore', 'zrevrange', 'zunion', 'zinter', 'zdiff', 'zrandmember',
                 'zpopmin', 'zpopmax', 'bzpopmin', 'bzpopmax', 'zmpop', 'bzmpop', 'zscan',
                 'zrank', 'zrevrank'}


def int_close(a, b, tol):
    if a[0] != ':' or b[0] != ':':
        return a == b
    if a[1] < 0 or b[1] < 0:
        return a == b
    return abs(a[1] - b[1]) <= tol


def shape(f):
    if f is None:
        return None
    if f[0] in '*~>' and f[1] is not None:
        return (f[0], len(f[1]))
    if f[0] == '%':
        return ('%', tuple(sorted(repr(k) for k, _ in f[1])))
    return (f[0], f[1] is None)


def to_set(items):
    return set(repr(x) for x in items)


def check_random_pick(cmd, a, b, with_pairs_opt):
    """SRANDMEMBER / HRANDFIELD / ZRANDMEMBER. Random, so compare what is determined: the
    count, distinctness for non-negative counts, and that a member reported by both carries
    the same value/score."""
    if a[0] != b[0]:
        return 'reply types differ'
    if len(cmd) < 3:
        # Single pick: nil on both or a bulk on both.
        if (a[1] is None) != (b[1] is None):
            return 'nil on one side only'
        return None
    try:
        count = int(cmd[2])
    except ValueError:
        return None if a == b else 'differs'
    ia, ib = arr(a), arr(b)
    if a[0] == '%':
        ia = tuple(x for kv in a[1] for x in kv)
        ib = tuple(x for kv in b[1] for x in kv)
    if ia is None or ib is None:
        return None if a == b else 'differs'
    if len(ia) != len(ib):
        return 'lengths differ (%d vs %d)' % (len(ia), len(ib))
    withv = len(cmd) > 3 and cmd[3].lower() == with_pairs_opt
    if withv:
        if ia and arr(ia[0]) is not None:  # RESP3: array of [member, value] pairs
            pa = [tuple(arr(x)) for x in ia]
            pb = [tuple(arr(x)) for x in ib]
        else:
            pa = list(zip(ia[0::2], ia[1::2]))
            pb = list(zip(ib[0::2], ib[1::2]))
        da, db = {}, {}
        for mm, vv in pa:
            da.setdefault(mm, set()).add(vv)
        for mm, vv in pb:
            db.setdefault(mm, set()).add(vv)
        for mm in set(da) & set(db):
            va, vb = list(da[mm]), list(db[mm])
            if len(va) != 1 or len(vb) != 1 or not eq_scores(va[0], vb[0]):
                return 'member %r has different values' % (mm,)
        members_a = [x[0] for x in pa]
        members_b = [x[0] for x in pb]
    else:
        members_a, members_b = list(ia), list(ib)
    if count >= 0:
        if len(set(map(repr, members_a))) != len(members_a) or \
           len(set(map(repr, members_b))) != len(members_b):
            return 'duplicates with a non-negative count'
        # When everything was returned the sets must be equal.
        if count >= 0 and len(members_a) < count and to_set(members_a) != to_set(members_b):
            return 'whole-collection replies differ'
    return None


def check_scan(cmd, a, b, pairs):
    ia, ib = arr(a), arr(b)
    if ia is None or ib is None or len(ia) != 2 or len(ib) != 2:
        return None if a == b else 'differs'
    ca, cb = ia[0], ib[0]
    la, lb = arr(ia[1]), arr(ib[1])
    if la is None or lb is None:
        return 'bad scan reply'
    if _scan_cursor_arg(cmd) == '0' and ca == ('$', b'0') and cb == ('$', b'0'):
        na = sort_pairs(la) if pairs else sort_frames(la)
        nb = sort_pairs(lb) if pairs else sort_frames(lb)
        # HSCAN NOVALUES returns fields only; sorting as pairs would still be consistent.
        if lname(cmd) == 'zscan':
            return None if eq_scores(('*', na), ('*', nb)) else 'full scans differ'
        return None if na == nb else 'full scans differ'
    # A partial step: cursors are each server's own; elements must be sane.
    if pairs and (len(la) % 2 or len(lb) % 2):
        return 'odd pair list'
    return None


def check_object(cmd, a, b):
    s = sub(cmd)
    if s == 'idletime':
        # Only the reply type: Redis shares the objects of small integers (0..9999) between
        # keys, so any key holding the same number moves their idle time. Keel's LRU
        # bookkeeping has its own Tcl tests.
        return None if a[0] == b[0] else 'idletime reply types differ'
    if s == 'encoding' and a[0] == '$' and b[0] == '$' and a[1] and b[1]:
        ea, eb = a[1], b[1]
        if ea == eb:
            return None
        # Redis 7.2+: small lists are listpacks (7.0 always says quicklist), small sets of
        # strings are listpacks (7.0: hashtable). The dataset check verifies with the type.
        if (ea, eb) in ((b'listpack', b'quicklist'), (b'listpack', b'hashtable')):
            return None
        # 7.2+ ZADD/HSET convert by argument count up front (see encoding_equiv in cmdfuzz.py).
        if (ea, eb) in ((b'skiplist', b'listpack'), (b'hashtable', b'listpack'),
                        (b'listpack', b'intset'), (b'hashtable', b'intset')):
            return None
        return 'encoding %r vs %r' % (ea, eb)
    return None if a == b else 'differs'


def compare(cmd, a, b, queued=None):
    """None when the replies agree, else a short reason. queued: EXEC's queued commands."""
    if a == b:
        return None
    name = lname(cmd)
    why = _compare(name, cmd, a, b, queued)
    if why is None:
        return None
    ident = allowed(cmd, a, b)
    if ident:
        return None
    return why


def _compare(name, cmd, a, b, queued):
    if is_err(a) and is_err(b):
        return None if errors_equal(cmd, a, b) else 'error texts differ'
    if is_err(a) != is_err(b):
        return 'error on one side only'
    if name == 'exec' and queued is not None:
        ia, ib = arr(a), arr(b)
        if ia is None or ib is None or len(ia) != len(ib) or len(ia) != len(queued):
            return 'EXEC replies differ'
        for i, (q, x, y) in enumerate(zip(queued, ia, ib)):
            w = compare(q, x, y)
            if w:
                return 'EXEC element %d (%s): %s' % (i, ' '.join(q[:1]), w)
        return None
    if name in ('eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro'):
        return 'differs'
    if name in SCORE_REPLIES and eq_scores(a, b):
        return None
    if name in UNORDERED:
        return None if norm_unordered(a) == norm_unordered(b) else 'differs (unordered)'
    if name == 'hgetall':
        return None if norm_pairs(a) == norm_pairs(b) else 'differs (pairs)'
    if name == 'config' and sub(cmd) == 'get':
        return None if norm_pairs(a) == norm_pairs(b) else 'differs (pairs)'
    if name == 'pubsub' and sub(cmd) in ('channels', 'shardchannels'):
        return None if norm_unordered(a) == norm_unordered(b) else 'differs (unordered)'
    if name in TOLERANCE:
        return None if int_close(a, b, TOLERANCE[name]) else 'differs beyond tolerance'
    if name in SHAPE_ONLY:
        return None if shape(a) == shape(b) else 'shape differs'
    if name == 'client' and sub(cmd) in ('id', 'info', 'list', 'help'):
        return None if shape(a) == shape(b) or sub(cmd) in ('info', 'list') and \
            a[0] in '$=' and b[0] in '$=' else 'shape differs'
    if name == 'hello':
        return None if shape(a) == shape(b) else 'HELLO map keys differ'
    if name == 'command' and sub(cmd) == 'info' and len(cmd) == 3:
        return check_command_info_keys(a, b)
    if name == 'command' and sub(cmd) in ('info', 'count', 'docs', 'help'):
        return None if a[0] == b[0] else 'type differs'
    if name == 'object':
        return check_object(cmd, a, b)
    if name in ('scan', 'sscan'):
        return check_scan(cmd, a, b, False)
    if name in ('hscan', 'zscan'):
        return check_scan(cmd, a, b, not _args_have(cmd, 'novalues'))
    if name == 'srandmember':
        return check_random_pick(cmd, a, b, '')
    if name == 'hrandfield':
        return check_random_pick(cmd, a, b, 'withvalues')
    if name == 'zrandmember':
        return check_random_pick(cmd, a, b, 'withscores')
    if name == 'randomkey':
        return None if (a[1] is None) == (b[1] is None) and a[0] == b[0] else 'nil-ness differs'
    if name == 'spop':
        # Only reached for pops the runner knows empty the set (count >= size) or single pops.
        if len(cmd) >= 3:
            return None if norm_unordered(a) == norm_unordered(b) else 'differs (unordered)'
        return None if (a[1] is None) == (b[1] is None) else 'nil-ness differs'
    return 'differs'


def norm_messages(msgs):
    """Pub/sub messages in arrival order, except that one event delivered to several matching
    patterns arrives in each server's pattern-table order: such runs are sorted by pattern."""
    out = []
    run = []

    def flush():
        run.sort(key=repr)
        out.extend(run)
        run.clear()

    for m in msgs:
        items = arr(m) or ()
        if len(items) == 4 and items[0] == ('$', b'pmessage'):
            key = (m[0], items[2], items[3])
            if run and (run[0][0], arr(run[0])[2], arr(run[0])[3]) != key:
                flush()
            run.append(m)
        else:
            flush()
            out.append(m)
    flush()
    return out


LEX_COMMANDS = {'zrangebylex', 'zrevrangebylex', 'zlexcount', 'zremrangebylex'}


def is_lex(cmd):
    """Lexicographic range commands: Redis leaves their result unspecified when the members
    have different scores (and its skiplist walk then depends on random node levels)."""
    name = lname(cmd)
    if name in LEX_COMMANDS:
        return True
    return name in ('zrange', 'zrangestore') and _args_have(cmd, 'bylex')


def norm_hello(frames):
    """HELLO maps name the server version and the client id: blank those two values."""
    out = []
    for f in frames:
        if f and f[0] in '%*' and f[1]:
            pairs = f[1] if f[0] == '%' else list(zip(f[1][0::2], f[1][1::2]))
            keys = [k for k, _ in pairs]
            if ('$', b'server') in keys and ('$', b'version') in keys:
                pairs = tuple((k, ('$', b'?') if k in (('$', b'version'), ('$', b'id')) else v)
                              for k, v in pairs)
                f = (f[0], pairs)
        out.append(f)
    return out
