# DEBUG subcommands that tools and test suites use: LOG, DIGEST, DIGEST-VALUE, OBJECT,
# QUICKLIST-PACKED-THRESHOLD, LISTPACK, STRINGMATCH-LEN, REPLYBUFFER, SET-DISABLE-DENY-SCRIPTS,
# CHANGE-REPL-ID, ERROR, JMAP (refused) and HELP. Expected replies and digests were read from
# redis-server 7.0.15; the few Redis 7.2+ differences run on Keel only and say so.

# The integers from..to as a list.
proc numbers {from to} {
    set out {}
    for {set i $from} {$i <= $to} {incr i} { lappend out $i }
    return $out
}

tags {debug} {

test "DEBUG LOG writes the message to the server log" {
    r debug log "hello from debug.tcl"
    wait_for_condition 50 20 {[log_matches {*DEBUG LOG: hello from debug.tcl*}] == 1}
    assert_error {*unknown subcommand or wrong number of arguments for 'log'*} {r debug log}
}

test "DEBUG DIGEST of an empty dataset is 40 zeros" {
    r flushall
    assert_equal [string repeat 0 40] [r debug digest]
    assert_error {*wrong number of arguments for 'digest'*} {r debug digest x}
}

test "DEBUG DIGEST-VALUE matches Redis's digest of each type" {
    r flushall
    r set s hello
    r set dn 42
    r hset dh a 1 b 2 c 3
    r sadd ds x y z 1 2
    r rpush dl 1 two 3
    r zadd dz 1 a 2 b 10 c
    r set dt v ex 100
    # Values read from redis-server 7.0.15 for the same commands.
    assert_equal {36b23a1456b2dce2c3ed252c456761301dba8060} [r debug digest-value s]
    assert_equal {547a004a370bc71c2d611f010c52f2e7b64c77a4} [r debug digest-value dn]
    assert_equal {b60c36e529712296d694f27b5914cbe84950995e} [r debug digest-value dh]
    assert_equal {e0f81c61943b16a653d76e4d2fe631764da8f43f} [r debug digest-value ds]
    assert_equal {23d61e819de31394581dc4c4c2b02c4dedad3c50} [r debug digest-value dl]
    assert_equal {92969833ecf1367bfcd57b4cc3d1861ef8432da7} [r debug digest-value dz]
    assert_equal {311b17018163335616e089f6b951c82c477335ac} [r debug digest-value dt]
    assert_equal [list [r debug digest-value s] [string repeat 0 40]] [r debug digest-value s nokey]
    assert_equal {} [r debug digest-value]
}

test "DEBUG DIGEST of a dataset in two databases matches Redis's" {
    r flushall
    r set s hello
    r rpush l a b
    r select 2
    r sadd x 1
    r select 9
    assert_equal {c4e29ecfe90661c5f3b0d140a770c39936aa6b02} [r debug digest]
}

test "DEBUG DIGEST ignores encodings and insertion order, sees values and TTLs" {
    r flushall
    r sadd a 1 2 3
    r sadd b 3 2 1 x
    r srem b x
    assert_equal [r debug digest-value a] [r debug digest-value b]
    r zadd za 1 m 2 n 3.5 o
    r config set zset-max-listpack-entries 0
    r zadd zb 3.5 o 2 n 1 m
    r config set zset-max-listpack-entries 128
    assert_equal [r debug digest-value za] [r debug digest-value zb]
    r hset ha f1 v1 f2 v2
    r hset hb f2 v2 f1 v1
    assert_equal [r debug digest-value ha] [r debug digest-value hb]
    # Lists keep their order.
    r rpush la 1 2
    r rpush lb 2 1
    assert_not_equal [r debug digest-value la] [r debug digest-value lb]
    set before [r debug digest]
    r expire a 100
    assert_not_equal $before [r debug digest]
    r persist a
    assert_equal $before [r debug digest]
    r sadd a 4
    assert_not_equal $before [r debug digest]
}

test "DEBUG DIGEST survives DEBUG RELOAD" {
    r flushall
    r set s hello
    r hset h a 1
    r zadd z 1.5 m
    r rpush l x y z
    r sadd st a b
    set before [r debug digest]
    r debug reload
    assert_equal $before [r debug digest]
} {external:skip}

test "DEBUG OBJECT fields" {
    r flushall
    r set s hello
    r set n 5
    r set big 123456
    assert_match {Value at:* refcount:1 encoding:embstr serializedlength:6 lru:* lru_seconds_idle:*} [r debug object s]
    # Redis shares the integers 0..9999.
    assert_match {* refcount:2147483647 encoding:int serializedlength:2 *} [r debug object n]
    assert_match {* refcount:1 encoding:int serializedlength:5 *} [r debug object big]
    # A quicklist adds its node figures (the numbers are those of redis-server 7.0.15).
    r rpush biglist {*}[numbers 1 3000]
    assert_match {* encoding:quicklist serializedlength:8894 lru:* lru_seconds_idle:* ql_nodes:2 ql_avg_node:1500.00 ql_listpack_max:-2 ql_compressed:0 ql_uncompressed_size:8887} [r debug object biglist]
    assert_error {ERR no such key} {r debug object nokey}
}

test "DEBUG OBJECT serializedlength follows the RDB encoding" {
    r flushall
    r hset h a 1 b 2
    r sadd st 1 2 3
    r zadd z 1 a 2.5 b 100000000 c 1e18 d -3 e
    # redis-server 7.0.15: 18, 15 (an intset), 49.
    assert_match {* serializedlength:18 *} [r debug object h]
    assert_match {* serializedlength:15 *} [r debug object st]
    assert_match {* serializedlength:49 *} [r debug object z]
    # Long strings are LZF-compressed in RDB files (rdbcompression yes).
    r set long [string repeat a 1000]
    regexp {serializedlength:([0-9]+)} [r debug object long] -> len
    assert_range $len 10 100
}

if {[is_keel]} {
    test "DEBUG OBJECT of a small list: listpack, no ql_ fields (Redis 7.2+)" {
        r rpush smalllist a b c
        assert_match {* encoding:listpack serializedlength:* lru:* lru_seconds_idle:*} [r debug object smalllist]
        assert_no_match {*ql_nodes*} [r debug object smalllist]
    }
}

test "DEBUG QUICKLIST-PACKED-THRESHOLD makes big elements plain nodes" {
    set err {ERR argument must be a memory value bigger than 1 and smaller than 4gb}
    assert_error $err {r debug quicklist-packed-threshold abc}
    assert_error $err {r debug quicklist-packed-threshold 5gb}
    assert_error $err {r debug quicklist-packed-threshold -1}
    r del ql
    r rpush ql {*}[numbers 1 3000]
    assert_match {*ql_nodes:2 *} [r debug object ql]
    # 2000 bytes fit the tail node by the default rules...
    r rpush ql [string repeat a 2000]
    assert_match {*ql_nodes:2 *} [r debug object ql]
    # ...but with a 1 KB threshold they get a node of their own.
    assert_equal OK [r debug quicklist-packed-threshold 1kb]
    r rpush ql [string repeat b 2000]
    assert_match {*ql_nodes:3 *} [r debug object ql]
    assert_equal [string repeat b 2000] [r lindex ql -1]
    assert_equal [string repeat a 2000] [r lindex ql -2]
    assert_equal OK [r debug quicklist-packed-threshold 0]
    r rpush ql [string repeat c 100]
    assert_match {*ql_nodes:4 *} [r debug object ql]
    assert_equal 3003 [r llen ql]
}

test "DEBUG LISTPACK" {
    r flushall
    r hset h a 1
    r set s v
    assert_equal {Listpack structure printed on stdout} [r debug listpack h]
    assert_error {ERR Not a listpack encoded object.} {r debug listpack s}
    assert_error {ERR no such key} {r debug listpack nokey}
}

if {[is_keel]} {
    test "DEBUG STRINGMATCH-LEN (STRINGMATCH-TEST in Redis 7.0)" {
        assert_equal {Apparently Redis did not crash: test passed} [r debug stringmatch-len]
        assert_equal {Apparently Redis did not crash: test passed} [r debug stringmatch-test]
    }
}

test "DEBUG REPLYBUFFER" {
    assert_equal OK [r debug replybuffer peak-reset-time never]
    assert_equal OK [r debug replybuffer peak-reset-time 100]
    assert_equal OK [r debug replybuffer peak-reset-time reset]
    assert_error {ERR value is not an integer or out of range} {r debug replybuffer peak-reset-time abc}
    assert_equal OK [r debug replybuffer resizing 0]
    assert_equal OK [r debug replybuffer resizing 1]
    assert_error {*unknown subcommand or wrong number of arguments for 'replybuffer'*} {r debug replybuffer foo 1}
    assert_error {*unknown subcommand or wrong number of arguments for 'replybuffer'*} {r debug replybuffer resizing}
}

test "DEBUG SET-DISABLE-DENY-SCRIPTS lets scripts run noscript commands" {
    set script {return redis.call('config', 'get', 'maxmemory')}
    assert_error {*This Redis command is not allowed from script*} {r eval $script 0}
    assert_equal OK [r debug set-disable-deny-scripts 1]
    assert_equal {maxmemory 0} [r eval $script 0]
    assert_equal OK [r debug set-disable-deny-scripts 0]
    assert_error {*This Redis command is not allowed from script*} {r eval $script 0}
}

test "DEBUG CHANGE-REPL-ID draws a new master_replid" {
    set before [server_info master_replid]
    assert_match {[0-9a-f]*} $before
    assert_equal 40 [string length $before]
    assert_equal OK [r debug change-repl-id]
    set after [server_info master_replid]
    assert_equal 40 [string length $after]
    assert_not_equal $before $after
    assert_error {*unknown subcommand or wrong number of arguments for 'change-repl-id'*} {r debug change-repl-id x}
}

test "DEBUG ERROR replies with the given error text" {
    assert_error {foo} {r debug error foo}
    assert_error {-WRONGTYPE bar} {r debug error "-WRONGTYPE bar"}
    assert_error {a  b} {r debug error "a\r\nb"}
}

test "DEBUG JMAP is refused like any unknown subcommand" {
    assert_error {ERR unknown subcommand or wrong number of arguments for 'jmap'. Try DEBUG HELP.} {r debug jmap}
}

test "DEBUG SLEEP" {
    set t [clock milliseconds]
    assert_equal OK [r debug sleep 0.1]
    assert_morethan_equal [expr {[clock milliseconds] - $t}] 100
    assert_equal OK [r debug sleep 0]
    assert_equal OK [r debug sleep abc]
}

test "DEBUG HELP lists the subcommands" {
    set help [r debug help]
    assert_equal {DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} [lindex $help 0]
    set names {}
    foreach line $help {
        if {![string match { *} $line]} { lappend names [lindex [split $line] 0] }
    }
    foreach sub {CHANGE-REPL-ID DIGEST DIGEST-VALUE ERROR LOG OBJECT PANIC POPULATE PROTOCOL
                 RELOAD SEGFAULT SET-ACTIVE-EXPIRE QUICKLIST-PACKED-THRESHOLD SLEEP LISTPACK
                 REPLYBUFFER HELP} {
        assert {[lsearch -exact $names $sub] >= 0} "DEBUG HELP lacks $sub"
    }
    if {[is_keel]} {
        foreach sub {STRINGMATCH-LEN SET-DISABLE-DENY-SCRIPTS} {
            assert {[lsearch -exact $names $sub] >= 0} "DEBUG HELP lacks $sub"
        }
    }
}

}
