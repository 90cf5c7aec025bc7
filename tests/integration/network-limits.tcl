# Network-facing limits: protected mode, maxclients, idle timeout, protocol errors on hostile
# lengths, bounded memory for clients that announce huge requests and stall (CVE-2021-32675),
# and unauthenticated clients that do not read their replies (CVE-2025-21605). Error texts
# were compared with Debian's redis-server 7.0.15; where a test expects the behaviour of Redis
# 7.4 / 8.0, or where Keel is stricter than Redis, the test says so.

# ---- helpers -------------------------------------------------------------------------------

# A raw binary socket to the current server, optionally from a given local address.
proc raw_socket {{myaddr ""}} {
    if {$myaddr eq ""} {
        set s [socket [srv host] [srv port]]
    } else {
        set s [socket -myaddr $myaddr [srv host] [srv port]]
    }
    fconfigure $s -translation binary -blocking 1 -buffering none
    return $s
}

# Everything the server sends until it closes the connection (fails after `secs` seconds).
proc read_until_closed {s {secs 10}} {
    fconfigure $s -blocking 0
    set data ""
    set deadline [expr {[clock milliseconds] + $secs * 1000}]
    while {1} {
        if {[catch {read $s} chunk]} {
            break  ;# reset by the server
        }
        append data $chunk
        if {[eof $s]} break
        if {[clock milliseconds] > $deadline} {
            catch {close $s}
            fail "the server did not close the connection within $secs s (got [string length $data] bytes)"
        }
        after 10
    }
    catch {close $s}
    return $data
}

# Whether the server closed the connection of a framework client.
proc closed_by_server {c} {
    set closed [expr {[catch {$c read} err] && [string match *closed* $err]}]
    catch {$c close}
    return $closed
}

# A local IPv4 address that is not loopback (a connection from it to 127.0.0.1 is not local
# to the server), or "" when the machine has none.
proc non_loopback_ipv4 {} {
    if {[catch {exec ip -o -4 addr show} out]} {
        return ""
    }
    foreach line [split $out \n] {
        if {[regexp {inet (\d+\.\d+\.\d+\.\d+)/} $line -> ip] && ![string match 127.* $ip]} {
            return $ip
        }
    }
    return ""
}

proc info_field {field} {
    return [server_info $field]
}

# Sum of the qbuf= fields of CLIENT LIST: input received and not yet executed.
proc total_qbuf {} {
    set sum 0
    foreach {- n} [regexp -all -inline { qbuf=(\d+)} [r client list]] { incr sum $n }
    return $sum
}

# ---- protected mode ------------------------------------------------------------------------

# Redis's text as current Redis sends it; Debian's 7.0.15 says "4) Setup a an authentication
# password" instead of "4) Set up an authentication password" (7.4 behaviour expected here).
set denied "-DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user. In this mode connections are only accepted from the loopback interface. If you want to connect from external computers to Redis you may adopt one of the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. 4) Set up an authentication password for the default user. NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside.\r\n"

