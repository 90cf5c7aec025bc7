# INFO KEYSIZES for sorted sets: exact lines after every zset path (ZADD, ZREM, ZREMRANGEBY*,
# *STORE, blocking pops, DEL, expiry, SET over a zset, ZREM emptying, ZMPOP, ZPOP*, ZINCRBY,
# UNLINK, SWAPDB, RENAME). Redis 7.0 has no KEYSIZES section: the format and rules (Redis 8's)
# are in src/keyspace/README.md, "INFO KEYSIZES".

tags {keysizes zset} {

foreach enc {listpack skiplist} {
    r config set zset-max-listpack-entries [expr {$enc eq "listpack" ? 128 : 0}]

    test "KEYSIZES scenario 5: ZADD, ZINCRBY, ZREM ($enc)" {
        r flushall
        r zadd z 1 a
        assert_keysizes "db0_distrib_zsets_items:1=1"
        r zadd z 2 b 3 c
        assert_keysizes "db0_distrib_zsets_items:2=1"
        r zadd z 4 d
        assert_keysizes "db0_distrib_zsets_items:4=1"
        r zadd z 5 d
        assert_keysizes "db0_distrib_zsets_items:4=1"
        r zincrby z 1 e
        assert_keysizes "db0_distrib_zsets_items:4=1"
        r zincrby z2 1 e
        assert_keysizes "db0_distrib_zsets_items:1=1,4=1"
        r zrem z a b
        assert_keysizes "db0_distrib_zsets_items:1=1,2=1"
        r zrem z nosuch
        assert_keysizes "db0_distrib_zsets_items:1=1,2=1"
        r zrem z c d e
        assert_keysizes "db0_distrib_zsets_items:1=1"
        r zrem z2 e
        assert_keysizes ""
    }

    test "KEYSIZES scenario 5: ZREMRANGEBYSCORE / RANK / LEX ($enc)" {
        r flushall
        r zadd z 0 a 0 b 0 c 0 d 0 e 0 f 0 g 0 h 0 i
        assert_keysizes "db0_distrib_zsets_items:8=1"
        r zremrangebylex z {[a} {[b}
        assert_keysizes "db0_distrib_zsets_items:4=1"
        r zremrangebyrank z 0 2
        assert_keysizes "db0_distrib_zsets_items:4=1"
        r zremrangebyrank z 0 0
        assert_keysizes "db0_distrib_zsets_items:2=1"
        r zremrangebyscore z 10 20
        assert_keysizes "db0_distrib_zsets_items:2=1"
        r zremrangebyscore z -inf +inf
        assert_keysizes ""
    }

    test "KEYSIZES scenario 5: ZUNIONSTORE / ZINTERSTORE / ZDIFFSTORE / ZRANGESTORE ($enc)" {
        r flushall
        r zadd z1 1 a 2 b 3 c 4 d
        r zadd z2 1 c 2 d 3 e
        assert_keysizes "db0_distrib_zsets_items:2=1,4=1"
        r zunionstore u 2 z1 z2
        assert_keysizes "db0_distrib_zsets_items:2=1,4=2"
        r zinterstore i 2 z1 z2
        assert_keysizes "db0_distrib_zsets_items:2=2,4=2"
        r zdiffstore d 2 z2 z1
        assert_keysizes "db0_distrib_zsets_items:1=1,2=2,4=2"
        # overwrite of a zset and of a string, and an empty result deleting the destination
        r zunionstore d 1 z1
        assert_keysizes "db0_distrib_zsets_items:2=2,4=3"
        r set s abc
        r zrangestore s z1 0 0
        assert_keysizes "db0_distrib_zsets_items:1=1,2=2,4=3"
        r zinterstore u 2 z1 nokey
        assert_keysizes "db0_distrib_zsets_items:1=1,2=2,4=2"
        r zrangestore nothing nokey 0 -1
        assert_keysizes "db0_distrib_zsets_items:1=1,2=2,4=2"
    }

    test "KEYSIZES scenario 5: pops (ZPOPMIN, ZPOPMAX, ZMPOP, BZPOPMIN, BZPOPMAX, BZMPOP) ($enc)" {
        r flushall
        r zadd z 1 a 2 b 3 c 4 d 5 e 6 f 7 g 8 h
        assert_keysizes "db0_distrib_zsets_items:8=1"
        r zpopmin z
        assert_keysizes "db0_distrib_zsets_items:4=1"
        r zpopmax z 2
        assert_keysizes "db0_distrib_zsets_items:4=1"
        r bzpopmin z 0
        assert_keysizes "db0_distrib_zsets_items:4=1"
        r bzpopmax z 0
        assert_keysizes "db0_distrib_zsets_items:2=1"
        r zmpop 1 z min
        assert_keysizes "db0_distrib_zsets_items:2=1"
        r zmpop 1 z min
        assert_keysizes "db0_distrib_zsets_items:1=1"
        r bzmpop 0 1 z max count 5
        assert_keysizes ""
        r zadd z 1 a 2 b
        r zmpop 1 z max count 10
        assert_keysizes ""
    }

    test "KEYSIZES scenario 5: a blocked BZPOPMIN served by ZADD ($enc)" {
        r flushall
        set rd [redis_deferring_client]
        $rd bzpopmin z 0
        wait_for_blocked_clients 1
        r zadd z 1 a 2 b
        assert_equal {z a 1} [$rd read]
        assert_keysizes "db0_distrib_zsets_items:1=1"
        $rd bzpopmax z 0
        assert_equal {z b 2} [$rd read]
        assert_keysizes ""
        $rd close
    }

    test "KEYSIZES scenario 5: DEL, UNLINK, PEXPIRE, SET over a zset ($enc)" {
        r flushall
        r zadd z1 1 a
        r zadd z2 1 a 2 b
        r zadd z3 1 a 2 b 3 c 4 d
        assert_keysizes "db0_distrib_zsets_items:1=1,2=1,4=1"
        r del z1
        assert_keysizes "db0_distrib_zsets_items:2=1,4=1"
        r unlink z2
        assert_keysizes "db0_distrib_zsets_items:4=1"
        r set z3 abcde
        assert_keysizes "db0_distrib_strings_sizes:4=1"
        r zadd z4 1 a 2 b
        r pexpire z4 1
        wait_for_condition 100 10 {[r exists z4] == 0} { fail "z4 did not expire" }
        assert_keysizes "db0_distrib_strings_sizes:4=1"
    }

    test "KEYSIZES: RENAME, MOVE and SWAPDB with zsets ($enc)" {
        r flushall
        r zadd z 1 a 2 b
        r rename z y
        assert_keysizes "db0_distrib_zsets_items:2=1"
        r move y 1
        assert_keysizes "db1_distrib_zsets_items:2=1"
        r swapdb 0 1
        assert_keysizes "db0_distrib_zsets_items:2=1"
        r flushall
    }

    test "KEYSIZES: a skiplist conversion keeps the count ($enc)" {
        r flushall
        r config set zset-max-listpack-entries 2
        r zadd z 1 a 2 b
        r zadd z 3 c
        assert_encoding skiplist z
        assert_keysizes "db0_distrib_zsets_items:2=1"
        r config set zset-max-listpack-entries [expr {$enc eq "listpack" ? 128 : 0}]
    }
}

r config set zset-max-listpack-entries 128

test "KEYSIZES: DEBUG KEYSIZES-CHECK agrees after a random zset workload" {
    r flushall
    for {set i 0} {$i < 500} {incr i} {
        set k z[expr {int(rand() * 5)}]
        switch [expr {int(rand() * 6)}] {
            0 { r zadd $k [expr {int(rand() * 10)}] m[expr {int(rand() * 200)}] }
            1 { r zrem $k m[expr {int(rand() * 200)}] }
            2 { r zpopmin $k [expr {int(rand() * 3)}] }
            3 { r zremrangebyscore $k 0 [expr {int(rand() * 3)}] }
            4 { r zunionstore z[expr {int(rand() * 5)}] 2 z1 z2 }
            5 { r zadd $k {*}[lrepeat 70 1 m[expr {int(rand() * 200)}]] }
        }
    }
    assert_equal OK [r debug keysizes-check]
}

}
