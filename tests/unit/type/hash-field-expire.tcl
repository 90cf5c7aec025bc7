# Hash-field expiry: the HEXPIRE / HTTL / HPERSIST families (Redis 7.4), HGETDEL / HGETEX /
# HSETEX (Redis 8.0), lazy and active expiry of fields, the encodings, events, KEYSIZES and
# propagation. Debian's redis-server 7.0 has none of these commands, so every expected reply
# here is Redis 7.4's (8.0's for HGETDEL / HGETEX / HSETEX and their error strings), read from
# Redis's documentation and source; each test says which.

# Reply codes of the HEXPIRE family (7.4): -2 no such field, 0 condition not met, 1 set,
# 2 deleted because the time is now or past.
set NOFIELD -2
set NOTMET 0
set SET 1
set DELETED 2

proc reset_hash {key args} {
    r del $key
    r hset $key {*}$args
}

foreach enc {listpack hashtable} {
    if {$enc eq "hashtable"} {
        r config set hash-max-listpack-entries 0
        set ttlenc hashtable
    } else {
        r config set hash-max-listpack-entries 128
        set ttlenc listpackex
    }

    test "HEXPIRE on a missing key: -2 for each field (7.4) ($enc)" {
        r del h
        assert_equal {-2 -2} [r hexpire h 100 FIELDS 2 a b]
        assert_equal {-2} [r hpexpireat h 1000 FIELDS 1 a]
        assert_equal 0 [r exists h]
    }

    test "HEXPIRE reply codes and the encoding it leaves (7.4) ($enc)" {
        reset_hash h a 1 b 2 c 3
        assert_encoding $enc h
        assert_equal [list $SET $NOFIELD $SET] [r hexpire h 100 FIELDS 3 a x b]
        assert_encoding $ttlenc h
        assert_equal [list $DELETED $NOFIELD] [r hpexpireat h 1 FIELDS 2 c zz]
        assert_equal {a 1 b 2} [lsort -stride 2 [r hgetall h]]
        assert_equal 2 [r hlen h]
    }

    test "HEXPIRE NX XX GT LT (7.4) ($enc)" {
        reset_hash h a 1 b 2 c 3
        assert_equal [list $SET $SET] [r hexpire h 100 NX FIELDS 2 a b]
        assert_equal [list $NOTMET $SET] [r hexpire h 100 NX FIELDS 2 a c]
        reset_hash h a 1 b 2
        assert_equal [list $NOTMET] [r hexpire h 100 XX FIELDS 1 a]
        r hexpire h 100 FIELDS 1 a
        assert_equal [list $SET] [r hexpire h 200 XX FIELDS 1 a]
        # GT: a field without TTL counts as infinite (refused); LT accepts it.
        assert_equal [list $NOTMET $NOTMET] [r hexpire h 150 GT FIELDS 2 a b]
        assert_equal [list $SET] [r hexpire h 300 GT FIELDS 1 a]
        assert_equal [list $NOTMET $SET] [r hexpire h 400 LT FIELDS 2 a b]
        assert_equal [list $SET] [r hexpire h 250 LT FIELDS 1 a]
        assert_range [r httl h FIELDS 1 a] 249 250
        assert_range [r httl h FIELDS 1 b] 399 400
    }

    test "HTTL HPTTL HEXPIRETIME HPEXPIRETIME (7.4) ($enc)" {
        reset_hash h a 1 b 2
        r hpexpire h 5000 FIELDS 1 a
        assert_equal {-1 -2} [r httl h FIELDS 2 b x]
        assert_range [r hpttl h FIELDS 1 a] 4900 5000
        assert_equal 5 [r httl h FIELDS 1 a]
        set at [expr {[clock milliseconds] + 100000}]
        r hpexpireat h $at FIELDS 1 b
        assert_equal $at [r hpexpiretime h FIELDS 1 b]
        assert_equal [expr {($at + 999) / 1000}] [r hexpiretime h FIELDS 1 b]
        assert_equal {-2 -2} [r httl nokey FIELDS 2 a b]
        assert_equal {-2} [r hpexpiretime nokey FIELDS 1 a]
    }

    test "HPERSIST (7.4) ($enc)" {
        reset_hash h a 1 b 2
        r hexpire h 100 FIELDS 1 a
        assert_equal {1 -1 -2} [r hpersist h FIELDS 3 a b x]
        assert_equal {-1 -1} [r httl h FIELDS 2 a b]
        # The encoding keeps its TTL support, as Redis's listpackex stays listpackex.
        assert_encoding $ttlenc h
        assert_equal {-2} [r hpersist nokey FIELDS 1 a]
    }

    test "HSET drops a field's TTL, HINCRBY and HINCRBYFLOAT keep it (7.4) ($enc)" {
        reset_hash h a 1 b 2 c 3
        r hexpire h 100 FIELDS 3 a b c
        assert_equal 0 [r hset h a 10]
        assert_equal -1 [r httl h FIELDS 1 a]
        assert_equal 5 [r hincrby h b 3]
        assert_range [r httl h FIELDS 1 b] 99 100
        assert_equal 3.5 [r hincrbyfloat h c 0.5]
        assert_range [r httl h FIELDS 1 c] 99 100
        assert_equal {a 10 b 5 c 3.5} [lsort -stride 2 [r hgetall h]]
    }

    test "Lazy expiry: reads do not see an expired field, HLEN still counts it (7.4) ($enc)" {
        r debug set-active-expire 0
        reset_hash h a 1 b 2 c 3 d 4
        r hpexpire h 1 FIELDS 2 a b
        after 10
        # HLEN counts fields not deleted yet (Redis 7.4's hashTypeLength(o, 0)).
        assert_equal 4 [r hlen h]
        assert_equal {c 3 d 4} [lsort -stride 2 [r hgetall h]]
        assert_equal {c d} [lsort [r hkeys h]]
        assert_equal {3 4} [lsort [r hvals h]]
        assert_equal {c 3 d 4} [lsort -stride 2 [lindex [r hscan h 0 COUNT 100] 1]]
        assert_equal 4 [r hlen h]
        # HGET / HEXISTS / HSTRLEN / HMGET delete what they meet.
        assert_equal {} [r hget h a]
        assert_equal 3 [r hlen h]
        assert_equal 0 [r hexists h b]
        assert_equal 2 [r hlen h]
        assert_equal 0 [r hstrlen h a]
        assert_equal {{} 3} [r hmget h a c]
        r debug set-active-expire 1
    }

    test "Lazy expiry deletes the hash with its last field (7.4) ($enc)" {
        r debug set-active-expire 0
        reset_hash h a 1 b 2
        r hpexpire h 1 FIELDS 2 a b
        after 10
        assert_equal {{} {}} [r hmget h a b]
        assert_equal 0 [r exists h]
        reset_hash h a 1
        r hpexpire h 1 FIELDS 1 a
        after 10
        # HSETNX on an expired field: the field (and here the hash) goes, then it is set.
        assert_equal 1 [r hsetnx h a new]
        assert_equal new [r hget h a]
        assert_equal -1 [r httl h FIELDS 1 a]
        # HINCRBY on an expired field counts from 0.
        r hset h n 100
        r hpexpire h 1 FIELDS 1 n
        after 10
        assert_equal 5 [r hincrby h n 5]
        r debug set-active-expire 1
    }

    test "HRANDFIELD deletes the expired fields first (8.0) ($enc)" {
        r debug set-active-expire 0
        reset_hash h a 1 b 2 c 3
        r hpexpire h 1 FIELDS 2 a b
        after 10
        for {set i 0} {$i < 20} {incr i} { assert_equal c [r hrandfield h] }
        assert_equal 1 [r hlen h]
        assert_equal {c 3} [r hrandfield h 1 withvalues]
        assert_equal {c 3 c 3 c 3} [r hrandfield h -3 withvalues]
        r hpexpire h 1 FIELDS 1 c
        after 10
        assert_equal {} [r hrandfield h 5]
        assert_equal 0 [r exists h]
        r debug set-active-expire 1
    }

    test "Active expiry deletes fields, then the hash (7.4) ($enc)" {
        r del h g
        r hset h a 1 b 2 keep 3
        r hset g x 1 y 2
        r hpexpire h 20 FIELDS 2 a b
        r hpexpire g 20 FIELDS 2 x y
        assert_match "*subexpiry=2*" [r info keyspace]
        wait_for_condition 100 20 {[r exists g] == 0 && [r hlen h] == 1} {
            fail "fields were not actively expired"
        }
        assert_equal {keep 3} [r hgetall h]
        assert_match "*subexpiry=0*" [r info keyspace]
    }

    test "HGETDEL (8.0) ($enc)" {
        reset_hash h a 1 b 2 c 3
        assert_equal {1 {} 3} [r hgetdel h FIELDS 3 a x c]
        assert_equal {b 2} [r hgetall h]
        assert_equal {2 {}} [r hgetdel h FIELDS 2 b b]
        assert_equal 0 [r exists h]
        assert_equal {{} {}} [r hgetdel h FIELDS 2 a b]
    }

    test "HGETEX (8.0) ($enc)" {
        reset_hash h a 1 b 2 c 3
        assert_equal {1 2} [r hgetex h FIELDS 2 a b]
        assert_equal {-1 -1} [r httl h FIELDS 2 a b]
        assert_equal {1 {}} [r hgetex h EX 100 FIELDS 2 a x]
        assert_range [r httl h FIELDS 1 a] 99 100
        assert_equal {2} [r hgetex h PX 5000 FIELDS 1 b]
        assert_range [r hpttl h FIELDS 1 b] 4900 5000
        set at [expr {[clock seconds] + 1000}]
        assert_equal {3} [r hgetex h EXAT $at FIELDS 1 c]
        assert_equal $at [r hexpiretime h FIELDS 1 c]
        assert_equal {1 2} [r hgetex h PERSIST FIELDS 2 a b]
        assert_equal {-1 -1} [r httl h FIELDS 2 a b]
        # A time in the past deletes the fields after returning them.
        assert_equal {1 3} [r hgetex h PXAT 1 FIELDS 2 a c]
        assert_equal {b 2} [r hgetall h]
        assert_equal {2} [r hgetex h EX 0 FIELDS 1 b]
        assert_equal 0 [r exists h]
        assert_equal {{} {}} [r hgetex h EX 10 FIELDS 2 a b]
    }

    test "HSETEX (8.0) ($enc)" {
        r del h
        assert_equal 1 [r hsetex h EX 100 FIELDS 2 a 1 b 2]
        assert_equal {a 1 b 2} [lsort -stride 2 [r hgetall h]]
        assert_range [r httl h FIELDS 1 a] 99 100
        # FNX: only when none exists; FXX: only when all exist.
        assert_equal 0 [r hsetex h FNX FIELDS 2 c 3 a 9]
        assert_equal 1 [r hsetex h FNX PX 5000 FIELDS 1 c 3]
        assert_equal 0 [r hsetex h FXX FIELDS 2 a 9 d 4]
        assert_equal 1 [r hsetex h FXX KEEPTTL FIELDS 2 a 10 c 30]
        assert_range [r httl h FIELDS 1 a] 99 100
        assert_range [r hpttl h FIELDS 1 c] 4900 5000
        # Without a TTL option the fields lose their TTLs, as with HSET.
        assert_equal 1 [r hsetex h FIELDS 1 a 11]
        assert_equal -1 [r httl h FIELDS 1 a]
        assert_range [r httl h FIELDS 1 b] 99 100
        # A time in the past sets, then deletes.
        assert_equal 1 [r hsetex h PXAT 1 FIELDS 1 b 20]
        assert_equal {a 11 c 30} [lsort -stride 2 [r hgetall h]]
        assert_equal 0 [r hsetex nokey FXX FIELDS 1 a 1]
        assert_equal 0 [r exists nokey]
        assert_equal 1 [r hsetex new PX 0 FIELDS 1 a 1]
        assert_equal 0 [r exists new]
    }

    test "RENAME, MOVE, COPY keep field TTLs; DEL forgets the hash (7.4) ($enc)" {
        r flushall
        r hset h a 1 b 2
        r hexpire h 100 FIELDS 1 a
        r rename h h2
        assert_range [r httl h2 FIELDS 1 a] 99 100
        r copy h2 h3
        assert_range [r httl h3 FIELDS 1 a] 99 100
        assert_match "*subexpiry=2*" [r info keyspace]
        r move h3 9
        r select 9
        assert_range [r httl h3 FIELDS 1 a] 99 100
        assert_match "*db9:*subexpiry=1*" [r info keyspace]
        r flushdb
        r select 0
        r set other 1
        r del h2
        assert_match "*db0:keys=1,*subexpiry=0*" [r info keyspace]
    }
}
r config set hash-max-listpack-entries 128

