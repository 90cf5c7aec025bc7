# Replication Keel -> Keel: REPLICAOF, full sync of every type x encoding x TTL x db, the write
# stream, -READONLY, ROLE and INFO replication on both sides, WAIT, partial resync after the
# link drops (from either side), full sync when the backlog no longer covers the gap,
# REPLICAOF NO ONE (replid2 / second_repl_offset, PSYNC2 continuation by a sibling).

source [file join $::keel::tests_dir helpers rdb_util.tcl]

proc populate_dbs {prefix {level 0}} {
    foreach {db ttl} {0 0 1 5000000 15 0} {
        r $level select $db
        populate_types "$prefix-db$db-ttl$ttl:" $ttl $level
    }
    r $level select 0
}

proc link_up {{level 0}} { expr {[server_info master_link_status $level] eq "up"} }

# The replica (level) has applied everything the master (mlevel) wrote.
proc wait_caught_up {level mlevel} {
    wait_for_condition 200 20 {
        [link_up $level] &&
        [server_info master_repl_offset $mlevel] == [server_info slave_repl_offset $level]
    }
}

# The master forks for a diskless sync at once rather than after the default 5 s wait.
start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {tags {repl}} {
        test "REPLICAOF: full sync brings every type x encoding x TTL x db" {
            r -1 flushall
            populate_dbs full -1
            r -1 function load "#!lua name=repllib\nredis.register_function{function_name='replfn', callback=function() return 'r' end, flags={'no-writes'}}"
            r set stale-local-key 1
            assert_equal OK [r replicaof [srv -1 host] [srv -1 port]]
            wait_caught_up 0 -1
            assert_equal [snapshot_of -1] [snapshot_of]
            assert_equal 0 [r exists stale-local-key]
            assert_equal r [r fcall_ro replfn 0]
            assert_equal [r -1 debug digest] [r debug digest]
            assert_equal 1 [log_matches "*Full resync from master*"]
        }

        test "Full sync in both forms: repl-diskless-sync yes (\$EOF: mark) and no (\$<length>)" {
            foreach {diskless line} {no "*sent as a \$<length> bulk*" yes "*sent diskless, with the \$EOF: mark*"} {
                r -1 config set repl-diskless-sync $diskless
                set before [log_matches $line -1]
                # A replica that left has a history of its own: the next sync is a full one.
                r replicaof no one
                r replicaof [srv -1 host] [srv -1 port]
                wait_caught_up 0 -1
                assert_equal [expr {$before + 1}] [log_matches $line -1]
                assert_equal [snapshot_of -1] [snapshot_of]
            }
        }

        test "REPLICAOF the same master again: +OK Already connected" {
            assert_equal "OK Already connected to specified master" [r replicaof [srv -1 host] [srv -1 port]]
        }

        test "The write stream of every type reaches the replica, byte for byte the same dataset" {
            populate_dbs stream -1
            r -1 incr counter
            r -1 incrbyfloat fl 1.5
            r -1 expire stream-db0-ttl0:str-int 1000
            r -1 del stream-db0-ttl0:list-lp
            r -1 multi
            r -1 lpush txlist a b c
            r -1 sadd txset x
            r -1 exec
            r -1 eval {redis.call('set', KEYS[1], 'lua'); redis.call('hset', KEYS[2], 'f', 'v')} 2 luakey luahash
            r -1 select 15
            r -1 spop stream-db15-ttl0:set-ht
            r -1 select 0
            r -1 publish chan msg
            wait_caught_up 0 -1
            assert_equal [snapshot_of -1] [snapshot_of]
            assert_equal [r -1 debug digest] [r debug digest]
        }

        test "One pipelined batch of writes mixed with what reads the stream: every byte reaches the replica once, in order" {
            # The master copies the bytes of consecutive commands of one batch into the backlog
            # and the replicas as one range; whatever reads the stream in the middle of the
            # batch (INFO, ROLE, CLIENT LIST, CONFIG SET, a served blocked client, EXEC, a
            # script, SELECT, WAIT) must see it complete.
            set bl [redis_deferring_client -1]
            $bl blpop pipelist 0
            wait_for_blocked_clients 1 -1
            set rd [redis_deferring_client -1]
            set cmds {
                {set p:a 1} {incr p:c} {incr p:c} {info replication} {incr p:c} {role} {select 3}
                {set p:b x} {incr p:c} {select 0} {append p:a 2} {lpush pipelist v1 v2} {rpush p:l a}
                {multi} {incr p:c} {set p:m y} {exec} {config set repl-backlog-size 2mb} {incr p:c}
                {client list type replica} {info replication} {incr p:c}
                {eval "redis.call('incr', KEYS[1])" 1 p:c} {incr p:c} {spop p:none} {sadd p:s m}
                {wait 1 5000} {incr p:c} {set p:last z}
            }
            set bytes ""
            foreach c $cmds { append bytes [::keel::client::encode_command $c] }
            $rd write $bytes
            set replies {}
            foreach c $cmds { lappend replies [$rd read] }
            assert_equal {v2} [lindex [$bl read] 1]
            # Both INFOs read inside the batch: the backlog holds everything up to the offset.
            foreach i {3 20} {
                set info [info_dict [lindex $replies $i]]
                assert_equal [dict get $info master_repl_offset] \
                    [expr {[dict get $info repl_backlog_first_byte_offset] + [dict get $info repl_backlog_histlen] - 1}]
            }
            assert_equal 1 [lindex $replies 26]
            assert_equal 9 [r -1 get p:c]
            wait_caught_up 0 -1
            assert_equal [r -1 debug digest] [r debug digest]
            assert_equal {v1} [r lrange pipelist 0 -1]
            r select 3
            assert_equal x [r get p:b]
            r select 0
            # The backlog's bytes are the stream: a partial resync from it gives the same data.
            set partial [log_matches "*Partial resynchronization request*accepted*" -1]
            r client kill type master
            wait_for_condition 200 20 {[log_matches "*Partial resynchronization request*accepted*" -1] > $partial}
            r -1 incr p:c
            wait_caught_up 0 -1
            assert_equal [r -1 debug digest] [r debug digest]
            $bl close
            $rd close
        }

        test "What piles up while the replica is busy is applied in batches: SELECT, MULTI and scripts inside them" {
            # The replica parses what arrived from its master as one batch (up to 64 commands),
            # prefetches the keys, then runs them one by one (apply_stream): a SELECT or an EXEC
            # in the middle of a batch must still apply to the right db. DEBUG SLEEP keeps the
            # replica from reading while the master writes, so the stream arrives in large reads.
            set sleeper [redis_deferring_client]
            $sleeper debug sleep 0.5
            after 100
            set rd [redis_deferring_client -1]
            set bytes ""
            set n 0
            for {set i 0} {$i < 600} {incr i} {
                set db [expr {$i % 3}]
                foreach c [list [list select $db] [list set b:$i v$i] [list hset b:h:$db f$i $i] {incr b:c}] {
                    append bytes [::keel::client::encode_command $c]
                    incr n
                }
                if {$i % 50 == 0} {
                    foreach c [list multi [list sadd b:s $i] [list lpush b:l $i] {select 1} {incr b:c} exec \
                                   [list eval {redis.call('rpush', KEYS[1], ARGV[1])} 1 b:e $i]] {
                        append bytes [::keel::client::encode_command $c]
                        incr n
                    }
                }
            }
            append bytes [::keel::client::encode_command {select 0}]
            incr n
            $rd write $bytes
            for {set i 0} {$i < $n} {incr i} { $rd read }
            assert_equal OK [$sleeper read]
            wait_caught_up 0 -1
            foreach db {0 1 2} {
                r select $db
                r -1 select $db
                assert_equal [r -1 dbsize] [r dbsize]
                assert_equal [r -1 hlen b:h:$db] [r hlen b:h:$db]
                assert_equal [r -1 get b:c] [r get b:c]
                assert_equal [r -1 lrange b:e 0 -1] [r lrange b:e 0 -1]
            }
            r select 0
            r -1 select 0
            assert_equal 200 [r hlen b:h:0]
            assert_equal [r -1 debug digest] [r debug digest]
            $sleeper close
            $rd close
        }

        test "A write to the replica gets -READONLY, never a silent drop" {
            assert_error "READONLY You can't write against a read only replica." {r set x 1}
            r multi
            catch {r set x 1} e
            assert_match "READONLY*" $e
            catch {r exec} e
            assert_match "EXECABORT*" $e
            assert_equal 0 [r exists x]
            # Reads are fine.
            assert_equal 1 [r -1 get counter]
            assert_equal 1 [r get counter]
        }

        test "The replica does not expire keys: they read as missing until the master's DEL" {
            r -1 debug set-active-expire 0
            set n [r dbsize]
            r -1 set shortlived v px 100
            wait_for_condition 100 10 {[r exists shortlived] == 1}
            after 150
            # Past its time: missing for the replica's clients, but still there (not deleted).
            assert_equal {} [r get shortlived]
            assert_equal 0 [r exists shortlived]
            assert_equal [expr {$n + 1}] [r dbsize]
            # The master deletes it when it finds it expired, and streams the DEL.
            assert_equal {} [r -1 get shortlived]
            wait_caught_up 0 -1
            assert_equal $n [r dbsize]
            r -1 debug set-active-expire 1
        }

        test "ROLE and INFO replication on the master and the replica" {
            set role [r -1 role]
            assert_equal master [lindex $role 0]
            assert_equal [srv 0 port] [lindex [lindex $role 2] 0 1]
            set role [r role]
            assert_equal {slave} [lindex $role 0]
            assert_equal [list [srv -1 host] [srv -1 port] connected] [lrange $role 1 3]
            set m [info_dict [r -1 info replication]]
            foreach f {role connected_slaves slave0 master_failover_state master_replid master_replid2
                       master_repl_offset second_repl_offset repl_backlog_active repl_backlog_size
                       repl_backlog_first_byte_offset repl_backlog_histlen} {
                assert {[dict exists $m $f]} "master lacks $f"
            }
            assert_equal 1 [dict get $m connected_slaves]
            assert_match "ip=127.0.0.1,port=[srv 0 port],state=online,offset=*,lag=*" [dict get $m slave0]
            set s [info_dict [r info replication]]
            foreach f {master_host master_port master_link_status master_last_io_seconds_ago
                       master_sync_in_progress slave_read_repl_offset slave_repl_offset slave_priority
                       slave_read_only replica_announced connected_slaves master_replid} {
                assert {[dict exists $s $f]} "replica lacks $f"
            }
            assert_equal slave [dict get $s role]
            assert_equal [dict get $m master_replid] [dict get $s master_replid]
            assert_match "*flags=S*" [r -1 client list type replica]
        }

        test "WAIT counts the replicas that acknowledged the writes" {
            r -1 set w 1
            assert_equal 1 [r -1 wait 1 5000]
            assert_equal 1 [r -1 wait 0 0]
            assert_error "ERR WAIT cannot be used with replica instances*" {r wait 1 10}
            assert_error "ERR timeout is negative" {r -1 wait 1 -1}
        }

        test "WAIT waits for the client's own last write, not for other clients' later ones" {
            set a [redis_client -1]
            $a set own-write 1
            assert_equal 1 [$a wait 1 5000]
            # The replica stalls; another client writes meanwhile.
            set rd [redis_deferring_client 0]
            $rd debug sleep 1.5
            after 100
            r -1 set other-write 1
            # Everything a wrote is acknowledged already: 1 at once (Redis's c->woff), where
            # counting up to the latest write would time out with 0.
            assert_equal 1 [$a wait 1 1000]
            $rd read
            $rd close
            $a close
            wait_caught_up 0 -1
        }

        test "min-replicas-to-write: -NOREPLICAS when fewer good replicas are attached" {
            r -1 config set min-replicas-to-write 1
            after 250
            assert_equal OK [r -1 set mr 1]
            r -1 config set min-replicas-to-write 2
            after 250
            # Text as redis-server 7.0.15 answers.
            assert_error "NOREPLICAS Not enough good replicas to write." {r -1 set mr 2}
            assert_equal 1 [r -1 get mr]
            r -1 config set min-replicas-to-write 0
            after 250
            assert_equal OK [r -1 set mr 3]
        }

        test "Link dropped by the replica (CLIENT KILL TYPE master): partial resync, then the stream goes on" {
            set before [log_matches "*Partial resynchronization request*accepted*" -1]
            assert_equal 1 [r client kill type master]
            r -1 set after-kill-1 v
            wait_caught_up 0 -1
            assert_equal [expr {$before + 1}] [log_matches "*Partial resynchronization request*accepted*" -1]
            r -1 rpush after-kill-2 a b
            wait_caught_up 0 -1
            assert_equal [snapshot_of -1] [snapshot_of]
        }

        test "Link dropped by the master (CLIENT KILL TYPE replica): partial resync within the backlog" {
            set before [log_matches "*Partial resynchronization request*accepted*" -1]
            set full [log_matches "*Full resync from master*"]
            assert_equal 1 [r -1 client kill type replica]
            r -1 set after-kill-3 v
            wait_caught_up 0 -1
            assert_equal [expr {$before + 1}] [log_matches "*Partial resynchronization request*accepted*" -1]
            assert_equal $full [log_matches "*Full resync from master*"]
            assert_equal [snapshot_of -1] [snapshot_of]
        }

        test "A gap larger than the backlog: full sync" {
            r -1 config set repl-backlog-size 16384
            set full [log_matches "*Full resync from master*"]
            # One batch: the kill and 64 KB of writes run before the replica can reconnect.
            set rd [redis_deferring_client -1]
            set cmds "*4\r\n\$6\r\nCLIENT\r\n\$4\r\nKILL\r\n\$4\r\nTYPE\r\n\$7\r\nreplica\r\n"
            set val [string repeat v 4000]
            for {set i 0} {$i < 16} {incr i} {
                append cmds "*3\r\n\$3\r\nSET\r\n\$4\r\nbig[format %x $i]\r\n\$4000\r\n$val\r\n"
            }
            $rd write $cmds
            for {set i 0} {$i < 17} {incr i} { $rd read }
            $rd close
            wait_caught_up 0 -1
            assert_equal [expr {$full + 1}] [log_matches "*Full resync from master*"]
            assert_equal [snapshot_of -1] [snapshot_of]
            r -1 config set repl-backlog-size 1mb
        }

        start_server {tags {repl}} {
            test "A second replica; REPLICAOF NO ONE promotes one, the sibling continues with PSYNC2" {
                # No master PING may move the replica's offset between reading it and the
                # promotion (seen once under ASan: second_repl_offset 14 bytes, one PING, ahead).
                r -2 config set repl-ping-replica-period 3600
                assert_equal OK [r replicaof [srv -2 host] [srv -2 port]]
                wait_caught_up 0 -2
                r -2 set before-promotion 1
                wait_caught_up 0 -2
                wait_caught_up -1 -2
                set old_id [server_info master_replid -1]
                set off [server_info master_repl_offset -1]
                # Promote level -1; level -2 (the old master) is left alone; level 0 follows -1.
                assert_equal OK [r -1 replicaof no one]
                assert_equal master [lindex [r -1 role] 0]
                assert_equal $old_id [server_info master_replid2 -1]
                assert_equal [expr {$off + 1}] [server_info second_repl_offset -1]
                assert_equal OK [r -1 set promoted yes]
                set before [log_matches "*Partial resynchronization request*accepted*" -1]
                assert_equal OK [r replicaof [srv -1 host] [srv -1 port]]
                wait_caught_up 0 -1
                assert_equal [expr {$before + 1}] [log_matches "*Partial resynchronization request*accepted*" -1]
                assert_equal yes [r get promoted]
                assert_equal [snapshot_of -1] [snapshot_of]
                assert_equal [server_info master_replid -1] [server_info master_replid]
                r replicaof no one
            }
        }
    }
}

