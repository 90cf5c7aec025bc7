# CLIENT PAUSE / CLIENT UNPAUSE: which commands wait in WRITE and ALL mode, held clients resuming
# in order with their pipelined input, pauses that cannot be weakened or shortened, expiry held
# while paused. Expected replies were checked against redis-server 7.0.15 (the file also passes
# with --server /usr/bin/redis-server), except where a test says it expects 7.2+ behaviour (it is
# skipped there).

tags {pause} {

# A deferring client and its id.
proc pz_client {{resp 2}} {
    set rd [redis_deferring_client -resp $resp]
    $rd client id
    return [list $rd [$rd read]]
}

test "CLIENT PAUSE argument errors" {
    assert_error {ERR wrong number of arguments for 'client|pause' command} {r client pause}
    assert_error {ERR timeout is not an integer or out of range} {r client pause abc}
    assert_error {ERR timeout is not an integer or out of range} {r client pause 1.5}
    assert_error {ERR timeout is negative} {r client pause -1}
    assert_error {ERR CLIENT PAUSE mode must be WRITE or ALL} {r client pause 10 foo}
    # The mode is checked before the timeout.
    assert_error {ERR CLIENT PAUSE mode must be WRITE or ALL} {r client pause abc foo}
    assert_error {ERR unknown subcommand or wrong number of arguments for 'pause'. Try CLIENT HELP.} \
        {r client pause 10 write x}
    assert_error {ERR wrong number of arguments for 'client|unpause' command} {r client unpause x}
    assert_equal OK [r client unpause]
}

test "CLIENT PAUSE WRITE: reads run, writes wait (flag b, blocked_clients) and run on UNPAUSE" {
    r flushall
    r set foo bar
    lassign [pz_client] rd id
    assert_equal OK [r client pause 100000 write]
    $rd get foo
    assert_equal bar [$rd read]
    $rd ping
    assert_equal PONG [$rd read]
    $rd info clients
    assert_match "*blocked_clients:0*" [$rd read]
    $rd set foo baz
    wait_for_blocked_clients 1
    # argv-mem: the held command's argument bytes (set foo baz).
    assert_match "*flags=b *argv-mem=9 *cmd=set *" [r client list id $id]
    assert_equal bar [r get foo]
    assert_equal OK [r client unpause]
    assert_equal OK [$rd read]
    assert_equal baz [r get foo]
    assert_equal 0 [server_info blocked_clients]
    assert_match "*flags=N *" [r client list id $id]
    $rd close
}

test "CLIENT PAUSE WRITE holds may-replicate commands: PUBLISH, SPUBLISH, EVAL, EVALSHA" {
    r flushall
    set sha [r script load {return 1}]
    assert_equal OK [r client pause 100000 write]
    set clients {}
    # SCRIPT LOAD is not held (Redis 7 replicates scripts' effects, not SCRIPT LOAD).
    set rd [redis_deferring_client]
    $rd script load {return 2}
    assert_equal [r script load {return 2}] [$rd read]
    $rd close
    foreach cmd [list {publish ch x} {spublish ch x} {eval {return 1} 0} [list evalsha $sha 0]] {
        set rd [redis_deferring_client]
        $rd {*}$cmd
        lappend clients $rd
    }
    wait_for_blocked_clients 4
    assert_equal OK [r client unpause]
    set replies {}
    foreach rd $clients {
        lappend replies [$rd read]
        $rd close
    }
    assert_equal {0 0 1 1} $replies
}

test "CLIENT PAUSE WRITE: read-only scripts and functions run, writing ones wait" {
    r flushall
    r function flush
    r function load {#!lua name=pzlib
redis.register_function{function_name='ro', callback=function() return 1 end, flags={'no-writes'}}
redis.register_function('rw', function() return 2 end)}
    assert_equal OK [r client pause 100000 write]
    set rd [redis_deferring_client]
    $rd eval_ro {return 10} 0
    assert_equal 10 [$rd read]
    $rd eval "#!lua flags=no-writes\nreturn 11" 0
    assert_equal 11 [$rd read]
    $rd fcall ro 0
    assert_equal 1 [$rd read]
    $rd fcall_ro ro 0
    assert_equal 1 [$rd read]
    $rd fcall rw 0
    wait_for_blocked_clients 1
    set rd2 [redis_deferring_client]
    $rd2 eval "#!lua\nreturn 12" 0
    wait_for_blocked_clients 2
    assert_equal OK [r client unpause]
    assert_equal 2 [$rd read]
    assert_equal 12 [$rd2 read]
    $rd close
    $rd2 close
    r function flush
}

test "CLIENT PAUSE WRITE: a read-only transaction runs, a write waits when it is queued" {
    r flushall
    r set foo bar
    assert_equal OK [r client pause 100000 write]
    set rd [redis_deferring_client]
    $rd multi
    assert_equal OK [$rd read]
    $rd get foo
    assert_equal QUEUED [$rd read]
    $rd ping
    assert_equal QUEUED [$rd read]
    $rd exec
    assert_equal {bar PONG} [$rd read]
    $rd multi
    assert_equal OK [$rd read]
    $rd set foo 1
    wait_for_blocked_clients 1
    $rd exec
    assert_equal OK [r client unpause]
    assert_equal QUEUED [$rd read]
    assert_equal OK [$rd read]
    assert_equal 1 [r get foo]
    $rd close
}

test "CLIENT PAUSE WRITE: EXEC of a transaction queued before the pause waits" {
    r flushall
    set rd [redis_deferring_client]
    $rd multi
    $rd incr n
    assert_equal {OK QUEUED} [list [$rd read] [$rd read]]
    assert_equal OK [r client pause 100000 write]
    $rd exec
    wait_for_blocked_clients 1
    assert_equal {} [r get n]
    assert_equal OK [r client unpause]
    assert_equal 1 [$rd read]
    $rd close
}

test "A held client's pipelined commands run after it, in order" {
    r flushall
    assert_equal OK [r client pause 100000 write]
    set rd [redis_deferring_client]
    # One write holding everything behind it, reads included.
    $rd write "*3\r\n\$3\r\nset\r\n\$1\r\na\r\n\$1\r\n1\r\n*2\r\n\$3\r\nget\r\n\$1\r\na\r\nincr a\r\nset \"b c\" \"x y\"\r\n*2\r\n\$3\r\nget\r\n\$3\r\nb c\r\n"
    wait_for_blocked_clients 1
    assert_equal {} [r get a]
    assert_equal OK [r client unpause]
    assert_equal {OK 1 2 OK {x y}} [list [$rd read] [$rd read] [$rd read] [$rd read] [$rd read]]
    $rd close
}

test "Held clients run in the order they were held" {
    r flushall
    assert_equal OK [r client pause 100000 write]
    set clients {}
    foreach v {1 2 3} {
        set rd [redis_deferring_client]
        $rd rpush l $v
        wait_for_blocked_clients $v
        lappend clients $rd
    }
    assert_equal OK [r client unpause]
    foreach rd $clients {
        $rd read
        $rd close
    }
    assert_equal {1 2 3} [r lrange l 0 -1]
}

test "CLIENT PAUSE ALL holds every command, CLIENT UNPAUSE from another client too; the timeout ends it" {
    r flushall
    lassign [pz_client] rd1 id1
    lassign [pz_client] rd2 id2
    r set foo bar
    set start [clock milliseconds]
    assert_equal OK [r client pause 500 all]
    $rd1 get foo
    $rd2 client unpause
    # Rejected commands are answered at once: admission checks come before the pause.
    set rd3 [redis_deferring_client]
    $rd3 nosuchcommand
    assert_match {ERR unknown command*} [catch {$rd3 read} e; set e]
    $rd3 get
    assert_match {ERR wrong number of arguments*} [catch {$rd3 read} e; set e]
    $rd3 close
    assert_equal bar [$rd1 read]
    assert_equal OK [$rd2 read]
    assert_morethan_equal [expr {[clock milliseconds] - $start}] 400
    $rd1 close
    $rd2 close
}

test "The client that paused is held too (ALL)" {
    set c [redis_client]
    assert_equal OK [$c client pause 300 all]
    set start [clock milliseconds]
    assert_equal PONG [$c ping]
    assert_morethan_equal [expr {[clock milliseconds] - $start}] 200
    $c close
}

test "A second CLIENT PAUSE cannot weaken or shorten the first" {
    r flushall
    set start [clock milliseconds]
    assert_equal OK [r client pause 1000 write]
    assert_equal OK [r client pause 10 all]
    after 100
    # ALL now lasts until the first pause's end: even PING waits.
    set rd [redis_deferring_client]
    $rd ping
    assert_equal PONG [$rd read]
    assert_morethan_equal [expr {[clock milliseconds] - $start}] 900
    # ALL first, then a longer WRITE from another client: that client is held until the ALL
    # pause ends (its own command waits like any other).
    set start [clock milliseconds]
    assert_equal OK [r client pause 300 all]
    set c [redis_client]
    assert_equal OK [$c client pause 600 write]
    assert_morethan_equal [expr {[clock milliseconds] - $start}] 250
    $c close
    $rd close
}

test "Expiry is held while paused: expired keys read as missing but are not deleted" {
    r flushall
    r debug set-active-expire 1
    r set k1 v px 100
    r set k2 v px 100
    r set k3 v
    set expired [server_info expired_keys]
    assert_equal OK [r client pause 100000 write]
    after 300
    assert_equal {} [r get k1]
    assert_equal 0 [r exists k2]
    assert_equal -2 [r ttl k1]
    assert_equal {0 k3} [list [lindex [r scan 0] 0] [lindex [r scan 0] 1]]
    assert_equal k3 [r randomkey]
    assert_equal 3 [r dbsize]
    assert_equal $expired [server_info expired_keys]
    assert_equal OK [r client unpause]
    # The next lookup (or the active cycle) deletes them.
    assert_equal {} [r get k1]
    wait_for_condition 100 20 {[r dbsize] == 1} {
        fail "expired keys were not deleted after the pause"
    }
    assert_morethan [server_info expired_keys] $expired
}

test "A held client that disconnects is forgotten" {
    r flushall
    assert_equal OK [r client pause 100000 write]
    set rd [redis_deferring_client]
    $rd set a 1
    wait_for_blocked_clients 1
    $rd close
    wait_for_condition 100 10 {[server_info blocked_clients] == 0} {
        fail "the held client is still counted"
    }
    assert_equal OK [r client unpause]
    assert_equal {} [r get a]
    assert_equal PONG [r ping]
}

test "A held blocking command blocks when the pause ends, and is served" {
    r flushall
    assert_equal OK [r client pause 100000 write]
    set rd [redis_deferring_client]
    $rd blpop q 0
    wait_for_blocked_clients 1
    assert_equal OK [r client unpause]
    # Now blocked on the key (still one blocked client), until a push.
    after 50
    assert_equal 1 [server_info blocked_clients]
    r rpush q x
    assert_equal {q x} [$rd read]
    $rd close
}

test "CLIENT UNBLOCK does not release a held client (Redis 7.2+; 7.0.15 crashes on it)" {
    if {![is_keel]} { skip_test "redis-server 7.0 asserts on CLIENT UNBLOCK of a paused client" }
    r flushall
    lassign [pz_client] rd id
    assert_equal OK [r client pause 100000 write]
    $rd set a 1
    wait_for_blocked_clients 1
    assert_equal 0 [r client unblock $id]
    assert_equal 0 [r client unblock $id error]
    assert_equal {} [r get a]
    assert_equal OK [r client unpause]
    assert_equal OK [$rd read]
    $rd close
}

test "CLIENT PAUSE timeout 0 pauses nothing" {
    assert_equal OK [r client pause 0]
    assert_equal OK [r set x 1]
    assert_equal OK [r client pause 0 write]
    assert_equal OK [r set x 2]
}

}
