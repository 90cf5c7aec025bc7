# maxmemory-clients (Redis 7.0's client eviction): when the clients' memory passes the limit
# (bytes, or a percentage of maxmemory), the biggest client that is not CLIENT NO-EVICT is
# closed and counted in INFO evicted_clients. Checked against redis-server 7.0.15 (the file
# passes with --server /usr/bin/redis-server).

# A client holding about `mb` MB in its query buffer: a SET whose 20 MB value never completes.
proc query_hog {mb {no_evict 0}} {
    set rd [redis_deferring_client]
    if {$no_evict} {
        $rd client no-evict on
        assert_equal OK [$rd read]
    }
    $rd write "*3\r\n\$3\r\nset\r\n\$1\r\nk\r\n\$20000000\r\n"
    for {set i 0} {$i < $mb} {incr i} {
        if {[catch {$rd write [string repeat x 1000000]}]} break  ;# evicted on the way
        after 10
    }
    return $rd
}

proc evicted_clients {} { return [server_info evicted_clients] }

# True when the server closed the client's connection.
proc client_closed {rd} {
    return [catch {$rd write "x"; after 50; $rd write "x"; $rd read}]
}

# True when the server closed the connection, without sending anything on it.
proc client_closed_quiet {rd} {
    return [catch {$rd write ""}]
}

tags {maxmemory} {

test "maxmemory-clients: default 0, bytes or a percentage" {
    assert_equal {maxmemory-clients 0} [r config get maxmemory-clients]
    r config set maxmemory-clients 10%
    assert_equal {maxmemory-clients 10%} [r config get maxmemory-clients]
    r config set maxmemory-clients 5mb
    assert_equal {maxmemory-clients 5242880} [r config get maxmemory-clients]
    r config set maxmemory-clients 0
    assert_match {[0-9]*} [evicted_clients]
}

test "a client whose query buffer passes maxmemory-clients is evicted, the others stay" {
    r config resetstat
    r config set maxmemory-clients 5mb
    set rd [query_hog 10]
    wait_for_condition 100 20 {[evicted_clients] == 1} { fail "evicted_clients [evicted_clients]" }
    assert [client_closed $rd]
    assert_equal PONG [r ping]
    r config set maxmemory-clients 0
    catch {$rd close}
}

test "maxmemory-clients below 128 KB counts as 128 KB: small clients keep working" {
    r config resetstat
    r config set maxmemory-clients 50
    assert_equal PONG [r ping]
    set small [redis_client]
    assert_equal PONG [$small ping]
    set rd [query_hog 1]
    wait_for_condition 100 20 {[evicted_clients] == 1} { fail "evicted_clients [evicted_clients]" }
    assert_equal PONG [r ping]
    assert_equal PONG [$small ping]
    r config set maxmemory-clients 0
    catch {$rd close}
    $small close
}

test "CLIENT NO-EVICT on keeps a client from being evicted (the next biggest goes instead)" {
    r config resetstat
    r config set maxmemory-clients 5mb
    r client no-evict on
    set small [redis_client]
    assert_equal PONG [$small ping]
    set rd [query_hog 8 1]
    # Over the limit, the hog may not go: the biggest evictable client, however small, does.
    wait_for_condition 100 20 {[evicted_clients] >= 1} { fail "evicted_clients [evicted_clients]" }
    assert [catch {$small ping}]
    assert_equal PONG [r ping]
    assert ![client_closed_quiet $rd]
    r config set maxmemory-clients 0
    r client no-evict off
    catch {$rd close}
    catch {$small close}
}

test "maxmemory-clients as a percentage of maxmemory" {
    r config resetstat
    r config set maxmemory 100mb
    r config set maxmemory-clients 5%
    set rd [query_hog 10]
    wait_for_condition 100 20 {[evicted_clients] == 1} { fail "evicted_clients [evicted_clients]" }
    assert [client_closed $rd]
    # Without maxmemory a percentage means no limit.
    r config set maxmemory 0
    r config resetstat
    set rd2 [query_hog 8]
    after 200
    assert_equal 0 [evicted_clients]
    r config set maxmemory-clients 0
    catch {$rd close}
    catch {$rd2 close}
}

}