tags {network-limits external:skip} {

test "protected-mode: a non-loopback client gets DENIED and is closed" {
    # The server listens on 127.0.0.1 only; a client socket bound to another local address
    # reaches it with that address as its peer, which is not loopback. (The decision itself is
    # also unit-tested: tests/cpp/server/protected_mode_test.cc.)
    set ip [non_loopback_ipv4]
    if {$ip eq ""} {
        skip_test "no non-loopback IPv4 address on this machine"
    }
    assert_equal {protected-mode yes} [r config get protected-mode]
    set before [info_field rejected_connections]
    set s [raw_socket $ip]
    assert_equal $denied [read_until_closed $s]
    assert_equal [expr {$before + 1}] [info_field rejected_connections]
    # Commands sent right away do not change the answer.
    set s [raw_socket $ip]
    catch {puts -nonewline $s "SET k v\r\n"}
    set got [read_until_closed $s]
    assert {$got eq $denied || $got eq ""}
    assert_equal 0 [r exists k]
    # Loopback clients are served.
    assert_equal PONG [r ping]
}

test "protected-mode: a password, or protected-mode no, lets non-loopback clients in" {
    set ip [non_loopback_ipv4]
    if {$ip eq ""} {
        skip_test "no non-loopback IPv4 address on this machine"
    }
    r config set requirepass secret
    set s [raw_socket $ip]
    puts -nonewline $s "PING\r\n"
    assert_equal "-NOAUTH Authentication required.\r" [gets $s]
    puts -nonewline $s "AUTH secret\r\nPING\r\n"
    assert_equal "+OK\r" [gets $s]
    assert_equal "+PONG\r" [gets $s]
    close $s
    r config set requirepass ""
    r config set protected-mode no
    set s [raw_socket $ip]
    puts -nonewline $s "PING\r\n"
    assert_equal "+PONG\r" [gets $s]
    close $s
    r config set protected-mode yes
}

# ---- maxclients ----------------------------------------------------------------------------

test "maxclients: the client over the limit gets the error and is closed" {
    set connected [info_field connected_clients]
    set before [info_field rejected_connections]
    r config set maxclients [expr {$connected + 1}]
    set ok [raw_socket]
    puts -nonewline $ok "PING\r\n"
    assert_equal "+PONG\r" [gets $ok]
    set over [raw_socket]
    assert_equal "-ERR max number of clients reached\r\n" [read_until_closed $over]
    assert_equal [expr {$before + 1}] [info_field rejected_connections]
    # Once a client leaves there is room again.
    close $ok
    wait_for_condition 100 20 {[info_field connected_clients] == $connected}
    set again [raw_socket]
    puts -nonewline $again "PING\r\n"
    assert_equal "+PONG\r" [gets $again]
    close $again
    r config set maxclients 10000
}

# ---- timeout -------------------------------------------------------------------------------

test "timeout closes idle clients, not pub/sub, MONITOR or blocked ones" {
    r del tq
    set idle [redis_client]
    assert_equal PONG [$idle ping]
    set busy [redis_client]
    set sub [redis_deferring_client]
    $sub subscribe tch
    assert_equal {subscribe tch 1} [$sub read]
    set mon [redis_deferring_client]
    $mon monitor
    assert_equal OK [$mon read]
    set blocked [redis_deferring_client]
    $blocked blpop tq 0
    wait_for_blocked_clients 1
    r config set timeout 1
    # Idle for more than a second; `busy` and `r` keep talking.
    set deadline [expr {[clock milliseconds] + 3000}]
    while {[clock milliseconds] < $deadline} {
        assert_equal PONG [$busy ping]
        assert_equal PONG [r ping]
        after 200
    }
    assert_equal 1 [closed_by_server $idle]
    assert_equal PONG [$busy ping]
    r config set timeout 0
    # The others are still there and working.
    assert_equal 1 [r publish tch hello]
    assert_equal {message tch hello} [$sub read]
    r rpush tq x
    assert_equal {tq x} [$blocked read]
    # MONITOR still streams (it saw every command since; find the PUBLISH among them).
    set seen 0
    for {set i 0} {$i < 200 && !$seen} {incr i} {
        set seen [string match {*"publish" "tch" "hello"*} [$mon read]]
    }
    assert_equal 1 $seen
    foreach c [list $busy $sub $mon $blocked] { $c close }
}

# ---- protocol errors -----------------------------------------------------------------------

foreach {name input err} {
    "bulk length 2^63" "*1\r\n\$9223372036854775808\r\n" "-ERR Protocol error: invalid bulk length"
    "bulk length 2^63-1" "*1\r\n\$9223372036854775807\r\n" "-ERR Protocol error: invalid bulk length"
    "bulk length -5" "*1\r\n\$-5\r\n" "-ERR Protocol error: invalid bulk length"
    "bulk length above proto-max-bulk-len" "*1\r\n\$536870913\r\n" "-ERR Protocol error: invalid bulk length"
    "multibulk count 2^31" "*2147483648\r\n" "-ERR Protocol error: invalid multibulk length"
    "multibulk count 2^63" "*9223372036854775808\r\n" "-ERR Protocol error: invalid multibulk length"
    "endless inline line" "" "-ERR Protocol error: too big inline request"
    "endless bulk length line" "*1\r\n\$" "-ERR Protocol error: too big bulk count string"
} {
    test "Protocol error, $name: error reply, only that connection closed" {
        set s [raw_socket]
        puts -nonewline $s $input
        if {[string match "endless*" $name]} {
            # 64 KB is the limit (Redis's PROTO_INLINE_MAX_SIZE); send well past it, in pieces.
            catch {
                for {set i 0} {$i < 20} {incr i} {
                    puts -nonewline $s [string repeat 1 8192]
                }
            }
        }
        assert_equal "$err\r\n" [read_until_closed $s]
        assert_equal PONG [r ping]
    }
}

test "multibulk count 2^31-1 is accepted and costs nothing until data comes" {
    set clients0 [info_field connected_clients]
    set before [info_field used_memory]
    set s [raw_socket]
    puts -nonewline $s "*2147483647\r\n\$4\r\nPING\r\n"
    after 100
    assert_equal PONG [r ping]
    assert_lessthan [expr {[info_field used_memory] - $before}] 1000000
    close $s
    # The next test counts connections: wait until the server has seen this one go.
    wait_for_condition 100 20 {[info_field connected_clients] == $clients0}
}

# ---- huge announced requests that never come (CVE-2021-32675) -----------------------------

test "50 clients announcing *1048576 / \$536870912 and stalling keep memory bounded" {
    # Redis reserves the announced bulk (512 MB) for an authenticated client at once; Keel grows
    # the query buffer only with the bytes that arrive, so these headers cost a few KB each.
    set clients0 [info_field connected_clients]
    set mem0 [info_field used_memory]
    set rss0 [info_field used_memory_rss]
    set socks {}
    for {set i 0} {$i < 50} {incr i} {
        set s [raw_socket]
        puts -nonewline $s "*1048576\r\n\$536870912\r\n"
        lappend socks $s
    }
    wait_for_condition 500 20 {[info_field connected_clients] >= $clients0 + 50}
    # Other clients are served meanwhile.
    assert_equal OK [r set served yes]
    assert_equal yes [r get served]
    set mem1 [info_field used_memory]
    set rss1 [info_field used_memory_rss]
    puts "    headers only: used_memory +[expr {($mem1 - $mem0) / 1024}] KB, rss +[expr {($rss1 - $rss0) / 1024}] KB (50 clients)"
    assert_lessthan [expr {$mem1 - $mem0}] [expr {8 * 1024 * 1024}]
    assert_lessthan [expr {$rss1 - $rss0}] [expr {32 * 1024 * 1024}]
    # Each sends 256 KB of its bulk and stalls: memory follows what arrived, not what was announced.
    set chunk [string repeat x 65536]
    foreach s $socks {
        for {set j 0} {$j < 4} {incr j} { puts -nonewline $s $chunk }
    }
    wait_for_condition 200 20 {[total_qbuf] >= 50 * 262144}
    assert_equal PONG [r ping]
    set mem2 [info_field used_memory]
    set rss2 [info_field used_memory_rss]
    puts "    +256 KB each: used_memory +[expr {($mem2 - $mem0) / 1024}] KB, rss +[expr {($rss2 - $rss0) / 1024}] KB (12.5 MB sent)"
    # At most 4x the bytes received (the buffer at most doubles what it holds, in powers of 2).
    assert_lessthan [expr {$mem2 - $mem0}] [expr {4 * 50 * 262144 + 8 * 1024 * 1024}]
    foreach s $socks { close $s }
    wait_for_condition 100 20 {[info_field connected_clients] == $clients0}
    assert_lessthan [expr {[info_field used_memory] - $mem0}] [expr {2 * 1024 * 1024}]
}

test "A client stalled inside a command blocks nobody and finishes later" {
    r del stall
    set s [raw_socket]
    puts -nonewline $s "*3\r\n\$3\r\nSET\r\n\$5\r\nstall\r\n\$10\r\nabc"
    set t [raw_socket]
    puts -nonewline $t "*2\r\n\$3\r\nGET\r\n\$5\r\nst"
    set u [raw_socket]
    puts -nonewline $u "SET inl"
    after 100
    for {set i 0} {$i < 10} {incr i} {
        assert_equal OK [r set other $i]
        assert_equal $i [r get other]
    }
    assert_equal 0 [r exists stall]
    puts -nonewline $s "defghij\r\n"
    assert_equal "+OK\r" [gets $s]
    puts -nonewline $t "all\r\n"
    assert_equal "\$10\r" [gets $t]
    assert_equal "abcdefghij\r" [gets $t]
    puts -nonewline $u "ine v\r\n"
    assert_equal "+OK\r" [gets $u]
    assert_equal v [r get inline]
    foreach x [list $s $t $u] { close $x }
}

}  ;# tags

