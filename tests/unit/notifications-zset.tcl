# Keyspace notifications of the sorted-set commands: exact event sequences, checked against
# redis-server 7.0.15 with a PSUBSCRIBE __key*__:* reader (7.0 and 7.4 give the same streams).
# The helpers (ke, events_of) are in tests/support/util.tcl.

tags {pubsub notifications zset} {

test "ZADD: new, zadd; nothing when no score changes" {
    assert_equal [ke z {new zadd}] [events_of KEAn {} { r zadd z 1 a 2 b }]
    assert_equal {} [events_of KEAn { r zadd z 1 a } {
        r zadd z 1 a
        r zadd z nx 5 a
        r zadd z xx 1 nope
        r zadd z gt 0 a
    }]
    assert_equal [ke z zadd] [events_of KEAn { r zadd z 1 a } { r zadd z 2 a }]
    assert_equal {} [events_of KEAn {} { r zadd z xx 1 a }]
}

test "ZADD INCR and ZINCRBY: zincr, none for a zero increment" {
    assert_equal [concat [ke z {new zincr}] [ke z zincr]] [events_of KEAn {} {
        r zincrby z 1 a
        r zadd z incr 2 a
    }]
    assert_equal {} [events_of KEAn { r zadd z 1 a } { r zincrby z 0 a }]
    assert_equal {} [events_of KEAn { r zadd z inf a } { catch {r zincrby z -inf a} }]
}

test "ZREM: zrem, then del when emptied" {
    assert_equal [concat [ke z zrem] [ke z {zrem del}]] [events_of KEAn { r zadd z 1 a 2 b 3 c } {
        r zrem z a
        r zrem z nope
        r zrem z b c
    }]
    # a key created and emptied in two commands: new, zadd, zrem, del
    assert_equal [ke z {new zadd zrem del}] [events_of KEAn {} {
        r zadd z 1 a 2 b
        r zrem z a b
    }]
}

test "ZREMRANGEBYSCORE / RANK / LEX" {
    assert_equal [concat [ke z zremrangebyscore] [ke z zremrangebyrank] [ke z {zremrangebylex del}]] \
        [events_of KEAn { r zadd z 1 a 1 b 2 c 3 d 3 e } {
            r zremrangebyscore z 2 2
            r zremrangebyscore z -inf (0
            r zremrangebyrank z 0 0
            r zremrangebyrank z 10 20
            r zremrangebylex z (z +
            r zremrangebylex z - +
        }]
}

test "ZPOPMIN / ZPOPMAX / ZMPOP: one event per call, then del" {
    assert_equal [concat [ke z zpopmin] [ke z zpopmax] [ke z zpopmin] [ke z {zpopmax del}]] \
        [events_of KEAn { r zadd z 1 a 2 b 3 c 4 d 5 e } {
            r zpopmin z 2
            r zpopmax z
            r zmpop 1 z min
            r zpopmin z 0
            r zmpop 2 nokey z max count 10
            r zpopmin z
        }]
    assert_equal [ke z {zpopmin del}] [events_of KEAn { r zadd z 1 a 2 b } { r zpopmin z 2 }]
}

test "BZPOPMIN / BZPOPMAX / BZMPOP on a non-empty key" {
    assert_equal [concat [ke z zpopmin] [ke z zpopmax] [ke z {zpopmin del}]] \
        [events_of KEAn { r zadd z 1 a 2 b 3 c } {
            r bzpopmin nokey z 0
            r bzpopmax z 0
            r bzmpop 0 1 z min count 5
        }]
}

test "A blocked BZPOPMIN woken by ZADD: new zadd, then zpopmin del" {
    r del z
    set rd [redis_deferring_client]
    $rd bzpopmin z 0
    wait_for_blocked_clients 1
    set ev [events_of KEAn {} {
        r zadd z 1 a
        assert_equal {z a 1} [$rd read]
    }]
    $rd close
    assert_equal [ke z {new zadd zpopmin del}] $ev
}

test "ZUNIONSTORE / ZINTERSTORE / ZDIFFSTORE / ZRANGESTORE" {
    assert_equal [concat [ke d {new zunionstore}] [ke d zinterstore] [ke d zdiffstore] [ke d zrangestore]] \
        [events_of KEAn { r zadd z1 1 a 2 b; r zadd z2 1 b } {
            r zunionstore d 2 z1 z2
            r zinterstore d 2 z1 z2
            r zdiffstore d 2 z1 z2
            r zrangestore d z1 0 0
        }]
    # an empty result deletes an existing destination (del) and creates nothing otherwise
    assert_equal [ke d del] [events_of KEAn { r zadd z1 1 a; r set d x } {
        r zinterstore d 2 z1 nokey
        r zinterstore d 2 z1 nokey
        r zrangestore d z1 5 10
    }]
    assert_equal [ke d zunionstore] [events_of KEAn { r zadd z1 1 a; r set d x } {
        r zunionstore d 1 z1
    }]
}

test "Read-only zset commands emit nothing" {
    assert_equal {} [events_of KEAn { r zadd z 1 a 2 b } {
        r zrange z 0 -1
        r zscore z a
        r zrank z a
        r zcount z -inf +inf
        r zunion 1 z
        r zrandmember z 2
        r zscan z 0
        r zintercard 1 z
    }]
}

}
