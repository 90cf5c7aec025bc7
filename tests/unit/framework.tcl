# Tests of the test framework itself (client, decoding, servers, helpers).
# Runs inside the implicit server of the file. Uses only commands whose
# replies are the same across Redis-compatible servers.

# A throw-away fake server inside this process that answers every request
# with fixed bytes; lets the decoder be tested on exact protocol input.
proc fake_server {reply} {
    set s [socket -server [list fake_accept $reply] -myaddr 127.0.0.1 0]
    lappend ::fake_servers $s
    return [lindex [chan configure $s -sockname] 2]
}

proc fake_accept {reply chan addr port} {
    chan configure $chan -translation binary -blocking 0
    chan event $chan readable [list fake_read $chan $reply]
}

# An empty reply means "never answer"; "SLOW:bytes" sends one byte per ms.
proc fake_read {chan reply} {
    set data [read $chan]
    if {[eof $chan]} {
        close $chan
        return
    }
    if {$data eq "" || $reply eq ""} {
        return
    }
    if {[string match SLOW:* $reply]} {
        fake_trickle $chan [string range $reply 5 end]
    } else {
        puts -nonewline $chan $reply
        flush $chan
    }
}

proc fake_trickle {chan bytes} {
    if {$bytes eq "" || [catch {
        puts -nonewline $chan [string index $bytes 0]
        flush $chan
    }]} {
        return
    }
    after 1 [list fake_trickle $chan [string range $bytes 1 end]]
}

proc fake_stop {} {
    foreach s $::fake_servers {
        catch {close $s}
    }
    set ::fake_servers {}
}
set ::fake_servers {}

# Decode the given protocol bytes as the reply to one command.
proc decode {bytes} {
    set c [redis_client -host 127.0.0.1 -port [fake_server $bytes]]
    set code [catch {$c ping} res]
    $c close
    fake_stop
    if {$code} {
        return "ERROR: $res"
    }
    return $res
}

