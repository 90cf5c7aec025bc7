# appendfsync always as a group commit: replies wait for the fsync of the writes before them
# (persistence/aof.h, Server::hold_for_fsync), while the loop goes on reading other clients. Every
# reply must still arrive, whole and in order, whatever else happens to its client meanwhile:
# a reply larger than the socket buffers, more pipelined commands, a close, a kill, a policy
# change at run time, blocked clients served, pub/sub messages, QUIT. The durability itself
# (no acknowledged write lost) is proven by aof-crash.tcl's kill -9 tests.
# Replies were read from Debian's redis-server 7.0.15, and this file runs against it too
# (tclsh tests/runtest --server /usr/bin/redis-server --single integration/aof-always).

proc cmd_bytes {args} { return [::keel::client::encode_command $args] }

start_server {overrides {appendonly yes appendfsync always}} {
    test "always: 20 clients, each pipelining writes and reads, get every reply in order" {
        set clients {}
        for {set c 0} {$c < 20} {incr c} { lappend clients [redis_deferring_client] }
        for {set round 0} {$round < 5} {incr round} {
            foreach rd $clients {
                set bytes ""
                for {set i 0} {$i < 20} {incr i} {
                    append bytes [cmd_bytes INCR n:$rd] [cmd_bytes GET n:$rd]
                }
                $rd write $bytes
            }
            foreach rd $clients {
                for {set i 1} {$i <= 20} {incr i} {
                    set want [expr {$round * 20 + $i}]
                    assert_equal $want [$rd read]
                    assert_equal $want [$rd read]
                }
            }
        }
        foreach rd $clients { $rd close }
        assert_equal 20 [r dbsize]
        # The last fsync answered 20 clients; a lone one now is not kept waiting for the rest
        # (Keel waits a little for them, then fsyncs anyway).
        for {set i 0} {$i < 20} {incr i} { assert_equal OK [r set lone $i] }
    }

    test "always: a reply larger than the socket buffers, between writes, arrives whole" {
        set big [string repeat x 4000000]
        r set big $big
        set rd [redis_deferring_client]
        $rd write "[cmd_bytes SET a 1][cmd_bytes GET big][cmd_bytes SET a 2][cmd_bytes GET big][cmd_bytes GET a]"
        # Other clients' writes go on while that reply is on its way.
        for {set i 0} {$i < 50} {incr i} { r incr other }
        assert_equal OK [$rd read]
        assert_equal 4000000 [string length [$rd read]]
        assert_equal OK [$rd read]
        assert_equal $big [$rd read]
        assert_equal 2 [$rd read]
        $rd close
        assert_equal 50 [r get other]
    }

    test "always: clients that send writes and close at once leave nothing behind" {
        for {set c 0} {$c < 20} {incr c} {
            set rd [redis_deferring_client]
            set bytes ""
            for {set i 0} {$i < 50} {incr i} { append bytes [cmd_bytes RPUSH closed:$c $i] }
            $rd write $bytes
            $rd close
        }
        # Each client's writes ran (in order) even though nobody read the replies.
        wait_for_condition 100 20 {[r llen closed:19] == 50}
        for {set c 0} {$c < 20} {incr c} { assert_equal 50 [r llen closed:$c] }
        assert_equal {0 1 2} [r lrange closed:7 0 2]
        assert_equal PONG [r ping]
    }

    test "always: a client killed by another while its replies wait" {
        set victim [redis_deferring_client]
        $victim client id
        set id [$victim read]
        set bytes ""
        for {set i 0} {$i < 200} {incr i} { append bytes [cmd_bytes SET v$i $i] }
        $victim write $bytes
        assert_equal 1 [r client kill id $id]
        # Whatever it read before the kill ran; the server carries on.
        assert_equal PONG [r ping]
        catch {$victim close}
        r set after-kill 1
        assert_equal 1 [r get after-kill]
    }

    test "always: a blocked client served by another's write, and pub/sub messages" {
        set blocked [redis_deferring_client]
        $blocked blpop q 5
        wait_for_condition 50 20 {[server_info blocked_clients] == 1}
        set sub [redis_deferring_client]
        $sub subscribe ch
        assert_equal {subscribe ch 1} [$sub read]
        r lpush q job
        assert_equal {q job} [$blocked read]
        assert_equal 1 [r publish ch hello]
        assert_equal {message ch hello} [$sub read]
        $blocked close
        $sub close
    }

    test "always: QUIT after writes: every reply, then the close" {
        set rd [redis_deferring_client]
        $rd write "[cmd_bytes SET q1 1][cmd_bytes INCR q1][cmd_bytes QUIT]"
        assert_equal OK [$rd read]
        assert_equal 2 [$rd read]
        assert_equal OK [$rd read]
        assert_error "*" {$rd read}
        $rd close
    }

    test "always -> everysec -> always at run time while clients pipeline writes" {
        set clients {}
        for {set c 0} {$c < 5} {incr c} { lappend clients [redis_deferring_client] }
        foreach policy {everysec always everysec always} {
            foreach rd $clients {
                set bytes ""
                for {set i 0} {$i < 30} {incr i} { append bytes [cmd_bytes INCR p:$rd] }
                $rd write $bytes
            }
            r config set appendfsync $policy
            foreach rd $clients {
                for {set i 0} {$i < 30} {incr i} { $rd read }
            }
        }
        foreach rd $clients {
            assert_equal 120 [r get p:$rd]
            $rd close
        }
        assert_equal always [lindex [r config get appendfsync] 1]
    }

    test "always: replies held for an fsync leave when the policy changes to everysec" {
        for {set round 0} {$round < 10} {incr round} {
            r config set appendfsync always
            # 10 clients answered, then two of them write at once, one of them changing the
            # policy: if Keel's group commit is waiting for the other eight (it waits up to
            # 0.3 ms after an fsync that answered more clients than now owe replies), the held
            # reply must leave all the same. (Whether it waits depends on timing.)
            set clients {}
            for {set c 0} {$c < 10} {incr c} { lappend clients [redis_deferring_client] }
            foreach rd $clients { $rd write [cmd_bytes INCR w:$round] }
            foreach rd $clients { $rd read }
            set a [lindex $clients 0]
            set b [lindex $clients 1]
            $a write [cmd_bytes SET held:$round 1]
            $b write [cmd_bytes CONFIG SET appendfsync everysec]
            assert_equal OK [$a read]
            assert_equal OK [$b read]
            foreach rd $clients { $rd close }
        }
        assert_equal 10 [r get w:9]
        r config set appendfsync always
    }

    test "always: what was acknowledged is in the AOF after a SIGKILL" {
        set clients {}
        for {set c 0} {$c < 10} {incr c} { lappend clients [redis_deferring_client] }
        foreach rd $clients {
            set bytes ""
            for {set i 0} {$i < 100} {incr i} { append bytes [cmd_bytes RPUSH k:$rd $i] }
            $rd write $bytes
        }
        foreach rd $clients {
            for {set i 1} {$i <= 100} {incr i} { assert_equal $i [$rd read] }
        }
        restart_server -kill
        foreach rd $clients {
            assert_equal 100 [r llen k:$rd]
            catch {$rd close}
        }
    }
}

