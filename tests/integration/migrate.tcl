# MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw] [AUTH2 user pw] [KEYS ...]:
# replies and errors as Debian's redis-server 7.0.15 gives them (the first block passes against
# it too: tclsh tests/runtest --server /usr/bin/redis-server --single integration/migrate.tcl),
# then what a Keel source propagates, and Keel -> redis-server with the payload at
# rdb-version 10.

start_server {tags {migrate}} {
    start_server {tags {migrate}} {
        set tport [srv 0 port]
        # New connections (MIGRATE's) must authenticate; this client already is.
        r config set requirepass pw

        test "MIGRATE argument errors and NOKEY" {
            r -1 set a 1
            assert_error "ERR syntax error" {r -1 migrate 127.0.0.1 $tport a 0 100 bogus}
            assert_error "ERR syntax error" {r -1 migrate 127.0.0.1 $tport a 0 100 auth}
            assert_error "ERR syntax error" {r -1 migrate 127.0.0.1 $tport a 0 100 auth2 u}
            assert_error "ERR value is not an integer or out of range" {r -1 migrate 127.0.0.1 $tport a 0 abc}
            assert_error "ERR value is not an integer or out of range" {r -1 migrate 127.0.0.1 $tport a x 100}
            assert_error "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string" \
                {r -1 migrate 127.0.0.1 $tport a 0 100 keys a}
            assert_error "*wrong number of arguments for 'migrate' command" {r -1 migrate 127.0.0.1 $tport a 0}
            # The keys are looked at before any connection: none here is +NOKEY, even to a bad port.
            assert_equal NOKEY [r -1 migrate 127.0.0.1 abc missing 0 100]
            assert_equal NOKEY [r -1 migrate 127.0.0.1 $tport "" 0 100 keys missing1 missing2]
            assert_equal {a b} [r -1 command getkeys migrate 127.0.0.1 1 "" 0 10 keys a b]
            assert_equal {a} [r -1 command getkeys migrate 127.0.0.1 1 a 0 10]
        }

        test "MIGRATE errors from the target and from the connection" {
            assert_error "IOERR error or timeout writing to target instance" {r -1 migrate 127.0.0.1 1 a 0 100}
            assert_error "ERR Target instance replied with error: NOAUTH Authentication required." \
                {r -1 migrate 127.0.0.1 $tport a 0 1000}
            assert_error "ERR Target instance replied with error: WRONGPASS invalid username-password pair or user is disabled." \
                {r -1 migrate 127.0.0.1 $tport a 0 1000 auth wrong}
            assert_equal 1 [r -1 exists a]
            r auth pw
            assert_equal 0 [r exists a]
        }

        test "MIGRATE moves a key with its TTL into the target db; COPY keeps it; BUSYKEY; REPLACE" {
            r -1 set a 1
            r -1 pexpire a 100000
            assert_equal OK [r -1 migrate 127.0.0.1 $tport a 3 1000 auth pw copy]
            assert_equal 1 [r -1 exists a]
            r select 3
            assert_equal 1 [r get a]
            assert_morethan [r pttl a] 90000
            assert_error "ERR Target instance replied with error: BUSYKEY Target key name already exists." \
                {r -1 migrate 127.0.0.1 $tport a 3 1000 auth pw}
            assert_equal 1 [r -1 exists a]
            r -1 set a 2
            assert_equal OK [r -1 migrate 127.0.0.1 $tport a 3 1000 auth2 default pw replace]
            assert_equal 0 [r -1 exists a]
            assert_equal 2 [r get a]
            assert_equal -1 [r ttl a]
            r select 0
        }

        test "MIGRATE KEYS: the keys that exist go, one BUSYKEY fails only its own key" {
            r -1 flushall
            r flushall
            r -1 rpush l x y z
            r -1 hset h f v
            r -1 sadd s m
            r set s other
            assert_error "ERR Target instance replied with error: BUSYKEY*" \
                {r -1 migrate 127.0.0.1 $tport "" 0 1000 auth pw keys l missing s h}
            assert_equal {0 0 1} [list [r -1 exists l] [r -1 exists h] [r -1 exists s]]
            assert_equal {x y z} [r lrange l 0 -1]
            assert_equal v [r hget h f]
            assert_equal other [r get s]
            assert_equal OK [r -1 migrate 127.0.0.1 $tport "" 0 1000 auth pw replace keys s]
            assert_equal m [r smembers s]
            assert_equal 0 [r -1 dbsize]
        }

        test "MIGRATE keeps its connection: SELECT only when the db changes, a killed one is replaced" {
            r -1 flushall
            r flushall
            r -1 mset c1 1 c2 2 c3 3
            assert_equal OK [r -1 migrate 127.0.0.1 $tport c1 5 1000 auth pw]
            assert_equal 1 [server_info migrate_cached_sockets -1]
            assert_equal OK [r -1 migrate 127.0.0.1 $tport c2 6 1000 auth pw]
            assert_equal 1 [server_info migrate_cached_sockets -1]
            r select 5
            assert_equal 1 [r get c1]
            r select 6
            assert_equal 2 [r get c2]
            r select 0
            # The target closes the cached connection: the next MIGRATE retries on a new one.
            r client kill type normal skipme yes
            assert_equal OK [r -1 migrate 127.0.0.1 $tport c3 6 1000 auth pw]
            r select 6
            assert_equal 3 [r get c3]
            r select 0
            assert_equal 0 [r -1 dbsize]
            r config set requirepass ""  ;# the harness shuts the server down on a new connection
        }
    }
}