test "Argument errors of the HEXPIRE and HTTL families (7.4 GA, 8.0 strings)" {
    reset_hash h a 1
    assert_error {ERR Parameter `numFields` should be greater than 0} {r hexpire h 10 FIELDS 0 a}
    assert_error {ERR Parameter `numFields` should be greater than 0} {r hexpire h 10 FIELDS x a}
    assert_error {ERR The `numfields` parameter must match the number of arguments} {r hexpire h 10 FIELDS 2 a}
    assert_error {ERR The `numfields` parameter must match the number of arguments} {r hexpire h 10 NX FIELDS 1 a b}
    assert_error {ERR Mandatory argument FIELDS is missing or not at the right position} {r hexpire h 10 FOO 1 a}
    assert_error {ERR Mandatory argument FIELDS is missing or not at the right position} {r hexpire h 10 NX XX FIELDS 1 a}
    assert_error {ERR invalid expire time, must be >= 0} {r hexpire h -1 FIELDS 1 a}
    assert_error {ERR value is not an integer or out of range} {r hexpire h abc FIELDS 1 a}
    # The largest accepted time is (2^48 - 1) >> 2 ms.
    set max [expr {((1 << 48) - 1) >> 2}]
    assert_equal {1} [r hpexpireat h $max FIELDS 1 a]
    assert_error {ERR invalid expire time in 'hpexpireat' command} {r hpexpireat h [expr {$max + 1}] FIELDS 1 a}
    assert_error {ERR invalid expire time in 'hexpireat' command} {r hexpireat h [expr {$max / 1000 + 1}] FIELDS 1 a}
    assert_error {ERR invalid expire time in 'hpexpire' command} {r hpexpire h $max FIELDS 1 a}
    assert_error {ERR Number of fields must be a positive integer} {r httl h FIELDS 0 a}
    assert_error {ERR The `numfields` parameter must match the number of arguments} {r hpttl h FIELDS 2 a}
    assert_error {ERR Mandatory argument FIELDS is missing or not at the right position} {r httl h FOO 1 a}
    assert_error {ERR Number of fields must be a positive integer} {r hpersist h FIELDS -1 a}
    assert_error {ERR wrong number of arguments for 'hexpire' command} {r hexpire h 10 FIELDS 1}
    assert_error {ERR wrong number of arguments for 'httl' command} {r httl h FIELDS 1}
    r set s 1
    assert_error {WRONGTYPE*} {r hexpire s 10 FIELDS 1 a}
    assert_error {WRONGTYPE*} {r httl s FIELDS 1 a}
    assert_error {WRONGTYPE*} {r hpersist s FIELDS 1 a}
    # WRONGTYPE comes before argument errors, as in Redis.
    assert_error {WRONGTYPE*} {r hexpire s 10 FIELDS 5 a}
}

