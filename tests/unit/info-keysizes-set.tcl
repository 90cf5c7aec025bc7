# Exact INFO KEYSIZES text through every set path (Redis 8's INFO KEYSIZES,
# scenario 4, plus the later upstream cases: SPOP with large counts taking the rebuild path,
# SREM/SMOVE emptying a key, *STORE over existing keys, UNLINK). Label rules: section 1-2.

tags {keysizes} {

# Runs the scenarios once per starting encoding of the sets involved.
foreach {enc a b} {
    intset {1 2 3 4 5 6 7 8} {9 10}
    listpack {a b c d e f g h} {i j}
    hashtable {a b c d e f g h} {i j}
} {
    test "KEYSIZES sets ($enc): SADD, SREM, SREM of a missing member" {
        r flushall
        if {$enc eq "hashtable"} { r config set set-max-listpack-entries 0 }
        r sadd s [lindex $a 0]
        assert_equal {db0_distrib_sets_items:1=1} [keysizes]
        r sadd s {*}[lrange $a 1 2]
        assert_equal {db0_distrib_sets_items:2=1} [keysizes]
        r sadd s {*}$a
        assert_encoding $enc s
        assert_equal {db0_distrib_sets_items:8=1} [keysizes]
        r srem s nothere 12345
        assert_equal {db0_distrib_sets_items:8=1} [keysizes]
        r srem s [lindex $a 0]
        assert_equal {db0_distrib_sets_items:4=1} [keysizes]
        r srem s {*}$a
        assert_equal {} [keysizes]
        assert_equal 0 [r exists s]
        r config set set-max-listpack-entries 128
    }

    test "KEYSIZES sets ($enc): SMOVE creating and emptying keys" {
        r flushall
        if {$enc eq "hashtable"} { r config set set-max-listpack-entries 0 }
        r sadd src {*}$a
        r sadd other {*}$b
        r smove src dst [lindex $a 0]
        assert_equal {db0_distrib_sets_items:1=1,2=1,4=1} [keysizes]
        r smove src dst nothere
        assert_equal {db0_distrib_sets_items:1=1,2=1,4=1} [keysizes]
        r smove other dst [lindex $b 0]
        assert_equal {db0_distrib_sets_items:1=1,2=1,4=1} [keysizes]
        r smove other dst [lindex $b 1]
        assert_equal {db0_distrib_sets_items:2=1,4=1} [keysizes]
        assert_equal 0 [r exists other]
        # moving a member the destination already has
        r sadd src [lindex $b 0]
        r smove src dst [lindex $b 0]
        assert_equal {db0_distrib_sets_items:2=1,4=1} [keysizes]
        r config set set-max-listpack-entries 128
    }

    test "KEYSIZES sets ($enc): SPOP single and with count, down to empty" {
        r flushall
        if {$enc eq "hashtable"} { r config set set-max-listpack-entries 0 }
        r sadd s {*}$a
        r spop s
        assert_equal {db0_distrib_sets_items:4=1} [keysizes]
        r spop s 2
        assert_equal {db0_distrib_sets_items:4=1} [keysizes]
        r spop s 2
        assert_equal {db0_distrib_sets_items:2=1} [keysizes]
        r spop s 0
        assert_equal {db0_distrib_sets_items:2=1} [keysizes]
        r spop s 5
        assert_equal {} [keysizes]
        r sadd s {*}$a
        r spop s
        r spop s
        r spop s
        r spop s
        r spop s
        r spop s
        r spop s
        assert_equal {db0_distrib_sets_items:1=1} [keysizes]
        r spop s
        assert_equal {} [keysizes]
        r config set set-max-listpack-entries 128
    }

    test "KEYSIZES sets ($enc): DEL, UNLINK, PEXPIRE, SET over a set" {
        r flushall
        if {$enc eq "hashtable"} { r config set set-max-listpack-entries 0 }
        r sadd s1 {*}$a
        r sadd s2 {*}$b
        r sadd s3 {*}$a
        assert_equal {db0_distrib_sets_items:2=1,8=2} [keysizes]
        r del s1
        assert_equal {db0_distrib_sets_items:2=1,8=1} [keysizes]
        r unlink s2
        assert_equal {db0_distrib_sets_items:8=1} [keysizes]
        r sadd s4 {*}$b
        r pexpire s4 1
        wait_for_condition 100 10 {[r exists s4] == 0} { fail "s4 did not expire" }
        assert_equal {db0_distrib_sets_items:8=1} [keysizes]
        r set s3 xyz
        assert_equal {db0_distrib_strings_sizes:2=1} [keysizes]
        r config set set-max-listpack-entries 128
    }

    test "KEYSIZES sets ($enc): SDIFFSTORE / SINTERSTORE / SUNIONSTORE" {
        r flushall
        if {$enc eq "hashtable"} { r config set set-max-listpack-entries 0 }
        r sadd x {*}$a
        r sadd y {*}[lrange $a 0 2] {*}$b
        assert_equal {db0_distrib_sets_items:4=1,8=1} [keysizes]
        r sdiffstore d x y
        assert_equal {db0_distrib_sets_items:4=2,8=1} [keysizes]
        r sinterstore i x y
        assert_equal {db0_distrib_sets_items:2=1,4=2,8=1} [keysizes]
        r sunionstore u x y
        assert_equal {db0_distrib_sets_items:2=1,4=2,8=2} [keysizes]
        # overwrite existing destinations of every type
        r sunionstore d x y
        assert_equal {db0_distrib_sets_items:2=1,4=1,8=3} [keysizes]
        r set str abc
        r sinterstore str x y
        assert_equal {db0_distrib_sets_items:2=2,4=1,8=3} [keysizes]
        # empty results delete the destination
        r sinterstore u x nokey
        r sdiffstore i x x
        r sunionstore str nokey
        assert_equal {db0_distrib_sets_items:4=1,8=2} [keysizes]
        r sinterstore nokey2 x nokey
        assert_equal {db0_distrib_sets_items:4=1,8=2} [keysizes]
        r config set set-max-listpack-entries 128
    }
}

test "KEYSIZES sets: SPOP with large counts (rebuild path) in every encoding" {
    r flushall
    set ints {}
    set strs {}
    for {set i 0} {$i < 600} {incr i} { lappend ints $i; lappend strs m$i }
    r sadd hi {*}$ints
    r sadd hs {*}$strs
    r sadd is {*}[lrange $ints 0 99]
    r sadd lp {*}[lrange $strs 0 99]
    assert_equal {db0_distrib_sets_items:64=2,512=2} [keysizes]
    r spop hi 597
    r spop hs 590
    r spop is 99
    r spop lp 96
    assert_encoding listpack hi
    assert_encoding listpack hs
    assert_encoding intset is
    assert_equal {db0_distrib_sets_items:1=1,2=1,4=1,8=1} [keysizes]
}

test "KEYSIZES sets: conversions do not change the bins, SADD up front conversion" {
    r flushall
    set args {}
    for {set i 0} {$i < 200} {incr i} { lappend args a }
    r sadd s {*}$args
    assert_equal {db0_distrib_sets_items:1=1} [keysizes]
    r sadd t 1 2 3
    r sadd t x
    assert_equal {db0_distrib_sets_items:1=1,4=1} [keysizes]
}

test "KEYSIZES sets: RENAME, MOVE, COPY of a set" {
    r flushall
    r sadd s a b c
    r rename s t
    assert_equal {db0_distrib_sets_items:2=1} [keysizes]
    r copy t u
    assert_equal {db0_distrib_sets_items:2=2} [keysizes]
    r move u 1
    assert_equal {db0_distrib_sets_items:2=1 db1_distrib_sets_items:2=1} [keysizes]
}

test "KEYSIZES sets: random operations agree with a full recount" {
    r flushall
    r config set set-max-intset-entries 20
    r config set set-max-listpack-entries 10
    set cmds {sadd srem spop spopn smove sinterstore sunionstore sdiffstore del}
    for {set i 0} {$i < 3000} {incr i} {
        set k s[expr {int(rand() * 8)}]
        set k2 s[expr {int(rand() * 8)}]
        set m [expr {rand() < 0.5 ? int(rand() * 50) : "m[expr {int(rand() * 50)}]"}]
        switch [lindex $cmds [expr {int(rand() * [llength $cmds])}]] {
            sadd { r sadd $k $m [expr {int(rand() * 50)}] }
            srem { r srem $k $m m1 1 }
            spop { r spop $k }
            spopn { r spop $k [expr {int(rand() * 30)}] }
            smove { r smove $k $k2 $m }
            sinterstore { r sinterstore $k $k2 s[expr {int(rand() * 8)}] }
            sunionstore { r sunionstore $k $k2 s[expr {int(rand() * 8)}] }
            sdiffstore { r sdiffstore $k $k2 s[expr {int(rand() * 8)}] }
            del { if {rand() < 0.1} { r del $k } }
        }
        if {$i % 500 == 0} { assert_equal OK [r debug keysizes-check] }
    }
    # the expected histogram recomputed from SCARD
    set bins {}
    foreach k [r keys *] {
        set n [r scard $k]
        set label [expr {1 << int(floor(log($n) / log(2)))}]
        dict incr bins $label
    }
    set parts {}
    foreach label [lsort -integer [dict keys $bins]] { lappend parts $label=[dict get $bins $label] }
    if {[llength $parts]} {
        assert_equal [list db0_distrib_sets_items:[join $parts ,]] [keysizes]
    } else {
        assert_equal {} [keysizes]
    }
    assert_equal OK [r debug keysizes-check]
    r config set set-max-intset-entries 512
    r config set set-max-listpack-entries 128
    # left in place: the runner's DEBUG KEYSIZES-CHECK at the end sees these keys too
}

}
