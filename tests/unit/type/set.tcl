# Set commands: SADD SREM SCARD SISMEMBER SMISMEMBER SMEMBERS SRANDMEMBER SPOP SMOVE SINTER
# SINTERCARD SINTERSTORE SUNION SUNIONSTORE SDIFF SDIFFSTORE SSCAN, in each encoding (intset,
# listpack, hashtable) and across the conversions of src/types/README.md
# (Redis 7.4 rules; the 7.0 reference has no listpack sets). Replies and error texts were
# checked against redis-server 7.0.15.

# Builds `key` with `members` in encoding `enc` and asserts it. hashtable: a member over
# set-max-listpack-value forces the conversion and is then removed (removals never convert back).
proc make_set {key enc members} {
    r del $key
    if {$enc eq "hashtable"} {
        r sadd $key [string repeat z 80]
        r sadd $key {*}$members
        r srem $key [string repeat z 80]
    } else {
        r sadd $key {*}$members
    }
    assert_encoding $enc $key
}

# Members that land in each encoding when used with make_set.
proc sample_members {enc} {
    if {$enc eq "intset"} { return {1 2 3 4 5} }
    return {a b c 1 2}
}

proc reset_set_limits {} {
    r config set set-max-intset-entries 512
    r config set set-max-listpack-entries 128
    r config set set-max-listpack-value 64
}