tags {framework} {

test "PING and simple string replies" {
    assert_equal PONG [r ping]
    assert_equal OK [r set foo bar]
    assert_equal bar [r get foo]
}

test "Integer, nil and array replies (RESP2)" {
    require_commands rpush lrange blpop
    r del mylist nokey
    assert_equal 3 [r rpush mylist a b c]
    assert_equal {a b c} [r lrange mylist 0 -1]
    assert_equal {} [r get nokey]
    assert_equal {} [r lrange nokey 0 -1]
    # Null array reply from a timed-out blocking pop.
    assert_equal {} [r blpop nokey 0.01]
    assert_equal 4 [r incrby counter 4]
}

test "Error replies raise Tcl errors without the dash" {
    require_commands rpush
    r del list
    r rpush list x
    assert_error {WRONGTYPE*} {r get list}
    catch {r nosuchcommand a b} e
    assert_match {ERR unknown command*} $e
    assert_equal [list 1 ERR] [list [catch {r incr list} e2] [string range $e 0 2]]
}

test "Errors nested in EXEC are returned as text" {
    require_commands multi lpush
    r del s
    r multi
    r set s 1
    r lpush s x
    set res [r exec]
    assert_equal OK [lindex $res 0]
    assert_match {WRONGTYPE*} [lindex $res 1]
}

test "Binary-safe bulk strings" {
    set bin ""
    for {set i 0} {$i < 256} {incr i} {
        append bin [format %c $i]
    }
    append bin "\r\n\r\nend\x00"
    r set bin $bin
    set got [r get bin]
    assert_equal [string length $bin] [string length $got]
    assert_equal $bin $got
    assert_equal [string length $bin] [r strlen bin]
}

test "Non-Latin-1 characters are sent as UTF-8" {
    r set u "\u20ac"
    assert_equal 3 [r strlen u]
    assert_equal [encoding convertto utf-8 "\u20ac"] [r get u]
}

test "Large bulk replies (100 MB)" {
    set big [string repeat "0123456789" 10000000]
    r set big $big
    assert_equal 100000000 [r strlen big]
    set got [r get big]
    assert_equal 100000000 [string length $got]
    assert_equal "0123456789" [string range $got end-9 end]
    assert_equal $big $got
    unset big got
    r del big
}

test "Many pipelined replies through a deferring client" {
    set rd [redis_deferring_client]
    for {set i 0} {$i < 1000} {incr i} {
        $rd set k$i $i
        $rd get k$i
    }
    for {set i 0} {$i < 1000} {incr i} {
        assert_equal OK [$rd read]
        assert_equal $i [$rd read]
    }
    $rd close
}

test "Raw mode returns protocol lines one per read" {
    require_commands rpush lrange
    set c [redis_client]
    $c readraw 1
    assert_equal {+OK} [$c set foo bar]
    assert_equal {$3} [$c get foo]
    assert_equal bar [$c read]
    assert_match {:*} [$c del rawlist]
    assert_equal {:2} [$c rpush rawlist x y]
    assert_equal {*2} [$c lrange rawlist 0 -1]
    assert_equal {$1} [$c read]
    assert_equal x [$c read]
    assert_equal {$1} [$c read]
    assert_equal y [$c read]
    assert_equal {$-1} [$c get nokey]
    assert_match {-ERR*} [$c nosuchcommand]
    $c readraw 0
    assert_equal PONG [$c ping]
    $c close
}

test "RESP3: HELLO 3 map, sets, doubles, nulls" {
    require_commands hset sadd zadd
    set c [redis_client]
    set hello [$c hello 3]
    assert_equal 3 [dict get $hello proto]
    $c del h s z
    $c hset h f1 v1 f2 v2
    assert_dict_equal {f1 v1 f2 v2} [$c hgetall h]
    $c sadd s a b c
    assert_equal_unordered {a b c} [$c smembers s]
    $c zadd z 1.5 m
    assert_equal 1.5 [$c zscore z m]
    assert_equal {} [$c get nokey]
    assert_equal {} [$c zscore z nomember]
    $c close
}

test "RESP3: verbatim strings lose their format prefix" {
    set c [redis_client -resp 3]
    set info [$c info server]
    assert_match "# Server*" $info
    $c close
}

test "RESP3: booleans, big numbers and doubles from Lua" {
    require_commands eval
    set c [redis_client -resp 3]
    assert_equal 1 [$c eval {redis.setresp(3); return true} 0]
    assert_equal 0 [$c eval {redis.setresp(3); return false} 0]
    assert_equal 3.5 [$c eval {redis.setresp(3); return {double=3.5}} 0]
    assert_equal 1234567890123456789012345678901234567890 \
        [$c eval {redis.setresp(3); return {big_number='1234567890123456789012345678901234567890'}} 0]
    $c close
}

test "Decoder: RESP3 types on exact input" {
    assert_equal {a 1 b {x y}} [decode "%2\r\n+a\r\n:1\r\n\$1\r\nb\r\n*2\r\n+x\r\n+y\r\n"]
    assert_equal {p q} [decode "~2\r\n+p\r\n+q\r\n"]
    assert_equal {} [decode "_\r\n"]
    assert_equal 1 [decode "#t\r\n"]
    assert_equal 0 [decode "#f\r\n"]
    assert_equal -inf [decode ",-inf\r\n"]
    assert_equal 3.25 [decode ",3.25\r\n"]
    assert_equal 12345678901234567890123 [decode "(12345678901234567890123\r\n"]
    assert_equal "hello" [decode "=9\r\ntxt:hello\r\n"]
    assert_equal {message ch hi} [decode ">3\r\n\$7\r\nmessage\r\n\$2\r\nch\r\n\$2\r\nhi\r\n"]
    # Attributes are skipped; the reply after them is returned.
    assert_equal 7 [decode "|1\r\n+key-popularity\r\n*1\r\n:9\r\n:7\r\n"]
    assert_equal {ERROR: SYNTAX bad} [decode "!10\r\nSYNTAX bad\r\n"]
    assert_equal {ERROR: ERR oops} [decode "-ERR oops\r\n"]
    assert_equal {{} {}} [decode "*2\r\n\$-1\r\n*-1\r\n"]
    assert_equal {OK {ERR inner}} [decode "*2\r\n+OK\r\n-ERR inner\r\n"]
    assert_match {ERROR: protocol error*} [decode "?what\r\n"]
}

test "Decoder: replies split across many small writes" {
    set reply "*3\r\n\$5\r\nhello\r\n:42\r\n%1\r\n+k\r\n\$2\r\nab\r\n"
    assert_equal {hello 42 {k ab}} [decode SLOW:$reply]
}

test "Read timeout gives a clear error" {
    set c [redis_client -host 127.0.0.1 -port [fake_server ""]]
    $c timeout 0.3
    set start [clock milliseconds]
    catch {$c ping} e
    assert_match {*timeout*} $e
    assert_range [expr {[clock milliseconds] - $start}] 250 5000
    $c close
    fake_stop
}

test "Connection closed by the server is an error" {
    set c [redis_client]
    assert_equal 1 [$c client kill id [$c client id] skipme no]
    catch {$c ping} e
    assert_match {*closed*} $e
    $c close
}

test "Deferring client and blocking commands" {
    require_commands blpop rpush
    r del blist
    set rd [redis_deferring_client]
    $rd blpop blist 0
    wait_for_blocked_clients 1
    r rpush blist v1
    assert_equal {blist v1} [$rd read]
    $rd close
}

test "Deferring client: pub/sub messages (RESP2)" {
    require_commands subscribe publish
    set rd [redis_deferring_client]
    $rd subscribe chan1
    assert_equal {subscribe chan1 1} [$rd read]
    assert_equal 1 [r publish chan1 hello]
    assert_equal {message chan1 hello} [$rd read]
    $rd close
}

test "Deferring client: push frames (RESP3)" {
    require_commands subscribe publish
    set rd [redis_deferring_client -resp 3]
    $rd subscribe chan2
    assert_equal {subscribe chan2 1} [$rd read]
    r publish chan2 world
    assert_equal {message chan2 world} [$rd read]
    $rd close
}

test "Assertion helpers" {
    assert_equal a a
    assert_not_equal a b
    assert_match {f*} foo
    assert_no_match {g*} foo
    assert_range 5 1 10
    assert_lessthan 1 2
    assert_lessthan_equal 2 2
    assert_morethan 3 2
    assert_morethan_equal 3 3
    assert {1 + 1 == 2}
    assert_equal_unordered {c a b} {a b c}
    assert_dict_equal {a 1 b 2} {b 2 a 1}
    r set strkey 12345
    assert_type string strkey
    assert_encoding [r object encoding strkey] strkey
    assert_replies {{set rk v} OK {get rk} v {strlen rk} ~[0-9]}
    assert_error {*got '1', expected '2'*} {assert_equal 2 1}
    assert_error {*does not match*} {assert_match x* y}
    assert_error {*no error raised*} {assert_error * {set x 1}}
    assert_error {*not within*} {assert_range 11 1 10}
    assert_error {*not a number*} {assert_lessthan abc 2}
    assert_error {*has type 'string', expected 'list'*} {assert_type list strkey}
    assert_error {*condition not met*} {wait_for_condition 2 1 {0}}
}

test "wait_for_condition with else body" {
    set n 0
    wait_for_condition 50 1 {[incr n] >= 5} {
        fail "never reached"
    }
    assert_equal 5 $n
    set reached 0
    wait_for_condition 3 1 {0} {
        set reached 1
    }
    assert_equal 1 $reached
}

test "srv and server_info" {
    assert_equal 127.0.0.1 [srv host]
    assert_equal [srv port] [srv 0 port]
    if {![external_server]} {
        assert {[file isdirectory [srv dir]]}
        assert {[file exists [srv config_file]]}
        assert {[file exists [srv stdout]]}
        set f [open [srv config_file]]
        set conf [read $f]
        close $f
        assert_match "*enable-debug-command yes*" $conf
        assert_match "*port [srv port]*" $conf
        assert_equal [srv pid] [server_info process_id]
        assert_equal [srv dir] [lindex [r config get dir] 1]
    }
    assert_equal [srv port] [server_info tcp_port]
    assert_equal {} [server_info no_such_field]
    assert {[is_keel] in {0 1}}
    assert_equal /usr/bin/redis-server [reference_server_binary]
}

test "debug_sleep 0" {
    assert_equal OK [debug_sleep 0]
} {external:skip}

test "python_client_script uses Debian's python3 with redis-py" {
    require_commands rpush lrange
    r set pykey "hello world"
    assert_equal "hello world" [python_client_script pyclient.py get pykey]
    r del pylist
    r rpush pylist a "b c"
    assert_equal {a {b c}} [python_client_script pyclient.py lrange pylist 0 -1]
}

test {skip_test reports [skip]} {
    skip_test "demonstration"
    fail "not reached"
}

test "Test-level tags are accepted" {
    assert_equal PONG [r ping]
} {slow-not-really}

}

