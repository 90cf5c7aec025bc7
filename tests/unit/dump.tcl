# DUMP / RESTORE and FUNCTION DUMP / RESTORE: round trips of every type x encoding, each RESTORE
# option and error in Redis's check order, notifications, corrupt payloads (the reply is Redis's
# error, the server stays up and the key is untouched), payloads Debian's redis-server 7.0.15
# produced restored here and Keel's version-10 payloads restored there. Every reply was checked
# by running this file against redis-server 7.0.15 (--server /usr/bin/redis-server); the parts
# about Keel's own encodings, rdb-version and 7.4 behaviour skip themselves there.

source [file join $::keel::tests_dir helpers rdb_util.tcl]

r select 9

test "DUMP of a missing key is nil" {
    r del nokey
    assert_equal {} [r dump nokey]
}

test "DUMP / RESTORE round trip: every type x encoding" {
    r flushdb
    populate_types src:
    foreach {name enc} $::rdb_type_keys {
        if {[is_keel]} { assert_encoding $enc src:$name }
        set p [r dump src:$name]
        assert_equal OK [r restore dst:$name 0 $p]
        assert_equal [key_value src:$name] [key_value dst:$name] $name
        assert_equal -1 [r pttl dst:$name]
        assert_equal [r object encoding src:$name] [r object encoding dst:$name] $name
    }
}

test "RESTORE with a TTL, ABSTTL, REPLACE" {
    r flushdb
    r set k v
    set p [r dump k]
    assert_equal OK [r restore t1 100000 $p]
    assert_range [r pttl t1] 90000 100000
    set at [expr {[clock milliseconds] + 500000}]
    assert_equal OK [r restore t2 $at $p absttl]
    assert_equal $at [r pexpiretime t2]
    r set t3 old
    assert_error {BUSYKEY Target key name already exists.} {r restore t3 0 $p}
    assert_equal old [r get t3]
    assert_equal OK [r restore t3 0 $p replace]
    assert_equal v [r get t3]
    # REPLACE drops the old key's TTL; the restored key has only the given one.
    r pexpire t3 100000
    assert_equal OK [r restore t3 0 $p replace]
    assert_equal -1 [r pttl t3]
    assert_equal OK [r restore t4 0 $p REPLACE ABSTTL]
    assert_equal -1 [r pttl t4]
}

test "RESTORE with a TTL already in the past creates nothing (and deletes a replaced key)" {
    r flushdb
    r set k v
    set p [r dump k]
    assert_equal OK [r restore gone 1 $p absttl]
    assert_equal 0 [r exists gone]
    assert_equal OK [r restore k 1 $p absttl replace]
    assert_equal 0 [r exists k]
}

test "RESTORE IDLETIME sets the idle time; FREQ is accepted" {
    r flushdb
    r set k v
    set p [r dump k]
    assert_equal OK [r restore i1 0 $p idletime 1000]
    assert_range [r object idletime i1] 1000 1002
    assert_equal OK [r restore i2 0 $p freq 100]
    assert_equal v [r get i2]
}

test "RESTORE errors, in Redis's check order" {
    r flushdb
    r set k v
    set p [r dump k]
    assert_error {ERR syntax error} {r restore k 0 $p foo}
    assert_error {ERR syntax error} {r restore n 0 $p idletime 1 freq 1}
    assert_error {ERR syntax error} {r restore n 0 $p freq 1 idletime 1}
    assert_error {ERR syntax error} {r restore n 0 $p idletime}
    assert_error {ERR value is not an integer or out of range} {r restore n 0 $p idletime abc}
    assert_error {ERR value is not an integer or out of range} {r restore n 0 $p freq abc}
    assert_error {ERR Invalid IDLETIME value, must be >= 0} {r restore k 0 $p idletime -1}
    assert_error {ERR Invalid FREQ value, must be >= 0 and <= 255} {r restore k 0 $p freq 256}
    assert_error {ERR Invalid FREQ value, must be >= 0 and <= 255} {r restore k 0 $p freq -1}
    # BUSYKEY comes before the TTL and the payload are looked at.
    assert_error {BUSYKEY Target key name already exists.} {r restore k -5 garbage}
    assert_error {BUSYKEY Target key name already exists.} {r restore k abc garbage}
    assert_error {ERR value is not an integer or out of range} {r restore n abc $p}
    assert_error {ERR Invalid TTL value, must be >= 0} {r restore n -1 $p}
    assert_error {ERR DUMP payload version or checksum are wrong} {r restore n 0 garbage}
    assert_equal 0 [r exists n]
    assert_error {*wrong number of arguments*} {r restore n 0}
}

