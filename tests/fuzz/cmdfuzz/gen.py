# cmdfuzz: random commands. Every generator returns a list of str (latin-1, so any byte is one
# character); the runner encodes them. Pools are small on purpose: 8 keys so types collide
# (WRONGTYPE paths), a few members so commands hit existing elements, and numbers at the edges.
#
# Safety rules (both servers would obey a command that eats the machine, so the fuzzer must not
# send one): negative counts of *RANDMEMBER/HRANDFIELD are small or rejected by the server
# (LLONG_MIN, or below -LONG_MAX/2 with WITHSCORES/WITHVALUES); string offsets stay under
# proto-max-bulk-len, which the runner keeps at 1-2 MB; blocking commands only get timeouts
# that end quickly (never 0) unless the runner drives them (the blocking scenario).

LLONG_MAX = 2 ** 63 - 1
LLONG_MIN = -2 ** 63

KEYS = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', '', '\xff\x00k']
DBS = 4  # SELECT/MOVE/COPY/SWAPDB use dbs 0..3; the dataset check reads those.

SMALL_MEMBERS = ['a', 'b', 'c', 'd', 'e', 'f', '1', '2', '3', '-1', '0', '10', '1.5', '']
ODD_MEMBERS = ['\x00\xff\r\n', 'L' * 70, 'x' * 44, 'x' * 45, '9223372036854775807',
               '-9223372036854775808', '9223372036854775808', '4294967296', '2147483648',
               '-32769', '65536', '0x10', ' 1', '1 ', '01', '-0', '+1', '1e3', 'inf', 'nan',
               '\u00e9t\u00e9', '*', '[a]', '?']
INTS = ['0', '1', '-1', '2', '3', '5', '-2', '-5', '10', '100', '-100', '2147483647',
        '2147483648', '4294967296', str(LLONG_MAX), str(LLONG_MIN), str(LLONG_MAX + 1),
        str(LLONG_MIN - 1), '1.5', 'abc', '', ' 1', '1 ', '0x10', '+1', '-0', '01', '1e2',
        '9' * 30]
FLOATS = INTS + ['0.1', '-0.1', '1e308', '-1e308', '1e309', 'inf', '-inf', '+inf', 'nan',
                 '-nan', '1.5e-310', '0x1p3', '1e-400', '3.14159265358979323846', '5.0e3', '.5',
                 '5.', '1e', 'e1', '1.7976931348623157e308', '-0.0', '1_0', 'INF', 'Infinity']
SCORE_RANGES = ['-inf', '+inf', 'inf', '(1', '1', '0', '-1', '(1.5', '2.5', '(', '(inf', 'nan',
                '(-inf', '[1', '10', '(10', 'abc', '', '1e308', '(0']
LEX_RANGES = ['-', '+', '[a', '(a', '[c', '(c', '[', '(', 'a', '[m1', '(\xff', '[1', '(', '[\x00']
INDICES = ['0', '1', '2', '3', '-1', '-2', '-3', '100', '-100', str(LLONG_MAX), str(LLONG_MIN),
           'abc', '1.5', '']
SAFE_COUNTS = ['0', '1', '2', '3', '5', '10', '100', '1000', '-1', '-2', '-3', '-10', 'abc', '',
               str(LLONG_MAX), str(LLONG_MIN), '1.5']
# Relative TTLs either long (no expiry during a run) or <= 0 (immediate delete).
TTL_S = ['100', '1000', '100000', '0', '-1', '-100', str(LLONG_MAX), str(LLONG_MIN),
         '9223372036854775', '9223372036854776', 'abc', '1.5', '']
TTL_MS = ['100000', '1000000', '100000000', '0', '-1', str(LLONG_MAX), str(LLONG_MIN),
          '9223372036854775807', '9223372036854770000', 'abc', '']
AT_S = ['1', '1000', '4102444800', '4102444801', '0', '-1', str(LLONG_MAX), '9223372036854775',
        'abc']
AT_MS = ['1', '1000', '4102444800000', '0', '-1', str(LLONG_MAX), '9223372036854775807', 'abc']
AT_S_FUTURE = [x for x in AT_S if x not in ('1', '1000')]
AT_MS_FUTURE = [x for x in AT_MS if x not in ('1', '1000')]
PATTERNS = ['*', 'k*', 'k?', 'k[0-3]', 'k[^0-3]', '[', '[a-', '\\', 'k\\*', '*\\', '?', '',
            'k[3-0]', '[\xff]*', 'k[0', '*k*', '[!k]*', 'k[\\]]', 'a*a*a*a*b', '*[', '[^]*']
CHANNELS = ['ch1', 'ch2', 'chan', '', 'news.x']
CHAN_PATTERNS = ['ch*', 'ch?', '*', 'n[a-z]ws.*', '__key*__:*', '[']
BIT_TYPES = ['u1', 'u8', 'i8', 'u16', 'i16', 'u63', 'i64', 'u64', 'i65', 'u0', 'x8', 'i32', 'u31',
             'I8', '']
BIT_OFFSETS = ['0', '1', '7', '8', '13', '100', '#0', '#1', '#100', '#-1', '-1', '8388600',
               '8388607', '8388608', '16777215', '4294967295', '4294967296', '#536870911', 'abc']
SETBIT_OFFSETS = ['0', '1', '7', '8', '100', '1000', '-1', '8388607', '8388608', '16777215',
                  '16777216', '4294967295', '4294967296', str(LLONG_MAX), 'abc']
STR_OFFSETS = ['0', '1', '3', '5', '100', '-1', '1048575', '1048576', '2097151', '2097152',
               '536870911', '536870912', str(LLONG_MAX), 'abc']
