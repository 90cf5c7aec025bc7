# Pub/Sub: SUBSCRIBE UNSUBSCRIBE PSUBSCRIBE PUNSUBSCRIBE PUBLISH PUBSUB, the RESP2 subscribed
# context, RESP3 push frames, RESET and disconnect clean-up. Expected replies were checked against
# redis-server 7.0.15; the one 7.4 difference used here (a RESP3 client publishing to itself gets
# the push after the PUBLISH reply, Redis >= 7.2) is marked where it is tested.

# Sends `cmd names...` on a deferring client and reads one confirmation per name (or one when no
# names are given). Returns the counts; fails when a confirmation is not of kind `cmd`.
proc ps_send {client cmd args} {
    $client $cmd {*}$args
    set n [expr {[llength $args] ? [llength $args] : 1}]
    set counts {}
    for {set i 0} {$i < $n} {incr i} {
        set reply [$client read]
        assert_equal [string tolower $cmd] [lindex $reply 0] "confirmation of $cmd"
        lappend counts [lindex $reply 2]
    }
    return $counts
}

# Reads confirmations of an argument-less (P|S)UNSUBSCRIBE: returns the sorted names it left.
proc ps_leave_all {client cmd expected_n} {
    $client $cmd
    set names {}
    for {set i 0} {$i < $expected_n} {incr i} {
        set reply [$client read]
        assert_equal $cmd [lindex $reply 0]
        lappend names [lindex $reply 1]
    }
    return [lsort $names]
}

proc ps_numsub {channel} {
    return [lindex [r pubsub numsub $channel] 1]
}

