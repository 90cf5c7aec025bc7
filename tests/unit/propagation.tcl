# What each write command family propagates (the commands AOF and replicas will receive), read
# with DEBUG PROPAGATED (Keel only; src/README.md, "One unit of execution"). Every expectation
# was checked against the replication stream of Debian's redis-server 7.0.15 with
# tests/replstream/replstream.py (tests/replstream/families.cmds); where Redis 7.2+ changed the
# stream, the 7.4 form is expected and the test says so.

r debug propagated on

# The commands propagated since the previous call, as a list of lists. `<ms>` in an expected
# list stands for an absolute millisecond time within an hour of now.
proc propagated {} { r debug propagated }

proc assert_propagated {expected} {
    set got [propagated]
    set now [clock milliseconds]
    set ok [expr {[llength $got] == [llength $expected]}]
    if {$ok} {
        foreach e $expected g $got {
            if {[llength $e] != [llength $g]} { set ok 0; break }
            foreach ea $e ga $g {
                if {$ea eq "<ms>"} {
                    if {![string is entier -strict $ga] || abs($ga - $now) > 3600000} { set ok 0 }
                } elseif {$ea ne $ga} {
                    set ok 0
                }
            }
        }
    }
    if {!$ok} { error "assertion: propagated\n  expected: $expected\n  got:      $got" }
}

# Runs `body` with the log emptied before, in db 0.
proc fresh {body} {
    r select 0
    r flushall
    propagated
    uplevel 1 $body
}

test "A write propagates as received, with SELECT before the first command of a db" {
    r select 0
    r flushall
    r debug propagated off
    r debug propagated on
    r set a 1
    r select 2
    r set b 2
    r get b
    r select 0
    assert_propagated {{SELECT 0} {set a 1} {SELECT 2} {set b 2}}
    r set c 3
    assert_propagated {{SELECT 0} {set c 3}}
}

test "Commands that change nothing propagate nothing" {
    fresh {
        r set k v
        propagated
        r set k v nx
        r get k
        r del nosuch
        r expire nosuch 10
        r sadd s a
        r sadd s a
        r srem s nope
        r ltrim nol 0 1
        r hdel h nope
        r zadd z xx 1 a
        r srandmember s
        r eval {return redis.call('get', KEYS[1])} 1 k
        r debug populate 3
        assert_propagated {{sadd s a}}
    }
}

test "Strings: relative and absolute expiry become SET ... PXAT, GET is dropped" {
    fresh {
        r set k v ex 100
        r set k v px 100000 nx
        r set k2 v exat 99999999999
        r setex k3 100 v
        r psetex k3 100000 v
        r set k3 v xx get
        r set k3 v keepttl
        assert_propagated {{SET k v PXAT <ms>} {SET k2 v PXAT 99999999999000}
                           {SET k3 v PXAT <ms>} {SET k3 v PXAT <ms>} {set k3 v xx} {set k3 v keepttl}}
    }
} {}

test "Strings: GETSET, GETDEL, GETEX and INCRBYFLOAT propagate what they did" {
    fresh {
        r set k v
        propagated
        r getset k w
        r getdel k
        r getset k v
        r getex k px 100000
        r getex k pxat 99999999999999
        r getex k persist
        r getex k persist
        r getex k exat 1
        r incrbyfloat f 1.5
        r incrbyfloat f 1e2
        assert_propagated {{SET k w} {DEL k} {SET k v} {PEXPIREAT k <ms>} {PEXPIREAT k 99999999999999}
                           {PERSIST k} {DEL k} {SET f 1.5 KEEPTTL} {SET f 101.5 KEEPTTL}}
    }
}

test "Keys: EXPIRE family becomes PEXPIREAT with its options; a past time becomes DEL" {
    fresh {
        r set k v
        propagated
        r expire k 100 nx
        r pexpire k 100000
        r expireat k 99999999999 gt
        r pexpireat k 99999999999999
        r persist k
        r expire k -1
        assert_propagated {{PEXPIREAT k <ms> nx} {PEXPIREAT k <ms>} {PEXPIREAT k 99999999999000 gt}
                           {pexpireat k 99999999999999} {persist k} {DEL k}}
    }
}