# Setup outside any test runs against the implicit server of the file.
r set where outer

start_server {overrides {maxmemory 10mb} tags {nested}} {
    r set where inner

    test "Nested server sees its overrides" {
        assert_equal {maxmemory 10485760} [r config get maxmemory]
        assert_equal {maxmemory 0} [r -1 config get maxmemory]
    }

    test "srv -1 is the outer server" {
        assert_not_equal [srv 0 port] [srv -1 port]
        assert_equal inner [r get where]
        assert_equal outer [r -1 get where]
        set c [redis_client -1]
        assert_equal outer [$c get where]
        $c close
    }

    start_server {overrides {hz 20}} {
        test "Three levels deep" {
            assert_equal {hz 20} [r config get hz]
            assert_equal inner [r -1 get where]
            assert_equal outer [r -2 get where]
        }
    }

    test "restart_server keeps dir, port and saved data" {
        require_commands save
        set port [srv port]
        set pid [srv pid]
        r set persisted yes
        r save
        restart_server
        assert_equal $port [srv port]
        assert_not_equal $pid [srv pid]
        assert_equal yes [r get persisted]
        assert_equal {maxmemory 10485760} [r config get maxmemory]
    }

    test "restart_server -kill and -save" {
        require_commands save
        r set k1 v1
        restart_server -kill
        assert_equal {} [r get k1]
        r set k2 v2
        restart_server -save
        assert_equal v2 [r get k2]
    }
}

start_server {tags {nested}} {
    test "kill_server is not reported as a crash" {
        set pid [srv pid]
        kill_server
        assert_equal 0 [::keel::process_alive $pid]
        assert_error {*} {r ping}
    }
}

test "Back at the implicit server after nested blocks" {
    assert_equal outer [r get where]
}
