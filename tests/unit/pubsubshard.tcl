# Sharded pub/sub in standalone mode: SSUBSCRIBE SUNSUBSCRIBE SPUBLISH and PUBSUB SHARDCHANNELS /
# SHARDNUMSUB. Shard channels are a namespace of their own: PUBLISH and patterns never reach them.
# Expected replies were checked against redis-server 7.0.15.

proc shard_send {client cmd args} {
    $client $cmd {*}$args
    set n [expr {[llength $args] ? [llength $args] : 1}]
    set counts {}
    for {set i 0} {$i < $n} {incr i} {
        set reply [$client read]
        assert_equal [string tolower $cmd] [lindex $reply 0]
        lappend counts [lindex $reply 2]
    }
    return $counts
}

tags {pubsub pubsubshard} {

test "SSUBSCRIBE confirmations count shard channels only" {
    set rd [redis_deferring_client]
    assert_equal {1 2} [shard_send $rd ssubscribe s1 s2]
    assert_equal {2} [shard_send $rd ssubscribe s1]
    # Classic subscriptions count separately from shard ones.
    assert_equal {1} [shard_send $rd subscribe c1]
    assert_equal {2} [shard_send $rd psubscribe c*]
    assert_equal {3} [shard_send $rd ssubscribe s3]
    $rd ssubscribe s4
    assert_equal {ssubscribe s4 4} [$rd read]
    $rd close
}

test "SPUBLISH delivers smessage to shard subscribers and returns their number" {
    set a [redis_deferring_client]
    set b [redis_deferring_client]
    assert_equal 0 [r spublish sh hello]
    shard_send $a ssubscribe sh
    shard_send $b ssubscribe sh
    assert_equal 2 [r spublish sh hello]
    assert_equal {smessage sh hello} [$a read]
    assert_equal {smessage sh hello} [$b read]
    $a close
    $b close
}

test "PUBLISH and SPUBLISH do not cross namespaces; patterns never match shard channels" {
    set rd [redis_deferring_client]
    shard_send $rd ssubscribe both
    shard_send $rd subscribe both
    shard_send $rd psubscribe b*
    # PUBLISH reaches the channel and the pattern, not the shard subscription.
    assert_equal 2 [r publish both p]
    assert_equal {message both p} [$rd read]
    assert_equal {pmessage b* both p} [$rd read]
    # SPUBLISH reaches only the shard subscription.
    assert_equal 1 [r spublish both s]
    assert_equal {smessage both s} [$rd read]
    $rd close
}

test "SUNSUBSCRIBE of given shard channels and of all of them" {
    set rd [redis_deferring_client]
    shard_send $rd ssubscribe u1 u2 u3
    assert_equal {2 2} [shard_send $rd sunsubscribe u2 nope]
    assert_equal 0 [r spublish u2 x]
    $rd sunsubscribe
    set names [lsort [list [lindex [$rd read] 1] [lindex [$rd read] 1]]]
    assert_equal {u1 u3} $names
    $rd sunsubscribe
    assert_equal {sunsubscribe {} 0} [$rd read]
    $rd close
}

test "SUNSUBSCRIBE and UNSUBSCRIBE report their own counts" {
    set rd [redis_deferring_client]
    shard_send $rd ssubscribe k1
    shard_send $rd subscribe k2
    # UNSUBSCRIBE of a channel not held: channels + patterns = 1.
    assert_equal {1} [shard_send $rd unsubscribe zz]
    # SUNSUBSCRIBE of one not held: shard channels = 1.
    assert_equal {1} [shard_send $rd sunsubscribe zz]
    $rd close
}

test "A client with only shard subscriptions is in the RESP2 subscribed context" {
    set rd [redis_deferring_client]
    shard_send $rd ssubscribe only
    $rd get foo
    assert_error {ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context} {$rd read}
    $rd spublish only x
    assert_error {*Can't execute 'spublish'*} {$rd read}
    # Leaving every classic subscription (it had none) keeps the context.
    shard_send $rd unsubscribe
    $rd get foo
    assert_error {*Can't execute 'get'*} {$rd read}
    shard_send $rd sunsubscribe only
    $rd get foo
    assert_equal {} [$rd read]
    $rd close
}

test "RESP3: ssubscribe confirmation and smessage are push frames (exact bytes)" {
    set rd [redis_deferring_client]
    $rd hello 3
    $rd read
    $rd readraw 1
    $rd ssubscribe rs
    foreach line {>3 $10 ssubscribe $2 rs :1} {
        assert_equal $line [$rd read]
    }
    assert_equal 1 [r spublish rs hey]
    foreach line {>3 $8 smessage $2 rs $3 hey} {
        assert_equal $line [$rd read]
    }
    $rd sunsubscribe
    foreach line {>3 $12 sunsubscribe $2 rs :0} {
        assert_equal $line [$rd read]
    }
    $rd close
}

test "PUBSUB SHARDCHANNELS and SHARDNUMSUB" {
    set a [redis_deferring_client]
    set b [redis_deferring_client]
    shard_send $a ssubscribe sc.1 sc.2 other
    shard_send $b ssubscribe sc.1
    shard_send $b subscribe sc.3
    assert_equal {other sc.1 sc.2} [lsort [r pubsub shardchannels]]
    assert_equal {sc.1 sc.2} [lsort [r pubsub shardchannels sc.*]]
    assert_equal {sc.1 2 sc.2 1 sc.3 0} [r pubsub shardnumsub sc.1 sc.2 sc.3]
    assert_equal {} [r pubsub shardnumsub]
    # Shard channels are not classic channels and vice versa.
    assert_equal {sc.3} [r pubsub channels sc.*]
    assert_equal {sc.1 0} [r pubsub numsub sc.1]
    assert_error {*unknown subcommand or wrong number of arguments for 'shardchannels'*} \
        {r pubsub shardchannels a b}
    $a close
    $b close
    wait_for_condition 50 10 {[r pubsub shardchannels] eq {}}
    assert_equal {sc.1 0} [r pubsub shardnumsub sc.1]
}

test "RESET and disconnect drop shard subscriptions" {
    set rd [redis_deferring_client]
    shard_send $rd ssubscribe gone
    assert_equal {gone 1} [r pubsub shardnumsub gone]
    $rd reset
    assert_equal RESET [$rd read]
    assert_equal {gone 0} [r pubsub shardnumsub gone]
    shard_send $rd ssubscribe gone
    $rd close
    wait_for_condition 50 10 {[r pubsub shardnumsub gone] eq {gone 0}}
}

test "Sharded pub/sub arity errors" {
    assert_error {*wrong number of arguments for 'ssubscribe' command*} {r ssubscribe}
    assert_error {*wrong number of arguments for 'spublish' command*} {r spublish ch}
    assert_error {*wrong number of arguments for 'spublish' command*} {r spublish ch a b}
}

test "COMMAND INFO key positions of the shard commands" {
    assert_equal {ssubscribe -2} [lrange [lindex [r command info ssubscribe] 0] 0 1]
    assert_equal {1 -1 1} [lrange [lindex [r command info ssubscribe] 0] 3 5]
    assert_equal {1 1 1} [lrange [lindex [r command info spublish] 0] 3 5]
    assert_equal {0 0 0} [lrange [lindex [r command info publish] 0] 3 5]
}

}