start_server {overrides {appendonly yes appendfsync always}} {
    test "always: 20 clients with one write in flight each share fdatasyncs" {
        if {![is_keel]} { skip_test "Redis fsyncs once per loop iteration, whatever arrives" }
        if {[catch {exec which strace}]} { skip_test "no strace" }
        set trace [file join [srv dir] strace.out]
        set st [open "|strace -f -qq -e trace=fdatasync -o $trace -p [srv pid] 2>@1" r]
        after 300
        # 20 clients, one request each in flight: each sends its next write as soon as the reply
        # to its last one arrives, as redis-benchmark -P 1 does.
        set clients {}
        for {set c 0} {$c < 20} {incr c} {
            set rd [redis_deferring_client]
            lappend clients $rd
            $rd incr c:$c
        }
        for {set i 2} {$i <= 50} {incr i} {
            set c 0
            foreach rd $clients {
                assert_equal [expr {$i - 1}] [$rd read]
                $rd incr c:$c
                incr c
            }
        }
        foreach rd $clients {
            assert_equal 50 [$rd read]
            $rd close
        }
        after 200
        catch {exec kill -INT [pid $st]}
        catch {close $st}
        set syncs 0
        if {[file exists $trace]} {
            set f [open $trace r]
            set syncs [regexp -all -line {fdatasync\(} [read $f]]
            close $f
        }
        if {$syncs == 0} { skip_test "strace could not attach (ptrace not allowed here?)" }
        # 1000 acknowledged writes; one fsync each would be 1000.
        assert_lessthan $syncs 500
    }
}
