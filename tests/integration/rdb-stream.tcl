# Streams in RDB files and DUMP payloads: the fixtures' dump-streams.rdb (Redis 6.2 to 7.4 and
# Valkey; contents checked entry by entry in tests/cpp/persistence/rdb_fixtures_test.cc) load at
# start-up; SAVE + restart, DEBUG RELOAD and DUMP / RESTORE keep entries, deletions, IDs and the
# counters; files go both ways with Debian's redis-server 7.0.15 (Keel writes type 19 for
# rdb-version 10, which 7.0 loads).

proc sdump_path {{level 0}} { return [file join [srv $level dir] dump.rdb] }

# What a stream looks like from outside: its entries and the XINFO STREAM counters.
proc stream_state {key {level 0}} {
    set info [r $level xinfo stream $key]
    set out [list [r $level xrange $key - +]]
    foreach f {length last-generated-id max-deleted-entry-id entries-added recorded-first-entry-id groups} {
        lappend out $f [dict get $info $f]
    }
    # Groups, their consumers and pending entries (without the times, which move).
    lappend out [r $level xinfo groups $key]
    foreach g [r $level xinfo groups $key] {
        set name [dict get $g name]
        lappend out [lmap c [r $level xinfo consumers $key $name] {list [dict get $c name] [dict get $c pending]}]
        lappend out [lmap p [r $level xpending $key $name - + 1000] {list [lindex $p 0] [lindex $p 1] [lindex $p 3]}]
    }
    return $out
}

proc fill_streams {{level 0}} {
    r $level config set stream-node-max-entries 7
    for {set i 1} {$i <= 50} {incr i} {
        r $level xadd big $i-$i n $i payload [string repeat p [expr {$i % 13}]]
    }
    r $level xadd big 51-0 other field
    r $level xdel big 3-3 4-4 20-20 51-0
    r $level xadd small 1-1 a 1
    r $level xadd empty 5-0 a 1
    r $level xdel empty 5-0
    r $level xadd trimmed 1-0 a 1
    r $level xadd trimmed 2-0 a 1
    r $level xtrim trimmed maxlen 1
    r $level xsetid trimmed 9-9 entriesadded 40 maxdeletedid 1-0
    r $level xgroup create big g1 0
    r $level xgroup create big g2 $ ENTRIESREAD 30
    r $level xgroup create big g3 10-10
    r $level xreadgroup group g1 c1 count 5 streams big >
    r $level xreadgroup group g1 c2 count 3 streams big >
    r $level xreadgroup group g1 c3 noack count 2 streams big >
    r $level xgroup createconsumer big g1 idle
    r $level xclaim big g1 c3 0 1-1 retrycount 9 justid
    r $level xack big g1 2-2
    r $level xgroup create empty g 0
    r $level config set stream-node-max-entries 100
}

tags {rdb stream} {

test "The fixtures' stream dumps load at start-up" {
    set root [file join $::keel::tests_dir assets rdb]
    foreach server {redis-6.2.9 redis-7.0.15 redis-7.2.6 redis-7.4.1 valkey-8.1-dev} {
        file copy -force [file join $root $server dump-streams.rdb] [sdump_path]
        restart_server
        assert_equal 498 [r xlen stream:big] $server
        assert_equal {1000-0 {n 0 payload {}}} [lindex [r xrange stream:big - + count 1] 0] $server
        assert_equal 1499-1 [dict get [r xinfo stream stream:big] last-generated-id] $server
        assert_equal 2 [dict get [r xinfo stream stream:big] groups] $server
        assert_equal 7 [lindex [r xpending stream:big g1] 0] $server
        assert_equal {1001-1 c1 1} [lreplace [lindex [r xpending stream:big g1 - + 1] 0] 2 2] $server
        assert_equal 1499-1 [dict get [lindex [r xinfo groups stream:big] 1] last-delivered-id] $server
        assert_equal {{1-1 {a 1}}} [r xrange stream:small - +] $server
        assert_equal 0 [r xlen stream:empty] $server
        assert_equal 5-0 [dict get [r xinfo stream stream:empty] last-generated-id] $server
        assert_equal stream [r type stream:empty] $server
    }
    r flushall
}

test "SAVE + restart, DEBUG RELOAD and DUMP / RESTORE keep streams whole" {
    r flushall
    fill_streams
    set want {}
    foreach k {big small empty trimmed} { lappend want [stream_state $k] }
    foreach version {10 11 12} {
        r config set rdb-version $version
        r save
        restart_server
        set got {}
        foreach k {big small empty trimmed} { lappend got [stream_state $k] }
        assert_equal $want $got "rdb-version $version"
    }
    assert_equal OK [r debug reload]
    set got {}
    foreach k {big small empty trimmed} { lappend got [stream_state $k] }
    assert_equal $want $got
    foreach k {big small empty trimmed} {
        set payload [r dump $k]
        r del $k
        assert_equal OK [r restore $k 0 $payload]
        assert_equal [stream_state $k] [lindex $want [lsearch {big small empty trimmed} $k]] $k
    }
    r config set rdb-version 11
    assert_equal OK [r debug keysizes-check]
}

start_server {binary /usr/bin/redis-server tags {cross-server}} {
    test "redis-server 7.0.15 loads Keel's version-10 streams, and Keel loads its" {
        if {![is_keel -1]} { skip_test "needs Keel as the outer server" }
        r -1 flushall
        fill_streams -1
        set want {}
        foreach k {big small empty trimmed} { lappend want [stream_state $k -1] }
        r -1 config set rdb-version 10
        r -1 save
        r -1 config set rdb-version 11
        set out [exec /usr/bin/redis-check-rdb [sdump_path -1]]
        assert_match "*\\\\o/ RDB looks OK! \\\\o/*" $out
        file copy -force [sdump_path -1] [sdump_path]
        restart_server
        set got {}
        foreach k {big small empty trimmed} { lappend got [stream_state $k] }
        assert_equal $want $got
        # And back: what 7.0 writes loads in Keel the same.
        r save
        file copy -force [sdump_path] [sdump_path -1]
        restart_server -1
        set got {}
        foreach k {big small empty trimmed} { lappend got [stream_state $k -1] }
        assert_equal $want $got
        # RESTORE of a 7.0 DUMP payload.
        r -1 restore big2 0 [r dump big]
        assert_equal [stream_state big2 -1] [stream_state big -1]
    }
}

}
