# Lazy freeing: UNLINK, FLUSHALL / FLUSHDB ASYNC and the lazyfree-lazy-* options hand big values
# (free effort above Redis's 64) to the lazyfree thread; INFO lazyfree_pending_objects and
# lazyfreed_objects count them when the thread is done. Counts were checked against
# redis-server 7.0.15 (the file passes with --server /usr/bin/redis-server).

proc lazyfreed {} { return [server_info lazyfreed_objects] }
proc wait_lazyfreed {n} {
    wait_for_condition 200 10 {[lazyfreed] == $n} {
        fail "lazyfreed_objects is [lazyfreed], expected $n"
    }
}
proc make_set {key n} {
    r eval {for i = 1, tonumber(ARGV[1]) do redis.call('sadd', KEYS[1], i) end return 1} 1 $key $n
}

tags {lazyfree} {

test "UNLINK hands a big value to the lazyfree thread, frees a small one at once" {
    r flushall
    r config resetstat
    make_set big 1000
    make_set small 10
    r rpush list {*}[lrepeat 100 x]
    assert_equal 3 [r unlink big small list]
    assert_equal 0 [r exists big small list]
    wait_lazyfreed 1
    assert_equal 0 [server_info lazyfree_pending_objects]
}

test "DEL frees lazily under lazyfree-lazy-user-del" {
    r config resetstat
    make_set big 1000
    assert_equal 1 [r del big]
    assert_equal 0 [lazyfreed]
    r config set lazyfree-lazy-user-del yes
    make_set big 1000
    assert_equal 1 [r del big]
    r config set lazyfree-lazy-user-del no
    wait_lazyfreed 1
}

test "FLUSHALL ASYNC / FLUSHDB ASYNC: the keys go at once, their memory in the background" {
    r config resetstat
    r debug populate 1000
    make_set big 1000
    r flushdb async
    assert_equal 0 [r dbsize]
    wait_lazyfreed 1001
    r select 9
    r debug populate 10
    r select 0
    r debug populate 20
    r flushall async
    assert_equal 0 [r dbsize]
    wait_lazyfreed 1031
    r select 9
    assert_equal 0 [r dbsize]
    r select 0
    # lazyfree-lazy-user-flush makes a plain FLUSHALL asynchronous.
    r config set lazyfree-lazy-user-flush yes
    r debug populate 5
    r flushall
    r config set lazyfree-lazy-user-flush no
    wait_lazyfreed 1036
    r debug populate 5
    r flushall sync
    after 50
    assert_equal 1036 [lazyfreed]
}

test "lazyfree-lazy-server-del: overwritten and server-deleted big values are freed in the background" {
    r flushall
    r config resetstat
    make_set big 1000
    r set big v
    assert_equal 0 [lazyfreed]
    r config set lazyfree-lazy-server-del yes
    r del big
    make_set big 1000
    make_set src 1000
    make_set dst 1000
    r set big v          ;# SET over a big value
    wait_lazyfreed 1
    r rename src dst     ;# RENAME's destination
    wait_lazyfreed 2
    r sunionstore dst nosuchkey  ;# a *STORE deleting its destination
    wait_lazyfreed 3
    r set small v
    r set small w        ;# small values are freed at once either way
    assert_equal 3 [lazyfreed]
    r config set lazyfree-lazy-server-del no
}

test "lazyfree-lazy-expire: an expired big value is freed in the background" {
    r flushall
    r config resetstat
    r debug set-active-expire 0
    make_set big 1000
    r pexpire big 1
    after 5
    r config set lazyfree-lazy-expire yes
    assert_equal 0 [r exists big]
    r config set lazyfree-lazy-expire no
    wait_lazyfreed 1
    r debug set-active-expire 1
}

test "lazyfree-lazy-eviction: an evicted big value is freed in the background" {
    r flushall
    r config resetstat
    r config set maxmemory-policy allkeys-lru
    r config set lazyfree-lazy-eviction yes
    make_set big 1000
    r config set maxmemory 1
    r ping
    r config set maxmemory 0
    r config set lazyfree-lazy-eviction no
    r config set maxmemory-policy noeviction
    assert_equal 0 [r exists big]
    wait_lazyfreed 1
}

test "UNLINK of a 10M-element set: the loop keeps answering PING within milliseconds" {
    r flushall
    # 10M members, 5000 per SADD, 500K per script (each well under any read timeout).
    for {set chunk 0} {$chunk < 20} {incr chunk} {
        r eval {local t = {}
                local base = tonumber(ARGV[1]) * 500000
                for b = 0, 99 do
                    for i = 1, 5000 do t[i] = base + b * 5000 + i end
                    redis.call('sadd', KEYS[1], unpack(t))
                end
                return 1} 1 big $chunk
    }
    assert_equal 10000000 [r scard big]
    set t0 [clock microseconds]
    assert_equal 1 [r unlink big]
    set worst [expr {[clock microseconds] - $t0}]
    for {set i 0} {$i < 200} {incr i} {
        set t [clock microseconds]
        r ping
        set d [expr {[clock microseconds] - $t}]
        if {$d > $worst} { set worst $d }
    }
    # Freeing 10M members synchronously takes about a second; handed over, every reply comes
    # within a few ms (a loose bound for a loaded machine).
    assert_lessthan $worst 50000 "worst round trip $worst us"
    wait_for_condition 3000 10 {[server_info lazyfree_pending_objects] == 0} { fail "still pending" }
}

}
