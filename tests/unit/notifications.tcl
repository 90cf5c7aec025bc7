# Keyspace notifications for the string and generic commands: exact event sequences, keyspace vs
# keyevent channel formats, K-only / E-only, class filtering, `n` (new) and `m` (keymiss) outside
# `A`, lazy and active expiry. Every sequence here was checked against redis-server 7.0.15 with a
# PSUBSCRIBE __key*__:* reader (7.0 and 7.4 give the same streams).

tags {pubsub notifications} {

test "notify-keyspace-events canonical form" {
    r config set notify-keyspace-events KEA
    assert_equal {notify-keyspace-events AKE} [r config get notify-keyspace-events]
    r config set notify-keyspace-events gl\$K
    assert_equal [list notify-keyspace-events {g$lK}] [r config get notify-keyspace-events]
    r config set notify-keyspace-events ""
    assert_error {*Invalid event class character*} {r config set notify-keyspace-events KEAq}
    assert_equal {notify-keyspace-events {}} [r config get notify-keyspace-events]
}

test "SET of a new key: 'new' only with n" {
    assert_equal [ke 0 k set] [events_of KEA {} { r set k v }]
    assert_equal [ke 0 k {new set}] [events_of KEAn {} { r set k v }]
}

test "SET with EX on a new key, then an overwrite" {
    assert_equal [concat [ke 0 k {new set expire}] [ke 0 k set]] [events_of KEAn {} {
        r set k v ex 100
        r set k v2
    }]
}

test "SET variants: SETNX SETEX PSETEX GETSET SET GET/NX/XX KEEPTTL" {
    set ev [events_of KEA {} {
        r setnx a 1
        r setnx a 2
        r setex b 100 x
        r psetex c 100000 y
        r getset a 3
        r set a 4 get
        r set a 5 nx
        r set a 6 xx keepttl
    }]
    assert_equal [concat [ke 0 a set] [ke 0 b {set expire}] [ke 0 c {set expire}] \
                      [ke 0 a {set set set}]] $ev
}

test "MSET and MSETNX: one set per key, nothing when MSETNX fails" {
    assert_equal [concat [ke 0 a {new set}] [ke 0 b {new set}] [ke 0 c {new set}] [ke 0 d {new set}]] \
        [events_of KEAn {} {
            r mset a 1 b 2
            r msetnx c 1 d 2
            r msetnx c 1 e 2
        }]
}

test "DEL and UNLINK: del per deleted key only" {
    assert_equal [concat [ke 0 a set] [ke 0 b set] [ke 0 a del] [ke 0 b del]] [events_of KEA {} {
        r set a 1
        r set b 1
        r del a nokey
        r unlink b nokey
    }]
}

test "EXPIRE family: expire; a time in the past deletes with del" {
    assert_equal [concat [ke 0 a {set expire expire expire expire del}]] [events_of KEA {} {
        r set a 1
        r expire a 100
        r pexpire a 100000
        r expireat a 9999999999
        r pexpireat a 9999999999000
        r expire a -1
        r expire nokey 10
    }]
    assert_equal [ke 0 a {set del}] [events_of KEA {} {
        r set a 1
        r pexpireat a 1
    }]
}

test "EXPIRE with NX/GT that changes nothing emits nothing" {
    assert_equal [ke 0 a {set expire}] [events_of KEA {} {
        r set a 1
        r expire a 100 nx
        r expire a 100 nx
        r expire a 10 gt
    }]
}

test "PERSIST: persist only when a TTL was removed" {
    assert_equal [ke 0 a {set expire persist}] [events_of KEA {} {
        r set a 1 ex 100
        r persist a
        r persist a
        r persist nokey
    }]
}

test "RENAME and RENAMENX: new(dst) rename_from rename_to; overwritten dst is silent" {
    set ev [events_of KEAn {} {
        r set a 1
        r set b 2
        r rename a b
        r renamenx b c
        r rename c c
    }]
    assert_equal [concat [ke 0 a {new set}] [ke 0 b {new set}] \
                      [ke 0 b new] [ke 0 a rename_from] [ke 0 b rename_to] \
                      [ke 0 c new] [ke 0 b rename_from] [ke 0 c rename_to]] $ev
}

test "MOVE: new and move_to in the destination db, move_from in the source" {
    assert_equal [concat [ke 0 a {new set}] [ke 1 a new] [ke 0 a move_from] [ke 1 a move_to]] \
        [events_of KEAn {} {
            r set a 1
            r move a 1
        }]
    r flushall
}

test "COPY: new and copy_to on the destination (also with DB and REPLACE)" {
    assert_equal [concat [ke 0 a {new set}] [ke 0 b {new copy_to}] [ke 0 b {new copy_to}] \
                      [ke 2 b {new copy_to}]] [events_of KEAn {} {
        r set a 1
        r copy a b
        r copy a b replace
        r copy a b db 2
        r copy a b
    }]
    r flushall
}

test "INCR family: incrby / incrbyfloat" {
    assert_equal [concat [ke 0 i {new incrby incrby incrby incrby}] [ke 0 f {new incrbyfloat}]] \
        [events_of KEAn {} {
            r incr i
            r incrby i 5
            r decr i
            r decrby i 2
            r incrbyfloat f 1.5
        }]
}

test "A failing command emits nothing" {
    assert_equal [ke 0 a set] [events_of KEA {} {
        r set a x
        catch {r incr a}
        catch {r incrbyfloat a 1}
        catch {r setrange a -1 x}
    }]
}

test "APPEND and SETRANGE (an empty SETRANGE on a missing key creates nothing)" {
    assert_equal [concat [ke 0 s {new append append setrange}] [ke 0 s3 {new setrange}]] \
        [events_of KEAn {} {
            r append s ab
            r append s cd
            r setrange s 1 X
            r setrange s2 0 ""
            r setrange s3 2 y
        }]
    # A zero-length APPEND on an existing key still says append; a zero-length SETRANGE does not.
    assert_equal [ke 0 a {set append}] [events_of KEA {} {
        r set a abc
        r append a ""
        r setrange a 1 ""
    }]
}

test "SETBIT: setbit every time, BITFIELD when it writes" {
    assert_equal [ke 0 b {new setbit setbit}] [events_of KEAn {} {
        r setbit b 7 1
        r setbit b 7 1
        r setbit b 7 0
    }]
    assert_equal [ke 0 bf {new setbit setbit}] [events_of KEAn {} {
        r bitfield bf set u8 0 1
        r bitfield bf get u8 0
        r bitfield bf incrby u8 0 1
    }]
}

test "BITOP: set on the destination, del when an empty result replaces it" {
    assert_equal [concat [ke 0 a {new set}] [ke 0 d {new set del}]] [events_of KEAn {} {
        r set a abc
        r bitop and d a
        r bitop and d nokey
        r bitop or e nokey
    }]
}

test "GETDEL and GETEX variants" {
    assert_equal [ke 0 a {set del}] [events_of KEA {} {
        r set a 1
        r getdel a
        r getdel a
    }]
    assert_equal [ke 0 a {set expire persist expire del}] [events_of KEA {} {
        r set a 1
        r getex a
        r getex a ex 100
        r getex a persist
        r getex a px 100000
        r getex a exat 1
    }]
}

test "Keymiss events need m (not part of A)" {
    assert_equal [ke 0 a set] [events_of KEA {} {
        r get nokey
        r set a 1
    }]
    assert_equal [concat [ke 0 nokey keymiss] [ke 0 a set] [ke 0 nokey {keymiss keymiss}]] \
        [events_of KEAm {} {
            r get nokey
            r set a 1
            r get a
            r strlen nokey
            r mget nokey a
        }]
}

test "Lazy expiry on access: expired, then keymiss with m" {
    r debug set-active-expire 0
    set ev [events_of KEAm {} {
        r set a 1 px 10
        after 30
        r get a
    }]
    assert_equal [ke 0 a {set expire expired keymiss}] $ev
    # A write over the expired key: expired, then the write's own events.
    set ev [events_of KEA {} {
        r set a 1 px 10
        after 30
        r set a 2
    }]
    assert_equal [ke 0 a {set expire expired set}] $ev
    r debug set-active-expire 1
}

test "Active expiry emits expired" {
    set ev [events_of KEA {} {
        r set a 1 px 10
        wait_for_condition 100 10 {[r dbsize] == 0}
    }]
    assert_equal [ke 0 a {set expire expired}] $ev
}

test "Keyspace and keyevent channel formats, db number included" {
    set ev [events_of KEA {} {
        r select 9
        r set dbkey v
    }]
    assert_equal {{__keyspace@9__:dbkey set} {__keyevent@9__:set dbkey}} $ev
    r select 9
    r flushdb
    r select 0
}

test "K only publishes keyspace events, E only keyevent events" {
    assert_equal {{__keyspace@0__:a set} {__keyspace@0__:a del}} [events_of KA {} {
        r set a 1
        r del a
    }]
    assert_equal {{__keyevent@0__:set a} {__keyevent@0__:del a}} [events_of EA {} {
        r set a 1
        r del a
    }]
    # Classes without K or E publish nothing.
    assert_equal {} [events_of A {} {
        r set a 1
        r del a
    }]
}

test "Class filtering: \$ only, g only, x only" {
    assert_equal [concat [ke 0 a set] [ke 0 a incrby]] [events_of KE\$ {} {
        r set a 1
        r expire a 100
        r del a
        r incr a
    }]
    assert_equal [concat [ke 0 a del]] [events_of KEg {} {
        r set a 1
        r del a
        r expire nokey 1
    }]
    assert_equal [ke 0 a expired] [events_of KEx {} {
        r set a 1 px 10
        wait_for_condition 100 10 {[r dbsize] == 0}
        r set b 1
        r del b
    }]
}

test "n alone reports new keys only" {
    assert_equal [concat [ke 0 a new] [ke 0 b new]] [events_of KEn {} {
        r set a 1
        r set a 2
        r incr b
        r del a
    }]
}

test "FLUSHDB, FLUSHALL and SWAPDB emit no events" {
    assert_equal [concat [ke 0 a set] [ke 0 b set] [ke 0 c set]] [events_of KEA {} {
        r set a 1
        r flushdb
        r set b 1
        r flushall
        r set c 1
        r swapdb 0 1
    }]
    r flushall
}

test "RESP3 push bytes of a keyspace event" {
    r flushall
    r config set notify-keyspace-events KEA
    set rd [redis_deferring_client]
    $rd hello 3
    $rd read
    $rd psubscribe __keyspace@0__:*
    $rd read
    $rd subscribe __keyevent@0__:set
    $rd read
    $rd readraw 1
    r set foo bar
    foreach line {>4 $8 pmessage $16 __keyspace@0__:* $18 __keyspace@0__:foo $3 set
                  >3 $7 message $18 __keyevent@0__:set $3 foo} {
        assert_equal $line [$rd read]
    }
    $rd close
    r config set notify-keyspace-events ""
}

test "Events of a RESP3 client's own command arrive after its reply" {
    r flushall
    r config set notify-keyspace-events KE\$
    set c [redis_client]
    $c hello 3
    $c subscribe __keyevent@0__:set
    $c readraw 1
    assert_equal {+OK} [$c set mine v]
    foreach line {>3 $7 message $18 __keyevent@0__:set $4 mine} {
        assert_equal $line [$c read]
    }
    $c close
    r config set notify-keyspace-events ""
}

test "Subscribers in other dbs or with non-matching patterns get nothing" {
    r config set notify-keyspace-events KEA
    set rd [redis_deferring_client]
    $rd psubscribe __keyspace@5__:*
    $rd read
    r set a 1
    assert_equal 1 [r publish __keyspace@5__:marker m]
    assert_equal {pmessage __keyspace@5__:* __keyspace@5__:marker m} [$rd read]
    $rd close
    r config set notify-keyspace-events ""
}

# Found by tests/fuzz/cmdfuzz.py: these read the key through a read lookup first in Redis
# (getGenericCommand / lookupKeyRead), so a missing key emits keymiss.
test "GETDEL, GETSET, SET ... GET and GETEX with options emit keymiss on a missing key" {
    assert_equal [concat [ke 0 n1 keymiss] [ke 0 n2 keymiss] [ke 0 n3 keymiss] \
                      [ke 0 n4 keymiss] [ke 0 n5 keymiss] [ke 0 n6 keymiss]] \
        [events_of KEm {} {
            r getdel n1
            r getset n2 v
            r set n3 v get
            r set n4 v xx get
            r getex n5 ex 100
            r getex n6 persist
        }]
}

}