test "Argument errors of HGETDEL HGETEX HSETEX (8.0)" {
    reset_hash h a 1
    assert_error {ERR Mandatory argument FIELDS is missing or not at the right position} {r hgetdel h FOO 1 a}
    assert_error {ERR Number of fields must be a positive integer} {r hgetdel h FIELDS 0 a}
    assert_error {ERR The `numfields` parameter must match the number of arguments} {r hgetdel h FIELDS 2 a}
    assert_error {ERR Mandatory argument FIELDS is missing or not at the right position} {r hgetex h EX 10 FOO 1 a}
    assert_error {ERR Mandatory argument FIELDS is missing or not at the right position} {r hgetex h KEEPTTL FIELDS 1 a}
    assert_error {ERR invalid expire time, must be >= 0} {r hgetex h PX -5 FIELDS 1 a}
    assert_error {ERR The `numfields` parameter must match the number of arguments} {r hgetex h PERSIST FIELDS 2 a}
    assert_error {ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified} {r hsetex h EX 10 PX 10 FIELDS 1 a b}
    assert_error {ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified} {r hsetex h KEEPTTL EX 10 FIELDS 1 a b}
    assert_error {ERR Only one of FXX or FNX arguments can be specified} {r hsetex h FXX FNX FIELDS 1 a b}
    assert_error {ERR unknown argument: FOO} {r hsetex h FOO FIELDS 1 a b}
    assert_error {ERR invalid number of fields} {r hsetex h FIELDS 0 a b}
    assert_error {ERR wrong number of arguments for 'hsetex' command} {r hsetex h FIELDS 2 a b}
    assert_error {ERR wrong number of arguments for 'hsetex' command} {r hsetex h FIELDS 1 a b c}
    r set s 1
    assert_error {WRONGTYPE*} {r hgetdel s FIELDS 1 a}
    assert_error {WRONGTYPE*} {r hgetex s FIELDS 1 a}
    assert_error {WRONGTYPE*} {r hsetex s FIELDS 1 a b}
    assert_equal {a 1} [r hgetall h]
}