start_server {tags {repl} overrides {replica-serve-stale-data no}} {
    test "replica-serve-stale-data no: -MASTERDOWN while the link is down; INFO still answers" {
        set port [::keel::find_free_port]
        assert_equal OK [r replicaof 127.0.0.1 $port]
        after 250
        # Text as redis-server 7.0.15 answers.
        assert_error "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'." {r get a}
        assert_equal down [server_info master_link_status]
        assert_equal OK [r replicaof no one]
        assert_equal {} [r get a]
        assert_equal {} [server_info master_link_status]
    }
}

# The memory ceiling on both sides: a replica with replica-ignore-maxmemory yes (the default)
# never evicts (the master's DELs keep it in step), with no it does; a master leaves its
# replicas' output buffers out of used memory (INFO mem_not_counted_for_evict). Checked against
# redis-server 7.0.15 (the same scenario with its replica).
start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {tags {repl}} {
        test "replica-ignore-maxmemory: a replica over its ceiling keeps every key unless set to no" {
            assert_equal {replica-ignore-maxmemory yes} [r config get replica-ignore-maxmemory]
            assert_equal {slave-ignore-maxmemory yes} [r config get slave-ignore-maxmemory]
            r -1 flushall
            assert_equal OK [r replicaof [srv -1 host] [srv -1 port]]
            wait_caught_up 0 -1
            r config set maxmemory-policy allkeys-random
            r config set maxmemory [expr {[server_info used_memory] + 200000}]
            for {set i 0} {$i < 2000} {incr i} { r -1 set key:$i [string repeat x 200] }
            wait_caught_up 0 -1
            assert_equal 2000 [r dbsize]
            assert_equal 0 [server_info evicted_keys]
            r config set replica-ignore-maxmemory no
            r -1 set one-more x
            wait_caught_up 0 -1
            wait_for_condition 100 20 {[server_info evicted_keys] > 0}
            assert {[r dbsize] < 2000}
            r config set maxmemory 0
            r config set replica-ignore-maxmemory yes
            r replicaof no one
        }

        test "replica-lazy-flush: the replica's old keys are freed on the lazyfree thread" {
            # 7.0.15 in the same setup: lazyfreed_objects grows by the replica's key count with
            # yes (every key of the flushed dataset, small or not), stays with no.
            assert_equal {replica-lazy-flush no} [r config get replica-lazy-flush]
            assert_equal {slave-lazy-flush no} [r config get slave-lazy-flush]
            r -1 flushall
            r -1 set from-master 1
            foreach {flag grows} {no 0 yes 1} {
                r replicaof no one
                r flushall
                r config set replica-lazy-flush $flag
                r debug populate 100 local
                r sadd local:set 1 2 3
                set before [server_info lazyfreed_objects]
                assert_equal OK [r replicaof [srv -1 host] [srv -1 port]]
                wait_caught_up 0 -1
                assert_equal 1 [r dbsize]
                wait_for_condition 100 20 {[server_info lazyfree_pending_objects] == 0}
                assert_equal [expr {$grows ? 101 : 0}] [expr {[server_info lazyfreed_objects] - $before}]
            }
            r config set replica-lazy-flush no
            r replicaof no one
        }

        test "rdb-del-sync-files: a replica without persistence removes the snapshot it loaded" {
            # The test servers run with save "" and appendonly no. 7.0.15 logs the same line.
            set dump [file join [srv dir] dump.rdb]
            r -1 flushall
            r -1 set synced v
            foreach {flag kept} {no 1 yes 0} {
                r replicaof no one
                file delete $dump
                r config set rdb-del-sync-files $flag
                r -1 debug change-repl-id  ;# a full sync, not a PSYNC2 continuation
                assert_equal OK [r replicaof [srv -1 host] [srv -1 port]]
                wait_caught_up 0 -1
                assert_equal v [r get synced]
                assert_equal $kept [file exists $dump]
            }
            assert_equal 1 [log_matches "*Removing the RDB file obtained from the master. This replica has persistence disabled*"]
            # With a save point the file stays.
            r replicaof no one
            r config set save "3600 1"
            r -1 debug change-repl-id
            assert_equal OK [r replicaof [srv -1 host] [srv -1 port]]
            wait_caught_up 0 -1
            assert_equal 1 [file exists $dump]
            r config set save ""
            r config set rdb-del-sync-files no
            r replicaof no one
        }

        test "mem_not_counted_for_evict counts a stalled replica's output buffer" {
            r -1 flushall
            assert_equal OK [r replicaof [srv -1 host] [srv -1 port]]
            wait_caught_up 0 -1
            assert_equal 0 [server_info mem_not_counted_for_evict -1]
            exec kill -STOP [srv pid]
            set value [string repeat v 10000]
            for {set i 0} {$i < 2000} {incr i} { r -1 set big:$i $value }
            set held [server_info mem_not_counted_for_evict -1]
            exec kill -CONT [srv pid]
            assert {$held > 5000000}
            wait_caught_up 0 -1
            # Keel: back to 0 once drained (Redis 7.0's shared replication buffer keeps the part
            # over repl-backlog-size until it trims it, so this line is Keel's own).
            wait_for_condition 100 20 {[server_info mem_not_counted_for_evict -1] == 0}
            r replicaof no one
        }
    }
}

# Promotion after the master dies: every write that WAIT reported as acknowledged by the replica
# is on it once it is promoted (a partition at the worst moment loses only unacknowledged ones).
start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {tags {repl}} {
        test "Writes acknowledged by WAIT survive the master's SIGKILL and the replica's promotion" {
            assert_equal OK [r replicaof [srv -1 host] [srv -1 port]]
            wait_caught_up 0 -1
            set acked 0
            for {set i 0} {$i < 300} {incr i} {
                r -1 set ack:$i $i
                r -1 rpush acklist $i
                r -1 hset ackhash f$i $i
                if {[r -1 wait 1 2000] == 1} { incr acked }
            }
            assert_equal 300 $acked
            # Unacknowledged writes may follow; the promoted replica need not have them.
            r -1 set late 1
            kill_server -1 -kill
            assert_equal OK [r replicaof no one]
            assert_equal master [lindex [r role] 0]
            for {set i 0} {$i < 300} {incr i} { assert_equal $i [r get ack:$i] }
            assert_equal 300 [r llen acklist]
            assert_equal 300 [r hlen ackhash]
            assert_equal OK [r set after-promotion 1]
        }
    }
}
