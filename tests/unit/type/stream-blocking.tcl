# XREAD BLOCK: `$` (and Redis 7.4's `+`) resolved when the client blocks, wake-ups by XADD on an
# existing or a new stream, every reader of a key served (in arrival order) after the whole
# MULTI/EXEC or script that added entries, the timeout reply, BLOCK inside MULTI, a deleted or
# retyped key, CLIENT UNBLOCK. Checked against redis-server 7.0.15 except where a test says 7.2+
# (7.0 answers an empty entry list when the entries are gone by the time it serves; 7.2+, which
# runs the command again, keeps the client blocked, as Keel does).

proc blocked_count {} { return [server_info blocked_clients] }
proc wait_unblocked {} {
    wait_for_condition 100 10 {[blocked_count] == 0} { fail "clients still blocked" }
}

tags {stream blocking} {

test "XREAD BLOCK serves at once when there are entries" {
    r del s
    r xadd s 1-1 a 1
    assert_equal {{s {{1-1 {a 1}}}}} [r xread block 0 streams s 0]
    assert_equal {} [r xread block 10 streams s $]
}

test "XREAD BLOCK on \$ is woken by XADD to an existing stream" {
    r del s
    r xadd s 1-1 a 1
    set rd [redis_deferring_client]
    $rd xread block 0 streams s $
    wait_for_blocked_clients 1
    r xadd s 2-1 b 2
    assert_equal {{s {{2-1 {b 2}}}}} [$rd read]
    wait_unblocked
    $rd close
}

test "XREAD BLOCK on a missing key is woken when XADD creates it" {
    r del p
    set rd [redis_deferring_client]
    $rd xread block 0 streams p 0
    wait_for_blocked_clients 1
    r xadd p 1-1 a 1
    assert_equal {{p {{1-1 {a 1}}}}} [$rd read]
    $rd close
}

test "XREAD BLOCK on several keys answers with the one that got entries" {
    r del q1 q2
    set rd [redis_deferring_client]
    $rd xread block 0 streams q1 q2 $ $
    wait_for_blocked_clients 1
    r xadd q2 1-1 a 1
    assert_equal {{q2 {{1-1 {a 1}}}}} [$rd read]
    $rd close
}

test "Every reader is served after the whole MULTI/EXEC, each with its COUNT" {
    r del o
    set r1 [redis_deferring_client]
    set r2 [redis_deferring_client]
    $r1 xread count 1 block 0 streams o $
    wait_for_blocked_clients 1
    $r2 xread block 0 streams o $
    wait_for_blocked_clients 2
    r multi
    r xadd o 1-1 a 1
    r xadd o 2-1 b 2
    assert_equal {1-1 2-1} [r exec]
    assert_equal {{o {{1-1 {a 1}}}}} [$r1 read]
    assert_equal {{o {{1-1 {a 1}} {2-1 {b 2}}}}} [$r2 read]
    $r1 close
    $r2 close
}

test "Readers are served after a script that adds entries" {
    r del o
    set rd [redis_deferring_client]
    $rd xread block 0 streams o $
    wait_for_blocked_clients 1
    r eval {redis.call('xadd', KEYS[1], '1-1', 'a', 1); redis.call('xadd', KEYS[1], '2-1', 'b', 2)} 1 o
    assert_equal {{o {{1-1 {a 1}} {2-1 {b 2}}}}} [$rd read]
    $rd close
}

test "XREAD BLOCK times out with a null reply" {
    r del s
    set rd [redis_deferring_client]
    $rd xread block 50 streams s $
    assert_equal {} [$rd read]
    wait_unblocked
    $rd close
}

test "XREAD BLOCK inside MULTI answers at once" {
    r del s
    r multi
    r xread block 0 streams s $
    assert_equal {{}} [r exec]
}

test "A deleted or retyped key keeps the reader blocked; the ID it waits for stays" {
    r del s
    r xadd s 1-1 a 1
    set rd [redis_deferring_client]
    $rd xread block 0 streams s $
    wait_for_blocked_clients 1
    r del s
    r set s x
    r del s
    # Recreated below the ID \$ meant: nothing for the reader yet.
    r xadd s 0-1 a 1
    after 50
    assert_equal 1 [blocked_count]
    r xadd s 2-1 b 2
    assert_equal {{s {{2-1 {b 2}}}}} [$rd read]
    $rd close
}

test "Entries added and deleted in one transaction: the reader stays blocked (7.2+)" {
    if {![is_keel]} { skip_test "Redis 7.0 replies an empty entry list" }
    r del m
    r xadd m 1-1 a 1
    set rd [redis_deferring_client]
    $rd xread block 0 streams m $
    wait_for_blocked_clients 1
    r multi
    r xadd m 3-1 a 1
    r xdel m 3-1
    r exec
    after 50
    assert_equal 1 [blocked_count]
    r xadd m 4-1 c 3
    assert_equal {{m {{4-1 {c 3}}}}} [$rd read]
    $rd close
}

test "CLIENT UNBLOCK of a blocked XREAD" {
    r del s
    set rd [redis_deferring_client]
    $rd client id
    set id [$rd read]
    $rd xread block 0 streams s $
    wait_for_blocked_clients 1
    assert_equal 1 [r client unblock $id]
    assert_equal {} [$rd read]
    $rd xread block 0 streams s $
    wait_for_blocked_clients 1
    assert_equal 1 [r client unblock $id error]
    assert_error {UNBLOCKED*} {$rd read}
    $rd close
}

test "XREAD + reads the last entry and blocks like \$ on an empty stream (7.4)" {
    if {![is_keel]} { skip_test "XREAD + is Redis 7.4" }
    r del s
    r xadd s 1-1 a 1
    r xadd s 2-1 b 2
    assert_equal {{s {{2-1 {b 2}}}}} [r xread streams s +]
    assert_equal {{s {{2-1 {b 2}}}}} [r xread count 5 streams s +]
    set rd [redis_deferring_client]
    $rd xread block 0 streams e +
    wait_for_blocked_clients 1
    r xadd e 1-1 a 1
    r xadd e 1-2 a 2
    assert_equal {{e {{1-1 {a 1}}}}} [$rd read]
    $rd close
}

}