test "Corrupt payloads: Redis's error, the key untouched, the server up" {
    r flushdb
    r set k original
    r rpush l a b c
    set p [r dump l]
    # A flipped byte anywhere: the checksum catches it.
    for {set i 0} {$i < [string length $p]} {incr i} {
        binary scan [string index $p $i] cu b
        set bad [string replace $p $i $i [binary format c [expr {$b ^ 0x20}]]]
        assert_error {ERR DUMP payload version or checksum are wrong} {r restore k 0 $bad replace}
    }
    assert_error {ERR DUMP payload version or checksum are wrong} {r restore k 0 [string range $p 0 end-1] replace}
    # A correct footer around a broken body: "Bad data format".
    foreach body [list "\x02\x00" "\x08\x00" "" "\xff" "\x00" "\x00\x3fab" \
                      "\x0b\x08\x04\x00\x00\x00\x00\x00\x00\x00" "\x12\x01\x02\x03abc" \
                      "\x10\x0a\x0a\x00\x00\x00\x01\x00\x81\x61\x02\xff"] {
        assert_error {ERR Bad data format} {r restore k 0 [payload_with_footer $body] replace}
    }
    assert_equal original [r get k]
    assert_equal PONG [r ping]
}

test "RESTORE ignores bytes after the value" {
    r del t
    assert_equal OK [r restore t 0 [payload_with_footer "\x00\x01vJUNK"]]
    assert_equal v [r get t]
}

test "RESTORE of a version-12 payload; above Keel's version is refused" {
    if {![is_keel]} { skip_test "Redis 7.0 reads only up to version 10" }
    r del t
    assert_equal OK [r restore t 0 [payload_with_footer "\x00\x01v" 12]]
    assert_error {ERR DUMP payload version or checksum are wrong} {r restore t 0 [payload_with_footer "\x00\x01v" 13] replace}
}

test "RESTORE emits new then restore; a past TTL with REPLACE emits del" {
    r flushdb
    r config set notify-keyspace-events KEAn
    r set k v
    set p [r dump k]
    r del k
    set rd [redis_deferring_client]
    $rd psubscribe *
    $rd read
    r restore k 0 $p
    r restore k 1 $p replace absttl
    r publish marker done
    set got {}
    while 1 {
        set m [$rd read]
        if {[lindex $m 2] eq "marker"} break
        lappend got [lrange $m 2 3]
    }
    $rd close
    r config set notify-keyspace-events ""
    assert_equal [list {__keyspace@9__:k new} {__keyevent@9__:new k} \
                      {__keyspace@9__:k restore} {__keyevent@9__:restore k} \
                      {__keyspace@9__:k del} {__keyevent@9__:del k}] $got
}

test "RESTORE counts in INFO KEYSIZES" {
    if {![is_keel]} { skip_test "KEYSIZES is Redis 8" }
    r flushall
    r select 9
    r rpush l a b c
    set p [r dump l]
    r restore l2 0 $p
    r restore l 0 $p replace
    assert_match "*db9_distrib_lists_items:2=2*" [r info keysizes]
    assert_equal OK [r debug keysizes-check]
}