tags {type set} {

reset_set_limits

# ---- SADD / SCARD / SISMEMBER / SMISMEMBER / SMEMBERS -------------------------------------

foreach enc {intset listpack hashtable} {
    test "SADD counts only new members ($enc)" {
        make_set s $enc [sample_members $enc]
        assert_equal 5 [r scard s]
        set fresh [expr {$enc eq "intset" ? 100 : "fresh"}]
        assert_equal 1 [r sadd s $fresh]
        assert_equal 0 [r sadd s $fresh]
        assert_equal 1 [r sadd s $fresh 101 $fresh]
        assert_equal 7 [r scard s]
        assert_encoding $enc s
    }

    test "SISMEMBER / SMISMEMBER ($enc)" {
        make_set s $enc [sample_members $enc]
        set m [lindex [sample_members $enc] 0]
        assert_equal 1 [r sismember s $m]
        assert_equal 0 [r sismember s nope]
        assert_equal 0 [r sismember s 999]
        assert_equal {1 0 1} [r smismember s $m nope [lindex [sample_members $enc] 4]]
        # integers are compared by value only when canonical
        assert_equal 1 [r sismember s 1]
        assert_equal 0 [r sismember s 01]
        assert_equal 0 [r sismember s " 1"]
    }

    test "SMEMBERS ($enc)" {
        make_set s $enc [sample_members $enc]
        assert_equal_unordered [sample_members $enc] [r smembers s]
    }

    test "SREM removes members, deletes the emptied key ($enc)" {
        make_set s $enc [sample_members $enc]
        lassign [sample_members $enc] a b c d e
        assert_equal 0 [r srem s nope 777]
        assert_equal 2 [r srem s $a $b nope $a]
        assert_equal 3 [r scard s]
        assert_encoding $enc s
        assert_equal 3 [r srem s $c $d $e]
        assert_equal 0 [r exists s]
    }
}

test "SADD / SCARD / SISMEMBER on missing keys" {
    r del nokey
    assert_equal 0 [r scard nokey]
    assert_equal 0 [r sismember nokey a]
    assert_equal {0 0} [r smismember nokey a b]
    assert_equal {} [r smembers nokey]
    assert_equal 0 [r srem nokey a]
    assert_equal 0 [r exists nokey]
}

test "SMEMBERS order: intset ascending, listpack insertion order" {
    r del s1 s2
    r sadd s1 5 -3 100 0
    assert_equal {-3 0 5 100} [r smembers s1]
    r sadd s2 c a b 2
    assert_equal {c a b 2} [r smembers s2]
}

test "SADD keeps binary members and the empty string" {
    r del s
    assert_equal 3 [r sadd s "" "a\x00b" "\xff\r\n"]
    assert_equal 1 [r sismember s ""]
    assert_equal 1 [r sismember s "a\x00b"]
    assert_equal 0 [r sismember s "a"]
    assert_equal_unordered [list "" "a\x00b" "\xff\r\n"] [r smembers s]
    assert_encoding listpack s
}

test "Integer-like members that are not canonical stay strings" {
    r del s
    r sadd s 1 2
    assert_encoding intset s
    r sadd s 007
    assert_encoding listpack s
    assert_equal 0 [r sismember s 7]
    assert_equal 1 [r sismember s 007]
    r del s
    r sadd s -9223372036854775808 9223372036854775807
    assert_encoding intset s
    r sadd s 9223372036854775808
    assert_encoding listpack s
    assert_equal {-9223372036854775808 9223372036854775807 9223372036854775808} [r smembers s]
}

test "Set commands against a key of another type" {
    r del str
    r set str x
    foreach cmd {
        {sadd str a} {srem str a} {scard str} {sismember str a} {smismember str a}
        {smembers str} {srandmember str} {srandmember str 2} {srandmember str 0}
        {spop str} {spop str 2} {spop str 0} {sinter str} {sunion str} {sdiff str}
        {sintercard 1 str} {sscan str 0}
    } {
        assert_error {WRONGTYPE*} [list r {*}$cmd]
    }
    assert_equal x [r get str]
}

test "Set commands: wrong number of arguments" {
    foreach {cmd args} {
        sadd {s} srem {s} scard {} scard {a b} sismember {s} sismember {s a b}
        smismember {s} smembers {} smembers {a b} srandmember {} spop {} smove {a b}
        smove {a b c d} sinter {} sintercard {1} sinterstore {d} sunion {} sunionstore {d}
        sdiff {} sdiffstore {d} sscan {s}
    } {
        assert_error "*wrong number of arguments for '$cmd' command*" [list r $cmd {*}$args]
    }
}

# ---- encodings and conversions -------------------------------------------------------------

test "Encoding: intset up to set-max-intset-entries, then hashtable" {
    r del s
    for {set i 0} {$i < 512} {incr i} { lappend ints $i }
    r sadd s {*}$ints
    assert_encoding intset s
    assert_equal 512 [r scard s]
    r sadd s 512
    assert_encoding hashtable s
    assert_equal 513 [r scard s]
    assert_equal 1 [r sismember s 100]
}

test "Encoding: first member decides intset vs listpack on creation" {
    r del a b c
    r sadd a 1 x
    assert_encoding listpack a
    r sadd b x 1
    assert_encoding listpack b
    r sadd c 1 2
    assert_encoding intset c
}

test "Encoding: listpack up to set-max-listpack-entries, then hashtable" {
    r del s
    for {set i 0} {$i < 128} {incr i} { r sadd s m$i }
    assert_encoding listpack s
    r sadd s m0
    assert_encoding listpack s
    r sadd s m128
    assert_encoding hashtable s
    assert_equal 129 [r scard s]
}

test "Encoding: listpack member length limit (64 bytes ok, 65 converts)" {
    r del s
    r sadd s a [string repeat x 64]
    assert_encoding listpack s
    r sadd s [string repeat y 65]
    assert_encoding hashtable s
    assert_equal 1 [r sismember s [string repeat x 64]]
}

test "Encoding: intset + string -> listpack when fewer than 128 members" {
    r del s
    for {set i 0} {$i < 127} {incr i} { r sadd s $i }
    assert_encoding intset s
    r sadd s x
    assert_encoding listpack s
    assert_equal 128 [r scard s]
    r del s
    for {set i 0} {$i < 128} {incr i} { r sadd s $i }
    r sadd s x
    assert_encoding hashtable s
    assert_equal 129 [r scard s]
}

test "Encoding: intset + long string -> hashtable" {
    r del s
    r sadd s 1 2 3
    r sadd s [string repeat x 65]
    assert_encoding hashtable s
    assert_equal {1 1} [r smismember s 1 [string repeat x 65]]
}

test "Encoding: intset + string uses the integers' digits against set-max-listpack-value" {
    r del s
    r config set set-max-listpack-value 10
    r sadd s 1 12345678901
    r sadd s a
    assert_encoding hashtable s
    r del s
    r sadd s 1 1234567890
    r sadd s a
    assert_encoding listpack s
    reset_set_limits
}

test "Encoding: SADD converts up front by argument count" {
    r del s t u
    set args {}
    for {set i 0} {$i < 200} {incr i} { lappend args a }
    r sadd s {*}$args
    assert_encoding hashtable s
    assert_equal 1 [r scard s]
    set args {}
    for {set i 0} {$i < 600} {incr i} { lappend args 7 }
    r sadd t {*}$args
    assert_encoding hashtable t
    # existing small sets too
    r sadd u 1 2
    assert_encoding intset u
    r sadd u {*}$args
    assert_encoding hashtable u
    assert_equal 3 [r scard u]
    r del u
    r sadd u a
    set args {}
    for {set i 0} {$i < 129} {incr i} { lappend args a }
    r sadd u {*}$args
    assert_encoding hashtable u
}

test "Encoding: 128 arguments of a new key stay listpack, 129 do not" {
    r del s t
    set args {}
    for {set i 0} {$i < 128} {incr i} { lappend args m$i }
    r sadd s {*}$args
    assert_encoding listpack s
    lappend args m128
    r sadd t {*}$args
    assert_encoding hashtable t
}

test "Encoding: removals never convert back" {
    make_set s hashtable {1 2 3}
    r srem s 1 2
    assert_encoding hashtable s
    r del s
    r sadd s a b c
    r srem s a b
    assert_encoding listpack s
}

test "Encoding: CONFIG SET thresholds apply to later conversions" {
    r del s
    r config set set-max-intset-entries 4
    r sadd s 1 2 3 4
    assert_encoding intset s
    r sadd s 5
    assert_encoding hashtable s
    r config set set-max-listpack-entries 2
    r del s
    r sadd s a b
    assert_encoding listpack s
    r sadd s c
    assert_encoding hashtable s
    r config set set-max-listpack-entries 0
    r del s
    r sadd s a
    assert_encoding hashtable s
    reset_set_limits
}

test "Hashtable set: many members, adds and removals" {
    r del s
    set args {}
    for {set i 0} {$i < 5000} {incr i} { lappend args member:$i }
    assert_equal 5000 [r sadd s {*}$args]
    assert_encoding hashtable s
    assert_equal 5000 [r scard s]
    assert_equal 4990 [r srem s {*}[lrange $args 10 end]]
    assert_equal 10 [r scard s]
    assert_equal_unordered [lrange $args 0 9] [r smembers s]
    assert_equal 10 [r sadd s {*}[lrange $args 10 19]]
    assert_equal 20 [r scard s]
}

test "Large members (> 64 KB)" {
    r del s d
    set big [string repeat abcdefgh 10000]
    assert_equal 2 [r sadd s $big small]
    assert_encoding hashtable s
    assert_equal 1 [r sismember s $big]
    assert_equal_unordered [list $big small] [r smembers s]
    assert_equal 1 [r smove s d $big]
    assert_equal [list $big] [r smembers d]
    assert_equal $big [r spop d]
    assert_equal 0 [r exists d]
}

# ---- SRANDMEMBER -----------------------------------------------------------------------------

foreach enc {intset listpack hashtable} {
    test "SRANDMEMBER without count ($enc)" {
        make_set s $enc [sample_members $enc]
        set seen {}
        for {set i 0} {$i < 200} {incr i} { dict set seen [r srandmember s] 1 }
        assert_equal_unordered [sample_members $enc] [dict keys $seen]
        assert_equal 5 [r scard s]
    }

    test "SRANDMEMBER with a positive count: distinct members ($enc)" {
        make_set s $enc [sample_members $enc]
        foreach c {1 2 3 4} {
            set res [r srandmember s $c]
            assert_equal $c [llength $res]
            assert_equal $c [llength [lsort -unique $res]]
            foreach m $res { assert_equal 1 [r sismember s $m] }
        }
        assert_equal_unordered [sample_members $enc] [r srandmember s 5]
        assert_equal_unordered [sample_members $enc] [r srandmember s 100]
    }

    test "SRANDMEMBER with a negative count: repeats allowed ($enc)" {
        make_set s $enc [sample_members $enc]
        set res [r srandmember s -100]
        assert_equal 100 [llength $res]
        foreach m $res { assert_equal 1 [r sismember s $m] }
        assert_equal_unordered [sample_members $enc] [lsort -unique $res]
        assert_equal 1 [llength [r srandmember s -1]]
    }
}

test "SRANDMEMBER on a big hashtable set: both sampling strategies" {
    r del s
    set args {}
    for {set i 0} {$i < 300} {incr i} { lappend args m$i }
    r sadd s {*}$args
    foreach c {5 50 150 299} {
        set res [r srandmember s $c]
        assert_equal $c [llength [lsort -unique $res]]
        foreach m $res { assert_match m* $m }
    }
    # every member can come out
    set seen {}
    for {set i 0} {$i < 100} {incr i} { foreach m [r srandmember s 50] { dict set seen $m 1 } }
    assert_equal 300 [dict size $seen]
}

test "SRANDMEMBER count 0, missing key, errors" {
    r del s nokey
    r sadd s a b
    assert_equal {} [r srandmember s 0]
    assert_equal {} [r srandmember nokey]
    assert_equal {} [r srandmember nokey 5]
    assert_equal {} [r srandmember nokey -5]
    assert_error {ERR value is not an integer or out of range} {r srandmember s abc}
    assert_error {ERR value is not an integer or out of range} {r srandmember s 1.5}
    assert_error {ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807} {r srandmember s -9223372036854775808}
    assert_error {ERR syntax error} {r srandmember s 1 2}
    assert_equal 2 [llength [r srandmember s 9223372036854775807]]
}

test "SRANDMEMBER / SPOP reply types in RESP3" {
    r del s
    r sadd s a b c
    set c [redis_client -resp 3]
    $c readraw 1
    assert_equal {*2} [$c srandmember s 2]
    $c read; $c read; $c read; $c read
    assert_equal {*0} [$c srandmember s 0]
    assert_equal {~3} [$c smembers s]
    $c read; $c read; $c read; $c read; $c read; $c read
    assert_equal {~1} [$c spop s 1]
    $c read; $c read
    assert_equal {~0} [$c spop s 0]
    assert_equal {~0} [$c smembers nokey]
    assert_equal {_} [$c spop nokey]
    assert_equal {~0} [$c spop nokey 3]
    assert_equal {~0} [$c sinter s nokey]
    $c close
}

# ---- SPOP ------------------------------------------------------------------------------------

foreach enc {intset listpack hashtable} {
    test "SPOP without count ($enc)" {
        make_set s $enc [sample_members $enc]
        set popped {}
        for {set i 0} {$i < 5} {incr i} { lappend popped [r spop s] }
        assert_equal_unordered [sample_members $enc] $popped
        assert_equal 0 [r exists s]
        assert_equal {} [r spop s]
    }

    test "SPOP with count ($enc)" {
        make_set s $enc [sample_members $enc]
        set a [r spop s 2]
        assert_equal 2 [llength $a]
        assert_equal 3 [r scard s]
        foreach m $a { assert_equal 0 [r sismember s $m] }
        set b [r spop s 10]
        assert_equal 3 [llength $b]
        assert_equal_unordered [sample_members $enc] [concat $a $b]
        assert_equal 0 [r exists s]
    }
}

test "SPOP count 0, missing key, errors" {
    r del s nokey
    r sadd s a b
    assert_equal {} [r spop s 0]
    assert_equal 2 [r scard s]
    assert_equal {} [r spop nokey 3]
    assert_equal {} [r spop nokey]
    assert_error {ERR value is out of range, must be positive} {r spop s -1}
    assert_error {ERR value is out of range, must be positive} {r spop s abc}
    assert_error {ERR syntax error} {r spop s 1 2}
    assert_equal 2 [r scard s]
}

test "SPOP with count: each strategy keeps the remaining members right" {
    foreach {enc n count} {
        intset 400 10   intset 400 390   listpack 100 10   listpack 100 95
        hashtable 400 10   hashtable 400 395
    } {
        set members {}
        for {set i 0} {$i < $n} {incr i} {
            lappend members [expr {$enc eq "intset" ? $i : "m$i"}]
        }
        make_set s $enc $members
        set popped [r spop s $count]
        assert_equal $count [llength [lsort -unique $popped]]
        set left [r smembers s]
        assert_equal [expr {$n - $count}] [llength $left]
        assert_equal_unordered $members [concat $popped $left]
    }
}

test "SPOP with count: the rebuilt remainder takes a smaller encoding" {
    # hashtable of strings, 5 left -> listpack
    r del s
    set members {}
    for {set i 0} {$i < 300} {incr i} { lappend members m$i }
    r sadd s {*}$members
    assert_encoding hashtable s
    r spop s 295
    assert_encoding listpack s
    assert_equal 5 [r scard s]
    # hashtable of integers (over the intset limit), 10 left: members come out of a
    # hashtable as strings, so the new value is a listpack
    r del s
    set members {}
    for {set i 0} {$i < 600} {incr i} { lappend members $i }
    r sadd s {*}$members
    assert_encoding hashtable s
    r spop s 590
    assert_encoding listpack s
    assert_equal 10 [r scard s]
    # intset stays intset
    r del s
    r sadd s {*}[lrange $members 0 99]
    r spop s 95
    assert_encoding intset s
    assert_equal 5 [r scard s]
    # a hashtable with many members left stays hashtable
    r del s
    r sadd s {*}$members
    r spop s 10
    assert_encoding hashtable s
}

# ---- SMOVE -----------------------------------------------------------------------------------

foreach enc {intset listpack hashtable} {
    test "SMOVE between sets ($enc source)" {
        make_set src $enc [sample_members $enc]
        r del dst
        r sadd dst x
        set m [lindex [sample_members $enc] 0]
        assert_equal 1 [r smove src dst $m]
        assert_equal 0 [r sismember src $m]
        assert_equal 1 [r sismember dst $m]
        assert_equal 4 [r scard src]
        assert_equal 0 [r smove src dst nope]
        # already in the destination: still removed from the source, reply 1
        r sadd src x
        assert_equal 1 [r smove src dst x]
        assert_equal 0 [r sismember src x]
        assert_equal 2 [r scard dst]
    }
}

test "SMOVE creates the destination with the member's encoding" {
    r del src d1 d2
    r sadd src 5 a
    assert_equal 1 [r smove src d1 5]
    assert_encoding intset d1
    assert_equal 1 [r smove src d2 a]
    assert_encoding listpack d2
    assert_equal 0 [r exists src]
}

test "SMOVE converts a full destination" {
    r del src dst
    for {set i 0} {$i < 128} {incr i} { r sadd dst m$i }
    assert_encoding listpack dst
    r sadd src extra
    assert_equal 1 [r smove src dst extra]
    assert_encoding hashtable dst
    assert_equal 129 [r scard dst]
}

test "SMOVE edge cases: same key, missing source, wrong types" {
    r del s nokey str
    r sadd s a b
    r set str x
    assert_equal 1 [r smove s s a]
    assert_equal 0 [r smove s s zz]
    assert_equal 2 [r scard s]
    assert_equal 0 [r smove nokey s a]
    assert_equal 0 [r smove nokey str a]
    assert_error {WRONGTYPE*} {r smove str s a}
    assert_error {WRONGTYPE*} {r smove s str a}
    assert_equal 2 [r scard s]
    assert_equal 0 [r exists nokey]
}

# ---- SINTER / SUNION / SDIFF and the STORE forms ----------------------------------------------

foreach e1 {intset listpack hashtable} {
    foreach e2 {intset listpack hashtable} {
        test "SINTER / SUNION / SDIFF ($e1, $e2)" {
            set m1 [expr {$e1 eq "intset" ? {1 2 3 4 5} : {a b c 1 2}}]
            set m2 [expr {$e2 eq "intset" ? {2 3 4 10 11} : {b c 2 3 z}}]
            make_set x $e1 $m1
            make_set y $e2 $m2
            set inter {}; set diff {}
            foreach m $m1 {
                if {[lsearch -exact $m2 $m] >= 0} { lappend inter $m } else { lappend diff $m }
            }
            set union [lsort -unique [concat $m1 $m2]]
            assert_equal_unordered $inter [r sinter x y]
            assert_equal_unordered $union [r sunion x y]
            assert_equal_unordered $diff [r sdiff x y]
            assert_equal [llength $inter] [r sintercard 2 x y]
            assert_equal [llength $inter] [r sinterstore d x y]
            assert_equal_unordered $inter [r smembers d]
            assert_equal [llength $union] [r sunionstore d x y]
            assert_equal_unordered $union [r smembers d]
            assert_equal [llength $diff] [r sdiffstore d x y]
            assert_equal_unordered $diff [r smembers d]
        }
    }
}

test "SINTER / SUNION / SDIFF with missing keys and a single key" {
    r del a b nokey
    r sadd a 1 2 3
    r sadd b 3 4
    assert_equal {} [r sinter a nokey]
    assert_equal {} [r sinter nokey a]
    assert_equal_unordered {1 2 3} [r sinter a]
    assert_equal_unordered {1 2 3} [r sunion a nokey]
    assert_equal {} [r sunion nokey]
    assert_equal_unordered {1 2 3} [r sdiff a nokey]
    assert_equal {} [r sdiff nokey a]
    assert_equal {} [r sdiff a a]
    assert_equal {} [r sdiff a b a]
    assert_equal_unordered {1 2} [r sdiff a b]
    assert_equal_unordered {3} [r sinter a b a]
    assert_equal_unordered {1 2 3} [r sinter a a]
}

test "SDIFF with many subtracted sets (both algorithms)" {
    r del a b c d
    set args {}
    for {set i 0} {$i < 200} {incr i} { lappend args m$i }
    r sadd a {*}$args
    r sadd b m1 m2 m3
    r sadd c m4 nothere
    # big first set, small others: walk-and-check
    assert_equal 196 [llength [r sdiff a b c]]
    # small first set, big others: copy-and-remove
    r sadd d m1 m2 m500
    assert_equal {m500} [r sdiff d a a b c]
    assert_equal {} [r sdiff b a]
}

test "Set operations: WRONGTYPE wherever the bad key is, even after a missing key" {
    r del s str nokey d
    r sadd s a
    r set str x
    foreach cmd {sinter sunion sdiff} {
        assert_error {WRONGTYPE*} {r $cmd s str}
        assert_error {WRONGTYPE*} {r $cmd nokey str}
        assert_error {WRONGTYPE*} {r $cmd str nokey}
    }
    foreach cmd {sinterstore sunionstore sdiffstore} {
        assert_error {WRONGTYPE*} {r $cmd d nokey str}
        assert_equal 0 [r exists d]
    }
    assert_error {WRONGTYPE*} {r sintercard 2 nokey str}
}

test "*STORE results take the smallest fitting encoding" {
    r del a b d
    # intset inputs -> intset
    r sadd a 1 2 3 x
    r srem a x
    assert_encoding listpack a
    r sadd b 1 2 3
    r sinterstore d a b
    assert_encoding intset d
    r sunionstore d a b
    assert_encoding intset d
    r sdiffstore d a nokey
    assert_encoding intset d
    # hashtable inputs with few small members -> listpack / intset
    make_set h1 hashtable {a b c 1}
    make_set h2 hashtable {a b 1 zz}
    r sinterstore d h1 h2
    assert_encoding listpack d
    assert_equal_unordered {a b 1} [r smembers d]
    r sunionstore d h1 h2
    assert_encoding listpack d
    r sdiffstore d h1 h2
    assert_encoding listpack d
    assert_equal {c} [r smembers d]
    make_set h3 hashtable {1 2 3}
    make_set h4 hashtable {2 3 4}
    r sinterstore d h3 h4
    assert_encoding intset d
    r sunionstore d h3 h4
    assert_encoding intset d
    # many integers from hashtables -> intset (up to 512), more -> hashtable
    r del h5 h6
    set ints {}
    for {set i 0} {$i < 300} {incr i} { lappend ints $i }
    r sadd h5 {*}$ints x
    r sadd h6 {*}$ints y
    assert_encoding hashtable h5
    assert_equal 300 [r sinterstore d h5 h6]
    assert_encoding intset d
    assert_equal 302 [r sunionstore d h5 h6]
    assert_encoding hashtable d
    # many strings -> hashtable
    r del a
    for {set i 0} {$i < 200} {incr i} { lappend strs s$i }
    r sadd a {*}$strs
    r sunionstore d a
    assert_encoding hashtable d
}

test "*STORE: empty result deletes the destination, any old type is replaced" {
    r del a b d
    r sadd a 1 2
    r sadd b 3
    r set d somestring
    assert_equal 0 [r sinterstore d a b]
    assert_equal 0 [r exists d]
    r set d somestring
    assert_equal 0 [r sdiffstore d a a]
    assert_equal 0 [r exists d]
    r set d somestring
    assert_equal 0 [r sunionstore d nokey]
    assert_equal 0 [r exists d]
    r set d somestring
    assert_equal 0 [r sinterstore d a nokey]
    assert_equal 0 [r exists d]
    r hset d f v
    assert_equal 3 [r sunionstore d a b]
    assert_type set d
    assert_equal_unordered {1 2 3} [r smembers d]
    # TTL of an overwritten destination is dropped
    r expire d 100
    r sunionstore d a
    assert_equal -1 [r ttl d]
}

test "*STORE: the destination may be one of the sources" {
    r del a b
    r sadd a 1 2 3
    r sadd b 2 3 4
    assert_equal 2 [r sinterstore a a b]
    assert_equal_unordered {2 3} [r smembers a]
    assert_equal 3 [r sunionstore a a b]
    assert_equal_unordered {2 3 4} [r smembers a]
    assert_equal 0 [r sdiffstore a a b]
    assert_equal 0 [r exists a]
}

test "SINTERCARD: limit, missing keys, errors" {
    r del a b nokey
    r sadd a 1 2 3 4 5 x
    r sadd b 1 2 3 4 y x
    assert_equal 5 [r sintercard 2 a b]
    assert_equal 5 [r sintercard 2 a b limit 0]
    assert_equal 3 [r sintercard 2 a b LIMIT 3]
    assert_equal 5 [r sintercard 2 a b limit 10]
    assert_equal 6 [r sintercard 1 a]
    assert_equal 0 [r sintercard 2 a nokey]
    assert_equal 0 [r sintercard 1 nokey]
    assert_error {ERR numkeys should be greater than 0} {r sintercard 0 a}
    assert_error {ERR numkeys should be greater than 0} {r sintercard -1 a}
    assert_error {ERR numkeys should be greater than 0} {r sintercard abc a}
    assert_error {ERR Number of keys can't be greater than number of args} {r sintercard 3 a b}
    assert_error {ERR LIMIT can't be negative} {r sintercard 2 a b limit -1}
    assert_error {ERR LIMIT can't be negative} {r sintercard 2 a b limit abc}
    assert_error {ERR LIMIT can't be negative} {r sintercard 1 nokey limit -1}
    assert_error {ERR syntax error} {r sintercard 2 a b limit}
    assert_error {ERR syntax error} {r sintercard 2 a b foo}
    assert_error {ERR syntax error} {r sintercard 1 a b}
    # a big intersection with a limit
    r del h1 h2
    set args {}
    for {set i 0} {$i < 1000} {incr i} { lappend args m$i }
    r sadd h1 {*}$args
    r sadd h2 {*}$args
    assert_equal 1000 [r sintercard 2 h1 h2]
    assert_equal 7 [r sintercard 2 h1 h2 limit 7]
}

# ---- SSCAN -----------------------------------------------------------------------------------

foreach enc {intset listpack} {
    test "SSCAN returns everything at once ($enc)" {
        make_set s $enc [sample_members $enc]
        lassign [r sscan s 0] cursor members
        assert_equal 0 $cursor
        assert_equal_unordered [sample_members $enc] $members
        lassign [r sscan s 0 count 1] cursor members
        assert_equal 0 $cursor
        assert_equal 5 [llength $members]
        lassign [r sscan s 0 match 1*] cursor members
        assert_equal {1} $members
    }
}

test "SSCAN iterates a hashtable set completely" {
    r del s
    set args {}
    for {set i 0} {$i < 1000} {incr i} { lappend args m$i }
    r sadd s {*}$args
    foreach count {1 10 100} {
        set cursor 0
        set seen {}
        set calls 0
        while 1 {
            lassign [r sscan s $cursor count $count] cursor members
            foreach m $members { dict set seen $m 1 }
            incr calls
            if {$cursor == 0} break
        }
        assert_equal 1000 [dict size $seen]
        if {$count == 1} { assert_morethan $calls 10 }
    }
    # MATCH filters after sampling
    set cursor 0
    set seen {}
    while 1 {
        lassign [r sscan s $cursor match m1?] cursor members
        foreach m $members { dict set seen $m 1 }
        if {$cursor == 0} break
    }
    assert_equal_unordered {m10 m11 m12 m13 m14 m15 m16 m17 m18 m19} [dict keys $seen]
}

test "SSCAN: missing key, bad cursor, bad options" {
    r del s nokey
    r sadd s 1 2 3
    assert_equal {0 {}} [r sscan nokey 0]
    assert_equal {0 {}} [r sscan nokey 0 count 0]
    assert_error {ERR invalid cursor} {r sscan s abc}
    assert_error {ERR invalid cursor} {r sscan s 18446744073709551616}
    assert_error {ERR invalid cursor} {r sscan nokey abc}
    # Redis 7.4 cursor rules (string2ull): "-1" is invalid, "+5" is a cursor.
    assert_error {ERR invalid cursor} {r sscan s -1}
    assert_equal {0 {1 2 3}} [r sscan s +5]
    assert_error {ERR syntax error} {r sscan s 0 count 0}
    assert_error {ERR syntax error} {r sscan s 0 novalues}
    assert_error {ERR syntax error} {r sscan s 0 match}
    assert_error {ERR syntax error} {r sscan s 0 type set}
    assert_error {ERR value is not an integer or out of range} {r sscan s 0 count abc}
}

# ---- misc ------------------------------------------------------------------------------------

test "SADD / SREM inside MULTI and on an expired key" {
    r del s
    r sadd s a
    r pexpire s 1
    after 5
    assert_equal 1 [r sadd s b]
    assert_equal {b} [r smembers s]
    assert_equal -1 [r ttl s]
    r multi
    r sadd s c
    r srem s b
    r scard s
    assert_equal {1 1 1} [r exec]
}

test "COPY and RENAME keep a set's members and encoding" {
    foreach enc {intset listpack hashtable} {
        make_set s $enc [sample_members $enc]
        r del c1
        r copy s c1
        assert_encoding $enc c1
        r sadd s extra
        assert_equal 0 [r sismember c1 extra]
        assert_equal_unordered [sample_members $enc] [r smembers c1]
        r rename c1 c2
        assert_encoding $enc c2
        assert_equal 5 [r scard c2]
        r del c2
    }
}

test "Random operations against a Tcl model" {
    r del s
    r config set set-max-intset-entries 20
    r config set set-max-listpack-entries 15
    set model {}
    for {set i 0} {$i < 2000} {incr i} {
        set op [expr {int(rand() * 6)}]
        set m [expr {rand() < 0.5 ? int(rand() * 40) : "s[expr {int(rand() * 40)}]"}]
        switch $op {
            0 - 1 - 2 {
                set exp [expr {[dict exists $model $m] ? 0 : 1}]
                assert_equal $exp [r sadd s $m]
                dict set model $m 1
            }
            3 - 4 {
                set exp [expr {[dict exists $model $m] ? 1 : 0}]
                assert_equal $exp [r srem s $m]
                dict unset model $m
            }
            5 {
                set p [r spop s]
                if {[dict size $model] == 0} {
                    assert_equal {} $p
                } else {
                    assert {[dict exists $model $p]}
                    dict unset model $p
                }
            }
        }
    }
    assert_equal [dict size $model] [r scard s]
    assert_equal_unordered [dict keys $model] [r smembers s]
    reset_set_limits
}

}
