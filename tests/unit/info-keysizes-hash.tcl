# INFO KEYSIZES for hashes (run once with listpack and once with hashtable encoding): HSETNX,
# HSET/HDEL down to empty, HMSET with repeated fields, HINCRBY/HINCRBYFLOAT adding a field, plus
# DEL, expiry, SET over a hash, COPY and conversions. Redis 7.0 has no KEYSIZES section: the
# format and rules (Redis 8's) are in src/keyspace/README.md, "INFO KEYSIZES". Field-TTL steps
# (HPEXPIRE, lazy and active field expiry, HGETDEL, HGETEX, HSETEX) are in
# unit/type/hash-field-expire.tcl.

tags {keysizes hash} {

foreach {enc entries} {listpack 512 hashtable 0} {
    test "KEYSIZES scenario 7: HSETNX, HSET/HDEL down to empty ($enc)" {
        r flushall
        r config set hash-max-listpack-entries $entries
        r hsetnx h f1 v
        assert_encoding $enc h
        assert_keysizes "db0_distrib_hashes_items:1=1"
        r hsetnx h f1 other
        assert_keysizes "db0_distrib_hashes_items:1=1"
        r hsetnx h f2 v
        assert_keysizes "db0_distrib_hashes_items:2=1"
        r hset h f3 v f4 v
        assert_keysizes "db0_distrib_hashes_items:4=1"
        r hset h f1 updated
        assert_keysizes "db0_distrib_hashes_items:4=1"
        r hset h2 a 1
        assert_keysizes "db0_distrib_hashes_items:1=1,4=1"
        r hdel h f4
        assert_keysizes "db0_distrib_hashes_items:1=1,2=1"
        r hdel h nofield
        assert_keysizes "db0_distrib_hashes_items:1=1,2=1"
        r hdel h f1 f2
        assert_keysizes "db0_distrib_hashes_items:1=2"
        r hdel h f3
        assert_keysizes "db0_distrib_hashes_items:1=1"
        r hdel h2 a
        assert_keysizes ""
        assert_equal 0 [r dbsize]
    }

    test "KEYSIZES scenario 7: HMSET with repeated fields ($enc)" {
        r flushall
        r config set hash-max-listpack-entries $entries
        r hmset h a 1 a 2 a 3
        assert_keysizes "db0_distrib_hashes_items:1=1"
        r hmset h b 1 c 2 b 3 d 4 c 5
        assert_keysizes "db0_distrib_hashes_items:4=1"
        assert_equal 4 [r hlen h]
        set args {}
        for {set i 0} {$i < 20} {incr i} { lappend args f[expr {$i % 9}] $i }
        r hmset h {*}$args
        assert_keysizes "db0_distrib_hashes_items:8=1"
    }

    test "KEYSIZES scenario 7: HINCRBY / HINCRBYFLOAT adding a field ($enc)" {
        r flushall
        r config set hash-max-listpack-entries $entries
        r hincrby h a 1
        assert_keysizes "db0_distrib_hashes_items:1=1"
        r hincrby h a 1
        assert_keysizes "db0_distrib_hashes_items:1=1"
        r hincrbyfloat h b 1.5
        assert_keysizes "db0_distrib_hashes_items:2=1"
        r hincrbyfloat h b 1.5
        assert_keysizes "db0_distrib_hashes_items:2=1"
        r hincrby h c 1
        r hincrbyfloat h d 1
        assert_keysizes "db0_distrib_hashes_items:4=1"
        catch {r hincrby h a x}
        r hset h s abc
        catch {r hincrby h s 1}
        assert_keysizes "db0_distrib_hashes_items:4=1"
    }

    test "KEYSIZES: DEL, expiry, SET over a hash, COPY, RENAME ($enc)" {
        r flushall
        r config set hash-max-listpack-entries $entries
        r hset h1 a 1 b 2 c 3
        r hset h2 a 1
        assert_keysizes "db0_distrib_hashes_items:1=1,2=1"
        r del h2
        assert_keysizes "db0_distrib_hashes_items:2=1"
        r copy h1 h3
        assert_keysizes "db0_distrib_hashes_items:2=2"
        r hset h3 d 4
        assert_keysizes "db0_distrib_hashes_items:2=1,4=1"
        r rename h3 h4
        assert_keysizes "db0_distrib_hashes_items:2=1,4=1"
        r set h4 abcde
        assert_keysizes "db0_distrib_strings_sizes:4=1 db0_distrib_hashes_items:2=1"
        r pexpire h1 1
        wait_for_condition 50 10 {[r exists h1] == 0} { fail "h1 did not expire" }
        assert_keysizes "db0_distrib_strings_sizes:4=1"
        r hset h5 a 1
        assert_keysizes "db0_distrib_strings_sizes:4=1 db0_distrib_hashes_items:1=1"
    }
}

test "KEYSIZES: a listpack to hashtable conversion changes nothing" {
    r flushall
    r config set hash-max-listpack-entries 512
    for {set i 0} {$i < 512} {incr i} { r hset h f$i v }
    assert_encoding listpack h
    assert_keysizes "db0_distrib_hashes_items:512=1"
    r hset h f512 v
    assert_encoding hashtable h
    assert_keysizes "db0_distrib_hashes_items:512=1"
    r hset h [string repeat x 100] v
    assert_keysizes "db0_distrib_hashes_items:512=1"
    set del {}
    for {set i 0} {$i < 300} {incr i} { lappend del f$i }
    r hdel h {*}$del
    assert_keysizes "db0_distrib_hashes_items:128=1"
}

test "KEYSIZES: big HSET into a new key, HSET into another db" {
    r flushall
    set args {}
    for {set i 0} {$i < 1100} {incr i} { lappend args f$i v }
    r hset big {*}$args
    assert_keysizes "db0_distrib_hashes_items:1K=1"
    r select 2
    r hset h a 1 b 2
    r select 0
    assert_keysizes "db0_distrib_hashes_items:1K=1 db2_distrib_hashes_items:2=1"
    r flushall
    assert_keysizes ""
}

}