test "A hash keeps listpackex up to the listpack limits, then becomes a hashtable (7.4)" {
    r config set hash-max-listpack-entries 4
    reset_hash h a 1 b 2 c 3
    r hexpire h 100 FIELDS 1 b
    assert_encoding listpackex h
    r hset h d 4
    assert_encoding listpackex h
    r hset h e 5
    assert_encoding hashtable h
    assert_range [r httl h FIELDS 1 b] 99 100
    assert_equal {-1 -1} [r httl h FIELDS 2 a e]
    reset_hash h a 1
    r hexpire h 100 FIELDS 1 a
    r hset h long [string repeat x 100]
    assert_encoding hashtable h
    assert_range [r httl h FIELDS 1 a] 99 100
    r config set hash-max-listpack-entries 128
}

test "listpackex keeps fields with a TTL first, earliest first (7.4 order)" {
    reset_hash h a 1 b 2 c 3 d 4
    r hexpire h 300 FIELDS 1 c
    r hexpire h 100 FIELDS 1 a
    r hexpire h 200 FIELDS 1 d
    assert_equal {a d c b} [r hkeys h]
    r hexpire h 150 FIELDS 1 c
    assert_equal {a c d b} [r hkeys h]
    r hpersist h FIELDS 1 a
    assert_equal {c d b a} [r hkeys h]
}

