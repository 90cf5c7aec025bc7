# Replication between Keel and Debian's redis-server 7.0.15, both directions: full sync (Keel at
# rdb-version 10 when it is the master), a write stream of every type, a partial resync after
# the replica drops the link (CLIENT KILL TYPE master), and every key compared after each.

source [file join $::keel::tests_dir helpers rdb_util.tcl]

proc populate_dbs {prefix {level 0}} {
    foreach {db ttl} {0 0 1 5000000 9 0} {
        r $level select $db
        populate_types "$prefix-db$db-ttl$ttl:" $ttl $level
    }
    r $level select 0
}

# Writes of every family through the master at `level` (what the stream must carry).
proc stream_writes {prefix level} {
    populate_dbs $prefix $level
    r $level incr $prefix:counter
    r $level incrbyfloat $prefix:fl 2.25
    r $level setex $prefix:ex 1000 v
    r $level expire $prefix-db0-ttl0:str-raw 5000
    r $level del $prefix-db0-ttl0:list-lp
    r $level lpop $prefix-db0-ttl0:list-ql
    r $level zincrby $prefix-db0-ttl0:zset-sl 10 m5
    r $level hdel $prefix-db0-ttl0:hash-ht field:1
    r $level srem $prefix-db0-ttl0:set-ht m1
    r $level setrange $prefix-db0-ttl0:str-raw 5 abc
    r $level multi
    r $level lpush $prefix:txlist a b c
    r $level sadd $prefix:txset x
    r $level exec
    r $level eval {redis.call('set', KEYS[1], 'lua')} 1 $prefix:luakey
}

proc wait_caught_up {level mlevel} {
    wait_for_condition 250 20 {
        [server_info master_link_status $level] eq "up" &&
        [server_info master_repl_offset $mlevel] == [server_info slave_repl_offset $level]
    }
}

# A digest per key is not comparable across servers (Keel's encodings differ), the values are:
# snapshot_of reads every key of every db as comparable text (tests/helpers/rdb_contents.py).

start_server {tags {repl cross-server} overrides {rdb-version 10 repl-diskless-sync-delay 0}} {
    start_server {binary /usr/bin/redis-server tags {repl cross-server}} {
        test "redis-server 7.0 replica of a Keel master: full sync, every key identical" {
            if {![is_keel -1]} { skip_test "needs Keel as the outer server" }
            r -1 flushall
            populate_dbs full -1
            assert_equal OK [r replicaof [srv -1 host] [srv -1 port]]
            wait_caught_up 0 -1
            assert_equal [snapshot_of -1] [snapshot_of]
            assert_equal 1 [log_matches "*MASTER <-> REPLICA sync: Finished with success*"]
        }

        test "redis-server 7.0 replica of a Keel master: the write stream of every type" {
            if {![is_keel -1]} { skip_test "needs Keel as the outer server" }
            stream_writes s1 -1
            wait_caught_up 0 -1
            assert_equal [snapshot_of -1] [snapshot_of]
        }

        test "redis-server 7.0 replica of a Keel master: partial resync after CLIENT KILL TYPE master" {
            if {![is_keel -1]} { skip_test "needs Keel as the outer server" }
            assert_equal 1 [r client kill type master]
            r -1 set during-gap 1
            wait_caught_up 0 -1
            assert_equal 1 [log_matches "*Successful partial resynchronization with master*"]
            assert_equal 1 [log_matches "*Partial resynchronization request*accepted*" -1]
            stream_writes s2 -1
            wait_caught_up 0 -1
            assert_equal [snapshot_of -1] [snapshot_of]
            assert_equal 1 [r -1 wait 1 5000]
            r replicaof no one
        }
    }
}

# Redis's default diskless sync (the $EOF: form), without its 5 s wait for more replicas.
start_server {binary /usr/bin/redis-server tags {repl cross-server} overrides {repl-diskless-sync-delay 0}} {
    start_server {tags {repl cross-server}} {
        test "Keel replica of a redis-server 7.0 master: full sync, every key identical" {
            if {![is_keel]} { skip_test "needs Keel as the inner server" }
            r -1 flushall
            populate_dbs full -1
            r set local-only 1
            assert_equal OK [r replicaof [srv -1 host] [srv -1 port]]
            wait_caught_up 0 -1
            assert_equal [snapshot_of -1] [snapshot_of]
            assert_equal 0 [r exists local-only]
        }

        test "Keel replica of a redis-server 7.0 master: the write stream of every type" {
            if {![is_keel]} { skip_test "needs Keel as the inner server" }
            stream_writes s1 -1
            wait_caught_up 0 -1
            assert_equal [snapshot_of -1] [snapshot_of]
            assert_error "READONLY*" {r set x 1}
        }

        test "Keel replica of a redis-server 7.0 master: partial resync after CLIENT KILL TYPE master" {
            if {![is_keel]} { skip_test "needs Keel as the inner server" }
            assert_equal 1 [r client kill type master]
            r -1 set during-gap 1
            wait_caught_up 0 -1
            assert_equal 1 [log_matches "*Partial resynchronization request*accepted*" -1]
            assert_equal 1 [log_matches "*Successful partial resynchronization with master*"]
            stream_writes s2 -1
            wait_caught_up 0 -1
            assert_equal [snapshot_of -1] [snapshot_of]
            assert_equal 1 [r -1 wait 1 5000]
            r replicaof no one
        }
    }
}
