# Blocking list commands: BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP, CLIENT UNBLOCK, INFO
# blocked_clients and the CLIENT LIST `b` flag. Behaviour checked against redis-server 7.0.15:
# FIFO service of clients blocked on one key, service after a whole MULTI/EXEC or script, a key
# created with another type does not wake a client, a destination of the wrong type gives
# WRONGTYPE when served, pipelined commands behind a blocked one run after it.

proc blocked_count {} { return [server_info blocked_clients] }

proc wait_unblocked {} {
    wait_for_condition 100 10 {[blocked_count] == 0} { fail "clients still blocked" }
}

tags {type list blocking} {

test "BLPOP / BRPOP serve at once when a list exists" {
    r del a b
    r rpush b 1 2 3
    assert_equal {b 1} [r blpop a b 0]
    assert_equal {b 3} [r brpop a b 0]
    assert_equal {b 2} [r blpop b 1]
    assert_equal 0 [r exists b]
}

test "BLPOP blocks and is woken by RPUSH" {
    r del q
    set rd [redis_deferring_client]
    $rd blpop q 0
    wait_for_blocked_clients 1
    assert_equal 1 [blocked_count]
    r rpush q x y
    assert_equal {q x} [$rd read]
    assert_equal {y} [r lrange q 0 -1]
    wait_unblocked
    $rd close
}

test "BRPOP with several keys is woken by the key that gets created" {
    r del k1 k2 k3
    set rd [redis_deferring_client]
    $rd brpop k1 k2 k3 0
    wait_for_blocked_clients 1
    r lpush k2 a b
    assert_equal {k2 a} [$rd read]
    $rd close
}

test "Blocked clients are served in arrival order" {
    r del q
    set clients {}
    for {set i 0} {$i < 3} {incr i} {
        set rd [redis_deferring_client]
        $rd blpop q 0
        wait_for_blocked_clients [expr {$i + 1}]
        lappend clients $rd
    }
    r rpush q 1 2
    assert_equal {q 1} [[lindex $clients 0] read]
    assert_equal {q 2} [[lindex $clients 1] read]
    assert_equal 1 [blocked_count]
    r rpush q 3
    assert_equal {q 3} [[lindex $clients 2] read]
    foreach c $clients { $c close }
}

test "BLPOP with the same key several times" {
    r del q
    set rd [redis_deferring_client]
    $rd blpop q q q 0
    wait_for_blocked_clients 1
    r rpush q x
    assert_equal {q x} [$rd read]
    $rd close
}

test "BLPOP timeout: fractional seconds give a null array" {
    r del q
    set rd [redis_deferring_client]
    set start [clock milliseconds]
    $rd blpop q 0.05
    assert_equal {} [$rd read]
    assert_morethan_equal [expr {[clock milliseconds] - $start}] 40
    $rd readraw 1
    $rd brpoplpush q dst 0.01
    assert_equal {*-1} [$rd read]
    $rd blmove q dst left right 0.01
    assert_equal {*-1} [$rd read]
    $rd blmpop 0.01 1 q left
    assert_equal {*-1} [$rd read]
    $rd close
    wait_unblocked
}

test "Timeout in RESP3 is a null" {
    set rd [redis_deferring_client -resp 3]
    $rd readraw 1
    $rd brpop q 0.01
    assert_equal {_} [$rd read]
    $rd close
}

test "Blocking commands: timeout errors" {
    assert_error {ERR timeout is negative} {r blpop q -1}
    assert_error {ERR timeout is negative} {r brpop q -0.5}
    assert_error {ERR timeout is not a float or out of range} {r blpop q x}
    assert_error {ERR timeout is not a float or out of range} {r blmove a b left left abc}
    assert_error {ERR timeout is not a float or out of range} {r brpoplpush a b nan}
    assert_error {ERR timeout is negative} {r blmpop -1 1 q left}
    assert_error {ERR timeout is not a float or out of range} {r blmpop x 1 q left}
    assert_error {ERR syntax error} {r blmove a b middle left 0}
    assert_error {ERR numkeys should be greater than 0} {r blmpop 0 0 q left}
    assert_error {ERR syntax error} {r blmpop 0 2 q left}
    assert_error {ERR count should be greater than 0} {r blmpop 0 1 q left count 0}
}

test "Blocking commands: wrong number of arguments" {
    foreach cmd {{blpop q} {brpop q} {blmove a b left left} {brpoplpush a b} {blmpop 0 1 q}} {
        set name [lindex $cmd 0]
        assert_error "*wrong number of arguments for '$name' command*" [list r {*}$cmd]
    }
}

test "Blocking commands against a non-list reply WRONGTYPE at once" {
    r del l
    r set str x
    assert_error {WRONGTYPE*} {r blpop str 0}
    assert_error {WRONGTYPE*} {r brpop l str 0}
    assert_error {WRONGTYPE*} {r blmove str l left left 0}
    assert_error {WRONGTYPE*} {r blmpop 0 1 str left}
    r rpush l a
    assert_error {WRONGTYPE*} {r brpoplpush l str 0}
    assert_equal {a} [r lrange l 0 -1]
}

test "A key created as a string does not wake BLPOP; a list later does" {
    r del k
    set rd [redis_deferring_client]
    $rd blpop k 0
    wait_for_blocked_clients 1
    r set k str
    after 50
    assert_equal 1 [blocked_count]
    r del k
    r rpush k x
    assert_equal {k x} [$rd read]
    $rd close
}

test "BRPOPLPUSH served onto a destination of the wrong type: WRONGTYPE, source kept" {
    r del src
    r set dst str
    set rd [redis_deferring_client]
    $rd brpoplpush src dst 0
    wait_for_blocked_clients 1
    r rpush src foo
    assert_error {WRONGTYPE*} {$rd read}
    assert_equal {foo} [r lrange src 0 -1]
    $rd close
}

test "MULTI/EXEC: clients are served after the transaction" {
    r del k
    set rd [redis_deferring_client]
    $rd blpop k 0
    wait_for_blocked_clients 1
    r multi
    r lpush k a b
    r lpop k
    r exec
    assert_equal {k a} [$rd read]
    assert_equal 0 [r exists k]
    $rd close
}

test "MULTI/EXEC: a list pushed then deleted in the transaction wakes nobody" {
    r del k
    set rd [redis_deferring_client]
    $rd blpop k 0
    wait_for_blocked_clients 1
    r multi
    r lpush k a
    r del k
    r set k s
    r exec
    after 50
    assert_equal 1 [blocked_count]
    r del k
    r rpush k z
    assert_equal {k z} [$rd read]
    $rd close
}

test "Blocking commands inside MULTI do not block" {
    r del nokey
    r multi
    r blpop nokey 0
    r brpoplpush nokey x 0
    r blmove nokey x left left 0
    r blmpop 0 1 nokey left
    assert_equal {{} {} {} {}} [r exec]
    r rpush l a
    r multi
    r blpop l 0
    assert_equal {{l a}} [r exec]
}

test "A script's pushes wake clients after the script" {
    r del lk
    set rd [redis_deferring_client]
    $rd blpop lk 0
    wait_for_blocked_clients 1
    r eval {redis.call('rpush', KEYS[1], '1'); redis.call('rpush', KEYS[1], '2'); return redis.call('llen', KEYS[1])} 1 lk
    assert_equal {lk 1} [$rd read]
    assert_equal {2} [r lrange lk 0 -1]
    $rd close
}

test "Pipelined commands behind a blocked one run after it" {
    r del p
    set rd [redis_deferring_client]
    $rd write "*3\r\n\$5\r\nBLPOP\r\n\$1\r\np\r\n\$1\r\n0\r\n*1\r\n\$4\r\nPING\r\n*2\r\n\$4\r\nLLEN\r\n\$1\r\np\r\n"
    wait_for_blocked_clients 1
    r rpush p x y
    assert_equal {p x} [$rd read]
    assert_equal PONG [$rd read]
    assert_equal 1 [$rd read]
    $rd close
}

test "BLMOVE waits and moves; the moved element can wake the next client" {
    r del s1 s2 s3
    set rd1 [redis_deferring_client]
    set rd2 [redis_deferring_client]
    $rd1 blmove s1 s2 left right 0
    wait_for_blocked_clients 1
    $rd2 blpop s2 0
    wait_for_blocked_clients 2
    r rpush s1 hello
    assert_equal hello [$rd1 read]
    assert_equal {s2 hello} [$rd2 read]
    assert_equal 0 [r exists s1]
    assert_equal 0 [r exists s2]
    $rd1 close
    $rd2 close
}

test "BRPOPLPUSH onto itself" {
    r del c
    set rd [redis_deferring_client]
    $rd brpoplpush c c 0
    wait_for_blocked_clients 1
    r rpush c a b
    assert_equal b [$rd read]
    assert_equal {b a} [r lrange c 0 -1]
    $rd close
}

test "BLMPOP waits and pops with count" {
    r del a b
    set rd [redis_deferring_client]
    $rd blmpop 0 2 a b right count 2
    wait_for_blocked_clients 1
    r rpush b 1 2 3
    assert_equal {b {3 2}} [$rd read]
    assert_equal {1} [r lrange b 0 -1]
    $rd close
}

test "BLPOP woken by RENAME of a list into place" {
    r del dst tmp
    set rd [redis_deferring_client]
    $rd blpop dst 0
    wait_for_blocked_clients 1
    r rpush tmp v
    r rename tmp dst
    assert_equal {dst v} [$rd read]
    $rd close
}

test "BLPOP woken by SWAPDB" {
    r select 9
    r del k
    r rpush k fromdb9
    r select 0
    r del k
    set rd [redis_deferring_client]
    $rd blpop k 0
    wait_for_blocked_clients 1
    r swapdb 0 9
    assert_equal {k fromdb9} [$rd read]
    r swapdb 0 9
    $rd close
} {external:skip}

test "A blocked client in another db is not woken" {
    r del k
    set rd [redis_deferring_client]
    $rd select 5
    assert_equal OK [$rd read]
    $rd blpop k 0
    wait_for_blocked_clients 1
    r rpush k x
    after 50
    assert_equal 1 [blocked_count]
    r select 5
    r rpush k y
    assert_equal {k y} [$rd read]
    r select 0
    $rd close
}

test "CLIENT UNBLOCK with TIMEOUT and ERROR; CLIENT LIST flag b" {
    r del q
    set rd [redis_deferring_client]
    $rd client id
    set id [$rd read]
    $rd blpop q 0
    wait_for_blocked_clients 1
    assert_match {*flags=b *cmd=blpop*} [r client list id $id]
    assert_equal 1 [r client unblock $id]
    assert_equal {} [$rd read]
    $rd brpop q 0
    wait_for_blocked_clients 1
    assert_equal 1 [r client unblock $id error]
    assert_error {UNBLOCKED client unblocked via CLIENT UNBLOCK} {$rd read}
    assert_equal 0 [r client unblock $id]
    assert_equal 0 [r client unblock 999999]
    assert_match {*flags=N *} [r client list id $id]
    assert_error {ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR} {r client unblock $id foo}
    assert_error {ERR value is not an integer or out of range} {r client unblock abc}
    assert_error {*wrong number of arguments*} {r client unblock $id timeout x}
    $rd close
}

test "A blocked client that disconnects is forgotten" {
    r del q
    set rd [redis_deferring_client]
    $rd blpop q 0
    wait_for_blocked_clients 1
    $rd close
    wait_unblocked
    r rpush q x
    assert_equal {x} [r lrange q 0 -1]
}

test "BLPOP with a zero timeout stays blocked; a short one expires" {
    r del q
    set rd1 [redis_deferring_client]
    set rd2 [redis_deferring_client]
    $rd1 blpop q 0
    $rd2 blpop q 0.02
    wait_for_blocked_clients 1
    assert_equal {} [$rd2 read]
    assert_equal 1 [blocked_count]
    r rpush q v
    assert_equal {q v} [$rd1 read]
    $rd1 close
    $rd2 close
}

test "INFO clients counts blocked clients and keys" {
    r del x1 x2
    set rd1 [redis_deferring_client]
    set rd2 [redis_deferring_client]
    $rd1 blpop x1 x2 0
    $rd2 blpop x2 10
    wait_for_blocked_clients 2
    assert_equal 2 [server_info blocked_clients]
    if {[is_keel]} {
        assert_equal 2 [server_info total_blocking_keys]
        assert_equal 1 [server_info clients_in_timeout_table]
    }
    r rpush x2 a b
    assert_equal {x2 a} [$rd1 read]
    assert_equal {x2 b} [$rd2 read]
    wait_unblocked
    $rd1 close
    $rd2 close
}

test "A served client's events: blocking pop emits lpop and del" {
    r del q
    set rd [redis_deferring_client]
    $rd blpop q 0
    wait_for_blocked_clients 1
    r config set notify-keyspace-events KEA
    set sub [redis_deferring_client]
    $sub psubscribe __keyevent@0__:*
    $sub read
    r rpush q x
    assert_equal {q x} [$rd read]
    set got {}
    for {set i 0} {$i < 3} {incr i} { lappend got [lindex [$sub read] 2] }
    assert_equal {__keyevent@0__:rpush __keyevent@0__:lpop __keyevent@0__:del} $got
    r config set notify-keyspace-events ""
    $sub close
    $rd close
}

}