test "A hash without TTLs keeps its plain encoding (7.4)" {
    reset_hash h a 1
    assert_equal {-1 -2} [r httl h FIELDS 2 a b]
    assert_equal {-1} [r hpersist h FIELDS 1 a]
    assert_encoding listpack h
    assert_equal {1} [r hgetex h FIELDS 1 a]
    assert_encoding listpack h
    r config set hash-max-listpack-entries 0
    reset_hash h a 1
    r httl h FIELDS 1 a
    assert_equal [r object encoding h] hashtable
    r config set hash-max-listpack-entries 128
}

test "Keyspace events of the field TTL commands (7.4 / 8.0)" {
    set ev [events_of KEA {r hset h a 1 b 2 c 3} {
        r hexpire h 100 FIELDS 1 a
        r hexpire h 100 NX FIELDS 1 a
        r hpersist h FIELDS 1 a
        r hpersist h FIELDS 1 a
        r hpexpire h 0 FIELDS 1 a
        r hgetex h EX 100 FIELDS 1 b
        r hgetex h PERSIST FIELDS 1 b
        r hgetdel h FIELDS 1 b
        r hsetex h PX 100000 FIELDS 1 c 9
        r hgetdel h FIELDS 1 c
    }]
    assert_equal [ke h {hexpire hpersist hdel hexpire hpersist hdel hset hexpire hdel del}] $ev
}

test "hexpired events for lazy and active expiry, and del with the last field (7.4)" {
    r debug set-active-expire 0
    set ev [events_of KEA {r hset h a 1 b 2; r hpexpire h 1 FIELDS 2 a b} {
        after 10
        r hget h a
        r hmget h a b
    }]
    assert_equal [ke h {hexpired hexpired del}] $ev
    r debug set-active-expire 1
    set ev [events_of KEA {r hset h a 1 b 2; r hpexpire h 20 FIELDS 1 a} {
        wait_for_condition 100 20 {[r hlen h] == 1} { fail "no active expiry" }
    }]
    assert_equal [ke h hexpired] $ev
    set ev [events_of KEA {r hset h a 1; r hpexpire h 20 FIELDS 1 a} {
        wait_for_condition 100 20 {[r exists h] == 0} { fail "no active expiry" }
    }]
    assert_equal [ke h {hexpired del}] $ev
}

