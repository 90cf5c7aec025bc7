# Keyspace notifications of the set commands: exact event sequences (keyspace and keyevent
# channels, `new` included with KEA + n), and no event when nothing changes. Every sequence was
# checked against redis-server 7.0.15 with a PSUBSCRIBE __key*__:* reader (this file also passes
# with --server /usr/bin/redis-server).

tags {pubsub notifications} {

test "Set events: SADD on a new key, an existing key, nothing added" {
    set ev [events_of KEAn {} {
        r sadd s a b
        r sadd s c
        r sadd s a
    }]
    assert_equal [concat [ke s {new sadd}] [ke s sadd]] $ev
}

test "Set events: SADD of many members converting up front is still one sadd" {
    set args {}
    for {set i 0} {$i < 300} {incr i} { lappend args m$i }
    set ev [events_of KEA {r sadd s x} {
        r sadd s {*}$args
    }]
    assert_equal [ke s sadd] $ev
}

test "Set events: SREM, SREM emptying the key, SREM of missing members" {
    set ev [events_of KEA {r sadd s a b c} {
        r srem s a zz
        r srem s nothere
        r srem nokey a
        r srem s b c
    }]
    assert_equal [concat [ke s srem] [ke s {srem del}]] $ev
}

test "Set events: SPOP single, with count, emptying, count 0, missing key" {
    set ev [events_of KEA {r sadd s a b c d e} {
        r spop s
        r spop s 2
        r spop s 0
        r spop nokey
        r spop nokey 3
        r spop s 5
    }]
    assert_equal [concat [ke s spop] [ke s spop] [ke s {spop del}]] $ev
}

test "Set events: SPOP single emptying the key" {
    set ev [events_of KEA {r sadd s a} {
        r spop s
    }]
    assert_equal [ke s {spop del}] $ev
}

test "Set events: SPOP with count taking the rebuild path" {
    set args {}
    for {set i 0} {$i < 200} {incr i} { lappend args m$i }
    set ev [events_of KEA {r sadd s {*}$args} {
        r spop s 190
    }]
    assert_equal [ke s spop] $ev
}

test "Set events: SMOVE to a new key, to an existing key, emptying the source" {
    set ev [events_of KEAn {r sadd src a b c; r sadd dst x} {
        r smove src newdst a
        r smove src dst b
        r smove src dst nothere
        r smove src src c
        r smove src dst c
    }]
    set exp [concat [ke src srem] [ke newdst {new sadd}] \
                    [ke src srem] [ke dst sadd] \
                    [ke src {srem del}] [ke dst sadd]]
    assert_equal $exp $ev
}

test "Set events: SMOVE of a member the destination already has" {
    set ev [events_of KEA {r sadd src a b; r sadd dst a} {
        r smove src dst a
    }]
    assert_equal [ke src srem] $ev
}

test "Set events: SINTERSTORE / SUNIONSTORE / SDIFFSTORE" {
    set ev [events_of KEAn {r sadd a 1 2 3; r sadd b 2 3 4} {
        r sinterstore i a b
        r sunionstore u a b
        r sdiffstore d a b
        r sunionstore u a
    }]
    set exp [concat [ke i {new sinterstore}] [ke u {new sunionstore}] \
                    [ke d {new sdiffstore}] [ke u sunionstore]]
    assert_equal $exp $ev
}

test "Set events: *STORE with an empty result deletes the destination (del only)" {
    set ev [events_of KEAn {r sadd a 1 2 3; r set i x; r set u x; r set d x} {
        r sinterstore i a nokey
        r sunionstore u nokey
        r sdiffstore d a a
        r sinterstore none a nokey
        r sdiffstore none a a
    }]
    assert_equal [concat [ke i del] [ke u del] [ke d del]] $ev
}

test "Set events: *STORE over a key of another type" {
    set ev [events_of KEA {r sadd a 1 2; r set d x} {
        r sunionstore d a
    }]
    assert_equal [ke d sunionstore] $ev
}

test "Set events: read-only commands emit nothing, only the set class is sent with Ks" {
    set ev [events_of Ks {r sadd a 1 2; r sadd b 2} {
        r scard a
        r sismember a 1
        r smismember a 1 2
        r smembers a
        r srandmember a
        r srandmember a -3
        r sinter a b
        r sunion a b
        r sdiff a b
        r sintercard 2 a b
        r sscan a 0
        r sadd a 3
        r srem b 2
    }]
    assert_equal [list [list __keyspace@0__:a sadd] [list __keyspace@0__:b srem]] $ev
}

}