tags {type list blocking} {

test "A key that expired before the blocked client is served does not serve it" {
    r del k
    set rd [redis_deferring_client]
    $rd blpop k 0
    wait_for_blocked_clients 1
    r multi
    r lpush k a
    r pexpire k 5
    r debug sleep 0.02
    r exec
    after 20
    assert_equal 1 [blocked_count]
    r rpush k b
    assert_equal {k b} [$rd read]
    $rd close
}

test "Idle client timeout does not close a blocked client" {
    # timeout 2 with a ping every 100 ms: a stalled second on a loaded CI machine cannot close
    # the default client, and the 2.5 s wait is still past the timeout for the blocked one.
    r config set timeout 2
    r del k
    set rd [redis_deferring_client]
    $rd blpop k 0
    wait_for_blocked_clients 1
    for {set i 0} {$i < 25} {incr i} { after 100; r ping }  ;# keeps the default client alive
    assert_equal 1 [blocked_count]
    # Served at the end of the EXEC, whose sleep makes the cron overdue: the cron runs before
    # the reply is flushed and must not close the served client as idle (its reply is pending).
    # Redis 7.0.15 closes it here and the popped element is lost; Keel counts the pending
    # write as an interaction.
    r multi
    r rpush k x
    r debug sleep 0.3
    r exec
    assert_equal {k x} [$rd read]
    r config set timeout 0
    $rd close
} {slow}

}

