# The request protocol (inline and multibulk, pipelining, partial reads, protocol errors and
# limits) and the exact bytes of RESP2 / RESP3 replies. Expected bytes were checked against
# redis-server 7.0 with the same input.

# A fresh raw client: `write` sends bytes as they are, `read` decodes one reply.
proc raw_client {} {
    return [redis_client]
}

# Sends every command of cmds in one write on a new connection and returns, per command, the
# pair {caught reply}: caught is 1 for an error reply (then reply is its text).
proc pipelined_replies {cmds} {
    set buf {}
    foreach cmd $cmds { append buf [::keel::client::encode_command $cmd] }
    set c [raw_client]
    $c write $buf
    set got {}
    foreach _ $cmds { lappend got [catch {$c read} e] $e }
    $c close
    return $got
}

# Reads until the server closes the connection; returns 1 when it did.
proc closed_by_server {c} {
    set closed [expr {[catch {$c read} err] && [string match *closed* $err]}]
    catch {$c close}
    return $closed
}

tags {protocol} {

test "Inline commands" {
    set c [raw_client]
    $c write "SET inline_key hello\r\n"
    assert_equal OK [$c read]
    $c write "GET inline_key\r\n"
    assert_equal hello [$c read]
    # A bare LF ends an inline command too.
    $c write "PING\n"
    assert_equal PONG [$c read]
    $c close
}

test "Inline commands with quotes and escapes" {
    set c [raw_client]
    $c write "SET \"a key\" \"x\\x41\\ny\"\r\n"
    assert_equal OK [$c read]
    assert_equal "xA\ny" [r get "a key"]
    $c write "SET k2 'single \"quoted\"'\r\n"
    assert_equal OK [$c read]
    assert_equal {single "quoted"} [r get k2]
    $c write "ECHO \"\"\r\n"
    assert_equal {} [$c read]
    $c close
}

test "Inline command with unbalanced quotes is a protocol error" {
    set c [raw_client]
    $c write "SET \"a b\r\n"
    assert_error {ERR Protocol error: unbalanced quotes in request} {$c read}
    assert_equal 1 [closed_by_server $c]
    set c [raw_client]
    $c write "SET \"a\"b c\r\n"
    assert_error {ERR Protocol error: unbalanced quotes in request} {$c read}
    assert_equal 1 [closed_by_server $c]
}

test "Empty lines, *0 and *-1 are skipped" {
    set c [raw_client]
    $c write "\r\n\r\n*0\r\n*-1\r\nPING\r\n"
    assert_equal PONG [$c read]
    $c write "\n\n*0\r\n"
    $c write "*1\r\n\$4\r\nPING\r\n"
    assert_equal PONG [$c read]
    $c close
}

test "Pipelining many commands in one write" {
    set c [raw_client]
    r del pipe
    set buf ""
    for {set i 0} {$i < 1000} {incr i} {
        append buf "*2\r\n\$4\r\nINCR\r\n\$4\r\npipe\r\n"
    }
    append buf "PING\r\n"
    $c write $buf
    for {set i 1} {$i <= 1000} {incr i} {
        assert_equal $i [$c read]
    }
    assert_equal PONG [$c read]
    $c close
}

test "A command split across writes byte by byte" {
    set c [raw_client]
    set cmd "*3\r\n\$3\r\nSET\r\n\$5\r\nsplit\r\n\$11\r\nhello world\r\n"
    foreach ch [split $cmd ""] {
        $c write $ch
        after 1
    }
    assert_equal OK [$c read]
    set inline "GET split\r\n"
    foreach ch [split $inline ""] {
        $c write $ch
    }
    assert_equal {hello world} [$c read]
    $c close
}

test "Commands split at every boundary of a pipeline" {
    set c [raw_client]
    set buf "*2\r\n\$4\r\nECHO\r\n\$3\r\nabc\r\nPING\r\n*2\r\n\$4\r\nECHO\r\n\$0\r\n\r\n"
    set n [string length $buf]
    for {set cut 1} {$cut < $n} {incr cut 3} {
        $c write [string range $buf 0 [expr {$cut - 1}]]
        $c write [string range $buf $cut end]
        assert_equal abc [$c read]
        assert_equal PONG [$c read]
        assert_equal {} [$c read]
    }
    $c close
}

foreach {name bytes err} {
    "bad multibulk length" "*abc\r\n" "ERR Protocol error: invalid multibulk length"
    "multibulk length too large" "*3000000000\r\n" "ERR Protocol error: invalid multibulk length"
    "missing dollar" "*1\r\nfoo\r\n" "ERR Protocol error: expected '$', got 'f'"
    "bad bulk length" "*1\r\n\$abc\r\n" "ERR Protocol error: invalid bulk length"
    "negative bulk length" "*1\r\n\$-1\r\n" "ERR Protocol error: invalid bulk length"
    "bulk length over proto-max-bulk-len" "*1\r\n\$600000000\r\n" "ERR Protocol error: invalid bulk length"
    "9-digit bulk length over proto-max-bulk-len" "*1\r\n\$999999999\r\n" "ERR Protocol error: invalid bulk length"
    "multibulk length with a leading zero" "*01\r\n\$4\r\nPING\r\n" "ERR Protocol error: invalid multibulk length"
    "bulk length with a leading zero" "*1\r\n\$04\r\nPING\r\n" "ERR Protocol error: invalid bulk length"
    "bulk length with a plus sign" "*1\r\n\$+4\r\nPING\r\n" "ERR Protocol error: invalid bulk length"
    "bulk length with a space" "*1\r\n\$ 4\r\nPING\r\n" "ERR Protocol error: invalid bulk length"
    "bulk length followed by a letter" "*1\r\n\$4x\r\nPING\r\n" "ERR Protocol error: invalid bulk length"
    "multibulk length followed by a letter" "*1x\r\n" "ERR Protocol error: invalid multibulk length"
} {
    test "Protocol error: $name closes only that connection" {
        set c [raw_client]
        $c write $bytes
        assert_error $err {$c read}
        assert_equal 1 [closed_by_server $c]
        # Other clients are unaffected.
        assert_equal PONG [r ping]
    }
}

test "Commands before a protocol error in the same write are answered" {
    set c [raw_client]
    $c write "PING\r\n*1\r\n\$4\r\nPING\r\n*x\r\n"
    assert_equal PONG [$c read]
    assert_equal PONG [$c read]
    assert_error {ERR Protocol error: invalid multibulk length} {$c read}
    assert_equal 1 [closed_by_server $c]
}

test "Too big inline request" {
    set c [raw_client]
    $c write [string repeat a 70000]
    assert_error {ERR Protocol error: too big inline request} {$c read}
    assert_equal 1 [closed_by_server $c]
}

test "An inline line holding a NUL byte never completes" {
    # redis-server 7.0.15 (7.4 the same): the inline parser looks for the newline with
    # strchr(), which stops at the NUL, so neither command runs and nothing is answered; once
    # more than 64 KB wait in the query buffer the connection gets "too big inline request".
    r del nulkey
    set c [raw_client]
    $c write "SET nulkey a\x00b\r\nPING\r\n"
    $c timeout 0.3
    assert_error {*timeout*} {$c read}
    assert_equal 0 [r exists nulkey]
    $c timeout 10
    $c write [string repeat x 70000]
    assert_error {ERR Protocol error: too big inline request} {$c read}
    assert_equal 1 [closed_by_server $c]
    assert_equal 0 [r exists nulkey]
}

test "A NUL byte after the newline starts the next, never completed, inline line" {
    set c [raw_client]
    $c write "PING\r\n\x00\r\nPING\r\n"
    assert_equal PONG [$c read]
    $c timeout 0.3
    assert_error {*timeout*} {$c read}
    $c close
}

test "Too big multibulk count string" {
    set c [raw_client]
    $c write "*[string repeat 1 70000]"
    assert_error {ERR Protocol error: too big mbulk count string} {$c read}
    assert_equal 1 [closed_by_server $c]
}

test "A query buffer past client-query-buffer-limit closes only that client" {
    r config set client-query-buffer-limit 1mb
    set c [raw_client]
    # A bulk of 3 MB announced (below proto-max-bulk-len) but sent only partly: the buffer
    # passes the 1 MB limit before the command is complete.
    $c write "*2\r\n\$3\r\nset\r\n\$3000000\r\n"
    $c flush
    set chunk [string repeat x 65536]
    catch {
        for {set i 0} {$i < 40} {incr i} {
            $c write $chunk
            $c flush
        }
    }
    assert_equal 1 [closed_by_server $c]
    assert_equal PONG [r ping]
    if {[is_keel]} {
        assert_morethan [server_info client_query_buffer_limit_disconnections] 0
    }
    r config set client-query-buffer-limit 1gb
}

test "A bulk length above proto-max-bulk-len is a protocol error" {
    r config set proto-max-bulk-len 1mb
    set c [raw_client]
    $c write "*2\r\n\$3\r\nget\r\n\$2000000\r\n"
    assert_error {ERR Protocol error: invalid bulk length} {$c read}
    assert_equal 1 [closed_by_server $c]
    assert_equal PONG [r ping]
    r config set proto-max-bulk-len 512mb
}

test "A bulk header that is not a number" {
    set c [raw_client]
    $c write "*1\r\n\$1x\r\n"
    assert_error {ERR Protocol error: invalid bulk length} {$c read}
    assert_equal 1 [closed_by_server $c]
}

test "Unknown command arriving as a multibulk" {
    assert_error {ERR unknown command 'nosuchcmd', with args beginning with: 'a' 'b' } {r nosuchcmd a b}
    set c [raw_client]
    $c write "\$3\r\n"
    assert_error {ERR unknown command '$3', with args beginning with: } {$c read}
    assert_equal PONG [$c ping]
    $c close
}

test "A 10 MB bulk argument" {
    set big [string repeat "0123456789" 1048576]
    assert_equal OK [r set bigval $big]
    assert_equal 10485760 [r strlen bigval]
    assert_equal $big [r get bigval]
    # The same value sent in small slices.
    set c [raw_client]
    set cmd "*3\r\n\$3\r\nSET\r\n\$7\r\nbigval2\r\n\$10485760\r\n$big\r\n"
    for {set i 0} {$i < [string length $cmd]} {incr i 1000000} {
        $c write [string range $cmd $i [expr {$i + 999999}]]
    }
    assert_equal OK [$c read]
    assert_equal 10485760 [r strlen bigval2]
    $c close
    r del bigval bigval2
}

test "A huge pipeline (100000 commands in one write)" {
    set c [raw_client]
    r del hp
    set buf [string repeat "*2\r\n\$4\r\nINCR\r\n\$2\r\nhp\r\n" 100000]
    $c write $buf
    for {set i 1} {$i <= 100000} {incr i} {
        set v [$c read]
    }
    assert_equal 100000 $v
    assert_equal 100000 [r get hp]
    $c close
}

# The member stage of the batch prefetch looks at each key's value before the batch runs; the
# batch below changes, deletes and retypes those keys between member commands, so every reply
# must be what the commands produce one by one, whatever the prefetch budget. The batch ends
# with member commands too short to have a key or a member (arity is checked after prefetch).
test "Pipelined member commands on big sets, hashes and zsets" {
    set replies {}
    foreach budget {16 1 0} {
        r config set prefetch-batch-max-size $budget
        r del bs bh bz
        set sm {}; set hf {}; set zm {}
        for {set i 0} {$i < 1000} {incr i} {
            lappend sm m$i; lappend hf f$i $i; lappend zm $i m$i
        }
        r sadd bs {*}$sm
        r hset bh {*}$hf
        r zadd bz {*}$zm
        assert_equal {hashtable hashtable skiplist} \
            [list [r object encoding bs] [r object encoding bh] [r object encoding bz]]
        set cmds [list \
            [list SADD bs new1 m1 new2] [list SISMEMBER bs m5] [list SREM bs m5 nope] \
            [list SMISMEMBER bs m5 m6 new1] [list DEL bs] [list SADD bs x] [list SCARD bs] \
            [list HSET bh f1 one f400 v] [list HGET bh f1] [list HINCRBY bh f2 5] \
            [list HMGET bh f1 f2 f999] [list HDEL bh f3 f4] [list HEXISTS bh f3] \
            [list HSTRLEN bh f400] [list SET bh str] [list HGET bh f1] [list HSETNX bh f z] \
            [list ZSCORE bz m7] [list ZINCRBY bz 0.5 m7] [list ZRANK bz m7] [list ZREVRANK bz m0] \
            [list ZMSCORE bz m7 m8 none] [list ZREM bz m7 m8] [list ZSCORE bz m7] \
            [list SISMEMBER bz m9] [list HGET missing f] [list SADD bs [string repeat y 100]] \
            [list HGET bh] [list SISMEMBER] [list SADD]]
        lappend replies [pipelined_replies $cmds]
    }
    r config set prefetch-batch-max-size 16
    # As redis-server 7.0 replies to the same batch.
    set want [list 0 2 0 1 0 1 0 {0 1 1} 0 1 0 1 0 1 \
        0 0 0 one 0 7 0 {one 7 999} 0 2 0 0 0 1 0 OK \
        1 {WRONGTYPE Operation against a key holding the wrong kind of value} \
        1 {WRONGTYPE Operation against a key holding the wrong kind of value} \
        0 7 0 7.5 0 7 0 999 0 {7.5 8 {}} 0 2 0 {} \
        1 {WRONGTYPE Operation against a key holding the wrong kind of value} 0 {} 0 1 \
        1 {ERR wrong number of arguments for 'hget' command} \
        1 {ERR wrong number of arguments for 'sismember' command} \
        1 {ERR wrong number of arguments for 'sadd' command}]
    assert_equal $want [lindex $replies 0]
    assert_equal $want [lindex $replies 1]
    assert_equal $want [lindex $replies 2]
    r del bs bh bz
}

test "Pipelined ZADD, ZINCRBY, ZREM and ZRANK on a big zset" {
    # The member stage walks the skiplist ahead for these (ZADD flags, bad scores, INCR, ties).
    set cmds [list \
        [list ZADD bz 5.5 m1] [list ZADD bz NX 1 m2] [list ZADD bz xx ch gt 2000 m3] \
        [list ZADD bz Xx Ch Lt 2000 m3] [list ZADD bz INCR 10 m4] \
        [list ZADD bz incr NX 1 brandnew] [list ZADD bz abc m5] [list ZADD bz nan m5] \
        [list ZADD bz 1] [list ZADD bz xx] [list ZADD bz 1 a 2] \
        [list ZADD bz 3 m6 4 m7 inf m8 -inf m9 1e3 m10] [list ZADD bz 500 tie_a 500 tie_z 500 m500] \
        [list ZADD bz nx xx 1 m1] [list ZADD bz gt lt 1 m1] [list ZADD bz incr 1 m1 2 m2] \
        [list ZINCRBY bz 2 m10] [list ZINCRBY bz abc m10] [list ZINCRBY bz 1.5 newmem] \
        [list ZINCRBY bz 1] [list ZRANK bz m1] [list ZRANK bz m4] [list ZREVRANK bz m8] \
        [list ZRANK bz tie_a] [list ZRANK bz tie_z] [list ZRANK bz m500] \
        [list ZREM bz m9 m2 nonexist] [list ZSCORE bz m1] [list ZRANGE bz 0 3 WITHSCORES] \
        [list ZRANGE bz -3 -1 WITHSCORES] [list ZCARD bz] [list ZADD bz 7 m1 7 m1] \
        [list ZRANGEBYSCORE bz 6 8 WITHSCORES] [list SET s 1] [list ZADD s 1 a] \
        [list ZINCRBY s 1 a] [list ZRANK s a] [list DEL bz] [list ZADD bz 1 x] \
        [list ZINCRBY bz 2 x] [list ZRANK bz x] [list ZADD] [list ZADD bz]]
    set replies {}
    foreach budget {16 1 0} {
        r config set prefetch-batch-max-size $budget
        r del bz s
        set zm {}
        for {set i 0} {$i < 2000} {incr i} { lappend zm $i m$i }
        r zadd bz {*}$zm
        assert_equal skiplist [r object encoding bz]
        lappend replies [pipelined_replies $cmds]
    }
    r config set prefetch-batch-max-size 16
    # As redis-server 7.0 replies to the same batch.
    set wt {WRONGTYPE Operation against a key holding the wrong kind of value}
    set float {ERR value is not a valid float}
    set zarity {ERR wrong number of arguments for 'zadd' command}
    set want [list 0 0 0 0 0 1 0 0 0 14 0 1 1 $float 1 $float 1 $zarity 1 $zarity \
        1 {ERR syntax error} 0 0 0 2 \
        1 {ERR XX and NX options at the same time are not compatible} \
        1 {ERR GT, LT, and/or NX options at the same time are not compatible} \
        1 {ERR INCR option supports a single increment-element pair} 0 1002 1 $float 0 1.5 \
        1 {ERR wrong number of arguments for 'zincrby' command} 0 8 0 13 0 0 0 500 0 501 \
        0 499 0 2 0 5.5 0 {m0 0 brandnew 1 newmem 1.5 m6 3} 0 {m1999 1999 m3 2000 m8 inf} \
        0 2002 0 0 0 {m1 7} 0 OK 1 $wt 1 $wt 1 $wt 0 1 0 1 0 3 0 0 1 $zarity 1 $zarity]
    assert_equal $want [lindex $replies 0]
    assert_equal $want [lindex $replies 1]
    assert_equal $want [lindex $replies 2]
    r del bz s
}

test "Pipelined commands with mixed inline and multibulk framing" {
    set c [raw_client]
    $c write "SET mix 1\r\n*2\r\n\$4\r\nINCR\r\n\$3\r\nmix\r\nINCR mix\r\nGET mix\r\n"
    assert_equal OK [$c read]
    assert_equal 2 [$c read]
    assert_equal 3 [$c read]
    assert_equal 3 [$c read]
    $c close
}

test "RESP2 reply bytes" {
    set c [raw_client]
    $c readraw 1
    $c deferred 1
    $c del nokey
    assert_equal {:0} [$c read]
    $c get nokey
    assert_equal {$-1} [$c read]
    $c set k v
    assert_equal {+OK} [$c read]
    $c get k
    assert_equal {$1} [$c read]
    assert_equal {v} [$c read]
    $c debug protocol double
    assert_equal {$5} [$c read]
    assert_equal {3.141} [$c read]
    $c debug protocol map
    assert_equal {*6} [$c read]
    foreach exp {:0 :0 :1 :1 :2 :0} { assert_equal $exp [$c read] }
    $c debug protocol true
    assert_equal {:1} [$c read]
    $c debug protocol null
    assert_equal {$-1} [$c read]
    $c debug protocol push
    assert_equal {-ERR RESP2 is not supported by this command} [$c read]
    $c close
}

test "RESP3 frames after HELLO 3" {
    set c [raw_client]
    set hello [$c hello 3]
    assert_equal 3 [dict get $hello proto]
    $c readraw 1
    $c deferred 1
    $c get nokey
    assert_equal {_} [$c read]
    $c debug protocol double
    assert_equal {,3.141} [$c read]
    $c debug protocol bignum
    assert_equal {(1234567999999999999999999999999999999} [$c read]
    $c debug protocol null
    assert_equal {_} [$c read]
    $c debug protocol true
    assert_equal {#t} [$c read]
    $c debug protocol false
    assert_equal {#f} [$c read]
    $c debug protocol set
    foreach exp {~3 :0 :1 :2} { assert_equal $exp [$c read] }
    $c debug protocol map
    foreach exp {%3 :0 #f :1 #t :2 #f} { assert_equal $exp [$c read] }
    $c debug protocol verbatim
    assert_equal {=29} [$c read]
    assert_equal "txt:This is a verbatim\nstring" [$c read]
    $c debug protocol push
    foreach exp {>2 {$16} server-cpu-usage :42 {$40} {Some real reply following the push reply}} {
        assert_equal $exp [$c read]
    }
    $c debug protocol attrib
    foreach exp {|1 {$14} key-popularity *2 {$7} key:123 :90 {$39}} { assert_equal $exp [$c read] }
    assert_equal {Some real reply following the attribute} [$c read]
    $c close
}

test "RESP3 HELLO reply is a map" {
    set c [raw_client]
    $c readraw 1
    $c deferred 1
    $c hello 3
    assert_equal {%7} [$c read]
    $c readraw 0
    # The rest of the map: server redis version ... proto 3 ...
    set rest {}
    for {set i 0} {$i < 14} {incr i} { lappend rest [$c read] }
    assert_equal redis [dict get $rest server]
    assert_equal 3 [dict get $rest proto]
    assert_equal standalone [dict get $rest mode]
    assert_equal master [dict get $rest role]
    assert_equal {} [dict get $rest modules]
    $c readraw 1
    $c hello 2
    assert_equal {*14} [$c read]
    $c close
}

test "RESP3 reply decoded by the client" {
    set c [redis_client -resp 3]
    assert_equal {0 0 1 1 2 0} [$c debug protocol map]
    assert_equal {} [$c get nokey]
    assert_equal 3.141 [$c debug protocol double]
    $c close
}

}

start_server {overrides {proto-max-bulk-len 1048576} tags {protocol}} {
    test "proto-max-bulk-len bounds the bulk length" {
        set c [raw_client]
        $c write "*1\r\n\$1048577\r\n"
        assert_error {ERR Protocol error: invalid bulk length} {$c read}
        assert_equal 1 [closed_by_server $c]
        set c [raw_client]
        set v [string repeat x 1048576]
        assert_equal OK [$c set atlimit $v]
        assert_equal 1048576 [$c strlen atlimit]
        $c close
    }
}

tags {protocol} {
    test "Unauthenticated clients get smaller protocol limits" {
        # Clients connected before requirepass was set stay authenticated.
        r config set requirepass secret
        set c [raw_client]
        $c write "*11\r\n"
        assert_error {ERR Protocol error: unauthenticated multibulk length} {$c read}
        assert_equal 1 [closed_by_server $c]
        set c [raw_client]
        $c write "*1\r\n\$16385\r\n"
        assert_error {ERR Protocol error: unauthenticated bulk length} {$c read}
        assert_equal 1 [closed_by_server $c]
        # Within the limits an unauthenticated client is told to authenticate.
        set c [raw_client]
        $c write "*10\r\n\$3\r\nDEL\r\n[string repeat "\$1\r\na\r\n" 9]"
        assert_error {NOAUTH Authentication required.} {$c read}
        # After AUTH the usual limits apply.
        assert_equal OK [$c auth secret]
        assert_equal OK [$c set big [string repeat x 20000]]
        $c close
    }
    r config set requirepass ""
}