JUNK = ['', 'abc', '-1', '0', '1', str(LLONG_MAX + 1), 'NX', 'XX', 'GT', 'LT', 'CH', 'INCR',
        'WITHSCORES', 'LIMIT', 'COUNT', 'MATCH', 'TYPE', 'REV', 'BYSCORE', 'BYLEX', 'GET',
        'KEEPTTL', 'EX', 'PX', 'WITHVALUES', 'RANK', 'MAXLEN', 'LEFT', 'RIGHT', 'BEFORE',
        'AFTER', 'WEIGHTS', 'AGGREGATE', 'SUM', 'MIN', 'MAX', 'REPLACE', 'DB', 'IDX', 'LEN',
        'MINMATCHLEN', 'WITHMATCHLEN', 'BIT', 'BYTE', 'ASYNC', 'SYNC', 'NOVALUES', 'PERSIST',
        'k0', 'k1', 'a', '1.5', 'inf']

BLOCKING = {'blpop', 'brpop', 'brpoplpush', 'blmove', 'blmpop', 'bzpopmin', 'bzpopmax',
            'bzmpop'}
# Timeouts for blocking commands sent in ordinary batches: short enough that an empty key times
# out in lockstep (no other command can run in between, so the outcome is deterministic).
QUICK_TIMEOUTS = ['0.01', '0.01', '0.02', '-1', 'abc', '', '-0.01', '1e400', 'nan']