test "Keys: DEL, UNLINK, RENAME, MOVE and COPY propagate as received" {
    fresh {
        r set a 1
        r set b 2
        propagated
        r del a nosuch
        r unlink b
        r set c 3
        r rename c d
        r move d 1
        r set e 1
        r copy e f
        assert_propagated {{del a nosuch} {unlink b} {set c 3} {rename c d} {move d 1} {set e 1} {copy e f}}
    }
}

test "lazyfree-lazy-expire and lazyfree-lazy-user-del choose UNLINK" {
    fresh {
        r config set lazyfree-lazy-expire yes
        r config set lazyfree-lazy-user-del yes
        r set k v
        r set g v
        propagated
        r expire k -1
        r getdel g
        r config set lazyfree-lazy-expire no
        r config set lazyfree-lazy-user-del no
        assert_propagated {{UNLINK k} {UNLINK g}}
    }
}

test "Lists: pops with a count, LMPOP and the blocking forms that do not block" {
    fresh {
        r rpush l a b c d e
        r lpop l 2
        r lmpop 2 nol l right count 10
        r rpush l a b c
        r blpop nol l 0
        r brpop l 0
        r rpush src x y
        r blmove src dst left right 0
        r brpoplpush src dst 0
        r rpush l2 a b
        r blmpop 0 1 l2 left count 1
        assert_propagated {{rpush l a b c d e} {lpop l 2} {RPOP l 3} {rpush l a b c} {LPOP l} {RPOP l}
                           {rpush src x y} {LMOVE src dst left right} {RPOPLPUSH src dst}
                           {rpush l2 a b} {LPOP l2 1}}
    }
}

test "Lists: a served blocked client propagates its plain command, after the push" {
    fresh {
        set rd [redis_deferring_client]
        $rd blmove q qdst right left 0
        wait_for_blocked_clients 1
        r rpush q x
        assert_equal x [$rd read]
        $rd blmpop 0 1 q2 right count 5
        wait_for_blocked_clients 1
        r rpush q2 a b
        assert_equal {q2 {b a}} [$rd read]
        $rd close
        assert_propagated {{rpush q x} {LMOVE q qdst right left} {rpush q2 a b} {RPOP q2 2}}
    }
}

test "Hashes: HINCRBYFLOAT becomes HSET" {
    fresh {
        r hset h a 1 b 2
        r hincrbyfloat h f 2.5
        r hincrby h n 3
        assert_propagated {{hset h a 1 b 2} {HSET h f 2.5} {hincrby h n 3}}
    }
}

test "Sets: SPOP becomes SREM, or DEL when it takes the whole set" {
    fresh {
        r sadd s a
        r spop s
        r sadd s a b
        r spop s 5
        r config set lazyfree-lazy-server-del yes
        r sadd s a b
        r spop s 2
        r config set lazyfree-lazy-server-del no
        assert_propagated {{sadd s a} {SREM s a} {sadd s a b} {DEL s} {sadd s a b} {UNLINK s}}
    }
}

test "Sets: SPOP with a count propagates SREM batches of 1024 members (Redis 7.2+)" {
    fresh {
        set members {}
        for {set i 0} {$i < 1500} {incr i} { lappend members m$i }
        r sadd s {*}$members
        propagated
        set popped [r spop s 1100]
        set got [propagated]
        # Redis 7.0 sent one SREM per member; 7.2+ batches them.
        assert_equal 4 [llength $got]
        assert_equal MULTI [lindex $got 0 0]
        assert_equal EXEC [lindex $got 3 0]
        assert_equal {SREM s} [lrange [lindex $got 1] 0 1]
        assert_equal 1026 [llength [lindex $got 1]]
        assert_equal 78 [llength [lindex $got 2]]
        assert_equal [lsort $popped] [lsort [concat [lrange [lindex $got 1] 2 end] [lrange [lindex $got 2] 2 end]]]
        assert_equal 400 [r scard s]
    }
}

test "Sorted sets: ZMPOP and the blocking pops become ZPOPMIN / ZPOPMAX" {
    fresh {
        r zadd z 1 a 2 b 3 c 4 d
        r zmpop 1 z min count 2
        r bzpopmax z 0
        r bzmpop 0 1 z max count 9
        r zadd z 1 a
        r zpopmin z 5
        assert_propagated {{zadd z 1 a 2 b 3 c 4 d} {ZPOPMIN z 2} {ZPOPMAX z} {ZPOPMAX z 1}
                           {zadd z 1 a} {zpopmin z 5}}
    }
}