test "expired_subkeys counts fields expired lazily, actively and by a past time (8.0)" {
    r config resetstat
    r debug set-active-expire 0
    reset_hash h a 1 b 2 c 3 d 4
    r hpexpire h 1 FIELDS 1 a
    after 10
    r hget h a
    r hpexpire h 0 FIELDS 1 b
    assert_equal 2 [server_info expired_subkeys]
    r debug set-active-expire 1
    r hpexpire h 10 FIELDS 2 c d
    wait_for_condition 100 20 {[r exists h] == 0} { fail "no active expiry" }
    assert_equal 4 [server_info expired_subkeys]
}

test "INFO KEYSIZES follows fields that expire (8.0 KEYSIZES)" {
    r flushall
    r debug set-active-expire 0
    r hset h a 1 b 2 c 3 d 4
    assert_equal {db0_distrib_hashes_items:4=1} [keysizes]
    r hpexpire h 1 FIELDS 2 a b
    after 10
    # Not deleted yet: still counted, as Redis does.
    assert_equal {db0_distrib_hashes_items:4=1} [keysizes]
    r hget h a
    assert_equal {db0_distrib_hashes_items:2=1} [keysizes]
    r debug set-active-expire 1
    wait_for_condition 100 20 {[keysizes] eq {db0_distrib_hashes_items:2=1} && [r hlen h] == 2} {
        fail "keysizes: [keysizes]"
    }
    r hpexpire h 10 FIELDS 2 c d
    wait_for_condition 100 20 {[r exists h] == 0} { fail "no active expiry" }
    assert_equal {} [keysizes]
    assert_equal OK [r debug keysizes-check]
}

# ---- propagation (DEBUG PROPAGATED, Keel only). The expected streams are Redis 8.0's: relative
# and seconds times go out as HPEXPIREAT with the absolute ms time and only the fields that were
# set; a field deleted by a past time, by lazy or by active expiry goes out as HDEL; HGETDEL as
# HDEL; HGETEX as HPEXPIREAT / HPERSIST; HSETEX with PXAT in place of EX / PX / EXAT. `<ms>`
# stands for an absolute time within an hour of now.

proc hfe_propagated_ok {expected got} {
    set now [clock milliseconds]
    if {[llength $got] != [llength $expected]} { return 0 }
    foreach e $expected g $got {
        if {[llength $e] != [llength $g]} { return 0 }
        foreach ea $e ga $g {
            if {$ea eq "<ms>"} {
                if {![string is entier -strict $ga] || abs($ga - $now) > 3600000} { return 0 }
            } elseif {$ea ne $ga} {
                return 0
            }
        }
    }
    return 1
}
proc assert_hfe_propagated {expected} {
    set got [r debug propagated]
    if {![hfe_propagated_ok $expected $got]} {
        error "assertion: propagated\n  expected: $expected\n  got:      $got"
    }
}

test "Propagation of the HEXPIRE family and HPERSIST (7.4)" {
    r select 0
    r flushall
    r debug propagated on
    r debug propagated
    r hset h a 1 b 2 c 3
    r hexpire h 100 FIELDS 2 a x
    r hpexpire h 100000 NX FIELDS 2 a b
    r hpexpireat h 9999999999999 FIELDS 1 c
    r hpexpireat h 9999999999999 XX FIELDS 2 c nope
    r hexpire h 100 NX FIELDS 1 a
    r hexpire h 0 FIELDS 2 a nope
    r hpersist h FIELDS 2 b nope
    r hpersist h FIELDS 1 b
    assert_hfe_propagated {{SELECT 0} {hset h a 1 b 2 c 3} {HPEXPIREAT h <ms> FIELDS 1 a}
        {HPEXPIREAT h <ms> NX FIELDS 1 b} {hpexpireat h 9999999999999 FIELDS 1 c}
        {hpexpireat h 9999999999999 XX FIELDS 1 c} {HDEL h a} {hpersist h FIELDS 2 b nope}}
    r debug propagated off
}