# ---- unauthenticated clients (requirepass set) ---------------------------------------------

start_server {tags {network-limits external:skip}} {
    # Clients connected before requirepass is set (r) stay authenticated; new ones are not.
    r config set requirepass secret

    test "An unauthenticated client that does not read its replies is disconnected (CVE-2025-21605)" {
        # Redis 7.4.3 / 8.0 behaviour (7.0.15 keeps every reply): a client that never
        # authenticated may have at most 1 KB of replies beyond the 16 KB reply buffer pending.
        set before [info_field client_output_buffer_limit_disconnections]
        set s [raw_socket]
        # 4000 commands, each answered with a 34-byte NOAUTH error, never read. (The write may
        # fail half-way: the server can close the connection before it has read everything.)
        catch {puts -nonewline $s [string repeat "PING\r\n" 4000]}
        set got [read_until_closed $s]
        assert_lessthan [string length $got] [expr {4000 * 34}]
        assert_equal [expr {$before + 1}] [info_field client_output_buffer_limit_disconnections]
        assert_morethan [log_matches "*scheduled to be closed ASAP for overcoming of output buffer limits*"] 0
        assert_equal PONG [r ping]
    }

    test "After AUTH the same pipeline is answered in full" {
        set s [raw_socket]
        puts -nonewline $s "AUTH secret\r\n[string repeat "PING\r\n" 4000]QUIT\r\n"
        set got [read_until_closed $s]
        assert_equal [expr {5 + 4000 * 7 + 5}] [string length $got]
    }

    test "Unauthenticated protocol limits (CVE-2021-32675): 10 arguments, 16 KB bulks" {
        set s [raw_socket]
        puts -nonewline $s "*1048576\r\n"
        assert_equal "-ERR Protocol error: unauthenticated multibulk length\r\n" [read_until_closed $s]
        set s [raw_socket]
        puts -nonewline $s "*1\r\n\$536870912\r\n"
        assert_equal "-ERR Protocol error: unauthenticated bulk length\r\n" [read_until_closed $s]
        assert_equal PONG [r ping]
    }

    r config set requirepass ""  ;# the framework's own clients (SHUTDOWN) do not AUTH
}