class Gen:
    def __init__(self, rng):
        self.r = rng
        self.table = self._table()
        self.names = sorted(self.table)
        weights = []
        for n in self.names:
            weights.append(self.table[n][0])
        self.weights = weights
        # Running cumulative weights for fast choice.
        acc = 0
        self.cum = []
        for w in weights:
            acc += w
            self.cum.append(acc)

    # ---- primitive draws ----
    def ch(self, seq):
        return seq[int(self.r.random() * len(seq))]

    def p(self, prob):
        return self.r.random() < prob

    def k(self):
        return self.ch(KEYS)

    def m(self):
        x = self.r.random()
        if x < 0.62:
            return self.ch(SMALL_MEMBERS)
        if x < 0.85:
            return 'm%d' % self.r.randrange(300)
        if x < 0.92:
            return str(self.r.randrange(-70000, 70000))
        return self.ch(ODD_MEMBERS)

    def mems(self, lo=1, hi=4):
        if self.p(0.04):
            n = self.r.randrange(20, 200)
        else:
            n = self.r.randrange(lo, hi + 1)
        return [self.m() for _ in range(n)]

    def v(self):
        x = self.r.random()
        if x < 0.5:
            return self.m()
        if x < 0.75:
            return self.ch(INTS)
        if x < 0.85:
            return self.ch(FLOATS)
        if x < 0.95:
            return self.ch(['v' * 300, 'x' * 44, 'x' * 45, 'hello world', '\x00\x01\x02\xff',
                            '123456789012345678901', '3.0', '0.1', '-0', '1e10'])
        return 'w' * self.r.choice([1, 16, 64, 65, 1000, 5000])

    def i(self):
        return self.ch(INTS)

    def f(self):
        return self.ch(FLOATS)

    def idx(self):
        if self.p(0.7):
            return str(self.r.randrange(-6, 7))
        return self.ch(INDICES)

    def cnt(self):
        return self.ch(SAFE_COUNTS)

    def pat(self):
        return self.ch(PATTERNS)

    def db(self):
        return self.ch(['0', '1', '2', '3', '0', '1', '16', '-1', 'abc', str(LLONG_MAX + 1)])

    def ks(self, lo=1, hi=3):
        return [self.k() for _ in range(self.r.randrange(lo, hi + 1))]

    def numkeys(self, keys):
        """numkeys + keys, sometimes with a wrong numkeys."""
        if self.p(0.9):
            return [str(len(keys))] + keys
        return [self.ch(['0', '-1', str(len(keys) + 1), 'abc', str(LLONG_MAX),
                         str(len(keys) - 1)])] + keys

    def opts(self, choices, maxn=3):
        """A random subset (random order, maybe repeats) of option token lists."""
        out = []
        for _ in range(self.r.randrange(0, maxn + 1)):
            out += self.ch(choices)()
        return out

    def quick_timeout(self):
        return self.ch(QUICK_TIMEOUTS)

    # ---- the command table: name -> (weight, generator) ----
    def _table(self):
        g = self
        k, m, v, i, f, idx, cnt = g.k, g.m, g.v, g.i, g.f, g.idx, g.cnt
        ch = g.ch
        P = g.p

        def set_cmd():
            # No absolute time in the past here: SET stores such a key and leaves it to lazy or
            # active expiry, whose timing is each server's own (DBSIZE would differ). GETEX and
            # EXPIREAT delete at once, so they keep the past times.
            o = g.opts([lambda: ['NX'], lambda: ['XX'], lambda: ['GET'],
                        lambda: ['EX', ch(TTL_S)], lambda: ['PX', ch(TTL_MS)],
                        lambda: ['EXAT', ch(AT_S_FUTURE)], lambda: ['PXAT', ch(AT_MS_FUTURE)],
                        lambda: ['KEEPTTL']], 2)
            return ['SET', k(), v()] + o

        def getex():
            o = g.opts([lambda: ['EX', ch(TTL_S)], lambda: ['PX', ch(TTL_MS)],
                        lambda: ['EXAT', ch(AT_S)], lambda: ['PXAT', ch(AT_MS)],
                        lambda: ['PERSIST']], 2)
            return ['GETEX', k()] + o

        def expire_cmd(name, pool):
            def gen():
                o = g.opts([lambda: ['NX'], lambda: ['XX'], lambda: ['GT'], lambda: ['LT']], 2)
                return [name, k(), ch(pool)] + o
            return gen

        def lcs():
            o = g.opts([lambda: ['LEN'], lambda: ['IDX'], lambda: ['MINMATCHLEN', ch(INTS)],
                        lambda: ['WITHMATCHLEN']], 3)
            return ['LCS', k(), k()] + o

        def bitrange(name):
            def gen():
                a = [name, k()]
                if P(0.7):
                    a += [idx(), idx()]
                    if P(0.5):
                        a.append(ch(['BYTE', 'BIT', 'bit', 'byte', 'foo']))
                elif P(0.5):
                    a.append(idx())
                return a
            return gen

        def bitpos():
            a = ['BITPOS', k(), ch(['0', '1', '2', '-1', 'a'])]
            if P(0.7):
                a.append(idx())
                if P(0.6):
                    a.append(idx())
                    if P(0.5):
                        a.append(ch(['BYTE', 'BIT', 'foo']))
            return a

        def bitfield(name, ro=False):
            def gen():
                a = [name, k()]
                for _ in range(g.r.randrange(0, 4)):
                    x = g.r.random()
                    if x < 0.4 or ro:
                        a += ['GET', ch(BIT_TYPES), ch(BIT_OFFSETS)]
                    elif x < 0.65:
                        a += ['SET', ch(BIT_TYPES), ch(BIT_OFFSETS), ch(INTS)]
                    elif x < 0.9:
                        a += ['INCRBY', ch(BIT_TYPES), ch(BIT_OFFSETS), ch(INTS)]
                    else:
                        a += ['OVERFLOW', ch(['WRAP', 'SAT', 'FAIL', 'sat', 'BAD'])]
                return a
            return gen

        def lpos():
            o = g.opts([lambda: ['RANK', ch(['1', '2', '-1', '-2', '0', str(LLONG_MIN),
                                              str(LLONG_MAX), 'x'])],
                        lambda: ['COUNT', ch(['0', '1', '2', '-1', '100', 'x'])],
                        lambda: ['MAXLEN', ch(['0', '1', '2', '-1', '100', 'x'])]], 3)
            return ['LPOS', k(), m()] + o

        def lmpop():
            a = ['LMPOP'] + g.numkeys(g.ks()) + [ch(['LEFT', 'RIGHT', 'left', 'UP'])]
            if P(0.5):
                a += ['COUNT', ch(['1', '2', '10', '0', '-1', 'x'])]
            return a

        def blmpop():
            a = ['BLMPOP', g.quick_timeout()] + g.numkeys(g.ks()) + [ch(['LEFT', 'RIGHT'])]
            if P(0.5):
                a += ['COUNT', ch(['1', '2', '10', '0', '-1'])]
            return a

        def zmpop():
            a = ['ZMPOP'] + g.numkeys(g.ks()) + [ch(['MIN', 'MAX', 'min', 'MID'])]
            if P(0.5):
                a += ['COUNT', ch(['1', '2', '10', '0', '-1', 'x'])]
            return a

        def bzmpop():
            a = ['BZMPOP', g.quick_timeout()] + g.numkeys(g.ks()) + [ch(['MIN', 'MAX'])]
            if P(0.5):
                a += ['COUNT', ch(['1', '2', '10', '0', '-1'])]
            return a

        def side():
            return ch(['LEFT', 'RIGHT', 'left', 'right', 'MIDDLE'])

        def hrandfield():
            a = ['HRANDFIELD', k()]
            if P(0.8):
                c = cnt()
                a.append(c)
                if P(0.5):
                    a.append('WITHVALUES')
                elif P(0.1):
                    a[2] = ch([str(LLONG_MIN), str(-(2 ** 62)), str(LLONG_MIN + 1)])
                    a.append('WITHVALUES')
            return a

        def zrandmember():
            a = ['ZRANDMEMBER', k()]
            if P(0.8):
                a.append(cnt())
                if P(0.5):
                    a.append('WITHSCORES')
                elif P(0.1):
                    a[2] = ch([str(LLONG_MIN), str(-(2 ** 62)), str(LLONG_MIN + 1)])
                    a.append('WITHSCORES')
            return a

        def zadd():
            o = g.opts([lambda: ['NX'], lambda: ['XX'], lambda: ['GT'], lambda: ['LT'],
                        lambda: ['CH'], lambda: ['INCR']], 3)
            a = ['ZADD', k()] + o
            same = P(0.3)  # all members at score 0: lexicographic ranges are then defined
            for _ in range(1 if P(0.5) else g.r.randrange(1, 5)):
                a += ['0' if same else g.score(), m()]
            if P(0.03):
                for _ in range(g.r.randrange(20, 160)):
                    a += [str(g.r.randrange(-50, 50)), 'm%d' % g.r.randrange(300)]
            return a

        # hyperloglog, geo, sort
        def lonlat():
            if P(0.9):
                return ['%.6f' % g.r.uniform(-180, 180), '%.6f' % g.r.uniform(-85.05, 85.05)]
            return [ch(['13.361389', '200', '-180', '180', 'abc', 'nan', '0']),
                    ch(['38.115556', '85.05112878', '85.06', '-85.05112878', '0', 'x'])]

        def geoadd():
            a = ['GEOADD', k()] + g.opts([lambda: ['NX'], lambda: ['XX'], lambda: ['CH']], 2)
            for _ in range(g.r.randrange(1, 4)):
                a += lonlat() + [m()]
            if P(0.05):
                a.pop()
            return a

        def unit():
            return ch(['m', 'km', 'mi', 'ft', 'KM', 'x'])

        def radius():
            return ch(['0', '1', '100', '5000', '100000', '2000000', '-1', 'abc', '1e7'])

        def geo_opts(store):
            o = g.opts([lambda: ['WITHDIST'], lambda: ['WITHCOORD'], lambda: ['WITHHASH'],
                        lambda: ['ASC'], lambda: ['DESC'], lambda: ['COUNT', ch(['1', '3', '0', 'x'])],
                        lambda: ['ANY']] + ([lambda: ['STORE', k()], lambda: ['STOREDIST', k()]]
                                            if store else []), 3)
            return o

        def geosearch(store):
            def gen():
                a = ['GEOSEARCHSTORE', k(), k()] if store else ['GEOSEARCH', k()]
                a += ['FROMMEMBER', m()] if P(0.4) else ['FROMLONLAT'] + lonlat()
                a += ['BYRADIUS', radius(), unit()] if P(0.5) else ['BYBOX', radius(), radius(), unit()]
                a += g.opts([lambda: ['ASC'], lambda: ['DESC'], lambda: ['COUNT', ch(['1', '3', '0'])],
                             lambda: ['ANY']] + ([lambda: ['STOREDIST']] if store else
                                                 [lambda: ['WITHDIST'], lambda: ['WITHCOORD'],
                                                  lambda: ['WITHHASH']]), 3)
                if P(0.05):
                    g.r.shuffle(a)
                    a = [a[0]] + a[1:]
                return a
            return gen

        def georadius(name):
            def gen():
                if 'member' in name.lower():
                    a = [name, k(), m(), radius(), unit()]
                else:
                    a = [name, k()] + lonlat() + [radius(), unit()]
                return a + geo_opts(not name.endswith('_RO'))
            return gen

        def sort(name):
            # No BY / GET patterns: their lookups emit keymiss events in the order the elements
            # are read, and a set's order is the encoding's (hashtable in 7.0, listpack in 7.4),
            # so notification streams would differ. tests/unit/sort.tcl compares patterns with
            # redis-server on lists, sets and sorted sets instead.
            def gen():
                a = [name, k()]
                store = name == 'SORT' and P(0.3)
                if store and P(0.3):
                    a += ['BY', ch(['nosort', '#'])]  # no '*': unsorted (a set: sorted when stored)
                if P(0.4):
                    a.append('ALPHA')
                a += g.opts([lambda: ['ASC'], lambda: ['DESC'], lambda: ['LIMIT', idx(), idx()],
                             lambda: ['GET', '#']], 3)
                if store:
                    a += ['STORE', k()]
                return a
            return gen

        def pfdebug():
            return ['PFDEBUG', ch(['ENCODING', 'DECODE', 'TODENSE', 'GETREG', 'FOO']), k()]

        def zrange_opts():
            return g.opts([lambda: ['BYSCORE'], lambda: ['BYLEX'], lambda: ['REV'],
                           lambda: ['LIMIT', idx(), idx()], lambda: ['WITHSCORES']], 3)

        def zrange():
            x = g.r.random()
            if x < 0.5:
                a, b = idx(), idx()
            elif x < 0.8:
                a, b = ch(SCORE_RANGES), ch(SCORE_RANGES)
            else:
                a, b = ch(LEX_RANGES), ch(LEX_RANGES)
            return ['ZRANGE', k(), a, b] + zrange_opts()

        def zrangestore():
            x = g.r.random()
            if x < 0.5:
                a, b = idx(), idx()
            elif x < 0.8:
                a, b = ch(SCORE_RANGES), ch(SCORE_RANGES)
            else:
                a, b = ch(LEX_RANGES), ch(LEX_RANGES)
            o = g.opts([lambda: ['BYSCORE'], lambda: ['BYLEX'], lambda: ['REV'],
                        lambda: ['LIMIT', idx(), idx()]], 2)
            return ['ZRANGESTORE', k(), k(), a, b] + o

        def byscore(name, ws=True):
            def gen():
                a = [name, k(), ch(SCORE_RANGES), ch(SCORE_RANGES)]
                o = [lambda: ['LIMIT', idx(), idx()]]
                if ws:
                    o.append(lambda: ['WITHSCORES'])
                return a + g.opts(o, 2)
            return gen

        def bylex(name):
            def gen():
                a = [name, k(), ch(LEX_RANGES), ch(LEX_RANGES)]
                if P(0.4):
                    a += ['LIMIT', idx(), idx()]
                return a
            return gen

        def zsetop(name, store=False, ws=True):
            def gen():
                a = [name]
                if store:
                    a.append(k())
                keys = g.ks(1, 3)
                a += g.numkeys(keys)
                o = [lambda: ['WEIGHTS'] + [ch(FLOATS) for _ in keys],
                     lambda: ['AGGREGATE', ch(['SUM', 'MIN', 'MAX', 'sum', 'AVG'])]]
                if ws:
                    o.append(lambda: ['WITHSCORES'])
                if name.startswith('ZDIFF'):
                    o = o[2:] if ws else []
                return a + (g.opts(o, 2) if o else [])
            return gen

        def scan():
            a = ['SCAN', g.cursor()]
            return a + g.opts([lambda: ['MATCH', g.pat()], lambda: ['COUNT', ch(['1', '2', '10',
                                                                                 '100', '0', '-1', 'x'])],
                               lambda: ['TYPE', ch(['string', 'list', 'set', 'zset', 'hash',
                                                    'stream', 'foo', 'STRING'])]], 3)

        def kscan(name, novalues=False):
            def gen():
                a = [name, k(), g.cursor()]
                o = [lambda: ['MATCH', g.pat()],
                     lambda: ['COUNT', ch(['1', '2', '10', '100', '0', '-1', 'x'])]]
                if novalues and P(0.1):
                    # NOVALUES is Redis 7.4 (allow-listed against 7.0).
                    o.append(lambda: ['NOVALUES'])
                return a + g.opts(o, 2)
            return gen

        def copy():
            return ['COPY', k(), k()] + g.opts([lambda: ['DB', g.db()], lambda: ['REPLACE']], 2)

        def obj():
            sub = ch(['ENCODING', 'ENCODING', 'ENCODING', 'FREQ', 'IDLETIME', 'REFCOUNT', 'help',
                      'FOO'])
            a = ['OBJECT', sub]
            if sub != 'help' or P(0.2):
                a.append(k())
            return a

        def client():
            x = g.r.random()
            if x < 0.2:
                return ['CLIENT', 'GETNAME']
            if x < 0.4:
                return ['CLIENT', 'SETNAME', ch(['n1', 'n2', '', 'a b', 'x\n', 'cli'])]
            if x < 0.5:
                return ['CLIENT', 'ID']
            if x < 0.6:
                return ['CLIENT', ch(['NO-EVICT', 'NO-TOUCH']), ch(['on', 'off', 'ON', 'maybe'])]
            if x < 0.7:
                # Only filters that match no connection of the run (or are invalid): a
                # CLIENT KILL that hit the fuzzer's own connections would end the lockstep.
                return ['CLIENT', 'KILL'] + ch([['ID', '99999999'], ['ID', 'abc'],
                                                ['ADDR', '1.1.1.1:1'], ['LADDR', '1.1.1.1:1'],
                                                ['USER', 'nobody'], ['TYPE', 'x'],
                                                ['TYPE', 'master'], ['TYPE', 'replica'],
                                                ['ID', '99999999', 'SKIPME', 'yes'],
                                                ['ID', '99999999', 'SKIPME', 'maybe'],
                                                ['1.1.1.1:1'], ['nonsense'], [],
                                                ['ID', '99999999', 'MAXAGE', '99999999']])
            if x < 0.8:
                return ['CLIENT', 'UNBLOCK', ch(['99999999', 'abc', '-1']),
                        ch(['TIMEOUT', 'ERROR', 'bad'])][:g.r.randrange(3, 5)]
            if x < 0.85:
                return ['CLIENT', 'SETINFO', ch(['lib-name', 'lib-ver', 'foo']),
                        ch(['redis-py', 'a b', '1.0'])]
            if x < 0.9:
                return ['CLIENT', ch(['INFO', 'LIST', 'HELP', 'bogus'])]
            return ['CLIENT']

        def config():
            # Reads only here; CONFIG SET goes through the runner's config op.
            return ['CONFIG', 'GET', ch(['hash-max-listpack-entries', 'zset-max-*',
                                          'set-max-intset-entries', 'proto-max-bulk-len',
                                          'list-max-listpack-size', 'notify-keyspace-events',
                                          'maxmemory', 'no-such-config', 'hash-max-ziplist-value'])]

        def command():
            x = g.r.random()
            if x < 0.6:
                inner = g.plain_command()
                return ['COMMAND', 'GETKEYS' if x < 0.3 else 'GETKEYSANDFLAGS'] + inner
            if x < 0.8:
                return ['COMMAND', 'INFO'] + [ch(['get', 'set', 'zadd', 'lmpop', 'nosuch',
                                                  'eval', 'blmpop', 'sort', 'xadd'])]
            return ['COMMAND', ch(['COUNT', 'bogus'])]

        def hello():
            return ['HELLO'] + ch([[], ['2'], ['3'], ['3', 'SETNAME', 'hn'], ['4'], ['x'],
                                   ['3', 'AUTH', 'default', 'pw'], ['2', 'FOO'], ['1']])

        def pubsub():
            sub = ch(['CHANNELS', 'NUMSUB', 'NUMPAT', 'SHARDCHANNELS', 'SHARDNUMSUB', 'HELP',
                      'FOO'])
            a = ['PUBSUB', sub]
            if sub in ('CHANNELS', 'SHARDCHANNELS') and P(0.6):
                a.append(ch(CHAN_PATTERNS))
            if sub in ('NUMSUB', 'SHARDNUMSUB'):
                a += [ch(CHANNELS) for _ in range(g.r.randrange(0, 3))]
            return a

        def sintercard():
            a = ['SINTERCARD'] + g.numkeys(g.ks())
            if P(0.5):
                a += ['LIMIT', ch(['0', '1', '2', '-1', 'x'])]
            return a

        def zintercard():
            a = ['ZINTERCARD'] + g.numkeys(g.ks())
            if P(0.5):
                a += ['LIMIT', ch(['0', '1', '2', '-1', 'x'])]
            return a

        def zrank(name):
            def gen():
                a = [name, k(), m()]
                if P(0.05):
                    a.append('WITHSCORE')  # Redis 7.2 (allow-listed against 7.0)
                return a
            return gen

        def pairs(n_lo=1, n_hi=3):
            out = []
            for _ in range(g.r.randrange(n_lo, n_hi + 1)):
                out += [m(), v()]
            if P(0.03):
                for _ in range(g.r.randrange(20, 150)):
                    out += ['m%d' % g.r.randrange(300), v()]
            return out

        def kvs():
            out = []
            for _ in range(g.r.randrange(1, 4)):
                out += [k(), v()]
            return out

        T = {
            # strings
            'get': (3, lambda: ['GET', k()]),
            'set': (4, set_cmd),
            'setnx': (1, lambda: ['SETNX', k(), v()]),
            'setex': (1, lambda: ['SETEX', k(), ch(TTL_S), v()]),
            'psetex': (1, lambda: ['PSETEX', k(), ch(TTL_MS), v()]),
            'mget': (1, lambda: ['MGET'] + g.ks()),
            'mset': (1, lambda: ['MSET'] + kvs()),
            'msetnx': (1, lambda: ['MSETNX'] + kvs()),
            'getset': (1, lambda: ['GETSET', k(), v()]),
            'getdel': (1, lambda: ['GETDEL', k()]),
            'getex': (1, getex),
            'append': (2, lambda: ['APPEND', k(), v()]),
            'strlen': (1, lambda: ['STRLEN', k()]),
            'incr': (1, lambda: ['INCR', k()]),
            'decr': (1, lambda: ['DECR', k()]),
            'incrby': (1, lambda: ['INCRBY', k(), i()]),
            'decrby': (1, lambda: ['DECRBY', k(), i()]),
            'incrbyfloat': (1.5, lambda: ['INCRBYFLOAT', k(), f()]),
            'getrange': (1, lambda: ['GETRANGE', k(), idx(), idx()]),
            'substr': (0.3, lambda: ['SUBSTR', k(), idx(), idx()]),
            'setrange': (1.5, lambda: ['SETRANGE', k(), ch(STR_OFFSETS) if P(0.3) else
                                       str(g.r.randrange(0, 20)), v()]),
            'lcs': (1, lcs),
            # bitmaps
            'setbit': (1.5, lambda: ['SETBIT', k(), ch(SETBIT_OFFSETS) if P(0.4) else
                                     str(g.r.randrange(0, 64)), ch(['0', '1', '1', '2', '-1',
                                                                    'x'])]),
            'getbit': (1, lambda: ['GETBIT', k(), ch(SETBIT_OFFSETS)]),
            'bitcount': (1, bitrange('BITCOUNT')),
            'bitpos': (1, bitpos),
            'bitop': (1, lambda: ['BITOP', ch(['AND', 'OR', 'XOR', 'NOT', 'and', 'NAND']),
                                  k()] + g.ks(1, 3)),
            'bitfield': (1.5, bitfield('BITFIELD')),
            'bitfield_ro': (0.5, bitfield('BITFIELD_RO', True)),
            # keys
            'del': (2, lambda: ['DEL'] + g.ks(1, 2)),
            'unlink': (1, lambda: ['UNLINK'] + g.ks(1, 2)),
            'exists': (1, lambda: ['EXISTS'] + g.ks()),
            'type': (1, lambda: ['TYPE', k()]),
            'keys': (1, lambda: ['KEYS', g.pat()]),
            'scan': (1, scan),
            'randomkey': (0.5, lambda: ['RANDOMKEY']),
            'rename': (1, lambda: ['RENAME', k(), k()]),
            'renamenx': (1, lambda: ['RENAMENX', k(), k()]),
            'move': (1, lambda: ['MOVE', k(), g.db()]),
            'copy': (1, copy),
            'touch': (0.5, lambda: ['TOUCH'] + g.ks()),
            'object': (1.5, obj),
            'expire': (1, expire_cmd('EXPIRE', TTL_S)),
            'pexpire': (1, expire_cmd('PEXPIRE', TTL_MS)),
            'expireat': (1, expire_cmd('EXPIREAT', AT_S)),
            'pexpireat': (1, expire_cmd('PEXPIREAT', AT_MS)),
            'ttl': (1, lambda: ['TTL', k()]),
            'pttl': (1, lambda: ['PTTL', k()]),
            'expiretime': (0.5, lambda: ['EXPIRETIME', k()]),
            'pexpiretime': (0.5, lambda: ['PEXPIRETIME', k()]),
            'persist': (1, lambda: ['PERSIST', k()]),
            # lists
            'lpush': (2, lambda: ['LPUSH', k()] + g.mems()),
            'rpush': (2, lambda: ['RPUSH', k()] + g.mems()),
            'lpushx': (1, lambda: ['LPUSHX', k()] + g.mems()),
            'rpushx': (1, lambda: ['RPUSHX', k()] + g.mems()),
            'lpop': (1, lambda: ['LPOP', k()] + ([cnt()] if P(0.5) else [])),
            'rpop': (1, lambda: ['RPOP', k()] + ([cnt()] if P(0.5) else [])),
            'llen': (1, lambda: ['LLEN', k()]),
            'lindex': (1, lambda: ['LINDEX', k(), idx()]),
            'lset': (1, lambda: ['LSET', k(), idx(), v()]),
            'lrange': (1.5, lambda: ['LRANGE', k(), idx(), idx()]),
            'ltrim': (1, lambda: ['LTRIM', k(), idx(), idx()]),
            'lrem': (1, lambda: ['LREM', k(), ch(['0', '1', '-1', '2', '-2', str(LLONG_MIN),
                                                  'x']), m()]),
            'linsert': (1, lambda: ['LINSERT', k(), ch(['BEFORE', 'AFTER', 'before', 'MID']),
                                    m(), v()]),
            'lpos': (1, lpos),
            'lmove': (1, lambda: ['LMOVE', k(), k(), side(), side()]),
            'rpoplpush': (1, lambda: ['RPOPLPUSH', k(), k()]),
            'lmpop': (1, lmpop),
            'blpop': (0.4, lambda: ['BLPOP'] + g.ks() + [g.quick_timeout()]),
            'brpop': (0.4, lambda: ['BRPOP'] + g.ks() + [g.quick_timeout()]),
            'blmove': (0.3, lambda: ['BLMOVE', k(), k(), side(), side(), g.quick_timeout()]),
            'brpoplpush': (0.3, lambda: ['BRPOPLPUSH', k(), k(), g.quick_timeout()]),
            'blmpop': (0.3, blmpop),
            # hashes
            'hset': (3, lambda: ['HSET', k()] + pairs()),
            'hsetnx': (1, lambda: ['HSETNX', k(), m(), v()]),
            'hmset': (1, lambda: ['HMSET', k()] + pairs()),
            'hget': (1.5, lambda: ['HGET', k(), m()]),
            'hmget': (1, lambda: ['HMGET', k()] + g.mems()),
            'hgetall': (1, lambda: ['HGETALL', k()]),
            'hdel': (1.5, lambda: ['HDEL', k()] + g.mems()),
            'hlen': (1, lambda: ['HLEN', k()]),
            'hexists': (1, lambda: ['HEXISTS', k(), m()]),
            'hkeys': (1, lambda: ['HKEYS', k()]),
            'hvals': (1, lambda: ['HVALS', k()]),
            'hincrby': (1.5, lambda: ['HINCRBY', k(), m(), i()]),
            'hincrbyfloat': (1.5, lambda: ['HINCRBYFLOAT', k(), m(), f()]),
            'hstrlen': (1, lambda: ['HSTRLEN', k(), m()]),
            'hrandfield': (1, hrandfield),
            'hscan': (1, kscan('HSCAN', True)),
            # sets
            'sadd': (3, lambda: ['SADD', k()] + g.mems()),
            'srem': (1.5, lambda: ['SREM', k()] + g.mems()),
            'scard': (1, lambda: ['SCARD', k()]),
            'sismember': (1, lambda: ['SISMEMBER', k(), m()]),
            'smismember': (1, lambda: ['SMISMEMBER', k()] + g.mems()),
            'smembers': (1, lambda: ['SMEMBERS', k()]),
            'srandmember': (1, lambda: ['SRANDMEMBER', k()] + ([cnt()] if P(0.8) else [])),
            'spop': (1, lambda: ['SPOP', k()] + ([cnt()] if P(0.6) else [])),
            'smove': (1, lambda: ['SMOVE', k(), k(), m()]),
            'sinter': (1, lambda: ['SINTER'] + g.ks()),
            'sintercard': (1, sintercard),
            'sinterstore': (1, lambda: ['SINTERSTORE', k()] + g.ks()),
            'sunion': (1, lambda: ['SUNION'] + g.ks()),
            'sunionstore': (1, lambda: ['SUNIONSTORE', k()] + g.ks()),
            'sdiff': (1, lambda: ['SDIFF'] + g.ks()),
            'sdiffstore': (1, lambda: ['SDIFFSTORE', k()] + g.ks()),
            'sscan': (1, kscan('SSCAN')),
            # sorted sets
            'zadd': (3, zadd),
            'zincrby': (1.5, lambda: ['ZINCRBY', k(), g.score(), m()]),
            'zrem': (1.5, lambda: ['ZREM', k()] + g.mems()),
            'zcard': (1, lambda: ['ZCARD', k()]),
            'zscore': (1, lambda: ['ZSCORE', k(), m()]),
            'zmscore': (1, lambda: ['ZMSCORE', k()] + g.mems()),
            'zrank': (1, zrank('ZRANK')),
            'zrevrank': (1, zrank('ZREVRANK')),
            'zcount': (1, lambda: ['ZCOUNT', k(), ch(SCORE_RANGES), ch(SCORE_RANGES)]),
            'zlexcount': (1, lambda: ['ZLEXCOUNT', k(), ch(LEX_RANGES), ch(LEX_RANGES)]),
            'zrange': (2, zrange),
            'zrangestore': (1, zrangestore),
            'zrevrange': (1, lambda: ['ZREVRANGE', k(), idx(), idx()] +
                          (['WITHSCORES'] if P(0.5) else [])),
            'zrangebyscore': (1, byscore('ZRANGEBYSCORE')),
            'zrevrangebyscore': (1, byscore('ZREVRANGEBYSCORE')),
            'zrangebylex': (1, bylex('ZRANGEBYLEX')),
            'zrevrangebylex': (1, bylex('ZREVRANGEBYLEX')),
            'zremrangebyrank': (1, lambda: ['ZREMRANGEBYRANK', k(), idx(), idx()]),
            'zremrangebyscore': (1, lambda: ['ZREMRANGEBYSCORE', k(), ch(SCORE_RANGES),
                                             ch(SCORE_RANGES)]),
            'zremrangebylex': (1, lambda: ['ZREMRANGEBYLEX', k(), ch(LEX_RANGES),
                                           ch(LEX_RANGES)]),
            'zpopmin': (1, lambda: ['ZPOPMIN', k()] + ([cnt()] if P(0.5) else [])),
            'zpopmax': (1, lambda: ['ZPOPMAX', k()] + ([cnt()] if P(0.5) else [])),
            'zmpop': (1, zmpop),
            'bzpopmin': (0.3, lambda: ['BZPOPMIN'] + g.ks() + [g.quick_timeout()]),
            'bzpopmax': (0.3, lambda: ['BZPOPMAX'] + g.ks() + [g.quick_timeout()]),
            'bzmpop': (0.3, bzmpop),
            'zrandmember': (1, zrandmember),
            'zunion': (1, zsetop('ZUNION')),
            'zinter': (1, zsetop('ZINTER')),
            'zdiff': (1, zsetop('ZDIFF')),
            'zunionstore': (1, zsetop('ZUNIONSTORE', True, False)),
            'zinterstore': (1, zsetop('ZINTERSTORE', True, False)),
            'zdiffstore': (1, zsetop('ZDIFFSTORE', True, False)),
            'zintercard': (1, zintercard),
            'zscan': (1, kscan('ZSCAN')),
            # hyperloglog (strings in Redis's HLL format)
            'pfadd': (2, lambda: ['PFADD', k()] + g.mems(0, 4)),
            'pfcount': (1.5, lambda: ['PFCOUNT'] + g.ks()),
            'pfmerge': (1, lambda: ['PFMERGE', k()] + g.ks(0, 3)),
            'pfdebug': (0.3, pfdebug),
            # geo (sorted sets of geohash scores)
            'geoadd': (2, geoadd),
            'geopos': (1, lambda: ['GEOPOS', k()] + g.mems()),
            'geodist': (1, lambda: ['GEODIST', k(), m(), m()] + ([unit()] if P(0.6) else [])),
            'geohash': (1, lambda: ['GEOHASH', k()] + g.mems()),
            'geosearch': (1, geosearch(False)),
            'geosearchstore': (0.7, geosearch(True)),
            'georadius': (0.5, georadius('GEORADIUS')),
            'georadius_ro': (0.3, georadius('GEORADIUS_RO')),
            'georadiusbymember': (0.5, georadius('GEORADIUSBYMEMBER')),
            'georadiusbymember_ro': (0.3, georadius('GEORADIUSBYMEMBER_RO')),
            # sort
            'sort': (1.5, sort('SORT')),
            'sort_ro': (0.5, sort('SORT_RO')),
            # server / connection
            'ping': (0.5, lambda: ['PING'] + ([v()] if P(0.5) else [])),
            'echo': (0.5, lambda: ['ECHO', v()]),
            'select': (1, lambda: ['SELECT', g.db()]),
            'dbsize': (0.5, lambda: ['DBSIZE']),
            'flushdb': (0.05, lambda: ['FLUSHDB'] + ch([[], ['ASYNC'], ['SYNC'], ['FOO']])),
            'flushall': (0.02, lambda: ['FLUSHALL'] + ch([[], ['ASYNC'], ['SYNC'], ['FOO']])),
            'swapdb': (0.3, lambda: ['SWAPDB', g.db(), g.db()]),
            'time': (0.2, lambda: ['TIME']),
            # what a standalone server without cluster support or modules answers
            'role': (0.1, lambda: ['ROLE'] + ([v()] if P(0.2) else [])),
            'cluster': (0.1, lambda: ['CLUSTER'] + ch([['INFO'], ['KEYSLOT', k()], ['NODES'],
                                                      ['MYID'], ['FOO'], ['KEYSLOT'], []])),
            # MODULE LOAD/UNLOAD are left out: Redis refuses them at admission (protected
            # commands), also inside MULTI, where Keel still queues them.
            'module': (0.1, lambda: ['MODULE'] + ch([['LIST'], ['LIST', v()], ['FOO'], []])),
            'lastsave': (0.1, lambda: ['LASTSAVE']),
            'config': (0.3, config),
            'client': (0.5, client),
            'command': (0.5, command),
            'hello': (0.2, hello),
            'echo2': (0.1, lambda: ['ECHO']),
            'auth': (0.1, lambda: ['AUTH'] + ch([['x'], ['default', 'x'], ['a', 'b', 'c']])),
            # Unknown names only (not commands Keel lacks, like XADD: those differ by design
            # until implemented).
            'unknown': (0.2, lambda: [ch(['FOO', 'get\x00', '', 'x' * 200, 'a\r\nb'])] +
                        g.ks(0, 2)),
            'info': (0.1, lambda: ['INFO'] + ch([[], ['keyspace'], ['nosuch'], ['clients']])),
            'publish': (0.5, lambda: ['PUBLISH', ch(CHANNELS), v()]),
            'spublish': (0.2, lambda: ['SPUBLISH', ch(CHANNELS), v()]),
            'pubsub': (0.3, pubsub),
            # transactions (the runner's model tracks MULTI state)
            'multi': (0.6, lambda: ['MULTI']),
            'exec': (0.5, lambda: ['EXEC']),
            'discard': (0.2, lambda: ['DISCARD']),
            'watch': (0.4, lambda: ['WATCH'] + g.ks()),
            'unwatch': (0.2, lambda: ['UNWATCH']),
            'reset': (0.1, lambda: ['RESET']),
        }
        return T

    def cursor(self):
        return self.ch(['0', '0', '0', '1', '5', '-1', 'abc', str(LLONG_MAX + 1),
                        '18446744073709551615', '18446744073709551616', '', ' 1', '+1', '-0',
                        '01'])

    def score(self):
        if self.p(0.6):
            return str(self.r.randrange(-5, 6))
        return self.ch(FLOATS)

    def pick_name(self):
        x = self.r.random() * self.cum[-1]
        lo, hi = 0, len(self.cum) - 1
        while lo < hi:
            mid = (lo + hi) // 2
            if self.cum[mid] < x:
                lo = mid + 1
            else:
                hi = mid
        return self.names[lo]

    def plain_command(self):
        """A data command (no connection-state commands), for COMMAND GETKEYS and scripts."""
        while True:
            n = self.pick_name()
            if n in CONN_STATE or n in ('command', 'echo2', 'unknown', 'client', 'hello',
                                        'config', 'info'):
                continue
            return self.table[n][1]()

    def mutate(self, a):
        """Implausible arguments: drop, add, replace or duplicate one, or mangle the name."""
        a = list(a)
        x = self.r.random()
        if x < 0.2 and len(a) > 1:
            a.pop()
        elif x < 0.35 and len(a) > 1:
            a.pop(self.r.randrange(1, len(a)))
        elif x < 0.55:
            a.insert(self.r.randrange(1, len(a) + 1), self.ch(JUNK))
        elif x < 0.8 and len(a) > 1:
            a[self.r.randrange(1, len(a))] = self.ch(JUNK)
        elif x < 0.9 and len(a) > 1:
            j = self.r.randrange(1, len(a))
            a.insert(j, a[j])
        else:
            a[0] = ''.join(c.upper() if self.p(0.5) else c.lower() for c in a[0])
        return no_short_ttl(a)


def no_short_ttl(a):
    """A mutation may put JUNK's '1' where a relative TTL goes: a key that lives 1 ms (or 1 s)
    expires at different commands on the two servers (a race, not a difference), so such a TTL
    becomes a long one. 0 and negative TTLs delete at once on both and stay."""
    name = a[0].lower()
    if name in ('expire', 'pexpire', 'setex', 'psetex') and len(a) > 2 and a[2] == '1':
        a[2] = '100000'
    elif name in ('set', 'getex'):
        for j in range(2, len(a) - 1):
            if a[j].lower() in ('ex', 'px') and a[j + 1] == '1':
                a[j + 1] = '100000'
    return a


# Commands whose effect on the connection the runner models (never mutated, never in scripts).
CONN_STATE = {'multi', 'exec', 'discard', 'watch', 'unwatch', 'select', 'hello', 'swapdb',
              'flushall', 'flushdb', 'reset'}


def lua_str(s):
    out = ['"']
    for c in s:
        o = ord(c)
        if c == '"' or c == '\\':
            out.append('\\' + c)
        elif 32 <= o < 127:
            out.append(c)
        else:
            out.append('\\%d' % o)
    out.append('"')
    return ''.join(out)
