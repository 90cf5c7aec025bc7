# FAILOVER (Redis 6.2+): a master holds writes back until a replica has acknowledged the whole
# stream, becomes that replica's replica and asks it with PSYNC <replid> <offset> FAILOVER to
# take over. Replies, errors, INFO master_failover_state and log lines as Debian's redis-server
# 7.0.15 gives them (checked by running the same commands against it); the last two blocks
# fail over between Keel and redis-server in both directions.

proc failover_done {level} {
    wait_for_condition 100 50 {[server_info master_failover_state $level] eq "no-failover"}
}

proc wait_online {mlevel} {
    wait_for_condition 250 20 {[string match "*state=online*" [server_info slave0 $mlevel]]}
}

start_server {tags {repl failover}} {
    test "FAILOVER argument errors, and the errors of a master without replicas" {
        assert_error "ERR syntax error" {r failover bogus}
        assert_error "ERR syntax error" {r failover to 127.0.0.1}
        assert_error "ERR syntax error" {r failover abort abort}
        assert_error "ERR syntax error" {r failover abort timeout 10}
        assert_error "ERR syntax error" {r failover to 127.0.0.1 1 abort}
        assert_error "ERR syntax error" {r failover timeout 10 timeout 20}
        assert_error "ERR syntax error" {r failover to 127.0.0.1 1 to 127.0.0.1 2}
        assert_error "ERR value is not an integer or out of range" {r failover to 127.0.0.1 abc}
        assert_error "ERR value is not an integer or out of range" {r failover timeout abc}
        assert_error "ERR FAILOVER timeout must be greater than 0" {r failover timeout 0}
        assert_error "ERR FAILOVER timeout must be greater than 0" {r failover timeout -1}
        assert_error "ERR No failover in progress." {r failover abort}
        assert_error "ERR FAILOVER requires connected replicas." {r failover}
        assert_error "ERR FAILOVER requires connected replicas." {r failover force}
        assert_equal no-failover [server_info master_failover_state]
        assert_error "ERR PSYNC FAILOVER can't be sent to a master." {r psync abc 1 failover}
    }

    start_server {tags {repl failover}} {
        r replicaof [srv -1 host] [srv -1 port]
        wait_online -1

        test "FAILOVER errors with a replica: FORCE needs TO and TIMEOUT, the target must be a replica" {
            assert_error "ERR FAILOVER with force option requires both a timeout and target HOST and IP." {r -1 failover force}
            assert_error "ERR FAILOVER with force option requires both a timeout and target HOST and IP." {r -1 failover to 127.0.0.1 [srv 0 port] force}
            assert_error "ERR FAILOVER with force option requires both a timeout and target HOST and IP." {r -1 failover timeout 100 force}
            assert_error "ERR FAILOVER target HOST and PORT is not a replica." {r -1 failover to 127.0.0.1 1}
            assert_error "ERR FAILOVER target HOST and PORT is not a replica." {r -1 failover to localhost [srv 0 port]}
            assert_error "ERR FAILOVER is not valid when server is a replica." {r failover}
            assert_error "ERR PSYNC FAILOVER replid must match my replid." {r psync abc 1 failover}
            assert_equal slave [lindex [r role] 0]
        }

        test "While waiting for the replica: writes held (also after CLIENT UNPAUSE), reads served, ABORT" {
            set pid [srv 0 pid]
            ::keel::signal $pid STOP
            r -1 set before 1
            assert_equal OK [r -1 failover]
            assert_equal waiting-for-sync [server_info master_failover_state -1]
            assert_error "ERR FAILOVER already in progress." {r -1 failover}
            assert_error "ERR REPLICAOF not allowed while failing over." {r -1 replicaof no one}
            assert_error "ERR REPLICAOF not allowed while failing over." {r -1 replicaof 127.0.0.1 1}
            set rd [redis_deferring_client -1]
            $rd set held 1
            wait_for_blocked_clients 1 -1
            assert_equal 1 [r -1 get before]
            # CLIENT UNPAUSE ends a CLIENT PAUSE, not the failover's own pause.
            assert_equal OK [r -1 client unpause]
            after 100
            assert_equal 1 [server_info blocked_clients -1]
            assert_equal OK [r -1 failover abort]
            assert_equal OK [$rd read]
            assert_equal no-failover [server_info master_failover_state -1]
            assert_equal master [lindex [r -1 role] 0]
            assert_equal 1 [log_matches "*FAILOVER to any replica aborted: Failover manually aborted*" -1]
            $rd close
            ::keel::signal $pid CONT
        }

        test "TIMEOUT without FORCE: the failover is aborted and writes run again" {
            wait_online -1
            set pid [srv 0 pid]
            ::keel::signal $pid STOP
            r -1 set before 2
            assert_equal OK [r -1 failover timeout 300]
            failover_done -1
            assert_equal OK [r -1 set after 1]
            assert_equal master [lindex [r -1 role] 0]
            assert_equal 1 [log_matches "*FAILOVER to any replica aborted: Replica never caught up before timeout*" -1]
            ::keel::signal $pid CONT
            wait_for_condition 100 50 {[r get after] eq "1"}
        }

        test "FAILOVER: the replica takes over with a partial resync, a write held meanwhile gets -READONLY" {
            wait_online -1
            set pid [srv 0 pid]
            ::keel::signal $pid STOP
            r -1 set k v
            set old_replid [server_info master_replid -1]
            assert_equal OK [r -1 failover]
            set rd [redis_deferring_client -1]
            $rd set held 1
            wait_for_blocked_clients 1 -1
            ::keel::signal $pid CONT
            failover_done -1
            assert_error "READONLY*" {$rd read}
            $rd close
            wait_for_condition 100 50 {[server_info master_link_status -1] eq "up"}
            assert_equal slave [lindex [r -1 role] 0]
            assert_equal master [lindex [r role] 0]
            # The new master continues the old history: replid2 is the old replid, and the old
            # master was served a partial resync.
            assert_equal $old_replid [server_info master_replid2]
            assert_equal 1 [log_matches "*Failover request received for replid $old_replid*"]
            assert_equal 1 [log_matches "*MASTER MODE enabled (failover request from*"]
            assert_equal 1 [log_matches "*Failover target 127.0.0.1:[srv 0 port] is synced, failing over*" -1]
            assert_equal 1 [log_matches "*Successful partial resynchronization with master*" -1]
            assert_equal v [r get k]
            r set written-on-new 1
            wait_for_condition 100 50 {[r -1 get written-on-new] eq "1"}
            assert_equal [r debug digest] [r -1 debug digest]
        }

        test "TO host port TIMEOUT FORCE: fails over to the named replica even if it did not catch up" {
            # Roles now: level 0 is the master, level -1 its replica.
            wait_online 0
            set pid [srv -1 pid]
            ::keel::signal $pid STOP
            r set lagging 1
            assert_equal OK [r failover to 127.0.0.1 [srv -1 port] timeout 200 force]
            after 400
            ::keel::signal $pid CONT
            failover_done 0
            wait_for_condition 100 50 {[lindex [r -1 role] 0] eq "master" && [server_info master_link_status] eq "up"}
            assert_equal 1 [log_matches "*FAILOVER to 127.0.0.1:[srv -1 port] time out exceeded, failing over*"]
            assert_equal 1 [r -1 get lagging]
            r -1 replicaof no one
            r replicaof no one
        }
    }
}

