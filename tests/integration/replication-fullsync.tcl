# Full sync by fork on the master (issue 20): repl-diskless-sync no (a BGSAVE to dbfilename,
# then the file streamed to each waiting replica), yes (the child writes into a pipe, forwarded
# as $EOF:<mark>), repl-diskless-sync-delay / -max-replicas gathering replicas into one child,
# a replica attaching to a running BGSAVE for replication, writes made while the child runs,
# INFO states (wait_bgsave, online), BGSAVE refused meanwhile, and the master answering while
# it syncs a large dataset. The child is slowed with rdb-key-save-delay (microseconds per key).

proc link_up {{level 0}} { expr {[server_info master_link_status $level] eq "up"} }

proc wait_caught_up {level mlevel} {
    wait_for_condition 500 20 {
        [link_up $level] &&
        [server_info master_repl_offset $mlevel] == [server_info slave_repl_offset $level]
    }
}

# Every slaveN line of the master's INFO replication.
proc replica_states {level} {
    set d [info_dict [r $level info replication]]
    set out {}
    dict for {k v} $d {
        if {[string match slave\[0-9\]* $k] && [regexp {state=([a-z_]+)} $v -> st]} { lappend out $st }
    }
    return [lsort $out]
}

start_server {tags {repl} overrides {repl-diskless-sync no}} {
    start_server {tags {repl}} {
        start_server {tags {repl}} {
            test "Disk sync: a forked BGSAVE to dbfilename, then the file as a \$<length> bulk" {
                r -2 debug populate 2000 disk
                r -2 config set rdb-key-save-delay 1000
                set forks [server_info total_forks -2]
                r -1 replicaof [srv -2 host] [srv -2 port]
                wait_for_condition 200 10 {[server_info rdb_bgsave_in_progress -2] == 1}
                assert_equal wait_bgsave [replica_states -2]
                # As redis-server 7.0.15: INFO counts it, ROLE lists only online replicas.
                assert_equal 1 [server_info connected_slaves -2]
                assert_equal {} [lindex [r -2 role] 2]
                assert_equal 1 [log_matches "*Starting BGSAVE for SYNC with target: disk*" -2]
                # Writes made while the child runs reach the replica after the snapshot.
                r -2 set during-child 1
                r -2 incr during-counter
                r -2 rpush during-list a b c
                # Text as redis-server 7.0.15 answers.
                assert_error "ERR Background save already in progress" {r -2 bgsave}
                assert_error "ERR Background save already in progress" {r -2 save}
                # A second replica arriving meanwhile shares the same child.
                r replicaof [srv -2 host] [srv -2 port]
                wait_for_condition 200 10 {[log_matches "*Waiting for end of BGSAVE for SYNC*" -2] == 1}
                assert_equal {wait_bgsave wait_bgsave} [replica_states -2]
                r -2 config set rdb-key-save-delay 0
                wait_caught_up -1 -2
                wait_caught_up 0 -2
                assert_equal [expr {$forks + 1}] [server_info total_forks -2]
                assert_equal {online online} [replica_states -2]
                assert_equal 2 [log_matches "*sent as a \$<length> bulk*" -2]
                foreach l {-1 0} {
                    assert_equal [r -2 debug digest] [r $l debug digest]
                    assert_equal 1 [r $l get during-child]
                    assert_equal {a b c} [r $l lrange during-list 0 -1]
                }
                assert {[file exists [file join [lindex [r -2 config get dir] 1] dump.rdb]]}
                r -2 set after-sync 1
                wait_caught_up -1 -2
                wait_caught_up 0 -2
                assert_equal 1 [r get after-sync]
            }

            test "rdb-del-sync-files: a master without persistence deletes a disk sync's snapshot" {
                r -2 config set save ""
                r -2 config set rdb-del-sync-files yes
                set f [file join [lindex [r -2 config get dir] 1] dump.rdb]
                r -1 replicaof no one
                r -1 replicaof [srv -2 host] [srv -2 port]
                wait_caught_up -1 -2
                wait_for_condition 100 50 {![file exists $f]}
                assert_equal 1 [log_matches "*Removing the RDB file used to feed replicas in a persistence-less instance*" -2]
                # A snapshot the user asked for stays.
                r -2 bgsave
                wait_for_condition 100 50 {[server_info rdb_bgsave_in_progress -2] == 0 && [file exists $f]}
                after 1200
                assert {[file exists $f]}
                r -2 config set rdb-del-sync-files no
            }

            test "A user BGSAVE running: the replica waits for the next fork" {
                r -2 config set rdb-key-save-delay 500
                r -2 bgsave
                wait_for_condition 200 10 {[server_info rdb_bgsave_in_progress -2] == 1}
                set before [log_matches "*Starting BGSAVE for SYNC with target: disk*" -2]
                r replicaof no one
                r replicaof [srv -2 host] [srv -2 port]
                wait_for_condition 200 10 {[log_matches "*Waiting for next BGSAVE for SYNC*" -2] == 1}
                r -2 config set rdb-key-save-delay 0
                wait_caught_up 0 -2
                assert_equal [expr {$before + 1}] [log_matches "*Starting BGSAVE for SYNC with target: disk*" -2]
                assert_equal [r -2 debug digest] [r debug digest]
            }

            test "Diskless: repl-diskless-sync-delay gathers both replicas into one child, \$EOF: form" {
                r -2 config set repl-diskless-sync yes
                r -2 config set repl-diskless-sync-delay 3
                set forks [server_info total_forks -2]
                set sent [log_matches "*sent diskless, with the \$EOF: mark*" -2]
                # A replica that left has a history of its own: the next sync is a full one.
                foreach l {-1 0} {
                    r $l replicaof no one
                    r $l replicaof [srv -2 host] [srv -2 port]
                }
                # Both new links waiting (the old links may still be listed for a moment: waiting
                # for two entries alone could see them).
                wait_for_condition 200 10 {[replica_states -2] eq {wait_bgsave wait_bgsave}}
                # Still gathering: no child yet.
                assert_equal 0 [server_info rdb_bgsave_in_progress -2]
                r -2 set during-delay 1
                wait_for_condition 300 20 {[server_info rdb_bgsave_in_progress -2] == 1 ||
                                           [log_matches "*Background RDB transfer terminated*" -2] > 0}
                r -2 set during-transfer 1
                wait_caught_up -1 -2
                wait_caught_up 0 -2
                assert_equal [expr {$forks + 1}] [server_info total_forks -2]
                assert_equal [expr {$sent + 2}] [log_matches "*sent diskless, with the \$EOF: mark*" -2]
                assert_equal 1 [log_matches "*Starting BGSAVE for SYNC with target: replicas sockets*" -2]
                foreach l {-1 0} {
                    assert_equal [r -2 debug digest] [r $l debug digest]
                    assert_equal 1 [r $l get during-transfer]
                }
            }

            test "repl-diskless-sync-max-replicas: the child starts once that many wait" {
                r -2 config set repl-diskless-sync-delay 60
                r -2 config set repl-diskless-sync-max-replicas 2
                set forks [server_info total_forks -2]
                foreach l {-1 0} {
                    r $l replicaof no one
                    r $l replicaof [srv -2 host] [srv -2 port]
                }
                wait_caught_up -1 -2
                wait_caught_up 0 -2
                assert_equal [expr {$forks + 1}] [server_info total_forks -2]
                r -2 config set repl-diskless-sync-max-replicas 0
                r -2 config set repl-diskless-sync-delay 0
            }

            test "Diskless: the last replica of the transfer dropped ends the child" {
                r -2 config set rdb-key-save-delay 2000
                r -1 replicaof no one
                r replicaof no one
                r replicaof [srv -2 host] [srv -2 port]
                wait_for_condition 200 10 {[server_info rdb_bgsave_in_progress -2] == 1}
                r -2 client kill type replica
                wait_for_condition 200 10 {[log_matches "*last replica dropped, killing fork child*" -2] >= 1}
                r -2 config set rdb-key-save-delay 0
                # It reconnects and syncs with a new child.
                wait_caught_up 0 -2
                assert_equal [r -2 debug digest] [r debug digest]
            }

            test "The master answers commands during a full sync of 1M keys" {
                r -2 config set rdb-key-save-delay 0
                r -2 flushall
                r -2 debug populate 1000000 big
                r -2 config set repl-diskless-sync no
                r replicaof no one
                r replicaof [srv -2 host] [srv -2 port]
                wait_for_condition 200 10 {[server_info rdb_bgsave_in_progress -2] == 1}
                set pings 0
                while {![link_up 0] || [server_info master_sync_in_progress 0]} {
                    assert_equal PONG [r -2 ping]
                    assert_equal OK [r -2 set ping-key $pings]
                    incr pings
                    after 5
                }
                wait_caught_up 0 -2
                assert {$pings > 0}
                # DBSIZE and samples, not DEBUG DIGEST: hashing 1M keys twice can pass the
                # client's 20 s read timeout on a loaded machine.
                assert_equal [r -2 dbsize] [r dbsize]
                assert_equal 1000001 [r dbsize]
                foreach k {big:0 big:123456 big:999999} { assert_equal [r -2 get $k] [r get $k] }
                assert_equal [r -2 get ping-key] [r get ping-key]
                r replicaof no one
                r -2 flushall
            }
        }
    }
}

