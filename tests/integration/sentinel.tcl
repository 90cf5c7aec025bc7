# High availability under Redis Sentinel (Debian's redis-sentinel): three sentinels watch a Keel
# master and two Keel replicas. They discover the replicas and each other through INFO and the
# __sentinel__:hello channel, promote a replica when the master is SIGKILLed (never the one with
# replica-priority 0), re-point the other one, turn the restarted old master into a replica, and
# run a manual SENTINEL FAILOVER; they SCRIPT KILL a master stuck in a script and log in as a
# restricted ACL user. Everything they send to Keel (INFO, PING, AUTH, CLIENT SETNAME,
# SUBSCRIBE/PUBLISH, MULTI + SLAVEOF + CONFIG REWRITE + CLIENT KILL + EXEC, SCRIPT KILL) must get
# no error reply. The file passes with `--server /usr/bin/redis-server` too (the same scenarios
# against Redis 7.0), which is how its expectations were checked.

# What a replica tells its master and Sentinel about itself (no sentinel needed). Expected
# values read from redis-server 7.0.15 in the same setup.
start_server {tags {repl sentinel} overrides {repl-diskless-sync-delay 0}} {
start_server {overrides {replica-announce-port 12345 replica-announced no replica-priority 7 repl-diskless-sync-delay 0}} {
    test "replica-announce-port is what the master lists; replica_announced and slave_priority" {
        r replicaof 127.0.0.1 [srv -1 port]
        wait_for_condition 300 50 {[string match "*slave0:ip=127.0.0.1,port=12345,state=online*" [r -1 info replication]]} {
            fail "master: [r -1 info replication]"
        }
        # ROLE lists a replica once its first ACK arrived (INFO says online before that).
        wait_for_condition 100 20 {[lindex [lindex [r -1 role] 2] 0 1] eq "12345"} {
            fail "ROLE: [r -1 role]"
        }
        assert_equal 0 [server_info replica_announced]
        assert_equal 7 [server_info slave_priority]
        assert_equal {slave-announce-port 12345} [r config get slave-announce-port]
        assert_error {*must be between 0 and 65535*} {r config set replica-announce-port 70000}
    }

    test "INFO min_slaves_good_slaves while min-replicas-to-write is set" {
        assert_equal "" [server_info min_slaves_good_slaves -1]
        r -1 config set min-replicas-to-write 1
        wait_for_condition 100 50 {[server_info min_slaves_good_slaves -1] eq "1"}
        r -1 config set min-replicas-to-write 0
        assert_equal "" [server_info min_slaves_good_slaves -1]
    }

    test "CONFIG REWRITE writes replicaof with the host unquoted, as Redis (Sentinel rewrites it)" {
        r config rewrite
        set f [open [srv config_file] r]
        set text [read $f]
        close $f
        assert_match "*\nreplicaof 127.0.0.1 [srv -1 port]\n*" $text
        r replicaof no one
    }
}
}

set ::sentinel_bin [auto_execok redis-sentinel]
set ::sentinels {}

# Starts three sentinels monitoring host:port; their files live in `dir`. Each runs under
# `timeout` so that a worker killed halfway can never leave one behind.
proc start_sentinels {dir host port {extra {}}} {
    set ::sentinels {}
    for {set i 0} {$i < 3} {incr i} {
        set sport [::keel::find_free_port]
        set sdir [file join $dir sentinel-$i]
        file mkdir $sdir
        set f [open [file join $sdir sentinel.conf] w]
        puts $f "bind 127.0.0.1"
        puts $f "port $sport"
        puts $f "dir $sdir"
        puts $f "logfile [file join $sdir sentinel.log]"
        puts $f "sentinel monitor mymaster $host $port 2"
        puts $f "sentinel down-after-milliseconds mymaster 1000"
        puts $f "sentinel failover-timeout mymaster 6000"
        puts $f "sentinel parallel-syncs mymaster 2"
        foreach l $extra { puts $f $l }
        close $f
        set pid [exec timeout 300 {*}$::sentinel_bin [file join $sdir sentinel.conf] \
                     >& [file join $sdir stderr.log] &]
        lappend ::sentinels [dict create port $sport pid $pid dir $sdir]
    }
    foreach s $::sentinels {
        set p [dict get $s port]
        wait_for_condition 200 20 {![catch {sentinel_cmd $p ping} r] && $r eq "PONG"}
    }
}

proc stop_sentinels {} {
    foreach s $::sentinels { catch {exec kill [dict get $s pid]} }
    foreach s $::sentinels { ::keel::wait_exit [dict get $s pid] 5 }
    set ::sentinels {}
}