test "Inline commands with quotes pipelined behind a blocked BLPOP run unchanged once it is served" {
    r del blk_inline k_inline
    set c [redis_client]
    $c write "BLPOP blk_inline 0\r\nSET k_inline \"a b\"\r\nGET k_inline\r\n"
    $c flush
    wait_for_blocked_clients 1
    r rpush blk_inline v
    assert_equal {blk_inline v} [$c read]
    assert_equal OK [$c read]
    assert_equal {a b} [$c read]
    $c close
}

# Found by tests/fuzz/cmdfuzz.py: BLMPOP read its timeout first.
test "BLMPOP parses numkeys, the side and COUNT before the timeout" {
    r del k
    assert_error {ERR syntax error} {r blmpop -1 9223372036854775807 k RIGHT}
    assert_error {ERR numkeys should be greater than 0} {r blmpop -1 0 k RIGHT}
    assert_error {ERR syntax error} {r blmpop -1 1 k UP}
    assert_error {ERR count should be greater than 0} {r blmpop -1 1 k LEFT COUNT 0}
    assert_error {ERR timeout is negative} {r blmpop -1 1 k LEFT}
    assert_error {ERR timeout is not a float or out of range} {r blmpop abc 1 k LEFT COUNT 2}
}

# Found by tests/fuzz/cmdfuzz.py.
test "CLIENT UNBLOCK checks the reason before the client id" {
    assert_error {ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR} {r client unblock abc bad}
    assert_error {ERR value is not an integer or out of range} {r client unblock abc timeout}
    assert_equal 0 [r client unblock 999999999 error]
}