test "DUMP follows rdb-version: a listpack set is type 20 at 11, type 2 at 10" {
    if {![is_keel]} { skip_test "rdb-version is Keel's" }
    r del s
    r sadd s a b c
    assert_encoding listpack s
    assert_equal 20 [scan [string index [r dump s] 0] %c]
    set p [r dump s]
    assert_equal 11 [scan [string index $p end-9] %c]
    r config set rdb-version 10
    set p10 [r dump s]
    r config set rdb-version 11
    assert_equal 2 [scan [string index $p10 0] %c]
    assert_equal 10 [scan [string index $p10 end-9] %c]
    assert_equal OK [r restore s10 0 $p10]
    assert_equal {a b c} [lsort [r smembers s10]]
    assert_encoding listpack s10
}

test "FUNCTION DUMP / RESTORE with FLUSH, APPEND, REPLACE and their errors" {
    r function flush
    r function load "#!lua name=lib1\nredis.register_function('f1', function() return 1 end)"
    set p [r function dump]
    assert_error {ERR Library lib1 already exists} {r function restore $p}
    assert_error {ERR Library lib1 already exists} {r function restore $p append}
    assert_equal OK [r function restore $p replace]
    assert_equal OK [r function restore $p flush]
    assert_equal 1 [r fcall f1 0]
    r function delete lib1
    assert_equal OK [r function restore $p]
    assert_equal 1 [r fcall f1 0]
    # Another library holding f1: a collision in APPEND and REPLACE.
    r function flush
    r function load "#!lua name=lib2\nredis.register_function('f1', function() return 2 end)"
    assert_error {ERR Function f1 already exists} {r function restore $p}
    assert_error {ERR Function f1 already exists} {r function restore $p replace}
    assert_equal 2 [r fcall f1 0]
    assert_equal OK [r function restore $p flush]
    assert_equal 1 [r fcall f1 0]
    assert_error {ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.} {r function restore $p bad}
    assert_error {ERR DUMP payload version or checksum are wrong} {r function restore x}
    r set k v
    assert_error {ERR given type is not a function} {r function restore [r dump k]}
    assert_error {ERR unknown subcommand or wrong number of arguments for 'restore'. Try FUNCTION HELP.} {r function restore $p x y}
    assert_error {ERR wrong number of arguments for 'function|restore' command} {r function restore}
    # An empty FUNCTION DUMP restores to nothing.
    r function flush
    set empty [r function dump]
    assert_equal 10 [string length $empty]
    assert_equal OK [r function restore $empty]
    assert_equal {} [r function list]
}

start_server {binary /usr/bin/redis-server tags {cross-server}} {
    test "Payloads from Debian's redis-server 7.0.15 restore in Keel" {
        if {![is_keel -1]} { skip_test "needs Keel as the outer server" }
        r select 9
        r flushdb
        populate_types r7:
        foreach {name enc} $::rdb_type_keys {
            set p [r dump r7:$name]
            assert_equal 10 [scan [string index $p end-9] %c]
            r -1 select 9
            r -1 del got:$name
            assert_equal OK [r -1 restore got:$name 0 $p]
            assert_equal [key_value r7:$name] [key_value got:$name -1] $name
            # Keel's encoding, by its own thresholds.
            assert_equal $enc [r -1 object encoding got:$name] $name
        }
        r flushdb
    }

    test "Keel's version-10 payloads restore in redis-server 7.0.15" {
        if {![is_keel -1]} { skip_test "needs Keel as the outer server" }
        r -1 select 9
        r -1 flushdb
        # Compressed quicklist nodes go out as they are stored (LZF strings).
        r -1 config set list-compress-depth 1
        populate_types k: 0 -1
        r -1 config set list-compress-depth 0
        r -1 config set rdb-version 10
        r select 9
        foreach {name enc} $::rdb_type_keys {
            set p [r -1 dump k:$name]
            r del got:$name
            assert_equal OK [r restore got:$name 0 $p]
            assert_equal [key_value k:$name -1] [key_value got:$name] $name
        }
        # At version 11, Redis 7.0 refuses them.
        r -1 config set rdb-version 11
        assert_error {ERR DUMP payload version or checksum are wrong} {r restore other 0 [r -1 dump k:str-embstr]}
        r flushdb
    }
}
