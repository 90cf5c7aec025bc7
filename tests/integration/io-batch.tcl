# The batched socket I/O of one loop iteration (src/server/io_batch.h): the reads of every client
# epoll found readable go to the kernel together, and so do the replies of the before-sleep
# flush, through io_uring when the kernel has it (`io-uring yes`, the default) or one recv/send
# each (`io-uring no`). Each test runs under both settings: the replies must not depend on it.
# DEBUG SLEEP holds the loop so that many clients are readable in the same iteration.

tags {io-batch external:skip} {

# `n` deferring clients.
proc iob_clients {n} {
    set clients {}
    for {set i 0} {$i < $n} {incr i} {
        lappend clients [redis_deferring_client]
    }
    return $clients
}

foreach mode {yes no} {
start_server [list overrides [list io-uring $mode enable-debug-command yes]] {

test "io-uring $mode: the hidden directive answers when asked by name" {
    assert_equal [list io-uring $mode] [r config get io-uring]
    assert_equal {} [r config get io-u*]
}

test "io-uring $mode: 300 clients readable in one iteration each get their own replies" {
    r flushall
    set sleeper [redis_deferring_client]
    set clients [iob_clients 300]
    $sleeper debug sleep 0.5
    after 50
    # Sent while the loop sleeps: all 300 are read in one batch (more than one ring's worth).
    set i 0
    foreach c $clients {
        $c incr counter
        $c set key:$i value:$i
        $c get key:$i
        incr i
    }
    assert_equal OK [$sleeper read]
    set i 0
    set counts {}
    foreach c $clients {
        lappend counts [$c read]
        assert_equal OK [$c read]
        assert_equal value:$i [$c read]
        incr i
    }
    assert_equal 300 [llength [lsort -unique $counts]]
    assert_equal 300 [r get counter]
    foreach c $clients { $c close }
    $sleeper close
}

test "io-uring $mode: a reply larger than the socket buffers arrives whole, the loop serving others meanwhile" {
    r flushall
    set big [string repeat "abcdefgh" 1048576]
    r set big $big
    r set small tail
    set before [server_info total_net_output_bytes]
    set rd [redis_deferring_client]
    $rd get big
    $rd get small
    # The client reads nothing for a while: the server holds the rest of its reply.
    after 200
    assert_equal PONG [r ping]
    assert_equal [string length $big] [string length [$rd read]]
    assert_equal tail [$rd read]
    $rd close
    # Each byte is counted once (bytes sent before the socket filled and after it drained);
    # the rest of the margin is the INFO and PING replies of this test.
    set sent [expr {[server_info total_net_output_bytes] - $before}]
    set expected [expr {[string length $big] + 20}]
    assert_range $sent $expected [expr {$expected + 65536}]
}

test "io-uring $mode: a client killed by another client's command in the same batch" {
    set victim [redis_deferring_client]
    $victim client id
    set vid [$victim read]
    set killer [redis_deferring_client]
    set sleeper [redis_deferring_client]
    $sleeper debug sleep 0.3
    after 50
    $killer client kill id $vid
    $victim incr killed-counter
    assert_equal OK [$sleeper read]
    assert_equal 1 [$killer read]
    # The victim's command ran first or not at all; its connection is closed either way.
    catch {$victim read}
    assert_error {*} {$victim read}
    assert_equal {} [r client list id $vid]
    assert_equal PONG [r ping]
    $killer close
    $sleeper close
}

test "io-uring $mode: clients that send a request and close at once leave the server serving" {
    set sleeper [redis_deferring_client]
    $sleeper debug sleep 0.3
    after 50
    for {set i 0} {$i < 50} {incr i} {
        set s [socket [srv host] [srv port]]
        fconfigure $s -translation binary
        puts -nonewline $s "*3\r\n\$3\r\nSET\r\n\$6\r\nclosed\r\n\$1\r\n$i\r\n"
        close $s
    }
    assert_equal OK [$sleeper read]
    $sleeper close
    assert_equal PONG [r ping]
    wait_for_condition 50 20 {[server_info connected_clients] == 1} {
        fail "the closed clients are still listed: [r client list]"
    }
}

test "io-uring $mode: CONFIG SET io-uring switches at run time" {
    set other [expr {$mode eq "yes" ? "no" : "yes"}]
    assert_equal OK [r config set io-uring $other]
    set clients [iob_clients 20]
    foreach c $clients { $c ping }
    foreach c $clients { assert_equal PONG [$c read]; $c close }
    assert_equal OK [r config set io-uring $mode]
    assert_error {*argument must be 'yes' or 'no'*} {r config set io-uring maybe}
}

}
}

}