# One command to a sentinel on a fresh connection.
proc sentinel_cmd {port args} {
    set c [::keel::client::connect 127.0.0.1 $port]
    $c timeout 5
    set code [catch {$c {*}$args} reply]
    catch {$c close}
    if {$code} { error $reply }
    return $reply
}

proc sentinel_port {i} { dict get [lindex $::sentinels $i] port }

# SENTINEL REPLICAS / SENTINELS reply as a list of dicts; `field` of each, sorted.
proc sentinel_field {i what field} {
    set out {}
    foreach e [sentinel_cmd [sentinel_port $i] sentinel $what mymaster] {
        lappend out [dict get $e $field]
    }
    return [lsort $out]
}

# Every sentinel knows the replica on `port` as a healthy replica of `master_port`.
proc all_sentinels_see_replica {port master_port} {
    for {set i 0} {$i < 3} {incr i} {
        set ok 0
        foreach e [sentinel_cmd [sentinel_port $i] sentinel replicas mymaster] {
            if {[dict get $e port] == $port && [dict get $e flags] eq "slave" &&
                [dict get $e role-reported] eq "slave" && [dict get $e master-link-status] eq "ok" &&
                [dict get $e master-port] == $master_port} { set ok 1 }
        }
        if {!$ok} { return 0 }
    }
    return 1
}

# What the sentinels did and the servers' replication state, for a failure message: each
# sentinel's last events (TILT, +convert-to-slave, sdown and failover steps) and every server's
# role, master port and link.
proc sentinel_story {} {
    set out {}
    foreach s $::sentinels {
        set lines {}
        catch {
            set f [open [file join [dict get $s dir] sentinel.log] r]
            foreach l [split [read $f] \n] {
                if {[regexp {[-+](tilt|convert-to-slave|sdown|odown|switch-master|failover[-a-z]*|slave-reconf[-a-z]*|fix-slave-config|role-change|reboot)} $l]} {
                    lappend lines [regsub {^\d+:X \d+ \w+ \d+ } $l {}]
                }
            }
            close $f
        }
        lappend out "sentinel [dict get $s port]: [join [lrange $lines end-5 end] { ; }]"
    }
    foreach level {-2 -1 0} {
        if {[catch {list [role_of $level] [field $level master_port] [field $level master_link_status]} st]} {
            set st "unreachable: $st"
        }
        lappend out "server [srv $level port]: $st"
    }
    return [join $out \n]
}

proc master_addr {i} { sentinel_cmd [sentinel_port $i] sentinel get-master-addr-by-name mymaster }

# Every sentinel names host:port as the master.
proc all_sentinels_name {port} {
    for {set i 0} {$i < 3} {incr i} {
        if {[catch {master_addr $i} a] || $a ne [list 127.0.0.1 $port]} { return 0 }
    }
    return 1
}

proc config_text {level} {
    set f [open [srv $level config_file] r]
    set text [read $f]
    close $f
    return $text
}

# Sentinel's CLIENT KILL TYPE normal closes every ordinary connection of a server it
# reconfigures, the tests' default clients included: what the tests poll goes through a fresh
# connection each time.
# A connection opened while Sentinel reconfigures the server can itself be killed: an I/O
# error is retried (twice) on a new connection; error replies are not.
set ::rr_auth {}
proc rr {level args} {
    for {set try 0} {1} {incr try} {
        set code [catch {
            set c [::keel::client::connect 127.0.0.1 [srv $level port]]
            $c timeout 5
            if {$::rr_auth ne ""} { $c auth {*}$::rr_auth }
            set code [catch {$c {*}$args} reply]
            catch {$c close}
            if {$code} { error $reply }
            set reply
        } reply]
        if {!$code || $try >= 2 || ![string match "*I/O error*" $reply]} break
        after 50
    }
    if {$code} { error $reply }
    return $reply
}

proc field {level name} {
    if {[regexp -line "^$name:(.*)\r?$" [rr $level info replication] -> v]} { return [string trim $v] }
    return ""
}

proc role_of {level} { lindex [rr $level role] 0 }

proc replica_of {level port} {
    expr {[role_of $level] eq "slave" && [field $level master_port] == $port &&
          [field $level master_link_status] eq "up"}
}