test "Propagation of HGETDEL HGETEX HSETEX HINCRBYFLOAT (8.0)" {
    r select 0
    r flushall
    r debug propagated on
    r debug propagated
    r hset h a 1 b 2 c 3
    r hgetex h EX 100 FIELDS 2 b nope
    r hgetex h PERSIST FIELDS 1 b
    r hgetex h FIELDS 1 b
    r hgetex h PX 0 FIELDS 1 b
    r hgetdel h FIELDS 2 c nope
    r hgetdel h FIELDS 1 nope
    r hsetex h EX 100 FIELDS 1 x 1
    r hsetex h PXAT 1 FIELDS 1 y 1
    r hsetex h FNX FIELDS 1 x 2
    r hincrbyfloat h x 1.5
    assert_hfe_propagated {{SELECT 0} {hset h a 1 b 2 c 3} {HPEXPIREAT h <ms> FIELDS 2 b nope}
        {HPERSIST h FIELDS 1 b} {HDEL h b} {HDEL h c nope} {hsetex h PXAT <ms> FIELDS 1 x 1}
        {HDEL h y} {HSETEX h KEEPTTL FIELDS 1 x 2.5}}
    r debug propagated off
}

test "Propagation of lazy and active field expiry: HDEL (7.4)" {
    r select 0
    r flushall
    r debug propagated on
    r debug set-active-expire 0
    r hset h a 1 b 2 n 1 keep 1
    r hpexpire h 1 FIELDS 3 a b n
    after 10
    r debug propagated
    r hget h a
    r hincrby h n 5
    assert_hfe_propagated {{HDEL h a} {MULTI} {HDEL h n} {hincrby h n 5} {EXEC}}
    r debug set-active-expire 1
    wait_for_condition 100 20 {[r hlen h] == 2} { fail "no active expiry" }
    assert_hfe_propagated {{HDEL h b}}
    r debug propagated off
}

# ---- RDB (Redis 7.4's types 24 and 25 at version 12) ----

foreach enc {listpack hashtable} {
    test "DEBUG RELOAD keeps field TTLs and drops fields expired meanwhile (7.4) ($enc)" {
        r flushall
        r config set hash-max-listpack-entries [expr {$enc eq "hashtable" ? 0 : 128}]
        r debug set-active-expire 0
        r hset h a 1 b 2 c 3 d 4
        r hexpire h 1000 FIELDS 1 a
        r hpexpire h 1 FIELDS 1 b
        set at [expr {[clock milliseconds] + 500000}]
        r hpexpireat h $at FIELDS 1 c
        after 10
        r debug reload
        assert_encoding [expr {$enc eq "hashtable" ? "hashtable" : "listpackex"}] h
        assert_equal 3 [r hlen h]
        assert_range [r httl h FIELDS 1 a] 999 1000
        assert_equal [list $at -1 -2] [r hpexpiretime h FIELDS 3 c d b]
        assert_match "*subexpiry=1*" [r info keyspace]
        # All fields expired: the key is not loaded.
        r hset g x 1
        r hpexpire g 1 FIELDS 1 x
        after 10
        r debug reload
        assert_equal 0 [r exists g]
        r debug set-active-expire 1
        r config set hash-max-listpack-entries 128
    }

    test "DUMP / RESTORE of a hash with field TTLs (7.4) ($enc)" {
        r flushall
        r config set hash-max-listpack-entries [expr {$enc eq "hashtable" ? 0 : 128}]
        r hset h a 1 b 2
        r hexpire h 1000 FIELDS 1 a
        set payload [r dump h]
        # Version 12 in the footer, whatever rdb-version says (10 and 11 have no field TTLs).
        assert_equal 12 [scan [string index $payload end-9] %c]
        r restore h2 0 $payload
        assert_range [r httl h2 FIELDS 1 a] 999 1000
        assert_equal -1 [r httl h2 FIELDS 1 b]
        assert_match "*subexpiry=2*" [r info keyspace]
        r config set hash-max-listpack-entries 128
    }
}

test "SAVE with rdb-version 11 writes a version 12 file when hashes have field TTLs" {
    r flushall
    r hset h a 1
    r save
    set fd [open [file join [lindex [r config get dir] 1] [lindex [r config get dbfilename] 1]] rb]
    set head [read $fd 9]
    close $fd
    assert_equal REDIS0011 $head
    r hexpire h 100 FIELDS 1 a
    r save
    set fd [open [file join [lindex [r config get dir] 1] [lindex [r config get dbfilename] 1]] rb]
    set head [read $fd 9]
    close $fd
    assert_equal REDIS0012 $head
    r debug reload
    assert_range [r httl h FIELDS 1 a] 99 100
}