start_server {tags {migrate}} {
    test "RESTORE-ASKING outside a cluster is RESTORE" {
        r set src hello
        set payload [r dump src]
        assert_equal OK [r restore-asking dst 0 $payload]
        assert_equal hello [r get dst]
        assert_error "BUSYKEY Target key name already exists." {r restore-asking dst 0 $payload}
        assert_error "ERR DUMP payload version or checksum are wrong" {r restore-asking other 0 garbage}
        assert_equal OK [r restore-asking dst 0 $payload replace]
        assert_equal {write denyoom asking} [lindex [lindex [r command info restore-asking] 0] 2]
    }
}

start_server {tags {migrate}} {
    start_server {tags {migrate}} {
        set tport [srv 0 port]
        test "MIGRATE propagates a DEL of the keys the target took, nothing for COPY (Keel only)" {
            if {![is_keel -1]} { skip_test "DEBUG PROPAGATED is Keel's" }
            r -1 debug propagated on
            r -1 mset k1 1 k2 2
            r set k2 taken
            r -1 debug propagated
            catch {r -1 migrate 127.0.0.1 $tport "" 0 1000 keys k1 k2} err
            assert_match "*BUSYKEY*" $err
            assert_equal {{DEL k1}} [r -1 debug propagated]
            r -1 set k3 3
            r -1 debug propagated
            assert_equal OK [r -1 migrate 127.0.0.1 $tport k3 0 1000 copy]
            assert_equal {} [r -1 debug propagated]
            r -1 debug propagated off
        }
    }
}

start_server {tags {migrate cross-server} overrides {rdb-version 10}} {
    start_server {binary /usr/bin/redis-server tags {migrate cross-server}} {
        test "MIGRATE from Keel to redis-server 7.0 (rdb-version 10): every type arrives" {
            if {![is_keel -1]} { skip_test "needs Keel as the outer server" }
            r -1 flushall
            r flushall
            r -1 set str hello
            r -1 set int 12345
            r -1 rpush list a b c
            r -1 hset hash f1 v1 f2 v2
            r -1 sadd set 1 2 3
            r -1 sadd sset a b
            r -1 zadd zset 1 a 2 b
            r -1 xadd stream 1-1 f v
            r -1 pfadd hll a b c
            assert_equal OK [r -1 migrate 127.0.0.1 [srv 0 port] "" 0 2000 keys str int list hash set sset zset stream hll]
            assert_equal 0 [r -1 dbsize]
            assert_equal 9 [r dbsize]
            assert_equal hello [r get str]
            assert_equal 12345 [r get int]
            assert_equal {a b c} [r lrange list 0 -1]
            assert_equal {f1 v1 f2 v2} [r hgetall hash]
            assert_equal {1 2 3} [lsort [r smembers set]]
            assert_equal {a b} [lsort [r smembers sset]]
            assert_equal {a 1 b 2} [r zrange zset 0 -1 withscores]
            assert_equal {{1-1 {f v}}} [r xrange stream - +]
            assert_equal 3 [r pfcount hll]
        }
    }
}