tags {pubsub} {

test "SUBSCRIBE replies one confirmation per channel with the running count" {
    set rd [redis_deferring_client]
    assert_equal {1 2 3} [ps_send $rd subscribe ch1 ch2 ch3]
    # Subscribing again to a channel one already has keeps the count.
    assert_equal {3 4} [ps_send $rd subscribe ch2 ch4]
    $rd close
}

test "SUBSCRIBE confirmation layout (RESP2)" {
    set rd [redis_deferring_client]
    $rd subscribe chan
    assert_equal {subscribe chan 1} [$rd read]
    $rd close
}

test "PUBLISH returns the number of receivers and they get the message" {
    r flushall
    assert_equal 0 [r publish nobody hello]
    set a [redis_deferring_client]
    set b [redis_deferring_client]
    ps_send $a subscribe news
    ps_send $b subscribe news other
    assert_equal 2 [r publish news hello]
    assert_equal 1 [r publish other bye]
    assert_equal {message news hello} [$a read]
    assert_equal {message news hello} [$b read]
    assert_equal {message other bye} [$b read]
    $a close
    $b close
}

test "PUBLISH of binary and empty payloads and channel names" {
    set rd [redis_deferring_client]
    ps_send $rd subscribe "" "bin\x00\r\nchan"
    assert_equal 1 [r publish "" ""]
    assert_equal 1 [r publish "bin\x00\r\nchan" "a\r\nb\x00"]
    assert_equal [list message "" ""] [$rd read]
    assert_equal [list message "bin\x00\r\nchan" "a\r\nb\x00"] [$rd read]
    $rd close
}

test "UNSUBSCRIBE of given channels, including ones never subscribed" {
    set rd [redis_deferring_client]
    ps_send $rd subscribe a b c
    assert_equal {2} [ps_send $rd unsubscribe b]
    # Not subscribed: still confirmed, count unchanged.
    assert_equal {2 1} [ps_send $rd unsubscribe nope a]
    assert_equal 0 [r publish a x]
    assert_equal 0 [r publish b x]
    assert_equal 1 [r publish c x]
    assert_equal {message c x} [$rd read]
    $rd close
}

test "UNSUBSCRIBE without arguments leaves every channel" {
    set rd [redis_deferring_client]
    ps_send $rd subscribe x1 x2 x3
    assert_equal {x1 x2 x3} [ps_leave_all $rd unsubscribe 3]
    assert_equal 0 [r publish x1 m]
    # Nothing left: one confirmation with a null channel and count 0.
    $rd unsubscribe
    assert_equal {unsubscribe {} 0} [$rd read]
    $rd punsubscribe
    assert_equal {punsubscribe {} 0} [$rd read]
    $rd close
}

test "UNSUBSCRIBE all: the last count is 0 and the client leaves the subscribed context" {
    set rd [redis_deferring_client]
    ps_send $rd subscribe q1 q2
    $rd unsubscribe
    set counts [list [lindex [$rd read] 2] [lindex [$rd read] 2]]
    assert_equal {1 0} $counts
    $rd set after-unsub 1
    assert_equal OK [$rd read]
    $rd close
}

test "UNSUBSCRIBE on a client that never subscribed is not a subscribed context" {
    set c [redis_client]
    assert_equal {unsubscribe foo 0} [$c unsubscribe foo]
    assert_equal PONG [$c ping]
    assert_equal OK [$c set k v]
    $c close
}

test "PSUBSCRIBE / PUNSUBSCRIBE counts include channels" {
    set rd [redis_deferring_client]
    assert_equal {1} [ps_send $rd subscribe plain]
    assert_equal {2 3} [ps_send $rd psubscribe p.* q.*]
    assert_equal {3} [ps_send $rd psubscribe p.*]
    assert_equal {2 2} [ps_send $rd punsubscribe p.* nope.*]
    assert_equal {q.*} [ps_leave_all $rd punsubscribe 1]
    assert_equal {0} [ps_send $rd unsubscribe plain]
    $rd close
}

test "Pattern subscribers get pmessage with pattern, channel and payload" {
    set rd [redis_deferring_client]
    ps_send $rd psubscribe news.*
    assert_equal 1 [r publish news.sport goal]
    assert_equal 0 [r publish news sport]
    assert_equal {pmessage news.* news.sport goal} [$rd read]
    $rd close
}

test "Pattern matching follows Redis glob rules" {
    set rd [redis_deferring_client]
    ps_send $rd psubscribe {h?llo} {h[ae]llo} {x[^e]y} {r[a-c]} {lit\*star} {esc\?}
    # h?llo + h[ae]llo
    assert_equal 2 [r publish hello 1]
    assert_equal 1 [r publish hxllo 2]
    assert_equal 0 [r publish hllo 3]
    # [^e]
    assert_equal 1 [r publish xay 4]
    assert_equal 0 [r publish xey 5]
    # ranges
    assert_equal 1 [r publish rb 6]
    assert_equal 0 [r publish rd 7]
    # escaped * and ? are literal
    assert_equal 1 [r publish {lit*star} 8]
    assert_equal 0 [r publish {litXstar} 9]
    assert_equal 1 [r publish {esc?} 10]
    assert_equal 0 [r publish {escX} 11]
    set got {}
    for {set i 0} {$i < 7} {incr i} {
        set m [$rd read]
        assert_equal pmessage [lindex $m 0]
        lappend got [lindex $m 1]:[lindex $m 3]
    }
    set want [list {h?llo:1} {h[ae]llo:1} {h?llo:2} {x[^e]y:4} {r[a-c]:6} {lit\*star:8} {esc\?:10}]
    assert_equal [lsort $want] [lsort $got]
    $rd close
}

test "A client subscribed to a channel and a matching pattern gets both messages" {
    set rd [redis_deferring_client]
    ps_send $rd subscribe events.a
    ps_send $rd psubscribe events.*
    assert_equal 2 [r publish events.a hi]
    # Exact channel first, then the pattern.
    assert_equal {message events.a hi} [$rd read]
    assert_equal {pmessage events.* events.a hi} [$rd read]
    $rd close
}

test "Two pattern subscriptions matching one channel deliver twice" {
    set rd [redis_deferring_client]
    ps_send $rd psubscribe a* *b
    assert_equal 2 [r publish ab x]
    set pats [lsort [list [lindex [$rd read] 1] [lindex [$rd read] 1]]]
    assert_equal {*b a*} $pats
    $rd close
}

test "PUBSUB CHANNELS with and without a pattern" {
    set a [redis_deferring_client]
    set b [redis_deferring_client]
    ps_send $a subscribe chan.one chan.two other
    ps_send $b subscribe chan.one
    ps_send $b psubscribe chan.*
    assert_equal {chan.one chan.two other} [lsort [r pubsub channels]]
    assert_equal {chan.one chan.two} [lsort [r pubsub channels chan.*]]
    assert_equal {} [r pubsub channels nomatch*]
    # Patterns are not channels.
    assert_equal {} [r pubsub channels {chan.\*}]
    $a close
    $b close
    wait_for_condition 50 10 {[r pubsub channels] eq {}}
}

test "PUBSUB NUMSUB counts exact subscribers only" {
    set a [redis_deferring_client]
    set b [redis_deferring_client]
    ps_send $a subscribe n1 n2
    ps_send $b subscribe n1
    ps_send $b psubscribe n*
    assert_equal {n1 2 n2 1 n3 0} [r pubsub numsub n1 n2 n3]
    assert_equal {} [r pubsub numsub]
    $a close
    $b close
}

test "PUBSUB NUMPAT counts distinct patterns" {
    set a [redis_deferring_client]
    set b [redis_deferring_client]
    wait_for_condition 50 10 {[r pubsub numpat] == 0}
    ps_send $a psubscribe p1* p2*
    ps_send $b psubscribe p1* p3*
    assert_equal 3 [r pubsub numpat]
    ps_send $a punsubscribe p1*
    assert_equal 3 [r pubsub numpat]
    ps_send $b punsubscribe p1*
    assert_equal 2 [r pubsub numpat]
    $a close
    $b close
    wait_for_condition 50 10 {[r pubsub numpat] == 0}
}

test "PUBSUB errors and HELP" {
    assert_error {*unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP.} \
        {r pubsub CHANNELS a b}
    assert_error {*wrong number of arguments for 'pubsub|numpat' command*} {r pubsub numpat x}
    assert_error {*wrong number of arguments for 'pubsub' command*} {r pubsub}
    assert_error {*unknown subcommand 'FOO'. Try PUBSUB HELP.*} {r pubsub FOO}
    set help [r pubsub help]
    assert_match {PUBSUB <subcommand> *} [lindex $help 0]
    assert_equal {NUMPAT} [lindex $help 3]
    assert_equal 14 [llength $help]
}

test "Arity errors of the pub/sub commands" {
    assert_error {*wrong number of arguments for 'subscribe' command*} {r subscribe}
    assert_error {*wrong number of arguments for 'psubscribe' command*} {r psubscribe}
    assert_error {*wrong number of arguments for 'publish' command*} {r publish ch}
    assert_error {*wrong number of arguments for 'publish' command*} {r publish ch a b}
}

test "RESP2 subscribed context rejects other commands" {
    set rd [redis_deferring_client]
    ps_send $rd subscribe ctx
    $rd get foo
    assert_error {ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context} {$rd read}
    $rd client list
    assert_error {*Can't execute 'client|list':*} {$rd read}
    $rd publish ctx x
    assert_error {*Can't execute 'publish':*} {$rd read}
    # Allowed: the (P|S)(UN)SUBSCRIBE family and PING.
    assert_equal {2} [ps_send $rd psubscribe ctx*]
    assert_equal {1} [ps_send $rd ssubscribe ctxshard]
    $rd close
}

test "PING in RESP2 subscribed context replies a pong array" {
    set rd [redis_deferring_client]
    ps_send $rd subscribe pingchan
    $rd ping
    assert_equal {pong {}} [$rd read]
    $rd ping hello
    assert_equal {pong hello} [$rd read]
    $rd readraw 1
    $rd ping
    assert_equal {*2} [$rd read]
    assert_equal {$4} [$rd read]
    assert_equal {pong} [$rd read]
    assert_equal {$0} [$rd read]
    assert_equal {} [$rd read]
    $rd close
}

test "The subscribed context ends when the last subscription goes" {
    set rd [redis_deferring_client]
    ps_send $rd subscribe c1
    ps_send $rd psubscribe c*
    ps_send $rd unsubscribe c1
    $rd get foo
    assert_error {*Can't execute*} {$rd read}
    ps_send $rd punsubscribe c*
    $rd ping
    assert_equal PONG [$rd read]
    $rd close
}

test "QUIT is allowed in subscribed context" {
    set rd [redis_deferring_client]
    ps_send $rd subscribe quitchan
    $rd quit
    assert_equal OK [$rd read]
    $rd close
    wait_for_condition 50 10 {[ps_numsub quitchan] == 0}
}

test "RESP3: no subscribed-context restriction, PING replies PONG" {
    set rd [redis_deferring_client]
    $rd hello 3
    $rd read
    ps_send $rd subscribe r3chan
    $rd set r3key v
    assert_equal OK [$rd read]
    $rd get r3key
    assert_equal v [$rd read]
    $rd ping
    assert_equal PONG [$rd read]
    $rd close
}

test "RESP3: subscribe confirmations and messages are push frames (exact bytes)" {
    set rd [redis_deferring_client]
    $rd hello 3
    $rd read
    $rd readraw 1
    $rd subscribe pushchan
    assert_equal {>3} [$rd read]
    assert_equal {$9} [$rd read]
    assert_equal {subscribe} [$rd read]
    assert_equal {$8} [$rd read]
    assert_equal {pushchan} [$rd read]
    assert_equal {:1} [$rd read]
    $rd psubscribe push*
    foreach line {>3 $10 psubscribe $5 push* :2} {
        assert_equal $line [$rd read]
    }
    assert_equal 2 [r publish pushchan hi]
    foreach line {>3 $7 message $8 pushchan $2 hi >4 $8 pmessage $5 push* $8 pushchan $2 hi} {
        assert_equal $line [$rd read]
    }
    $rd unsubscribe
    foreach line {>3 $11 unsubscribe $8 pushchan :1} {
        assert_equal $line [$rd read]
    }
    $rd punsubscribe
    foreach line {>3 $12 punsubscribe $5 push* :0} {
        assert_equal $line [$rd read]
    }
    # No subscription left: the name is a RESP3 null.
    $rd unsubscribe
    foreach line {>3 $11 unsubscribe _ :0} {
        assert_equal $line [$rd read]
    }
    $rd close
}

test "RESP3: a client publishing to itself gets the reply, then the push (Redis 7.2+ order)" {
    set rd [redis_deferring_client]
    $rd hello 3
    $rd read
    ps_send $rd subscribe selfchan
    $rd readraw 1
    $rd publish selfchan me
    # Redis 7.0 sends the push first; 7.2 and later hold it until after the reply.
    assert_equal {:1} [$rd read]
    foreach line {>3 $7 message $8 selfchan $2 me} {
        assert_equal $line [$rd read]
    }
    $rd close
}

test "RESP2 and RESP3 subscribers of one channel each get their own framing" {
    set r2 [redis_deferring_client]
    set r3 [redis_deferring_client]
    $r3 hello 3
    $r3 read
    ps_send $r2 subscribe mixed
    ps_send $r3 subscribe mixed
    $r2 readraw 1
    $r3 readraw 1
    assert_equal 2 [r publish mixed x]
    assert_equal {*3} [$r2 read]
    assert_equal {>3} [$r3 read]
    $r2 close
    $r3 close
}

test "RESET leaves every subscription and the subscribed context" {
    set rd [redis_deferring_client]
    ps_send $rd subscribe rs1 rs2
    ps_send $rd psubscribe rs*
    ps_send $rd ssubscribe rsshard
    assert_equal {rs1 1} [r pubsub numsub rs1]
    $rd reset
    assert_equal RESET [$rd read]
    assert_equal {rs1 0 rs2 0} [r pubsub numsub rs1 rs2]
    assert_equal {rsshard 0} [r pubsub shardnumsub rsshard]
    assert_equal 0 [r publish rs1 x]
    $rd set afterreset 1
    assert_equal OK [$rd read]
    $rd close
}

test "Disconnecting a subscriber removes its channels and patterns" {
    set rd [redis_deferring_client]
    ps_send $rd subscribe gone1 gone2
    ps_send $rd psubscribe gone*
    assert_equal {gone1 1 gone2 1} [r pubsub numsub gone1 gone2]
    set before [r pubsub numpat]
    $rd close
    wait_for_condition 50 10 {[r pubsub numsub gone1 gone2] eq {gone1 0 gone2 0}}
    assert_equal [expr {$before - 1}] [r pubsub numpat]
    assert_equal 0 [r publish gone1 x]
}

test "CLIENT KILL of a subscriber cleans up too" {
    set rd [redis_deferring_client]
    $rd client id
    set id [$rd read]
    ps_send $rd subscribe killed
    assert_equal 1 [r client kill id $id]
    assert_equal {killed 0} [r pubsub numsub killed]
    $rd close
}

test "CLIENT LIST shows sub/psub/ssub counts and the P flag; INFO counts channels" {
    set base [server_info pubsub_clients]
    set bch [server_info pubsub_channels]
    set bpat [server_info pubsub_patterns]
    set bsh [server_info pubsubshard_channels]
    set rd [redis_deferring_client]
    $rd client setname psclient
    $rd read
    ps_send $rd subscribe l1 l2
    ps_send $rd psubscribe l*
    ps_send $rd ssubscribe ls
    set line [r client list]
    assert_match {*name=psclient * flags=P * sub=2 psub=1 ssub=1 *} $line
    assert_match {*psclient*} [r client list type pubsub]
    assert_no_match {*psclient*} [r client list type normal]
    assert_equal [expr {$bch + 2}] [server_info pubsub_channels]
    assert_equal [expr {$bpat + 1}] [server_info pubsub_patterns]
    assert_equal [expr {$bsh + 1}] [server_info pubsubshard_channels]
    assert_equal [expr {$base + 1}] [server_info pubsub_clients]
    $rd close
    wait_for_condition 50 10 {[server_info pubsub_channels] == $bch}
    assert_equal $bpat [server_info pubsub_patterns]
    assert_equal $bsh [server_info pubsubshard_channels]
}

test "Keyspace notifications reach channel and pattern subscribers" {
    r config set notify-keyspace-events KEA
    set rd [redis_deferring_client]
    ps_send $rd subscribe __keyevent@0__:set
    ps_send $rd psubscribe __keyspace@0__:*
    r set nkey v
    assert_equal {pmessage __keyspace@0__:* __keyspace@0__:nkey set} [$rd read]
    assert_equal {message __keyevent@0__:set nkey} [$rd read]
    r config set notify-keyspace-events ""
    r set nkey v2
    assert_equal 1 [r publish __keyevent@0__:set marker]
    assert_equal {message __keyevent@0__:set marker} [$rd read]
    $rd close
}

# Found by tests/fuzz/cmdfuzz.py: PUBLISH is may_replicate, which read-only scripts refuse.
test "PUBLISH and SPUBLISH are refused in read-only scripts" {
    assert_error {ERR Write commands are not allowed from read-only scripts*} {r eval_ro {return redis.call('publish', 'ch', 'x')} 0}
    assert_error {ERR Write commands are not allowed from read-only scripts*} {r eval_ro {return redis.call('spublish', 'ch', 'x')} 0}
    assert_equal 0 [r eval {return redis.call('publish', 'ch', 'x')} 0]
}

}