test "DEBUG DIGEST-VALUE counts a field's TTL by its presence (7.4)" {
    r flushall
    r hset h a 1 b 2
    r hset g a 1 b 2
    assert_equal [r debug digest-value h] [r debug digest-value g]
    r hexpire h 100 FIELDS 1 a
    assert_not_equal [r debug digest-value h] [r debug digest-value g]
    r hexpire g 200 FIELDS 1 a
    assert_equal [r debug digest-value h] [r debug digest-value g]
    r hpersist h FIELDS 1 a
    r hpersist g FIELDS 1 a
    # The TTL support left behind (listpackex) does not change it.
    assert_equal [r debug digest-value h] [r debug digest-value g]
    r del g
    r hset g a 1 b 2
    assert_equal [r debug digest-value h] [r debug digest-value g]
}

# Random field-TTL traffic on one server, its propagated stream replayed on a second: both end
# with the same dataset, field TTLs included. TTLs are either far away or already past, so
# nothing expires by the clock while the test runs (past times delete at once, as HDEL).
proc hfe_rand {} { expr {rand()} }
proc hfe_random_op {} {
    set k h[expr {int([hfe_rand] * 4)}]
    set n [expr {1 + int([hfe_rand] * 3)}]
    set fs {}
    for {set i 0} {$i < $n} {incr i} { lappend fs f[expr {int([hfe_rand] * 8)}] }
    set time [lindex {0 100000 200000 300000} [expr {int([hfe_rand] * 4)}]]
    set cond [lindex {{} NX XX GT LT} [expr {int([hfe_rand] * 5)}]]
    set pairs {}
    foreach f $fs { lappend pairs $f [expr {int([hfe_rand] * 100)}] }
    switch [expr {int([hfe_rand] * 12)}] {
        0 { r hset $k {*}$pairs }
        1 { r hpexpire $k $time {*}$cond FIELDS $n {*}$fs }
        2 { r hexpire $k [expr {$time / 1000}] {*}$cond FIELDS $n {*}$fs }
        3 { r hpexpireat $k [expr {$time == 0 ? 1 : [clock milliseconds] + $time}] FIELDS $n {*}$fs }
        4 { r hpersist $k FIELDS $n {*}$fs }
        5 { r hgetdel $k FIELDS $n {*}$fs }
        6 { r hgetex $k {*}[lindex [list {} PERSIST [list PX $time] [list EX [expr {$time / 1000}]]] [expr {int([hfe_rand] * 4)}]] FIELDS $n {*}$fs }
        7 { r hsetex $k {*}[lindex {{} FNX FXX} [expr {int([hfe_rand] * 3)}]] {*}[lindex [list {} KEEPTTL [list PX $time] [list EXAT [expr {[clock seconds] + $time / 1000}]]] [expr {int([hfe_rand] * 4)}]] FIELDS $n {*}$pairs }
        8 { r hincrby $k [lindex $fs 0] 1 }
        9 { r hincrbyfloat $k [lindex $fs 0] 0.5 }
        10 { r hdel $k {*}$fs }
        11 { catch { r rename $k h[expr {int([hfe_rand] * 4)}] } }
    }
}

proc hfe_dataset {} {
    set out {}
    foreach k [lsort [r keys *]] {
        foreach {f v} [lsort -stride 2 [r hgetall $k]] {
            lappend out $k $f $v [r hpexpiretime $k FIELDS 1 $f]
        }
    }
    return $out
}

foreach entries {128 0} {
test "Replaying the propagated stream of random field-TTL traffic gives the same dataset (7.4 / 8.0) (hash-max-listpack-entries $entries)" {
    r select 0
    r flushall
    r config set hash-max-listpack-entries $entries
    r debug propagated on
    r debug propagated
    expr {srand(19)}
    for {set i 0} {$i < 1500} {incr i} {
        if {[catch {hfe_random_op} e] && ![string match "*not an integer*" $e] && ![string match "*not a float*" $e]} {
            fail "unexpected error: $e"
        }
    }
    set stream [r debug propagated]
    r debug propagated off
    set want [hfe_dataset]
    set digest [r debug digest]
    assert_morethan [llength $want] 0
    start_server [list overrides [list hash-max-listpack-entries $entries]] {
        foreach cmd $stream { r {*}$cmd }
        r select 0
        assert_equal $want [hfe_dataset]
        assert_equal $digest [r debug digest]
    }
    r config set hash-max-listpack-entries 128
}
}
