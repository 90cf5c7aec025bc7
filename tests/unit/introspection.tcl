# Introspection: CLIENT (ID SETNAME GETNAME LIST INFO KILL SETINFO NO-EVICT NO-TOUCH REPLY HELP),
# HELLO, RESET, MONITOR and COMMAND (COUNT INFO DOCS LIST GETKEYS HELP). Expected replies were
# checked against redis-server 7.0 (7.2+/7.4 additions are marked and only run on Keel).

proc client_field {line field} {
    foreach kv [split [string trim $line] " "] {
        set i [string first = $kv]
        if {[string range $kv 0 [expr {$i - 1}]] eq $field} {
            return [string range $kv [expr {$i + 1}] end]
        }
    }
    return "<missing>"
}

tags {introspection} {

test "CLIENT ID is a positive integer, unique per connection" {
    set id [r client id]
    assert_morethan $id 0
    set c [redis_client]
    assert_morethan [$c client id] $id
    $c close
    assert_error {*wrong number of arguments for 'client|id' command} {r client id x}
}

test "CLIENT SETNAME / GETNAME" {
    assert_equal {} [r client getname]
    assert_equal OK [r client setname myname]
    assert_equal myname [r client getname]
    assert_match {*name=myname *} [r client info]
    assert_equal OK [r client setname ""]
    assert_equal {} [r client getname]
}

test "CLIENT SETNAME rejects spaces, newlines and special characters" {
    foreach bad {"a b" "a\nb" "a\x01b" "caf\xe9"} {
        assert_error {ERR Client names cannot contain spaces, newlines or special characters.} {r client setname $bad}
    }
    assert_equal OK [r client setname "!~all-printable_chars=ok"]
    assert_error {*wrong number of arguments for 'client|setname' command} {r client setname}
    r client setname ""
}

test "CLIENT LIST lists every connection with Redis's fields" {
    set c [redis_client]
    $c client setname other
    set list [r client list]
    set lines [split [string trim $list] "\n"]
    assert_equal 2 [llength $lines]
    set me [lindex $lines 0]
    foreach f {id addr laddr fd name age idle flags db sub psub ssub multi qbuf qbuf-free argv-mem
               multi-mem rbs rbp obl oll omem tot-mem events cmd user redir resp} {
        assert_not_equal <missing> [client_field $me $f] "field $f"
    }
    assert_equal client|list [client_field $me cmd]
    assert_equal N [client_field $me flags]
    assert_equal default [client_field $me user]
    assert_equal other [client_field [lindex $lines 1] name]
    $c close
}

test "CLIENT LIST ID and TYPE filters" {
    set c [redis_client]
    set cid [$c client id]
    set myid [r client id]
    set l [string trim [r client list id $cid]]
    assert_equal $cid [client_field $l id]
    assert_equal 2 [llength [split [string trim [r client list id $cid $myid 999999]] "\n"]]
    assert_equal {} [r client list id 999999]
    assert_equal 2 [llength [split [string trim [r client list type normal]] "\n"]]
    assert_equal {} [r client list type pubsub]
    assert_equal {} [r client list type replica]
    assert_equal {} [r client list type master]
    assert_error {ERR Unknown client type 'bogus'} {r client list type bogus}
    assert_error {ERR Invalid client ID} {r client list id x}
    assert_equal {} [r client list id 0]
    assert_equal {} [r client list id -1]
    assert_error {ERR syntax error} {r client list foo}
    assert_error {ERR syntax error} {r client list type}
    $c close
}

test "CLIENT INFO describes the calling connection" {
    set info [r client info]
    assert_equal [r client id] [client_field $info id]
    assert_equal client|info [client_field $info cmd]
    r select 3
    assert_equal 3 [client_field [r client info] db]
    r select 0
    assert_error {*wrong number of arguments for 'client|info' command} {r client info x}
}

test "CLIENT LIST shows the db, the last command and resp" {
    set c [redis_client]
    set cid [$c client id]
    $c select 5
    $c get foo
    set l [r client list id $cid]
    assert_equal 5 [client_field $l db]
    assert_equal get [client_field $l cmd]
    assert_equal 2 [client_field $l resp]
    $c hello 3
    assert_equal 3 [client_field [r client list id $cid] resp]
    $c close
}

test "A connection's output memory returns to idle size after a large reply" {
    # Keel keeps an output buffer's capacity across flushes and gives back, about once a
    # second, what the last second did not use; Redis frees its reply list at once.
    set c [redis_client]
    set cid [$c client id]
    r set obuf:big [string repeat x 3000000]
    assert_equal 3000000 [string length [$c get obuf:big]]
    wait_for_condition 50 100 {
        [client_field [r client list id $cid] tot-mem] < 65536
    } {
        fail "tot-mem stayed at [client_field [r client list id $cid] tot-mem]"
    }
    assert_equal 0 [client_field [r client list id $cid] omem]
    assert_equal 3000000 [string length [$c get obuf:big]]
    $c close
    r del obuf:big
}

test "CLIENT KILL with the old ip:port form" {
    set c [redis_client]
    set addr [client_field [$c client info] addr]
    assert_equal OK [r client kill $addr]
    assert_error {*closed*} {$c ping}
    catch {$c close}
    assert_error {ERR No such client} {r client kill 1.2.3.4:5}
    assert_error {ERR No such client} {r client kill id}
}

test "CLIENT KILL filters: ID, ADDR, LADDR, TYPE, USER, SKIPME" {
    set c1 [redis_client]
    set c2 [redis_client]
    set id1 [$c1 client id]
    assert_equal 1 [r client kill id $id1]
    assert_error {*closed*} {$c1 ping}
    assert_equal 0 [r client kill id $id1]
    set addr2 [client_field [$c2 client info] addr]
    assert_equal 1 [r client kill addr $addr2]
    assert_error {*closed*} {$c2 ping}
    catch {$c1 close}
    catch {$c2 close}

    set c3 [redis_client]
    set laddr [client_field [r client info] laddr]
    set others [expr {[llength [split [string trim [r client list]] "\n"]] - 1}]
    # SKIPME defaults to yes: every other client goes, the caller stays.
    assert_equal $others [r client kill laddr $laddr]
    assert_error {*closed*} {$c3 ping}
    catch {$c3 close}

    set c4 [redis_client]
    $c4 ping  ;# make sure the server has accepted it before counting
    assert_equal 1 [r client kill type normal]
    catch {$c4 close}
    set c5 [redis_client]
    $c5 ping
    assert_equal 1 [r client kill user default]
    catch {$c5 close}
    assert_equal 1 [llength [split [string trim [r client list]] "\n"]]
    assert_equal 0 [r client kill type pubsub]
    assert_equal 0 [r client kill addr 1.2.3.4:5]
    assert_equal PONG [r ping]
}

test "CLIENT KILL SKIPME no kills the caller after its reply" {
    set c [redis_client]
    set myaddr [client_field [$c client info] addr]
    assert_equal 1 [$c client kill addr $myaddr skipme no]
    assert_error {*closed*} {$c ping}
    catch {$c close}
}

test "CLIENT KILL MAXAGE" {
    if {![is_keel]} { skip_test "MAXAGE is Redis 7.4" }
    assert_error {ERR maxage is not an integer or out of range} {r client kill maxage abc}
    assert_error {ERR maxage is not an integer or out of range} {r client kill maxage 99999999999999999999}
    assert_error {ERR maxage should be greater than 0} {r client kill maxage 0}
    assert_error {ERR maxage should be greater than 0} {r client kill maxage -5}
    assert_error {ERR maxage should be greater than 0} {r client kill type normal maxage 0}
    # Clients closed by earlier tests may still be draining: kill them first so only $c counts.
    r client kill type normal
    set c [redis_client]
    $c ping
    assert_equal 0 [r client kill maxage 100]
    after 2100
    assert_equal 1 [r client kill maxage 1]
    catch {$c close}
}

test "CLIENT KILL errors" {
    assert_error {ERR client-id should be greater than 0} {r client kill id x}
    assert_error {ERR client-id should be greater than 0} {r client kill id -1}
    assert_error {ERR syntax error} {r client kill foo bar}
    assert_error {ERR syntax error} {r client kill id 1 id}
    assert_error {ERR syntax error} {r client kill skipme maybe}
    assert_error {ERR Unknown client type 'bogus'} {r client kill type bogus}
    assert_error {ERR No such user 'nosuch'} {r client kill user nosuch}
    assert_error {*wrong number of arguments for 'client|kill' command} {r client kill}
}

test "CLIENT SETINFO LIB-NAME / LIB-VER" {
    if {![is_keel]} { skip_test "CLIENT SETINFO is Redis 7.2" }
    assert_equal OK [r client setinfo lib-name redis-py]
    assert_equal OK [r client setinfo LIB-VER 1.2.3]
    set info [r client info]
    assert_equal redis-py [client_field $info lib-name]
    assert_equal 1.2.3 [client_field $info lib-ver]
    assert_error {ERR Unrecognized option 'foo'} {r client setinfo foo bar}
    assert_error {ERR lib-name cannot contain spaces, newlines or special characters.} {r client setinfo lib-name "a b"}
    assert_error {*wrong number of arguments for 'client|setinfo' command} {r client setinfo lib-name}
}

test "CLIENT NO-EVICT and NO-TOUCH set flags" {
    assert_equal OK [r client no-evict on]
    assert_match *e* [client_field [r client info] flags]
    assert_equal OK [r client no-evict off]
    assert_equal N [client_field [r client info] flags]
    assert_error {ERR syntax error} {r client no-evict maybe}
    if {[is_keel]} {
        assert_equal OK [r client no-touch on]
        assert_match *T* [client_field [r client info] flags]
        assert_equal OK [r client no-touch off]
        assert_error {ERR syntax error} {r client no-touch maybe}
    }
}

test "CLIENT REPLY OFF / ON / SKIP" {
    set c [redis_client]
    $c deferred 1
    $c client reply off
    $c set a 1
    $c incr a
    $c client reply on
    assert_equal OK [$c read]
    $c get a
    assert_equal 2 [$c read]
    $c client reply skip
    $c incr a
    $c incr a
    assert_equal 4 [$c read]
    $c close
    assert_error {ERR syntax error} {r client reply maybe}
}

test "CLIENT REPLY ON after SKIP answers +OK" {
    set c [redis_client]
    $c readraw 1
    $c deferred 1
    $c client reply skip
    $c client reply on
    $c ping
    assert_equal +OK [$c read]
    assert_equal +PONG [$c read]
    $c close
}

test "CLIENT REPLY SKIP drops the next reply only; RESET does not cancel it" {
    set c [redis_client]
    $c readraw 1
    $c deferred 1
    foreach cmd {{client reply skip} {client reply skip} {ping a} {ping b}
                 {client reply skip} {reset} {ping c}
                 {multi} {client reply skip} {ping d} {exec} {ping e} {ping f}} {
        $c {*}$cmd
    }
    set got {}
    for {set i 0} {$i < 9} {incr i} { lappend got [$c read] }
    assert_equal {{$1} b {$1} c +OK +QUEUED +QUEUED *2 {$1}} $got
    # The EXEC array holds SKIP's (absent) reply and d; the SKIP inside EXEC drops e.
    assert_equal d [$c read]
    assert_equal {$1} [$c read]
    assert_equal f [$c read]
    $c close
}

test "CLIENT REPLY OFF / SKIP do not hide subscription confirmations" {
    # Confirmations are pushes: Redis sends them whatever the reply mode (7.0.15 does too).
    foreach resp {2 3} {
        set c [redis_client -resp $resp]
        $c deferred 1
        $c client reply off
        $c subscribe ch1 ch2
        $c psubscribe p*
        $c ssubscribe sh
        $c unsubscribe
        $c punsubscribe p*
        $c sunsubscribe
        foreach want {{subscribe ch1 1} {subscribe ch2 2} {psubscribe p* 3} {ssubscribe sh 1}
                      {unsubscribe ch1 2} {unsubscribe ch2 1} {punsubscribe p* 0}
                      {sunsubscribe sh 0}} {
            set got [$c read]
            if {[lindex $got 0] eq "unsubscribe"} {
                # Redis unsubscribes from all channels in its hash table's order.
                lset want 1 [lindex $got 1]
            }
            assert_equal $want $got "RESP$resp"
        }
        $c client reply on
        assert_equal OK [$c read]
        $c client reply skip
        $c subscribe ch3
        $c ping
        assert_equal {subscribe ch3 1} [$c read] "RESP$resp"
        if {$resp == 2} {
            assert_equal {pong {}} [$c read]
        } else {
            assert_equal PONG [$c read]
        }
        $c close
    }
}

test "CLIENT REPLY OFF / SKIP apply to a blocked command's reply when it is served" {
    foreach mode {off skip} {
        set c [redis_client]
        $c deferred 1
        $c client reply $mode
        $c blpop reply:blocked 0
        wait_for_blocked_clients 1
        r rpush reply:blocked x
        $c client reply on
        $c ping
        assert_equal OK [$c read] "mode $mode"
        assert_equal PONG [$c read] "mode $mode"
        $c close
    }
    assert_equal 0 [r exists reply:blocked]
}

test "CLIENT LIST qbuf and argv-mem show the running command; omem only queued replies" {
    set c [redis_client]
    # *2 $6 CLIENT $4 INFO: 26 bytes in the query buffer, 10 bytes of arguments.
    set me [$c client info]
    assert_equal 26 [client_field $me qbuf]
    assert_equal 10 [client_field $me argv-mem]
    foreach f {obl oll omem} { assert_equal 0 [client_field $me $f] "field $f" }
    set cid [$c client id]
    set other [r client list id $cid]
    assert_equal 0 [client_field $other argv-mem]
    assert_equal 0 [client_field $other oll]
    assert_equal 0 [client_field $other omem]
    # A client that does not read: its replies queue up past the first 16 KB.
    r set obuf:q [string repeat y 100000]
    $c deferred 1
    for {set i 0} {$i < 200} {incr i} { $c get obuf:q }
    $c flush
    wait_for_condition 50 100 {
        [client_field [set l [r client list id $cid]] oll] > 0
    } {
        fail "no queued replies: [r client list id $cid]"
    }
    assert_morethan [client_field $l omem] 0 $l
    assert_lessthan_equal [client_field $l obl] 16384 $l
    $c close
    r del obuf:q
}

test "An idle connection's query buffer and argument memory go back after a huge command" {
    set c [redis_client]
    set cid [$c client id]
    assert_equal OK [$c set qbuf:big [string repeat z 5000000]]
    set args {}
    for {set i 0} {$i < 20000} {incr i} { lappend args k$i v }
    assert_equal OK [$c mset {*}$args]
    # Redis's client cron (Keel's trim, once a second) frees them from a client at rest.
    wait_for_condition 60 100 {
        [client_field [r client list id $cid] qbuf-free] == 0
    } {
        fail "query buffer kept: [r client list id $cid]"
    }
    set l [r client list id $cid]
    assert_equal 0 [client_field $l qbuf]
    assert_lessthan [client_field $l tot-mem] 65536
    assert_equal 5000000 [$c strlen qbuf:big]
    $c close
    r flushall
}

test "CLIENT HELP and unknown subcommands" {
    set help [r client help]
    assert_match {CLIENT <subcommand>*} [lindex $help 0]
    assert_match {*SETNAME*} $help
    assert_match {*UNBLOCK <clientid> \[TIMEOUT|ERROR\]*} $help
    assert_equal {    Prints this help.} [lindex $help end]
    assert_error {ERR unknown subcommand 'nosuch'. Try CLIENT HELP.} {r client nosuch}
    assert_error {*wrong number of arguments for 'client' command} {r client}
}

test "HELLO replies with the server map and switches protocol" {
    set c [redis_client]
    set h [$c hello]
    assert_equal 2 [dict get $h proto]
    assert_equal [$c client id] [dict get $h id]
    set h [$c hello 3]
    assert_equal 3 [dict get $h proto]
    assert_equal redis [dict get $h server]
    set h [$c hello 2 setname hname]
    assert_equal 2 [dict get $h proto]
    assert_equal hname [$c client getname]
    $c close
}

test "HELLO errors" {
    assert_error {NOPROTO unsupported protocol version} {r hello 4}
    assert_error {NOPROTO unsupported protocol version} {r hello 1}
    assert_error {ERR Protocol version is not an integer or out of range} {r hello x}
    assert_error {ERR Syntax error in HELLO option 'foo'} {r hello 3 foo}
    assert_error {ERR Syntax error in HELLO option 'auth'} {r hello 3 auth default}
    assert_error {ERR Syntax error in HELLO option 'setname'} {r hello 2 setname}
    assert_error {ERR Client names cannot contain spaces, newlines or special characters.} {r hello 2 setname "a b"}
    assert_error {WRONGPASS*} {r hello 2 auth nosuchuser pw}
    # Without requirepass the default user accepts any password.
    assert_equal 2 [dict get [r hello 2 auth default anything] proto]
}

test "RESET restores a fresh connection's state" {
    set c [redis_client]
    $c select 4
    $c client setname resetme
    $c hello 3
    $c client no-evict on
    assert_equal RESET [$c reset]
    set info [$c client info]
    assert_equal 0 [client_field $info db]
    assert_equal {} [client_field $info name]
    assert_equal 2 [client_field $info resp]
    # NO-EVICT survives RESET (as in Redis); everything else is back to default.
    assert_equal e [client_field $info flags]
    # RESP2 again: a null is $-1 (decoded as empty) and HELLO says proto 2.
    assert_equal 2 [dict get [$c hello] proto]
    $c close
    assert_error {*wrong number of arguments for 'reset' command} {r reset x}
}

test "MONITOR streams commands from other clients" {
    set m [redis_deferring_client]
    $m monitor
    assert_equal OK [$m read]
    r set monkey "va lue"
    r get monkey
    r select 2
    r echo "q\"uote\nnl"
    r select 0
    assert_match {*"set" "monkey" "va lue"} [$m read]
    assert_match {*"get" "monkey"} [$m read]
    assert_match {*"select" "2"} [$m read]
    assert_match {*\[2 127.0.0.1:*\] "echo" "q\\"uote\\nnl"} [$m read]
    $m close
}

test "MONITOR lines carry a timestamp, the db and the client address" {
    set m [redis_deferring_client]
    $m monitor
    $m read
    r ping
    set line [$m read]
    set addr [client_field [r client info] addr]
    assert_match "\[0-9\]*.\[0-9\]* \\\[0 $addr\\\] \"ping\"" $line
    $m close
}

test "MONITOR hides AUTH passwords and admin commands" {
    set m [redis_deferring_client]
    $m monitor
    $m read
    catch {r auth secretpw}
    r config get maxmemory
    r echo marker
    set line [$m read]
    if {[string match *auth* $line]} {
        assert_match {*"auth" "(redacted)"} $line
        set line [$m read]
    }
    assert_match {*"echo" "marker"} $line
    $m close
}

test "RESET ends MONITOR" {
    set m [redis_deferring_client]
    $m monitor
    assert_equal OK [$m read]
    $m reset
    assert_equal RESET [$m read]
    r echo notseen
    $m ping
    assert_equal PONG [$m read]
    $m close
}

test "COMMAND COUNT matches COMMAND and COMMAND LIST" {
    set n [r command count]
    assert_morethan $n 20
    assert_equal $n [llength [r command]]
    set names [r command list]
    assert {[lsearch $names get] >= 0}
    assert {[lsearch $names client|list] >= 0}
    assert_error {*wrong number of arguments for 'command|count' command} {r command count x}
}

test "COMMAND INFO reports arity, flags, key positions and ACL categories" {
    set get [lindex [r command info get] 0]
    assert_equal get [lindex $get 0]
    assert_equal 2 [lindex $get 1]
    assert_equal {readonly fast} [lindex $get 2]
    assert_equal {1 1 1} [lrange $get 3 5]
    assert_equal {@read @string @fast} [lindex $get 6]
    set set [lindex [r command info set] 0]
    assert_equal -3 [lindex $set 1]
    assert_match *write* [lindex $set 2]
    assert_match *denyoom* [lindex $set 2]
    set mset [lindex [r command info mset] 0]
    assert_equal {1 -1 2} [lrange $mset 3 5]
    assert_equal {{} get} [list [lindex [r command info nosuchcmd get] 0] [lindex [lindex [r command info nosuchcmd get] 1] 0]]
    set client [lindex [r command info client] 0]
    assert_equal -2 [lindex $client 1]
    assert_morethan [llength [lindex $client 9]] 5
    set sub [lindex [r command info client|list] 0]
    assert_equal client|list [lindex $sub 0]
    assert_match {*admin*} [lindex $sub 2]
}

test "COMMAND INFO flags in Redis's order, without the flags Redis hides" {
    # Read from redis-server 7.0.15 (the order and the hidden may_replicate are 7.4's too).
    assert_equal {noscript stale skip_monitor no_mandatory_keys movablekeys} [lindex [r command info eval] 0 2]
    assert_equal {noscript stale skip_monitor no_mandatory_keys movablekeys} [lindex [r command info fcall] 0 2]
    assert_equal {readonly noscript stale skip_monitor no_mandatory_keys movablekeys} [lindex [r command info fcall_ro] 0 2]
    assert_equal {pubsub loading stale fast} [lindex [r command info publish] 0 2]
    assert_equal {noscript loading stale fast allow_busy} [lindex [r command info watch] 0 2]
    assert_equal {admin noscript loading stale} [lindex [r command info debug] 0 2]
    # no_async_loading is shown although Keel never loads asynchronously (7.0.15's flags).
    assert_equal {admin noscript no_async_loading} [lindex [r command info bgsave] 0 2]
    assert_equal {admin noscript no_async_loading no_multi} [lindex [r command info psync] 0 2]
    assert_equal {admin noscript stale no_async_loading} [lindex [r command info replicaof] 0 2]
    assert_equal {admin stale no_async_loading} [lindex [r command info cluster|meet] 0 2]
    assert_equal {admin stale} [lindex [r command info cluster|replicas] 0 2]
}

test "COMMAND INFO tips, in Redis's order; no subcommands is an empty set in RESP3" {
    # Tips read from redis-server 7.0.15 (element 8 of each entry).
    assert_equal {} [lindex [r command info get] 0 7]
    assert_equal {request_policy:all_shards nondeterministic_output_order} [lindex [r command info keys] 0 7]
    assert_equal {nondeterministic_output request_policy:all_shards response_policy:special} \
        [lindex [r command info info] 0 7]
    assert_equal {request_policy:all_nodes response_policy:all_succeeded} [lindex [r command info config|set] 0 7]
    assert_equal {request_policy:multi_shard} [lindex [r command info mget] 0 7]
    assert_equal {nondeterministic_output} [lindex [r command info cluster|info] 0 7]
    assert_equal {nondeterministic_output_order} [lindex [r command info smembers] 0 7]
    # The same bytes as 7.0.15 in RESP3: tips are bulk strings, and a command without
    # subcommands ends with `~0` (a container's subcommands are an array).
    set c [redis_client -resp 3]
    $c readraw 1
    $c deferred 1
    set got {}
    $c command info keys
    for {set i 0} {$i < 22} {incr i} { lappend got [$c read] }
    assert_equal [list *1 *10 {$4} keys :2 ~1 +readonly :0 :0 :0 ~4 +@keyspace +@read +@slow \
                      +@dangerous ~2 {$25} request_policy:all_shards {$29} \
                      nondeterministic_output_order ~0 ~0] $got
    $c command info config
    set got {}
    for {set i 0} {$i < 13} {incr i} { lappend got [$c read] }
    assert_equal [list *1 *10 {$6} config :-2 ~0 :0 :0 :0 ~1 +@slow ~0 ~0] $got
    assert_match {\*[0-9]*} [$c read]
    $c close
}

test "COMMAND DOCS" {
    set d [r command docs get]
    assert_equal get [lindex $d 0]
    set doc [lindex $d 1]
    assert_equal string [dict get $doc group]
    assert_equal 1.0.0 [dict get $doc since]
    assert_equal O(1) [dict get $doc complexity]
    assert_equal {} [r command docs nosuchcmd]
    set cd [dict get [lindex [r command docs client] 1] subcommands]
    assert {[dict exists $cd client|list]}
}

test "COMMAND LIST FILTERBY" {
    set sl [r command list filterby pattern sl*]
    assert {[lsearch $sl slowlog] >= 0}
    assert {[lsearch $sl slowlog|get] >= 0}
    assert {[lsearch $sl get] < 0}
    set conn [r command list filterby aclcat connection]
    assert {[lsearch $conn ping] >= 0}
    assert {[lsearch $conn get] < 0}
    assert_equal {} [r command list filterby aclcat nosuchcat]
    assert_equal {} [r command list filterby module x]
    assert_error {ERR syntax error} {r command list filterby foo}
    assert_error {ERR syntax error} {r command list filterby pattern}
    assert_error {ERR syntax error} {r command list filterby foo bar}
}

test "COMMAND GETKEYS" {
    assert_equal {a} [r command getkeys get a]
    assert_equal {a c} [r command getkeys mset a b c d]
    assert_equal {k} [r command getkeys set k v ex 10]
    assert_error {ERR Invalid command specified} {r command getkeys nosuch a}
    assert_error {ERR Invalid number of arguments specified for command} {r command getkeys set a}
    assert_error {ERR Invalid number of arguments specified for command} {r command getkeys get a b}
    assert_error {ERR The command has no key arguments} {r command getkeys ping x y}
    assert_error {ERR The command has no key arguments} {r command getkeys echo x}
    assert_error {*wrong number of arguments for 'command|getkeys' command} {r command getkeys get}
}

test "COMMAND HELP" {
    set help [r command help]
    assert_match {COMMAND <subcommand>*} [lindex $help 0]
    assert_match *GETKEYS* $help
    assert_error {ERR unknown subcommand 'nosuch'. Try COMMAND HELP.} {r command nosuch}
}

# Found by tests/fuzz/cmdfuzz.py.
test "COMMAND GETKEYS: sharded channels are not keys, the keyless check comes before arity" {
    assert_error {ERR The command has no key arguments} {r command getkeys spublish ch msg}
    assert_error {ERR The command has no key arguments} {r command getkeys ssubscribe a b}
    assert_error {ERR The command has no key arguments} {r command getkeys sunsubscribe a}
    # SPUBLISH takes 2 arguments: still "no key arguments", not an arity error.
    assert_error {ERR The command has no key arguments} {r command getkeys spublish ch}
    assert_error {ERR The command has no key arguments} {r command getkeys echo a b}
}

test "COMMAND GETKEYS: no key found is an empty list only for commands whose keys are optional" {
    assert_equal {} [r command getkeys eval {return 1} 5]
    assert_equal {} [r command getkeys eval {return 1} 0]
    assert_error {ERR Invalid arguments specified for command} {r command getkeys zunion 0 a}
    assert_error {ERR Invalid arguments specified for command} {r command getkeys lmpop 0 a left}
    assert_equal {a} [r command getkeys zunion 1 a]
}

}
