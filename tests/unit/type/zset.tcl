# Sorted-set commands in both encodings (listpack, skiplist) and across the conversions of
# src/types/README.md (Redis 7.4 rules). Replies and error texts were
# checked against redis-server 7.0.15; scores use values that both 7.0 (%.17g) and 7.4
# (shortest round-trip) print the same way. Tests of 7.2+ features (ZRANK WITHSCORE, up-front
# conversion of ZADD by argument count) run only on Keel.

proc reset_zset_limits {} {
    r config set zset-max-listpack-entries 128
    r config set zset-max-listpack-value 64
}

# Makes new zsets use `enc`: the skiplist runs set zset-max-listpack-entries to 0.
proc use_zset_encoding {enc} {
    reset_zset_limits
    if {$enc eq "skiplist"} { r config set zset-max-listpack-entries 0 }
}

# Builds `key` from a flat {score member ...} list and asserts the encoding.
proc make_zset {key enc pairs} {
    r del $key
    r zadd $key {*}$pairs
    assert_encoding $enc $key
}

set ::basic {1 a 2 b 3 c 4 d 5 e}

tags {type zset} {

foreach enc {listpack skiplist} {
    use_zset_encoding $enc

    # ---- ZADD / ZCARD / ZSCORE / ZMSCORE -----------------------------------------------------

    test "ZADD adds and updates, ZCARD counts ($enc)" {
        r del z
        assert_equal 3 [r zadd z 1 a 2 b 3 c]
        assert_encoding $enc z
        assert_equal 0 [r zadd z 10 a]
        assert_equal 10 [r zscore z a]
        assert_equal 1 [r zadd z 5 d 5 d]
        assert_equal 4 [r zcard z]
        assert_equal {b c d a} [r zrange z 0 -1]
    }

    test "ZADD NX / XX / CH ($enc)" {
        make_zset z $enc {1 a 2 b}
        assert_equal 1 [r zadd z nx 10 a 3 c]
        assert_equal 1 [r zscore z a]
        assert_equal 0 [r zadd z xx 10 a 20 nope]
        assert_equal 10 [r zscore z a]
        assert_equal {} [r zscore z nope]
        assert_equal 2 [r zadd z ch 11 a 12 new 2 b]
        assert_equal 1 [r zadd z xx ch 13 a 2 b]
        assert_equal 0 [r zadd nokey xx 1 a]
        assert_equal 0 [r exists nokey]
    }

    test "ZADD GT / LT ($enc)" {
        make_zset z $enc {5 a 5 b}
        assert_equal 2 [r zadd z gt ch 6 a 4 b 1 c]
        assert_equal {6 5 1} [r zmscore z a b c]
        assert_equal 2 [r zadd z lt ch 7 a 3 b 0 c]
        assert_equal {6 3 0} [r zmscore z a b c]
        assert_equal 1 [r zadd z gt xx ch 9 a 1 d]
        assert_equal {} [r zscore z d]
    }

    test "ZADD INCR and ZINCRBY ($enc)" {
        make_zset z $enc {1 a}
        assert_equal 3.5 [r zadd z incr 2.5 a]
        assert_equal 3.5 [r zadd z incr 0 a]
        assert_equal 4 [r zincrby z 0.5 a]
        assert_equal -2 [r zincrby z -2 b]
        assert_equal {} [r zadd z incr nx 1 a]
        assert_equal {} [r zadd z incr xx 1 nope]
        assert_equal {} [r zadd z incr gt -1 a]
        assert_equal 3 [r zadd z incr lt -1 a]
        assert_equal inf [r zincrby z +inf a]
        assert_error {ERR resulting score is not a number (NaN)} {r zincrby z -inf a}
        assert_error {ERR resulting score is not a number (NaN)} {r zadd z incr -inf a}
        assert_equal inf [r zscore z a]
    }

    test "ZADD with infinities, exponents and -0 ($enc)" {
        r del z
        r zadd z inf top -inf bottom 1e3 k 0x10 hex -0 zero
        assert_equal {bottom zero hex k top} [r zrange z 0 -1]
        assert_equal {-inf 1000 16 inf} [r zmscore z bottom k hex top]
    }

    test "A -0 score: 0 in a listpack, -0 in a skiplist ($enc)" {
        # redis-server 7.0.15 (7.4 alike): a listpack stores an integral score as an integer
        # entry, so -0 comes back as 0; a skiplist keeps the double and its sign. The ZADD INCR
        # / ZINCRBY reply is the computed score (-0) either way.
        # (if, not expr: expr would turn the string -0 into the number 0)
        if {$enc eq "listpack"} { set want 0; set neg -0 } else { set want -0; set neg 0 }
        make_zset z $enc {-0 a 1 b}
        assert_equal $want [r zscore z a]
        assert_equal $want [r zmscore z a]
        assert_equal [list a $want b 1] [r zrange z 0 -1 withscores]
        assert_equal -0 [r zincrby z -0 c]
        assert_equal $want [r zscore z c]
        assert_equal -0 [r zadd z incr -0.0 d]
        assert_equal $want [r zscore z d]
        # The stored form is what ZUNION starts from: 0 * -1 is -0, -0 * -1 is 0. A stored
        # result in a listpack is 0 again.
        make_zset z $enc {-0 a}
        assert_equal [list a $neg] [r zunion 1 z weights -1 withscores]
        r zunionstore dst 1 z weights -1
        assert_equal {a 0} [r zrange dst 0 -1 withscores]
        r del dst
    }

    test "ZADD score parsing: hex accepted, overflow refused ($enc)" {
        # strtod semantics in 7.0.15 and 7.4; Redis 8.0 keeps accepting hex (PR #13845 restored
        # it after fast_float). 1e309 overflows: "not a valid float", as is a subnormal that
        # rounds to 0.
        r del z
        assert_equal 1 [r zadd z 0x10 a]
        assert_equal 16 [r zscore z a]
        assert_error {ERR value is not a valid float} {r zadd z 1e309 b}
        assert_error {ERR value is not a valid float} {r zadd z -1e309 b}
        assert_error {ERR value is not a valid float} {r zadd z 1e-400 b}
        assert_error {ERR value is not a valid float} {r zincrby z 1e309 a}
        assert_equal 16 [r zscore z a]
        assert_equal 1 [r zcard z]
    }

    test "ZMSCORE and ZSCORE on missing members and keys ($enc)" {
        make_zset z $enc {1 a 2.5 b}
        assert_equal {1 {} 2.5} [r zmscore z a x b]
        assert_equal {{} {}} [r zmscore nokey a b]
        assert_equal {} [r zscore nokey a]
        assert_equal 0 [r zcard nokey]
    }

    # ---- ZREM ---------------------------------------------------------------------------------

    test "ZREM removes members and the emptied key ($enc)" {
        make_zset z $enc {1 a 2 b 3 c}
        assert_equal 2 [r zrem z a nosuch c a]
        assert_equal {b} [r zrange z 0 -1]
        assert_encoding $enc z
        assert_equal 0 [r zrem z nosuch]
        assert_equal 1 [r zrem z b]
        assert_equal 0 [r exists z]
        assert_equal 0 [r zrem nokey a]
    }

    # ---- ZRANK / ZREVRANK ---------------------------------------------------------------------

    test "ZRANK / ZREVRANK ($enc)" {
        make_zset z $enc $::basic
        assert_equal 0 [r zrank z a]
        assert_equal 4 [r zrank z e]
        assert_equal 4 [r zrevrank z a]
        assert_equal 0 [r zrevrank z e]
        assert_equal {} [r zrank z nosuch]
        assert_equal {} [r zrank nokey a]
    }

    test "ZRANK / ZREVRANK WITHSCORE ($enc)" {
        if {![is_keel]} { skip_test "Redis 7.2+" }
        make_zset z $enc {1 a 2.5 b}
        assert_equal {1 2.5} [r zrank z b withscore]
        assert_equal {0 2.5} [r zrevrank z b WITHSCORE]
        assert_equal {} [r zrank z nosuch withscore]
        assert_error {ERR syntax error} {r zrank z a foo}
        assert_error {*wrong number of arguments for 'zrank' command} {r zrank z a withscore x}
    }

    # ---- ZRANGE by rank ------------------------------------------------------------------------

    test "ZRANGE by rank with negative and out of range indexes ($enc)" {
        make_zset z $enc $::basic
        assert_equal {a b c d e} [r zrange z 0 -1]
        assert_equal {d e} [r zrange z -2 -1]
        assert_equal {a b} [r zrange z -100 1]
        assert_equal {d e} [r zrange z 3 100]
        assert_equal {} [r zrange z 5 10]
        assert_equal {} [r zrange z 3 1]
        assert_equal {} [r zrange z -1 -2]
        assert_equal {a 1 b 2} [r zrange z 0 1 withscores]
        assert_equal {e d} [r zrange z 0 1 rev]
        assert_equal {e 5 d 4} [r zrange z 0 1 rev withscores]
        assert_equal {e d c b a} [r zrevrange z 0 -1]
        assert_equal {b 2 a 1} [r zrevrange z -2 -1 withscores]
        assert_equal {} [r zrange nokey 0 -1]
    }

    test "ZRANGE equal scores are ordered by member bytes ($enc)" {
        r del z
        r zadd z 1 b 1 a 1 ab 1 "a\x00" 1 B 0 z
        assert_equal [list z B a "a\x00" ab b] [r zrange z 0 -1]
    }

    # ---- ZRANGE BYSCORE / ZRANGEBYSCORE / ZCOUNT ------------------------------------------------

    test "ZRANGEBYSCORE inclusive, exclusive and infinite bounds ($enc)" {
        make_zset z $enc {-inf n 1 a 2 b 3 c 4 d 5 e inf p}
        assert_equal {a b c} [r zrangebyscore z 1 3]
        assert_equal {b c} [r zrangebyscore z (1 3]
        assert_equal {b} [r zrangebyscore z (1 (3]
        assert_equal {n a b} [r zrangebyscore z -inf 2]
        assert_equal {e p} [r zrangebyscore z 5 +inf]
        assert_equal {} [r zrangebyscore z 3 1]
        assert_equal {} [r zrangebyscore z (3 3]
        assert_equal {c 3} [r zrangebyscore z 3 3 withscores]
        assert_equal {c b} [r zrevrangebyscore z 3 (1]
        assert_equal {c 3 b 2} [r zrevrangebyscore z 3 (1 withscores]
        assert_equal {c b} [r zrange z 3 (1 byscore rev]
        assert_equal {} [r zrange z (1 3 byscore rev]
        assert_equal {} [r zrangebyscore nokey 0 1]
    }

    test "ZRANGEBYSCORE LIMIT ($enc)" {
        make_zset z $enc $::basic
        assert_equal {b c} [r zrangebyscore z -inf +inf limit 1 2]
        assert_equal {b c d e} [r zrangebyscore z -inf +inf limit 1 -1]
        assert_equal {} [r zrangebyscore z -inf +inf limit 10 2]
        assert_equal {} [r zrangebyscore z -inf +inf limit -1 2]
        assert_equal {} [r zrangebyscore z -inf +inf limit 0 0]
        assert_equal {d 4 c 3} [r zrevrangebyscore z +inf -inf withscores limit 1 2]
        assert_equal {d c} [r zrange z +inf -inf byscore rev limit 1 2]
        assert_equal {b c} [r zrange z 1 5 byscore limit 1 2]
    }

    test "ZCOUNT ($enc)" {
        make_zset z $enc $::basic
        assert_equal 5 [r zcount z -inf +inf]
        assert_equal 3 [r zcount z 2 4]
        assert_equal 1 [r zcount z (2 (4]
        assert_equal 0 [r zcount z 4 2]
        assert_equal 0 [r zcount z 10 20]
        assert_equal 0 [r zcount nokey 0 1]
    }

    # ---- lex ranges ---------------------------------------------------------------------------

    test "ZRANGEBYLEX / ZREVRANGEBYLEX / ZLEXCOUNT ($enc)" {
        make_zset z $enc {0 a 0 b 0 c 0 d 0 e 0 f}
        assert_equal {a b c d e f} [r zrangebylex z - +]
        assert_equal {b c} [r zrangebylex z {[b} {(d}]
        assert_equal {c d} [r zrangebylex z (b {[d}]
        assert_equal {} [r zrangebylex z + -]
        assert_equal {} [r zrangebylex z - -]
        assert_equal {d c b} [r zrevrangebylex z {[d} {[b}]
        assert_equal {c b} [r zrevrangebylex z (d - limit 0 2]
        assert_equal {b c} [r zrangebylex z - + limit 1 2]
        assert_equal {d c} [r zrange z + - bylex rev limit 2 2]
        assert_equal 6 [r zlexcount z - +]
        assert_equal 2 [r zlexcount z {[b} {[c}]
        assert_equal 0 [r zlexcount z {[x} +]
        assert_equal 0 [r zlexcount nokey - +]
    }

    # ---- ZREMRANGEBY* -------------------------------------------------------------------------

    test "ZREMRANGEBYRANK ($enc)" {
        make_zset z $enc $::basic
        assert_equal 2 [r zremrangebyrank z 1 2]
        assert_equal {a d e} [r zrange z 0 -1]
        assert_equal 1 [r zremrangebyrank z -1 -1]
        assert_equal 0 [r zremrangebyrank z 5 10]
        assert_equal 2 [r zremrangebyrank z 0 100]
        assert_equal 0 [r exists z]
        assert_equal 0 [r zremrangebyrank nokey 0 -1]
    }

    test "ZREMRANGEBYSCORE ($enc)" {
        make_zset z $enc $::basic
        assert_equal 2 [r zremrangebyscore z (1 3]
        assert_equal {a d e} [r zrange z 0 -1]
        assert_equal 0 [r zremrangebyscore z 10 20]
        assert_equal 0 [r zremrangebyscore z (4 (4]
        assert_equal 3 [r zremrangebyscore z -inf +inf]
        assert_equal 0 [r exists z]
    }

    test "ZREMRANGEBYLEX ($enc)" {
        make_zset z $enc {0 a 0 b 0 c 0 d 0 e}
        assert_equal 3 [r zremrangebylex z {[b} {[d}]
        assert_equal {a e} [r zrange z 0 -1]
        assert_equal 0 [r zremrangebylex z {[b} {[d}]
        assert_equal 2 [r zremrangebylex z - +]
        assert_equal 0 [r exists z]
    }

    # ---- pops ---------------------------------------------------------------------------------

    test "ZPOPMIN / ZPOPMAX ($enc)" {
        make_zset z $enc $::basic
        assert_equal {a 1} [r zpopmin z]
        assert_equal {e 5} [r zpopmax z]
        assert_equal {b 2 c 3} [r zpopmin z 2]
        assert_equal {} [r zpopmin z 0]
        assert_equal {d 4} [r zpopmax z 10]
        assert_equal 0 [r exists z]
        assert_equal {} [r zpopmin nokey]
        assert_equal {} [r zpopmax nokey 3]
    }

    test "ZMPOP ($enc)" {
        make_zset z $enc $::basic
        assert_equal {z {{a 1}}} [r zmpop 2 nokey z min]
        assert_equal {z {{e 5} {d 4}}} [r zmpop 1 z max count 2]
        assert_equal {z {{b 2} {c 3}}} [r zmpop 1 z MIN COUNT 10]
        assert_equal 0 [r exists z]
        assert_equal {} [r zmpop 2 nokey z min]
    }

    # ---- ZRANDMEMBER --------------------------------------------------------------------------

    test "ZRANDMEMBER ($enc)" {
        make_zset z $enc $::basic
        assert_match {[a-e]} [r zrandmember z]
        set distinct [r zrandmember z 3]
        assert_equal 3 [llength [lsort -unique $distinct]]
        assert_equal {a b c d e} [lsort [r zrandmember z 10]]
        set rep [r zrandmember z -20]
        assert_equal 20 [llength $rep]
        foreach m $rep { assert_match {[a-e]} $m }
        set ws [r zrandmember z 5 withscores]
        assert_equal {a 1 b 2 c 3 d 4 e 5} [lsort -stride 2 -index 0 $ws]
        foreach {m s} [r zrandmember z -7 withscores] { assert_equal [r zscore z $m] $s }
        assert_equal {} [r zrandmember z 0]
        assert_equal {} [r zrandmember nokey]
        assert_equal {} [r zrandmember nokey 5]
    }

    # ---- ZSCAN --------------------------------------------------------------------------------

    test "ZSCAN returns every member with its score ($enc)" {
        r del z
        set expected {}
        for {set i 0} {$i < 100} {incr i} {
            r zadd z $i m$i
            lappend expected m$i $i
        }
        if {$enc eq "listpack"} { assert_encoding listpack z }
        set cursor 0
        set got {}
        while 1 {
            lassign [r zscan z $cursor count 7] cursor items
            foreach {m s} $items { dict set got $m $s }
            if {$cursor == 0} break
        }
        assert_equal [lsort -stride 2 $expected] [lsort -stride 2 $got]
        lassign [r zscan z 0 match m1* count 1000] cursor items
        assert_equal 0 $cursor
        assert_equal 11 [expr {[llength $items] / 2}]
        assert_equal {0 {}} [r zscan nokey 0]
    }

    # ---- set operations -----------------------------------------------------------------------

    test "ZUNION / ZINTER / ZDIFF with WEIGHTS and AGGREGATE ($enc)" {
        make_zset z1 $enc {1 a 2 b 3 c}
        make_zset z2 $enc {10 b 20 c 30 d}
        assert_equal {a 1 b 12 c 23 d 30} [r zunion 2 z1 z2 withscores]
        assert_equal {a b c d} [r zunion 2 z1 z2]
        assert_equal {a 2 b 14 c 26 d 30} [r zunion 2 z1 z2 weights 2 1 aggregate sum withscores]
        assert_equal {a 1 b 2 c 3 d 30} [r zunion 2 z1 z2 aggregate min withscores]
        assert_equal {a 1 b 10 c 20 d 30} [r zunion 2 z1 z2 aggregate max withscores]
        assert_equal {b 12 c 23} [r zinter 2 z1 z2 withscores]
        assert_equal {b 2 c 3} [r zinter 2 z1 z2 aggregate min withscores]
        assert_equal {c -17 b -8} [r zinter 2 z1 z2 weights 1 -1 withscores]
        assert_equal {a 1} [r zdiff 2 z1 z2 withscores]
        assert_equal {d} [r zdiff 2 z2 z1]
        assert_equal {a b c} [r zdiff 1 z1]
        assert_equal {} [r zinter 2 z1 nokey]
        assert_equal {a b c} [r zunion 2 z1 nokey]
        assert_equal {} [r zdiff 2 nokey z1]
        assert_equal 2 [r zintercard 2 z1 z2]
        assert_equal 1 [r zintercard 2 z1 z2 limit 1]
        assert_equal 2 [r zintercard 2 z1 z2 limit 0]
        assert_equal 0 [r zintercard 2 z1 nokey]
    }

    test "ZUNION / ZINTER NaN rules: inf * 0 and inf + -inf are 0 ($enc)" {
        make_zset z1 $enc {inf a -inf b}
        make_zset z2 $enc {-inf a inf b}
        assert_equal {a 0 b 0} [r zunion 2 z1 z2 withscores]
        assert_equal {a 0 b inf} [r zinter 2 z1 z2 weights 0 1 aggregate max withscores]
    }

    test "ZUNIONSTORE / ZINTERSTORE / ZDIFFSTORE ($enc)" {
        make_zset z1 $enc {1 a 2 b 3 c}
        make_zset z2 $enc {10 b 20 c 30 d}
        assert_equal 4 [r zunionstore dst 2 z1 z2]
        assert_equal {a 1 b 12 c 23 d 30} [r zrange dst 0 -1 withscores]
        assert_encoding $enc dst
        assert_equal 2 [r zinterstore dst 2 z1 z2 weights 1 2 aggregate max]
        assert_equal {b 20 c 40} [r zrange dst 0 -1 withscores]
        assert_equal 1 [r zdiffstore dst 2 z1 z2]
        assert_equal {a 1} [r zrange dst 0 -1 withscores]
        # an empty result deletes the destination, whatever its type
        assert_equal 0 [r zinterstore dst 2 z1 nokey]
        assert_equal 0 [r exists dst]
        r set dst string
        assert_equal 0 [r zdiffstore dst 2 z1 z1]
        assert_equal 0 [r exists dst]
        r set dst string
        assert_equal 3 [r zunionstore dst 1 z1]
        assert_type zset dst
        # the destination may be one of the inputs
        assert_equal 4 [r zunionstore z1 2 z1 z2]
        assert_equal {a 1 b 12 c 23 d 30} [r zrange z1 0 -1 withscores]
    }

    test "ZRANGESTORE ($enc)" {
        make_zset z $enc $::basic
        assert_equal 3 [r zrangestore dst z 1 3]
        assert_equal {b 2 c 3 d 4} [r zrange dst 0 -1 withscores]
        assert_encoding $enc dst
        assert_equal 2 [r zrangestore dst z (1 +inf byscore limit 0 2]
        assert_equal {b c} [r zrange dst 0 -1]
        assert_equal 2 [r zrangestore dst z 5 (3 byscore rev]
        assert_equal {d e} [r zrange dst 0 -1]
        assert_equal 0 [r zrangestore dst z 10 20]
        assert_equal 0 [r exists dst]
        assert_equal 0 [r zrangestore dst nokey 0 -1]
    }

    test "Set inputs count with score 1 ($enc)" {
        make_zset z $enc {5 a 2 b}
        r del s
        r sadd s a c
        assert_equal {c 1 b 2 a 6} [r zunion 2 z s withscores]
        assert_equal {a 6} [r zinter 2 z s withscores]
        assert_equal {c 1} [r zdiff 2 s z withscores]
        assert_equal 1 [r zintercard 2 z s]
        r del s
        r sadd s 1 2 3
        assert_equal {1 1 2 1 3 1} [r zunion 1 s withscores]
    }
}

reset_zset_limits

foreach enc {listpack skiplist} {
    use_zset_encoding $enc
    test "COPY makes an independent zset; ZRANGESTORE onto its own source ($enc)" {
        make_zset z $enc {1 a 2 b 3 c}
        r del z2
        assert_equal 1 [r copy z z2]
        assert_encoding $enc z2
        r zadd z2 9 d
        r zrem z2 a
        assert_equal {a b c} [r zrange z 0 -1]
        assert_equal {b c d} [r zrange z2 0 -1]
        assert_equal 1 [r zrangestore z z 1 1]
        assert_equal {b 2} [r zrange z 0 -1 withscores]
    }
}
reset_zset_limits

# ---- encodings and conversions -----------------------------------------------------------------

test "Listpack converts at zset-max-listpack-entries + 1" {
    r del z
    for {set i 0} {$i < 128} {incr i} { r zadd z $i m$i }
    assert_encoding listpack z
    r zadd z 128 m128
    assert_encoding skiplist z
    assert_equal 129 [r zcard z]
    # never back by removals
    r zremrangebyrank z 0 -2
    assert_encoding skiplist z
    assert_equal {m128} [r zrange z 0 -1]
}

test "Listpack converts when a member exceeds zset-max-listpack-value" {
    r del z
    r zadd z 1 [string repeat x 64]
    assert_encoding listpack z
    r zadd z 2 [string repeat y 65]
    assert_encoding skiplist z
    assert_equal [list [string repeat x 64] [string repeat y 65]] [r zrange z 0 -1]
    r del z
    r zadd z 1 [string repeat y 65]
    assert_encoding skiplist z
}

test "CONFIG SET of the thresholds applies to later conversions" {
    r config set zset-max-listpack-entries 4
    r del z
    r zadd z 1 a 2 b 3 c 4 d
    assert_encoding listpack z
    r zadd z 5 e
    assert_encoding skiplist z
    reset_zset_limits
}

test "ZADD with many arguments converts up front (Redis 7.4)" {
    if {![is_keel]} { skip_test "Redis 7.2+" }
    r del z
    set args {}
    for {set i 0} {$i < 200} {incr i} { lappend args 1 a }
    r zadd z {*}$args
    assert_encoding skiplist z
    assert_equal 1 [r zcard z]
    r del z
    r zadd z 1 a
    r zadd z {*}$args
    assert_encoding skiplist z
}

test "ZADD XX with a long member that is not added keeps the listpack" {
    r del z
    r zadd z 1 a
    r zadd z xx 2 a 3 [string repeat x 100]
    assert_encoding listpack z
    assert_equal {a 2} [r zrange z 0 -1 withscores]
}

test "*STORE results take the smallest fitting encoding" {
    r del big
    for {set i 0} {$i < 200} {incr i} { r zadd big $i m$i }
    assert_encoding skiplist big
    r zrangestore dst big 0 9
    assert_encoding listpack dst
    r zunionstore dst 1 big
    assert_encoding skiplist dst
    r zinterstore dst 2 big big
    assert_encoding skiplist dst
    r zremrangebyrank dst 0 -3
    assert_encoding skiplist dst
    r zdiffstore dst2 1 dst
    assert_encoding listpack dst2
}

test "Large members and values over 64 KB" {
    r del z
    set big [string repeat abcdefgh 10000]
    r zadd z 1 $big 2 small
    assert_encoding skiplist z
    assert_equal $big [lindex [r zrange z 0 0] 0]
    assert_equal 1 [r zscore z $big]
    assert_equal 1 [r zrem z $big]
    r del z2 z3
    r zadd z2 1 $big
    assert_equal 2 [r zunionstore z3 2 z2 z]
    assert_equal [list $big 1 small 2] [r zrange z3 0 -1 withscores]
}

test "Skiplist ranks and ranges on a larger zset" {
    r del z
    set pairs {}
    for {set i 0} {$i < 1000} {incr i} { lappend pairs [expr {$i * 2}] [format m%04d $i] }
    r zadd z {*}$pairs
    assert_encoding skiplist z
    assert_equal 500 [r zrank z m0500]
    assert_equal 499 [r zrevrank z m0500]
    assert_equal {m0100 m0101} [r zrange z 100 101]
    assert_equal {m0250 m0251 m0252} [r zrangebyscore z 500 504]
    assert_equal {m0252 m0251} [r zrevrangebyscore z 504 500 limit 0 2]
    assert_equal {m0991 m0992} [r zrangebyscore z (1978 +inf limit 1 2]
    assert_equal 3 [r zcount z 500 504]
    assert_equal 100 [r zremrangebyscore z 0 (200]
    assert_equal 900 [r zcard z]
    assert_equal 100 [r zremrangebyrank z 0 99]
    assert_equal m0200 [lindex [r zrange z 0 0] 0]
    r del z
    for {set i 0} {$i < 300} {incr i} { lappend lex 0 sortset$i }
    r zadd z {*}$lex
    assert_equal 46 [r zremrangebylex z {[sortset105} {[sortset146}]
    assert_equal 0 [r zremrangebylex z {[sortset105} {[sortset146}]
    assert_equal 254 [r zcard z]
}

# ---- RESP3 -----------------------------------------------------------------------------------

test "RESP3 replies: doubles and member-score pairs" {
    r del z
    r zadd z 1 a 2.5 b
    r hello 3
    assert_equal 2.5 [r zscore z b]
    assert_equal {{a 1} {b 2.5}} [r zrange z 0 -1 withscores]
    assert_equal {{a 1} {b 2.5}} [r zrangebyscore z -inf +inf withscores]
    assert_equal {a 1} [r zpopmin z]
    assert_equal {{b 2.5}} [r zpopmax z 1]
    r zadd z 1 a 2 b
    assert_equal {{a 1} {b 2}} [r zunion 1 z withscores]
    assert_equal {z {{a 1}}} [r zmpop 1 z min]
    r hello 2
    set c [redis_client]
    $c hello 3
    $c readraw 1
    assert_equal {,2} [$c zscore z b]
    assert_equal {*1} [$c zrange z 0 -1 withscores]
    assert_equal {*2} [$c read]
    $c close
}

# ---- errors ------------------------------------------------------------------------------------

test "ZADD errors" {
    assert_error {ERR XX and NX options at the same time are not compatible} {r zadd z nx xx 1 a}
    assert_error {ERR GT, LT, and/or NX options at the same time are not compatible} {r zadd z gt lt 1 a}
    assert_error {ERR GT, LT, and/or NX options at the same time are not compatible} {r zadd z nx gt 1 a}
    assert_error {ERR INCR option supports a single increment-element pair} {r zadd z incr 1 a 2 b}
    assert_error {ERR syntax error} {r zadd z 1 a 2}
    assert_error {ERR syntax error} {r zadd z xx 1}
    assert_error {ERR value is not a valid float} {r zadd z nan a}
    assert_error {ERR value is not a valid float} {r zadd z abc a}
    assert_error {ERR value is not a valid float} {r zadd z 1e400 a}
    assert_error {ERR value is not a valid float} {r zincrby z x a}
    assert_error {*wrong number of arguments for 'zadd' command} {r zadd z 1}
    assert_error {*wrong number of arguments for 'zincrby' command} {r zincrby z 1}
    # nothing half-done: a bad score later in the list adds nothing
    r del z
    assert_error {ERR value is not a valid float} {r zadd z 1 a x b}
    assert_equal 0 [r exists z]
}

test "Range errors" {
    r del z
    r zadd z 1 a
    assert_error {ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX} {r zrange z 0 1 limit 0 1}
    assert_error {ERR syntax error, LIMIT is only supported*} {r zrevrange z 0 1 limit 0 1}
    assert_error {ERR syntax error, WITHSCORES not supported in combination with BYLEX} {r zrange z - + bylex withscores}
    assert_error {ERR syntax error, WITHSCORES not supported in combination with BYLEX} {r zrangebylex z - + withscores}
    assert_error {ERR min or max is not a float} {r zrange z a b byscore}
    assert_error {ERR min or max is not a float} {r zrangebyscore z 1 nan}
    assert_error {ERR min or max is not a float} {r zcount z a 1}
    assert_error {ERR min or max is not a float} {r zremrangebyscore z ((1 2}
    assert_error {ERR min or max not valid string range item} {r zrangebylex z a b}
    assert_error {ERR min or max not valid string range item} {r zrange z 0 1 bylex}
    assert_error {ERR min or max not valid string range item} {r zlexcount z a +}
    assert_error {ERR min or max not valid string range item} {r zremrangebylex z - b}
    assert_error {ERR value is not an integer or out of range} {r zrange z 0 x}
    assert_error {ERR value is not an integer or out of range} {r zremrangebyrank z x 1}
    assert_error {ERR value is not an integer or out of range} {r zrangebyscore z 1 2 limit 0 abc}
    assert_error {ERR syntax error} {r zrangebyscore z 0 1 limit 0}
    assert_error {ERR syntax error} {r zrange z 0 -1 byscore bylex}
    assert_error {ERR syntax error} {r zrange z 0 -1 rev rev}
    assert_error {ERR syntax error} {r zrevrange z 0 -1 foo}
    assert_error {ERR syntax error} {r zrangestore d z 0 -1 withscores}
    assert_error {*wrong number of arguments for 'zrange' command} {r zrange z 0}
    assert_error {*wrong number of arguments for 'zrangestore' command} {r zrangestore d z 0}
    assert_error {*wrong number of arguments for 'zcount' command} {r zcount z 0}
    assert_error {*wrong number of arguments for 'zremrangebyrank' command} {r zremrangebyrank z 0}
}

test "Pop, random and scan errors" {
    r del z
    r zadd z 1 a
    assert_error {ERR value is out of range, must be positive} {r zpopmin z -1}
    assert_error {ERR value is out of range, must be positive} {r zpopmax z abc}
    assert_error {ERR syntax error} {r zpopmin z 1 2}
    assert_error {ERR numkeys should be greater than 0} {r zmpop 0 z min}
    assert_error {ERR numkeys should be greater than 0} {r zmpop abc z min}
    assert_error {ERR syntax error} {r zmpop 1 z foo}
    assert_error {ERR syntax error} {r zmpop 2 z min}
    assert_error {ERR syntax error} {r zmpop 1 z min count 1 count 2}
    assert_error {ERR count should be greater than 0} {r zmpop 1 z min count 0}
    assert_error {ERR count should be greater than 0} {r zmpop 1 z min count abc}
    assert_error {ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807} {r zrandmember z -9223372036854775808 withscores}
    assert_error {ERR value is out of range} {r zrandmember z -9223372036854775807 withscores}
    assert_error {ERR syntax error} {r zrandmember z 1 foo}
    assert_error {ERR value is not an integer or out of range} {r zrandmember z abc}
    assert_error {ERR syntax error} {r zscan z 0 count 0}
    assert_error {ERR syntax error} {r zscan z 0 foo}
    assert_error {ERR invalid cursor} {r zscan z x}
    assert_error {ERR timeout is not a float or out of range} {r bzpopmin z abc}
    assert_error {ERR timeout is negative} {r bzpopmin z -1}
    assert_error {ERR timeout is not a float or out of range} {r bzmpop abc 1 z min}
    assert_error {ERR numkeys should be greater than 0} {r bzmpop 0 0 z min}
    assert_error {ERR numkeys should be greater than 0} {r bzmpop abc 0 z min}
    assert_error {ERR syntax error} {r bzmpop abc 1 z foo}
    assert_error {*wrong number of arguments for 'zmpop' command} {r zmpop 1 z}
    assert_error {*wrong number of arguments for 'bzpopmin' command} {r bzpopmin z}
}

test "Set operation errors" {
    r del z
    r zadd z 1 a
    assert_error {ERR at least 1 input key is needed for 'zunionstore' command} {r zunionstore d 0 z}
    assert_error {ERR at least 1 input key is needed for 'zunion' command} {r zunion 0 z}
    assert_error {ERR at least 1 input key is needed for 'zintercard' command} {r zintercard 0 z}
    assert_error {ERR at least 1 input key is needed for 'zunionstore' command} {r zunionstore d -1 z}
    assert_error {ERR value is not an integer or out of range} {r zunion abc z}
    assert_error {ERR syntax error} {r zunion 2 z}
    assert_error {ERR syntax error} {r zunion 1 z weights 1 2}
    assert_error {ERR weight value is not a float} {r zunion 1 z weights x}
    assert_error {ERR syntax error} {r zunion 1 z aggregate foo}
    assert_error {ERR syntax error} {r zdiff 1 z weights 1}
    assert_error {ERR syntax error} {r zunionstore d 1 z withscores}
    assert_error {ERR syntax error} {r zintercard 2 z}
    assert_error {ERR LIMIT can't be negative} {r zintercard 1 z limit -1}
    assert_error {ERR LIMIT can't be negative} {r zintercard 1 z limit abc}
    assert_error {*wrong number of arguments for 'zunionstore' command} {r zunionstore d 1}
    assert_error {*wrong number of arguments for 'zintercard' command} {r zintercard 1}
}

test "Wrong type" {
    r del str
    r set str x
    foreach cmd {
        {zadd str 1 a} {zincrby str 1 a} {zrem str a} {zcard str} {zscore str a}
        {zmscore str a} {zrank str a} {zrevrank str a} {zcount str 0 1} {zlexcount str - +}
        {zrange str 0 -1} {zrevrange str 0 -1} {zrangebyscore str 0 1} {zrangebylex str - +}
        {zrangestore d str 0 -1} {zremrangebyrank str 0 1} {zremrangebyscore str 0 1}
        {zremrangebylex str - +} {zpopmin str} {zpopmax str 2} {zmpop 2 nokey str min}
        {zrandmember str} {zrandmember str 2} {zscan str 0} {zunion 2 z str}
        {zinter 1 str weights x} {zdiff 2 z str} {zunionstore d 2 z str} {zintercard 1 str}
        {bzpopmin str 0} {bzmpop 0 1 str min}
    } {
        assert_error {WRONGTYPE*} {r {*}$cmd} $cmd
    }
    assert_equal x [r get str]
}

proc wait_zset_unblocked {} {
    wait_for_condition 100 10 {[server_info blocked_clients] == 0} { fail "clients still blocked" }
}

tags {blocking} {

test "BZPOPMIN blocks and is woken by ZADD" {
    r del z1 z2
    set rd [redis_deferring_client]
    $rd bzpopmin z1 z2 0
    wait_for_blocked_clients 1
    r zadd z2 2 b 1 a
    assert_equal {z2 a 1} [$rd read]
    assert_equal {b} [r zrange z2 0 -1]
    wait_zset_unblocked
    $rd close
}

test "BZPOPMAX and BZMPOP woken by ZADD; RESP3 BZMPOP pairs" {
    r del z
    set rd [redis_deferring_client]
    $rd bzpopmax z 0
    wait_for_blocked_clients 1
    r zadd z 1 a 2 b 3 c
    assert_equal {z c 3} [$rd read]
    r del z
    $rd bzmpop 0 2 nokey z min count 5
    wait_for_blocked_clients 1
    r zadd z 1 a 2 b
    assert_equal {z {{a 1} {b 2}}} [$rd read]
    assert_equal 0 [r exists z]
    $rd close
}

test "Blocking zset pops time out with a null reply" {
    r del z
    set rd [redis_deferring_client]
    $rd bzpopmin z 0.05
    assert_equal {} [$rd read]
    $rd bzmpop 0.05 1 z max
    assert_equal {} [$rd read]
    wait_zset_unblocked
    $rd close
}

test "Blocked zset clients are served in arrival order; other types do not wake them" {
    r del z
    set c1 [redis_deferring_client]
    set c2 [redis_deferring_client]
    $c1 bzpopmin z 0
    wait_for_blocked_clients 1
    $c2 bzpopmin z 0
    wait_for_blocked_clients 2
    r set z notazset
    r del z
    r rpush z item
    r del z
    assert_equal 2 [server_info blocked_clients]
    r zadd z 1 a 2 b
    assert_equal {z a 1} [$c1 read]
    assert_equal {z b 2} [$c2 read]
    wait_zset_unblocked
    $c1 close
    $c2 close
}

test "ZUNIONSTORE creating the key wakes a blocked BZPOPMIN" {
    r del z src
    r zadd src 5 x
    set rd [redis_deferring_client]
    $rd bzpopmin z 0
    wait_for_blocked_clients 1
    r zunionstore z 1 src
    assert_equal {z x 5} [$rd read]
    assert_equal 0 [r exists z]
    $rd close
}

test "Blocking zset pops inside MULTI answer at once" {
    r del z
    r multi
    r bzpopmin z 0
    r bzmpop 0 1 z min
    assert_equal {{} {}} [r exec]
}

test "Blocking zset pop errors on served wrong type stay WRONGTYPE" {
    r del z
    r set z x
    assert_error {WRONGTYPE*} {r bzpopmin z 0}
    assert_error {WRONGTYPE*} {r bzmpop 0 1 z min}
}

}

test "Blocking pops on non-empty keys answer at once" {
    r del z1 z2
    r zadd z2 1 a 2 b 3 c
    assert_equal {z2 a 1} [r bzpopmin z1 z2 0]
    assert_equal {z2 c 3} [r bzpopmax z1 z2 0]
    assert_equal {z2 {{b 2}}} [r bzmpop 0 2 z1 z2 min count 5]
    assert_equal 0 [r exists z2]
    assert_equal {} [r bzpopmin z1 0.01]
}

test "COMMAND INFO key positions" {
    assert_equal {zadd -4 {write denyoom fast} 1 1 1} [lrange [lindex [r command info zadd] 0] 0 5]
    assert_equal {zunionstore -4 {write denyoom movablekeys} 1 1 1} [lrange [lindex [r command info zunionstore] 0] 0 5]
    assert_equal {zmpop -4 {write movablekeys} 0 0 0} [lrange [lindex [r command info zmpop] 0] 0 5]
    # Redis 7.2+ dropped noscript from the blocking commands (7.0 still has it): scripts may
    # call them and they never block there.
    assert_equal {bzpopmin -3 {write blocking fast} 1 -2 1} [lrange [lindex [r command info bzpopmin] 0] 0 5]
    assert_equal {d a b} [r command getkeys zunionstore d 2 a b weights 1 2]
    assert_equal {a b} [r command getkeys zmpop 2 a b min]
}

# Found by tests/fuzz/cmdfuzz.py: Redis tests the parsed LIMIT count (-1 means no limit), not
# whether LIMIT was given.
test "ZRANGE by rank accepts LIMIT with a count of -1 and ignores it" {
    r del z d
    r zadd z 1 a 2 b 3 c
    assert_equal {a b c} [r zrange z 0 -1 limit 1 -1]
    assert_equal {c b} [r zrange z 0 1 limit 0 -1 rev]
    assert_error {ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX} {r zrange z 0 -1 limit 1 -2}
    assert_equal 2 [r zrangestore d z 0 1 limit 5 -1]
    # The range itself is parsed after the conflict check.
    assert_error {ERR value is not an integer or out of range} {r zrange z +inf ( limit 5 -1}
}

# Found by tests/fuzz/cmdfuzz.py: ZINCRBY is ZADD with INCR preset and reads the same flags.
test "ZINCRBY reads ZADD's flag words" {
    r del z
    r zadd z 1 a
    assert_error {ERR syntax error} {r zincrby z nx 1}
    assert_error {ERR syntax error} {r zincrby z XX incr}
    assert_error {ERR value is not a valid float} {r zincrby z abc a}
    assert_equal 3 [r zincrby z 2 a]
}

}
