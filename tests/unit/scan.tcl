# SCAN over the keyspace: cursor, MATCH, COUNT, TYPE, errors, expiry and the guarantee that a
# key present for the whole iteration is returned while the table grows or shrinks.
# Error replies were checked against redis-server 7.0.15.

tags {scan} {

# Runs a full SCAN with extra arguments; returns the sorted unique keys.
proc scan_all {args} {
    set cursor 0
    set keys {}
    while 1 {
        set res [r scan $cursor {*}$args]
        set cursor [lindex $res 0]
        lappend keys {*}[lindex $res 1]
        if {$cursor == 0} break
    }
    return [lsort -unique $keys]
}

test "SCAN on an empty db" {
    r flushall
    assert_equal {0 {}} [r scan 0]
}

test "SCAN returns every key" {
    r flushall
    for {set i 0} {$i < 1000} {incr i} { r set key:$i $i }
    set keys [scan_all]
    assert_equal 1000 [llength $keys]
    set keys [scan_all count 7]
    assert_equal 1000 [llength $keys]
}

test "SCAN COUNT is honoured approximately" {
    set cursor 0
    set calls 0
    set total 0
    set biggest 0
    while 1 {
        set res [r scan $cursor count 5]
        set cursor [lindex $res 0]
        set n [llength [lindex $res 1]]
        incr calls
        incr total $n
        if {$n > $biggest} { set biggest $n }
        if {$cursor == 0} break
    }
    # a few buckets per call: never the whole table, and many calls for 1000 keys
    assert_lessthan $biggest 40
    assert_morethan $calls 50
    set res [r scan 0 count 500]
    assert_morethan [llength [lindex $res 1]] 200
    set res [r scan 0 count 100000]
    assert_equal 0 [lindex $res 0]
    assert_equal 1000 [llength [lindex $res 1]]
}

test "SCAN MATCH" {
    r flushall
    for {set i 0} {$i < 100} {incr i} {
        r set a:$i 1
        r set b:$i 1
    }
    set keys [scan_all match a:*]
    assert_equal 100 [llength $keys]
    foreach k $keys { assert_match a:* $k }
    assert_equal {a:7} [scan_all match a:7 count 1000]
    assert_equal {} [scan_all match nomatch*]
    assert_equal 200 [llength [scan_all match *]]
}

test "SCAN MATCH * also returns the empty key name" {
    r flushall
    r set "" v
    r set x v
    assert_equal [list "" x] [scan_all match *]
    assert_equal [list "" x] [scan_all]
}

test "SCAN TYPE" {
    r flushall
    for {set i 0} {$i < 50} {incr i} { r set s$i v }
    assert_equal 50 [llength [scan_all type string]]
    assert_equal 50 [llength [scan_all type STRING]]
    assert_equal {} [scan_all type list]
    assert_equal {} [scan_all type hash]
    # An unknown type name matches no key: Redis 7.0-7.4, and 8.x too (8.0-M01 answered
    # "ERR unknown type name" (PR #12395) but released 8.x keeps the empty scan for
    # compatibility; only Valkey 8 errors). redis-server 7.0.15 answers the same.
    assert_equal {} [scan_all type foo]
    assert_equal {} [scan_all type nosuchtype]
    assert_equal 10 [llength [scan_all type string match s?]]
}

test "SCAN repeated options: the last one wins" {
    r flushall
    r set a 1
    r set b 1
    assert_equal {b} [scan_all match a match b count 1 count 100]
}

test "SCAN cursor parsing" {
    r flushall
    r set k v
    assert_error {ERR invalid cursor} {r scan abc}
    assert_error {ERR invalid cursor} {r scan 1x}
    assert_error {ERR invalid cursor} {r scan "0 "}
    assert_error {ERR invalid cursor} {r scan 18446744073709551616}
    # Redis 7.4 parses cursors with string2ull (7.0 used strtoul, which took "" and "-1" and
    # refused " 0"): a canonical negative number and the empty string are invalid; otherwise
    # strtoull's rules apply, so a leading space, a '+' and leading zeros are accepted.
    assert_error {ERR invalid cursor} {r scan -1}
    assert_error {ERR invalid cursor} {r scan ""}
    assert_equal 2 [llength [r scan 18446744073709551615]]
    assert_equal 2 [llength [r scan +0]]
    assert_equal 2 [llength [r scan " 0"]]
    assert_equal 2 [llength [r scan 00]]
    assert_equal 2 [llength [r scan -0]]
}

test "HSCAN / SSCAN / ZSCAN parse the cursor as SCAN does, before the key" {
    r flushall
    r hset h f v
    r sadd s m
    r zadd z 1 m
    r set str x
    foreach cmd {hscan sscan zscan} key {h s z} {
        # A valid cursor reaches the key lookup (WRONGTYPE on a string); an invalid one does not.
        foreach c {01 -0 +1 " 1" 18446744073709551615} {
            assert_error {WRONGTYPE*} {r $cmd str $c}
            assert_equal 2 [llength [r $cmd $key $c]]
        }
        foreach c {"" -1 abc 18446744073709551616 "1 "} {
            assert_error {ERR invalid cursor} {r $cmd str $c}
            assert_error {ERR invalid cursor} {r $cmd nokey $c}
        }
    }
}

test "SCAN option errors" {
    assert_error {ERR syntax error} {r scan 0 count 0}
    assert_error {ERR syntax error} {r scan 0 count -1}
    assert_error {ERR value is not an integer or out of range} {r scan 0 count abc}
    assert_error {ERR syntax error} {r scan 0 match}
    assert_error {ERR syntax error} {r scan 0 count}
    assert_error {ERR syntax error} {r scan 0 match * type}
    assert_error {ERR syntax error} {r scan 0 foo bar}
    assert_error {*wrong number of arguments for 'scan' command*} {r scan}
}

test "SCAN does not return expired keys and deletes the ones it meets" {
    r flushall
    r debug set-active-expire 0
    for {set i 0} {$i < 100} {incr i} {
        r set live$i v
        r set dead$i v
        r pexpire dead$i 1
    }
    after 5
    assert_equal 200 [r dbsize]
    set keys [scan_all]
    assert_equal 100 [llength $keys]
    foreach k $keys { assert_match live* $k }
    assert_equal 100 [r dbsize]
    r debug set-active-expire 1
}

test "SCAN survives keys expiring between calls" {
    r flushall
    for {set i 0} {$i < 300} {incr i} {
        r set live$i v
        r set tmp$i v
        r pexpire tmp$i [expr {1 + $i % 30}]
    }
    set cursor 0
    set keys {}
    while 1 {
        set res [r scan $cursor count 10]
        set cursor [lindex $res 0]
        lappend keys {*}[lindex $res 1]
        after 1
        if {$cursor == 0} break
    }
    set live 0
    foreach k [lsort -unique $keys] { if {[string match live* $k]} { incr live } }
    assert_equal 300 $live
}

test "SCAN guarantees: keys present for the whole scan are returned while the table grows" {
    r flushall
    for {set i 0} {$i < 200} {incr i} { r set stable:$i v }
    for {set i 0} {$i < 100} {incr i} { r set temp:$i v }
    set cursor 0
    set seen {}
    set added 0
    set removed 0
    while 1 {
        set res [r scan $cursor count 5]
        set cursor [lindex $res 0]
        foreach k [lindex $res 1] { dict set seen $k 1 }
        # grow the table a lot while the scan runs, and delete some other keys
        for {set j 0} {$j < 50 && $added < 3000} {incr j} { r set new:[incr added] v }
        if {$removed < 100} { r del temp:$removed; incr removed }
        if {$cursor == 0} break
    }
    assert_equal 3000 $added
    for {set i 0} {$i < 200} {incr i} {
        assert {[dict exists $seen stable:$i]} "stable:$i missing"
    }
}

test "SCAN guarantees: keys present for the whole scan are returned while the table shrinks" {
    r flushall
    for {set i 0} {$i < 100} {incr i} { r set stable:$i v }
    for {set i 0} {$i < 5000} {incr i} { r set temp:$i v }
    set cursor 0
    set seen {}
    set next 0
    while 1 {
        set res [r scan $cursor count 20]
        set cursor [lindex $res 0]
        foreach k [lindex $res 1] { dict set seen $k 1 }
        set batch {}
        for {set j 0} {$j < 200 && $next < 5000} {incr j} { lappend batch temp:$next; incr next }
        if {[llength $batch]} { r del {*}$batch }
        if {$cursor == 0} break
    }
    for {set i 0} {$i < 100} {incr i} {
        assert {[dict exists $seen stable:$i]} "stable:$i missing"
    }
}

test "SCAN in another db only sees that db" {
    r flushall
    r set a 1
    r select 5
    r set b 1
    assert_equal {b} [scan_all]
    r flushall
    r select 0
}

}