# A redis-server 7.0 replica of a Keel master with repl-diskless-sync no (the $<length> form
# read from the file); replication-interop.tcl covers the diskless form.
start_server {tags {repl cross-server} overrides {rdb-version 10 repl-diskless-sync no}} {
    start_server {binary /usr/bin/redis-server tags {repl cross-server}} {
        test "redis-server 7.0 replica of a Keel master, disk sync: every key identical" {
            if {![is_keel -1]} { skip_test "needs Keel as the outer server" }
            r -1 debug populate 5000 k
            r -1 rpush list a b c
            r -1 config set rdb-key-save-delay 100
            assert_equal OK [r replicaof [srv -1 host] [srv -1 port]]
            wait_for_condition 200 10 {[server_info rdb_bgsave_in_progress -1] == 1}
            r -1 set during 1
            r -1 config set rdb-key-save-delay 0
            wait_caught_up 0 -1
            assert_equal 1 [log_matches "*sent as a \$<length> bulk*" -1]
            assert_equal [r -1 dbsize] [r dbsize]
            assert_equal 1 [r get during]
            assert_equal {a b c} [r lrange list 0 -1]
            assert_equal [r -1 get k:42] [r get k:42]
            r replicaof no one
        }
    }
}

# repl-backlog-ttl: a master without replicas for that long frees its backlog, takes a new replid
# and clears replid2 (as redis-server 7.0.15: "Replication backlog freed after 1 seconds without
# connected replicas."); a replica never frees its own.
start_server {tags {repl} overrides {repl-backlog-ttl 1 repl-diskless-sync-delay 0}} {
    start_server {tags {repl}} {
        test "repl-backlog-ttl frees a master's backlog without replicas, never a replica's" {
            r replicaof [srv -1 host] [srv -1 port]
            r -1 set k v
            wait_caught_up 0 -1
            r config set repl-backlog-ttl 1
            after 2500
            assert_equal 1 [server_info repl_backlog_active]
            assert_equal 1 [server_info repl_backlog_active -1]
            assert_equal 0 [log_matches "*Replication backlog freed*" -1]
            set old_id [server_info master_replid -1]
            r replicaof no one
            wait_for_condition 200 20 {
                [log_matches "*Replication backlog freed after 1 seconds without connected replicas.*" -1] == 1
            }
            assert_equal 0 [server_info repl_backlog_active -1]
            assert_equal 0 [server_info repl_backlog_histlen -1]
            assert {[server_info master_replid -1] ne $old_id}
            assert_equal 0000000000000000000000000000000000000000 [server_info master_replid2 -1]
            # It follows the master again: a full sync with the new history.
            r replicaof [srv -1 host] [srv -1 port]
            r -1 set k2 v2
            wait_caught_up 0 -1
            assert_equal v2 [r get k2]
            assert_equal 1 [server_info repl_backlog_active -1]
            assert_equal [server_info master_replid -1] [server_info master_replid]
        }
    }
}

# A Keel replica of a redis-server 7.0 master that syncs from disk (the $<length> form), with
# writes made while Redis's BGSAVE runs.
start_server {binary /usr/bin/redis-server tags {repl cross-server} overrides {repl-diskless-sync no}} {
    start_server {tags {repl cross-server}} {
        test "Keel replica of a redis-server 7.0 master, disk sync: every key identical" {
            if {![is_keel]} { skip_test "needs Keel as the inner server" }
            r -1 debug populate 5000 k
            r -1 config set rdb-key-save-delay 100
            r set local-only 1
            assert_equal OK [r replicaof [srv -1 host] [srv -1 port]]
            wait_for_condition 200 10 {[server_info rdb_bgsave_in_progress -1] == 1}
            r -1 set during 1
            r -1 config set rdb-key-save-delay 0
            wait_caught_up 0 -1
            assert_equal 1 [log_matches "*receiving * bytes from master to disk*"]
            assert_equal [r -1 dbsize] [r dbsize]
            assert_equal 1 [r get during]
            assert_equal 0 [r exists local-only]
            assert_equal [r -1 get k:42] [r get k:42]
            r replicaof no one
        }
    }
}