# A write through the master Sentinel names (what a Sentinel-aware client does).
# Once the sentinels know the replica (server 0, port rport) and each other: SIGKILL of the
# master (server -1); every sentinel names the replica, which is promoted with no error reply
# in its stats.
proc fail_over_by_sigkill {rport} {
    wait_for_condition 300 50 {[sentinel_field 0 replicas port] eq $rport}
    wait_for_condition 300 50 {[llength [sentinel_field 0 sentinels runid]] == 2}
    kill_server -1 -kill
    wait_for_condition 600 50 {[all_sentinels_name $rport]} {
        fail "sentinels name [master_addr 0] [master_addr 1] [master_addr 2]"
    }
    wait_for_condition 200 50 {[role_of 0] eq "master"}
    assert_equal "" [string trim [regsub {# Errorstats} [rr 0 info errorstats] ""]]
}

proc write_via_sentinel {key value} {
    lassign [master_addr 0] host port
    set c [::keel::client::connect $host $port]
    $c timeout 5
    set code [catch {$c set $key $value} reply]
    catch {$c close}
    if {$code} { error $reply }
    return $reply
}

if {$::sentinel_bin eq ""} {
    test "Sentinel failover of Keel" {
        skip_test "redis-sentinel is not installed (Debian package redis-sentinel, deps/install.sh)"
    }
    return
}

tags {repl sentinel} {
start_server {overrides {repl-diskless-sync-delay 0}} {
start_server {overrides {replica-announce-port 12345 repl-diskless-sync-delay 0}} {
start_server {overrides {replica-announced no repl-diskless-sync-delay 0}} {
    r -1 replicaof 127.0.0.1 [srv -2 port]
    r replicaof 127.0.0.1 [srv -2 port]
    wait_for_condition 200 20 {[server_info master_link_status -1] eq "up" && [server_info master_link_status] eq "up"}
    start_sentinels [srv -2 dir] 127.0.0.1 [srv -2 port]

    test "Sentinel knows a replica by its replica-announce-port, and hides a replica-announced no one" {
        # Both are known (num-slaves), only the announced one is listed.
        wait_for_condition 200 50 {[dict get [sentinel_cmd [sentinel_port 0] sentinel master mymaster] num-slaves] == 2}
        wait_for_condition 200 50 {[sentinel_field 0 replicas port] eq "12345"} {
            fail "sentinel sees [sentinel_field 0 replicas name]"
        }
        assert_equal 127.0.0.1:12345 [sentinel_field 0 replicas name]
        after 1500
        assert_equal 12345 [sentinel_field 0 replicas port]
    }

    stop_sentinels
}
}
}

# Servers with passwords: Sentinel logs in as an ACL user that may run only what it needs (the
# permissions Redis's Sentinel documentation lists), the replica uses masterauth.
start_server {overrides {repl-diskless-sync-delay 0}} {
start_server {overrides {repl-diskless-sync-delay 0}} {
    set mport [srv -1 port]
    set rport [srv 0 port]
    foreach level {-1 0} {
        r $level acl setuser sentinel-user on >spw allchannels +multi +slaveof +ping +exec \
            +subscribe +config|rewrite +role +publish +info +client|setname +client|kill +script|kill
        r $level config set masterauth s3cret
        r $level config set requirepass s3cret
    }
    set ::rr_auth s3cret
    r replicaof 127.0.0.1 $mport
    wait_for_condition 200 20 {[replica_of 0 $mport]}
    start_sentinels [srv -1 dir] 127.0.0.1 $mport \
        {"sentinel auth-user mymaster sentinel-user" "sentinel auth-pass mymaster spw"}

    test "Sentinel as a restricted ACL user, servers with requirepass: discovery and failover" {
        fail_over_by_sigkill $rport
        assert_match "*cmdstat_slaveof:calls=1,*" [rr 0 info commandstats]
        wait_for_condition 100 50 {[string match "*user=sentinel-user*" [rr 0 client list]]}
    }

    stop_sentinels
    # The master is still up when the test was filtered out (--only).
    foreach level {-1 0} { catch {rr $level config set requirepass ""} }
    set ::rr_auth {}
}
}

# Servers that renamed the commands Sentinel reconfigures them with (rename-command in their
# files); Sentinel is told the new names with `sentinel rename-command`.
set renames {rename-command {config keel-config} rename-command {slaveof keel-slaveof}}
start_server [list overrides [concat $renames {repl-diskless-sync-delay 0}]] {
start_server [list overrides [concat $renames {repl-diskless-sync-delay 0}]] {
    set mport [srv -1 port]
    set rport [srv 0 port]
    r replicaof 127.0.0.1 $mport
    wait_for_condition 200 20 {[replica_of 0 $mport]}
    start_sentinels [srv -1 dir] 127.0.0.1 $mport \
        {"sentinel rename-command mymaster CONFIG keel-config" "sentinel rename-command mymaster SLAVEOF keel-slaveof"}

    test "rename-command: Sentinel fails over servers that renamed CONFIG and SLAVEOF" {
        assert_error {ERR unknown command 'config'*} {r config get port}
        assert_equal [list port $rport] [r keel-config get port]
        r keel-config resetstat
        fail_over_by_sigkill $rport
        # INFO commandstats and the file keep the original names.
        set stats [rr 0 info commandstats]
        assert_match "*cmdstat_slaveof:calls=1,*" $stats
        assert_match "*cmdstat_config|rewrite:calls=1,*" $stats
        assert_match "*\nrename-command config keel-config\n*" [config_text 0]
    }

    stop_sentinels
}
}

start_server {overrides {busy-reply-threshold 100 repl-diskless-sync-delay 0}} {
    start_sentinels [srv dir] 127.0.0.1 [srv port]

    test "A master stuck in a script: Sentinel ends it with SCRIPT KILL" {
        wait_for_condition 200 50 {[string match "*name=sentinel-*-cmd*" [r client list]]}
        set rd [redis_deferring_client]
        $rd eval {local i = 0 while true do i = i + 1 end} 0
        # PING gets -BUSY; once the master is subjectively down Sentinel sends SCRIPT KILL.
        $rd timeout 15
        assert_error {*Script killed by user with SCRIPT KILL*} {$rd read}
        $rd close
        assert_equal PONG [r ping]
        # Nobody but the sentinels sent it.
        assert_match "*cmdstat_script|kill:calls=*" [r info commandstats]
    }

    stop_sentinels
}

# Level -2: the master M. Level -1: replica A. Level 0: replica B, replica-priority 0 (never
# promoted), so the first failover must pick A and the manual one must pick M.
start_server {overrides {repl-ping-replica-period 1 repl-diskless-sync-delay 0}} {
start_server {overrides {replica-announce-ip 127.0.0.1 repl-ping-replica-period 1 repl-diskless-sync-delay 0}} {
start_server {overrides {replica-priority 0 repl-ping-replica-period 1 repl-diskless-sync-delay 0}} {
    set mport [srv -2 port]
    set aport [srv -1 port]
    set bport [srv 0 port]

    test "Two Keel replicas follow the Keel master" {
        r -1 replicaof 127.0.0.1 $mport
        r 0 replicaof 127.0.0.1 $mport
        wait_for_condition 200 20 {[replica_of -1 $mport] && [replica_of 0 $mport]}
        r -2 set before-failover 1
        wait_for_condition 200 20 {[r -1 get before-failover] eq "1" && [r 0 get before-failover] eq "1"}
        assert_equal 100 [server_info slave_priority -1]
        assert_equal 0 [server_info slave_priority 0]
        assert_equal 1 [server_info replica_announced 0]
    }

    start_sentinels [srv -2 dir] 127.0.0.1 $mport

    test "Sentinels discover both replicas and each other" {
        for {set i 0} {$i < 3} {incr i} {
            wait_for_condition 300 50 {
                [sentinel_field $i replicas port] eq [lsort [list $aport $bport]] &&
                [llength [sentinel_field $i sentinels runid]] == 2
            } {
                fail "sentinel $i sees replicas [sentinel_field $i replicas name], sentinels [sentinel_field $i sentinels name]"
            }
        }
        assert_equal [list 127.0.0.1 $mport] [master_addr 0]
        # What they read from Keel's INFO.
        foreach e [sentinel_cmd [sentinel_port 0] sentinel replicas mymaster] {
            assert_equal 127.0.0.1 [dict get $e ip]
            assert_equal ok [dict get $e master-link-status]
            assert_equal $mport [dict get $e master-port]
            if {[dict get $e port] == $bport} {
                assert_equal 0 [dict get $e slave-priority]
            } else {
                assert_equal 100 [dict get $e slave-priority]
            }
        }
        set m [sentinel_cmd [sentinel_port 0] sentinel master mymaster]
        assert_equal master [dict get $m flags]
        assert_equal 2 [dict get $m num-slaves]
        assert_equal 2 [dict get $m num-other-sentinels]
        # Sentinel names its links to the servers it watches.
        assert_match "*name=sentinel-*-cmd*" [rr -2 client list]
        assert_match "*name=sentinel-*-pubsub*" [rr -2 client list]
    }

    test "Master SIGKILLed: replica A (not the priority-0 one) is promoted, B follows it" {
        kill_server -2 -kill
        wait_for_condition 600 50 {[all_sentinels_name $aport]} {
            fail "sentinels name [master_addr 0] [master_addr 1] [master_addr 2]"
        }
        wait_for_condition 200 50 {[role_of -1] eq "master"}
        wait_for_condition 400 50 {[replica_of 0 $aport]}
        assert_equal 1 [rr 0 get before-failover]
        write_via_sentinel after-failover 2
        wait_for_condition 200 20 {[rr 0 get after-failover] eq "2"}
        # An application that follows Sentinel (redis-py's redis.sentinel) writes to the new master.
        set ports [join [lmap s $::sentinels {dict get $s port}] ,]
        # (Right after a switch a sentinel may still flag the new master as not yet confirmed,
        # and redis-py then finds no master: an application retries, so does the test.)
        wait_for_condition 50 200 {![catch {python_client_script sentinel_client.py $ports mymaster pykey py} out]} {
            fail "redis-py: $out"
        }
        assert_equal "127.0.0.1:$aport py" $out
        wait_for_condition 200 20 {[rr 0 get pykey] eq "py"}
        # Sentinel made the change stick across restarts (CONFIG REWRITE inside its MULTI).
        wait_for_condition 100 50 {[string match "*\nreplicaof 127.0.0.1 $aport\n*" [config_text 0]]} {
            fail "B's config file: [config_text 0]"
        }
    }

    test "The old master restarted: Sentinel turns it into a replica of the new one" {
        restart_server -2
        # Sentinel converts it 8 s after it last saw the role change, reading a replica's INFO
        # every 10 s: up to about 20 s on a quiet machine; on a loaded one (two test files at
        # once, the ASan build) more.
        wait_for_condition 1600 50 {[replica_of -2 $aport]} {
            fail "old master not a replica of $aport\n[sentinel_story]"
        }
        wait_for_condition 200 20 {[rr -2 get after-failover] eq "2"} {
            fail "after-failover on the old master: [rr -2 get after-failover]\n[sentinel_story]"
        }
        for {set i 0} {$i < 3} {incr i} {
            wait_for_condition 300 50 {[sentinel_field $i replicas port] eq [lsort [list $mport $bport]]} {
                fail "sentinel $i replicas [sentinel_field $i replicas port]\n[sentinel_story]"
            }
        }
    }

    test "SENTINEL FAILOVER: the old master is promoted again (B has priority 0)" {
        # Every sentinel must have read the old master's INFO as a replica's: one that still
        # remembers it reporting role:master would turn it back into a replica right after the
        # promotion (Sentinel's INFO period for replicas is 10 s).
        wait_for_condition 300 100 {[all_sentinels_see_replica $mport $aport]} {
            fail "replicas: [sentinel_cmd [sentinel_port 0] sentinel replicas mymaster]\n[sentinel_story]"
        }
        if {[catch {sentinel_cmd [sentinel_port 0] sentinel failover mymaster} r] || $r ne "OK"} {
            fail "SENTINEL FAILOVER: $r; replicas: [sentinel_cmd [sentinel_port 0] sentinel replicas mymaster]"
        }
        wait_for_condition 600 50 {[all_sentinels_name $mport]} {
            fail "sentinels name [master_addr 0] [master_addr 1] [master_addr 2]"
        }
        wait_for_condition 200 50 {[role_of -2] eq "master"}
        wait_for_condition 400 50 {[replica_of -1 $mport] && [replica_of 0 $mport]}
        write_via_sentinel after-manual 3
        wait_for_condition 200 20 {[rr -1 get after-manual] eq "3" && [rr 0 get after-manual] eq "3"}
        assert_equal 0 [field 0 slave_priority]
    }

    test "Nothing the sentinels sent got an error reply" {
        foreach level {-2 -1 0} {
            set errs [string trim [regsub {# Errorstats} [rr $level info errorstats] ""]]
            assert_equal "" $errs "errors at level $level"
            foreach l [split [rr $level info commandstats] \n] {
                if {[regexp {^cmdstat_([^:]+):.*rejected_calls=(\d+),failed_calls=(\d+)} $l -> name rej failed]} {
                    assert_equal "0 0" "$rej $failed" "$name at level $level"
                }
            }
        }
        # What they sent, to show that the checks above covered it.
        set cmds [rr -1 info commandstats]
        foreach c {info ping publish subscribe client|setname multi exec config|rewrite client|kill replicaof} {
            if {$c eq "replicaof" && ![string match "*cmdstat_replicaof:*" $cmds]} { set c slaveof }
            assert_match "*cmdstat_$c:*" $cmds
        }
    }

    stop_sentinels
}
}
}
}
