# OBJECT ENCODING / REFCOUNT / IDLETIME / FREQ / HELP. Replies were checked against
# redis-server 7.0.15.

tags {object} {

test "OBJECT ENCODING of strings" {
    r flushall
    r set i 12345
    r set neg -7
    r set s hello
    r set e ""
    r set b44 [string repeat a 44]
    r set b45 [string repeat a 45]
    r set big [string repeat a 1000]
    r set notcanon 007
    assert_equal int [r object encoding i]
    assert_equal int [r object encoding neg]
    assert_equal embstr [r object encoding s]
    assert_equal embstr [r object encoding e]
    assert_equal embstr [r object encoding b44]
    assert_equal raw [r object encoding b45]
    assert_equal raw [r object encoding big]
    assert_equal embstr [r object encoding notcanon]
    assert_equal int [r OBJECT ENCODING i]
}

test "OBJECT on a missing key returns null" {
    r flushall
    assert_equal {} [r object encoding nokey]
    assert_equal {} [r object refcount nokey]
    assert_equal {} [r object idletime nokey]
    r readraw 1
    assert_equal {$-1} [r object encoding nokey]
    r readraw 0
}

test "OBJECT REFCOUNT" {
    r flushall
    r set small 100
    r set zero 0
    r set edge 10000
    r set neg -1
    r set s abc
    assert_equal 2147483647 [r object refcount small]
    assert_equal 2147483647 [r object refcount zero]
    assert_equal 1 [r object refcount edge]
    assert_equal 1 [r object refcount neg]
    assert_equal 1 [r object refcount s]
}

test "OBJECT IDLETIME grows, reads reset it, OBJECT/TYPE/EXISTS/TTL do not" {
    r flushall
    r set a v
    r set b v
    assert_range [r object idletime a] 0 1
    after 2100
    assert_morethan_equal [r object idletime a] 1
    r type a
    r exists a
    r ttl a
    r object encoding a
    assert_morethan_equal [r object idletime a] 1
    r get a
    assert_equal 0 [r object idletime a]
    r touch b
    assert_equal 0 [r object idletime b]
}

test "RENAME and MOVE touch the key they move (write lookup)" {
    r flushall
    r set a v
    after 1100
    set idle [r object idletime a]
    assert_morethan_equal $idle 1
    r rename a b
    assert_range [r object idletime b] 0 0
    after 1100
    r move b 1
    r select 1
    assert_range [r object idletime b] 0 0
    r flushall
    r select 0
}

test "OBJECT FREQ without an LFU policy is an error" {
    r flushall
    r set k v
    assert_error {ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.} {r object freq k}
    assert_equal {} [r object freq nokey]
}

test "OBJECT FREQ and IDLETIME with an LFU policy" {
    if {[catch {r config set maxmemory-policy allkeys-lfu}]} { skip_test "no maxmemory-policy yet" }
    r set k v
    assert_morethan_equal [r object freq k] 0
    assert_error {ERR An LFU maxmemory policy is selected, idle time not tracked.*} {r object idletime k}
    r config set maxmemory-policy noeviction
    assert_error {ERR An LFU maxmemory policy is not selected*} {r object freq k}
}

test "OBJECT HELP" {
    set help [r object help]
    assert_equal {OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} [lindex $help 0]
    assert_equal 15 [llength $help]
    assert_equal {ENCODING <key>} [lindex $help 1]
    assert_equal {HELP} [lindex $help end-1]
}

test "OBJECT errors" {
    r set k v
    assert_error {ERR unknown subcommand 'foo'. Try OBJECT HELP.} {r object foo k}
    assert_error {*wrong number of arguments for 'object' command*} {r object}
    assert_error {*wrong number of arguments for 'object|encoding' command*} {r object encoding}
    assert_error {*wrong number of arguments for 'object|encoding' command*} {r object encoding a b}
    assert_error {*wrong number of arguments for 'object|refcount' command*} {r object refcount}
    assert_error {*wrong number of arguments for 'object|idletime' command*} {r object idletime}
    assert_error {*wrong number of arguments for 'object|freq' command*} {r object freq}
    assert_error {*wrong number of arguments for 'object|help' command*} {r object help x}
}

test "OBJECT sees an expired key as missing" {
    r flushall
    r debug set-active-expire 0
    r set k 1
    r pexpire k 1
    after 5
    assert_equal {} [r object encoding k]
    assert_equal 0 [r dbsize]
    r debug set-active-expire 1
}

# Found by tests/fuzz/cmdfuzz.py: Keel updated a key's LRU clock on read lookups only; Redis's
# write lookups (lookupKeyWrite) touch too. CLIENT NO-TOUCH (Redis 7.2, Keel only here) stops
# both, except for TOUCH itself. One wait serves every check (idle times are in seconds).
test "OBJECT IDLETIME: write lookups touch, EXISTS/TYPE do not, CLIENT NO-TOUCH stops both" {
    r flushall
    foreach k {w1 w2 w3 w4 r1 n1 n2 n3 n4} { r set $k value }
    r rpush l1 x
    r hset h1 f v
    r rpush nl x
    after 2100
    r persist w1
    r expire w2 100
    r setnx w3 other
    r rename w4 w4
    r lpush l1 y
    r hset h1 g w
    r exists r1
    r type r1
    foreach k {w1 w2 w3 w4 l1 h1} { assert_range [r object idletime $k] 0 1 "key $k" }
    assert_morethan_equal [r object idletime r1] 2
    if {[is_keel]} {
        set c [redis_client]
        $c client no-touch on
        $c get n1
        $c expire n2 100
        $c lpush nl z
        $c touch n3
        foreach k {n1 n2 nl} { assert_morethan_equal [r object idletime $k] 2 "key $k" }
        assert_range [r object idletime n3] 0 1
        # Commands a script runs inherit the caller's NO-TOUCH (Redis looks at the caller).
        $c eval {return redis.call('get', KEYS[1])} 1 n4
        assert_morethan_equal [r object idletime n4] 2
        $c close
    }
}

}
