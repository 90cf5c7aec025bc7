# client-output-buffer-limit for pub/sub and normal clients: a subscriber that never reads is
# disconnected once over its hard limit (or over its soft limit for longer than the soft
# seconds) while publishers keep working and the server's memory stays bounded. Log line and
# INFO field names as in Redis 7.4.

tags {pubsub obuf} {

test "A subscriber that never reads is disconnected past the pubsub hard limit" {
    r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
    set disc_before [server_info client_output_buffer_limit_disconnections]
    set sub [redis_deferring_client]
    $sub subscribe big
    assert_equal {subscribe big 1} [$sub read]
    set pub [redis_deferring_client]
    set payload [string repeat x 1048576]
    set receivers 0
    set peak 0
    # 1000 messages of 1 MB (about 1 GB offered to the subscriber), in pipelined rounds of 50.
    for {set round 0} {$round < 20} {incr round} {
        for {set i 0} {$i < 50} {incr i} {
            $pub publish big $payload
        }
        for {set i 0} {$i < 50} {incr i} {
            incr receivers [$pub read]
        }
        set mem [server_info used_memory]
        if {$mem > $peak} { set peak $mem }
    }
    # It received a few dozen messages at most before being cut off.
    assert_range $receivers 1 64
    assert_lessthan $peak [expr {200 * 1024 * 1024}]
    wait_for_condition 100 10 {[r pubsub numsub big] eq {big 0}}
    assert_equal [expr {$disc_before + 1}] [server_info client_output_buffer_limit_disconnections]
    assert_equal 1 [log_matches "*Client id=* scheduled to be closed ASAP for overcoming of output buffer limits.*"]
    # The publisher and the server keep working.
    $pub publish big after
    assert_equal 0 [$pub read]
    assert_equal PONG [r ping]
    # The subscriber's connection is gone.
    catch {$sub ping; $sub read}
    set closed 0
    if {[catch {
        for {set i 0} {$i < 100000} {incr i} { $sub read }
    } err]} {
        set closed [string match *closed* $err]
    }
    assert_equal 1 $closed
    $sub close
    $pub close
    # Memory went back down once the subscriber was freed.
    wait_for_condition 100 10 {[server_info used_memory] < 64 * 1024 * 1024}
}

test "The soft limit disconnects only after being exceeded for soft-seconds" {
    r config set client-output-buffer-limit "pubsub 0 1mb 2"
    set disc_before [server_info client_output_buffer_limit_disconnections]
    set sub [redis_deferring_client]
    $sub subscribe soft
    $sub read
    set payload [string repeat y 1048576]
    # Over the soft limit (the kernel socket buffers take a few MB first): still connected.
    # That holds only while less than soft-seconds went by since the limit was first
    # exceeded, so it is asserted only when the publishing loop itself was quick enough
    # (on a loaded CI machine it may not be).
    set start [clock milliseconds]
    for {set i 0} {$i < 20} {incr i} { r publish soft $payload }
    set last [r publish soft $payload]
    set disc [server_info client_output_buffer_limit_disconnections]
    if {[clock milliseconds] - $start < 1500} {
        assert_equal 1 $last
        assert_equal $disc_before $disc
    }
    # Still over it more than soft-seconds later: the next message closes it.
    after 2100
    r publish soft $payload
    wait_for_condition 100 10 {[r pubsub numsub soft] eq {soft 0}}
    assert_equal [expr {$disc_before + 1}] [server_info client_output_buffer_limit_disconnections]
    $sub close
    r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
}

test "A subscriber that reads is never disconnected" {
    r config set client-output-buffer-limit "pubsub 2mb 1mb 60"
    set disc_before [server_info client_output_buffer_limit_disconnections]
    set sub [redis_deferring_client]
    $sub subscribe steady
    $sub read
    set payload [string repeat z 100000]
    for {set i 0} {$i < 50} {incr i} {
        assert_equal 1 [r publish steady $payload]
        assert_equal [list message steady $payload] [$sub read]
    }
    assert_equal $disc_before [server_info client_output_buffer_limit_disconnections]
    $sub close
    r config set client-output-buffer-limit "pubsub 32mb 8mb 60"
}

test "The normal class limit applies to a client's own replies" {
    r set bigval [string repeat v 3000000]
    r config set client-output-buffer-limit "normal 1mb 0 0"
    set disc_before [server_info client_output_buffer_limit_disconnections]
    set c [redis_client]
    set closed 0
    if {[catch {$c get bigval} err]} {
        set closed [string match *closed* $err]
    }
    assert_equal 1 $closed
    catch {$c close}
    assert_equal [expr {$disc_before + 1}] [server_info client_output_buffer_limit_disconnections]
    # Small replies are unaffected.
    set c [redis_client]
    assert_equal 3000000 [$c strlen bigval]
    $c close
    r config set client-output-buffer-limit "normal 0 0 0"
    assert_equal 3000000 [string length [r get bigval]]
    r del bigval
}

}