test "FLUSHALL and FLUSHDB propagate even on empty dbs; SWAPDB and PUBLISH propagate" {
    fresh {
        r flushall
        r flushdb async
        r swapdb 0 1
        r swapdb 0 0
        r publish ch msg
        assert_propagated {{flushall} {flushdb async} {swapdb 0 1} {swapdb 0 0} {publish ch msg}}
    }
}

test "FUNCTION LOAD, DELETE and FLUSH propagate; SCRIPT LOAD and FLUSH do not" {
    fresh {
        set lib "#!lua name=plib\nredis.register_function('pf', function(k, a) return redis.call('set', k\[1\], a\[1\]) end)"
        r function load $lib
        r script load {return 1}
        r script flush
        r fcall pf 1 fk fv
        r function delete plib
        r function flush
        assert_propagated [list [list function load $lib] {set fk fv} {function delete plib} {function flush}]
    }
}

test "A transaction propagates its writes, as MULTI/EXEC only when there are several" {
    fresh {
        r multi
        r get a
        r set a 1
        r exec
        r multi
        r set a 1
        r expire a 100
        r incr b
        r exec
        r multi
        r get a
        r exec
        assert_propagated {{set a 1} {MULTI} {set a 1} {PEXPIREAT a <ms>} {incr b} {EXEC}}
    }
}

test "A script propagates its effects, SELECT inside the MULTI (Redis 7.2+)" {
    fresh {
        r eval {redis.call('set', 'x', 1) redis.call('incr', 'x') return 1} 0
        r eval {redis.call('set', 'y', 'v', 'ex', 100) return 1} 0
        r eval {redis.call('select', 1) redis.call('set', 'e1', 'v') redis.call('select', 0) redis.call('set', 'e2', 'v') return 1} 0
        r eval {redis.call('sadd', 's', 'a') return redis.call('spop', 's')} 0
        r eval {return redis.call('get', 'x')} 0
        # Redis 7.0 puts the SELECT before the MULTI; 7.2+ inside it.
        assert_propagated {{MULTI} {set x 1} {incr x} {EXEC} {SET y v PXAT <ms>}
                           {MULTI} {SELECT 1} {set e1 v} {SELECT 0} {set e2 v} {EXEC}
                           {MULTI} {sadd s a} {SREM s a} {EXEC}}
    }
}

test "Lazy expiry: a read propagates DEL alone, a write wraps DEL and itself in MULTI/EXEC" {
    fresh {
        r debug set-active-expire 0
        r set a v px 1
        r set b v px 1
        r set c v px 1
        after 20
        propagated
        r get a
        r set b new
        r multi
        r exists c
        r get nosuch
        r exec
        r debug set-active-expire 1
        assert_propagated {{DEL a} {MULTI} {DEL b} {set b new} {EXEC} {DEL c}}
    }
}

test "Lazy expiry by SCAN and RANDOMKEY: each DEL stands alone (Redis 7.2+)" {
    fresh {
        r debug set-active-expire 0
        r set a v px 1
        r set b v px 1
        after 20
        propagated
        r scan 0 count 100
        set got [propagated]
        assert_equal [lsort {{DEL a} {DEL b}}] [lsort $got]
        r set c v px 1
        after 20
        propagated
        r randomkey
        assert_propagated {{DEL c}}
        r debug set-active-expire 1
    }
}

test "Active expiry propagates one DEL per key" {
    fresh {
        r set a v px 1
        r set b v px 1
        propagated
        wait_for_condition 100 20 {[r dbsize] == 0}
        assert_equal [lsort {{DEL a} {DEL b}}] [lsort [propagated]]
    }
}

test "DEBUG PROPAGATED OFF records nothing; ON starts a fresh stream" {
    r debug propagated off
    r set x 1
    assert_equal {} [propagated]
    r debug propagated on
    r select 0
    r set x 2
    assert_propagated {{SELECT 0} {set x 2}}
    assert_error {ERR syntax error} {r debug propagated maybe}
}

r debug propagated off