start_server {tags {repl failover cross-server} overrides {rdb-version 10 repl-diskless-sync-delay 0}} {
    start_server {binary /usr/bin/redis-server tags {repl failover cross-server}} {
        test "FAILOVER from a Keel master to a redis-server 7.0 replica" {
            if {![is_keel -1]} { skip_test "needs Keel as the outer server" }
            r replicaof [srv -1 host] [srv -1 port]
            wait_online -1
            r -1 set from-keel 1
            assert_equal OK [r -1 failover]
            failover_done -1
            wait_for_condition 100 50 {[server_info master_link_status -1] eq "up"}
            assert_equal master [lindex [r role] 0]
            assert_equal 1 [r get from-keel]
            r set from-redis 2
            wait_for_condition 100 50 {[r -1 get from-redis] eq "2"}
            r -1 replicaof no one
        }
    }
}

start_server {binary /usr/bin/redis-server tags {repl failover cross-server} overrides {repl-diskless-sync-delay 0}} {
    start_server {tags {repl failover cross-server}} {
        test "FAILOVER from a redis-server 7.0 master to a Keel replica" {
            if {![is_keel]} { skip_test "needs Keel as the inner server" }
            r replicaof [srv -1 host] [srv -1 port]
            wait_online -1
            r -1 set from-redis 1
            assert_equal OK [r -1 failover to 127.0.0.1 [srv 0 port]]
            failover_done -1
            wait_for_condition 100 50 {[server_info master_link_status -1] eq "up"}
            assert_equal master [lindex [r role] 0]
            assert_equal 1 [log_matches "*MASTER MODE enabled (failover request from*"]
            assert_equal 1 [r get from-redis]
            r set from-keel 2
            wait_for_condition 100 50 {[r -1 get from-keel] eq "2"}
            r -1 replicaof no one
        }
    }
}
