# Replication faults: a master that sends a truncated or corrupt RDB, or a stream that is not
# RESP (tests/helpers/fake_master.py), and a real master killed while the replica syncs. The
# replica logs why, keeps the data it had (repl-diskless-load disabled semantics) and retries.

proc count_lines {file} {
    if {![file exists $file]} { return 0 }
    set f [open $file r]
    set n [llength [split [string trim [read $f]] \n]]
    close $f
    return $n
}

# Runs the fake master in `mode` against the current server; returns {pid countfile}.
proc start_fake_master {mode port} {
    r save
    set rdb [file join [srv dir] fake-src-$mode.rdb]
    file copy -force [file join [srv dir] dump.rdb] $rdb
    set count [file join [srv dir] fake-$mode.count]
    file delete -force $count
    set pid [exec /usr/bin/python3 [file join $::keel::tests_dir helpers fake_master.py] \
                 $port $mode $rdb $count &]
    wait_for_condition 100 20 {![catch {close [socket 127.0.0.1 $port]}]}
    return [list $pid $count]
}

foreach {mode logline} {
    truncated "*I/O error trying to sync with MASTER: connection lost*"
    corrupt "*Failed trying to load the MASTER synchronization DB*the current dataset is kept*"
    badstream "*Protocol error from MASTER*"
} {
    test "Master sends $mode data: the replica logs why, keeps its data and retries" {
        r replicaof no one
        r flushall
        r set keep-me 1
        r rpush keep-list a b c
        set port [::keel::find_free_port]
        lassign [start_fake_master $mode $port] pid count
        after 50
        set conns [count_lines $count]
        set before [log_matches $logline]
        r replicaof 127.0.0.1 $port
        # At least two attempts: it failed, and retried.
        wait_for_condition 300 20 {[count_lines $count] >= $conns + 2 && [log_matches $logline] > $before}
        if {$mode ne "badstream"} {
            # Nothing of the damaged snapshot was applied.
            assert_equal 1 [r get keep-me]
            assert_equal {a b c} [r lrange keep-list 0 -1]
            assert_equal 2 [r dbsize]
        }
        assert_equal down [server_info master_link_status]
        r replicaof no one
        exec kill $pid
    }
}

test "Mid-transfer: the snapshot goes to temp-<unixtime>.<pid>.rdb, INFO master_sync_* fields" {
    r replicaof no one
    r flushall
    r set keep-me 1
    r debug populate 20000 pad 100
    set port [::keel::find_free_port]
    lassign [start_fake_master stall $port] pid count
    set size [file size [file join [srv dir] fake-src-stall.rdb]]
    r replicaof 127.0.0.1 $port
    wait_for_condition 200 20 {[server_info master_sync_read_bytes] == $size / 2}
    assert_equal 1 [server_info master_sync_in_progress]
    assert_equal $size [server_info master_sync_total_bytes]
    assert_equal [expr {$size - $size / 2}] [server_info master_sync_left_bytes]
    assert_match {[0-9]*} [server_info master_sync_last_io_seconds_ago]
    set tmp [glob -nocomplain -directory [srv dir] temp-*.rdb]
    assert_equal 1 [llength $tmp]
    assert_match "temp-*.[srv pid].rdb" [file tail [lindex $tmp 0]]
    assert_equal [expr {$size / 2}] [file size [lindex $tmp 0]]
    # The link given up: the temp file goes, the data stays.
    r replicaof no one
    assert_equal {} [glob -nocomplain -directory [srv dir] temp-*.rdb]
    assert_equal 1 [r get keep-me]
    exec kill $pid
}

start_server {tags {repl}} {
    test "Master killed mid-transfer: the replica keeps its data and reports the link down" {
        r -1 replicaof no one
        r -1 flushall
        r -1 set keep-me 1
        r flushall
        r config set save ""
        # A dataset big enough that the transfer is in progress when the master dies.
        r debug populate 200000 key 100
        r -1 replicaof [srv host] [srv port]
        kill_server 0 -kill
        after 300
        assert_equal 1 [r -1 get keep-me]
        assert_equal down [server_info master_link_status -1]
        r -1 replicaof no one
    }
}

test "\$EOF: snapshot with the stream right behind the mark in the same read: both are applied" {
    r replicaof no one
    r flushall
    r set from-rdb 1
    set port [::keel::find_free_port]
    lassign [start_fake_master eofstream $port] pid count
    r flushall
    r replicaof 127.0.0.1 $port
    wait_for_condition 200 20 {[server_info master_link_status] eq "up" && [r get eof-key] eq "after"} {
        # The fake master holds the runner's output open: it must not outlive a failure.
        exec kill $pid
        fail "link [server_info master_link_status], eof-key '[r get eof-key]'"
    }
    assert_equal 1 [r get from-rdb]
    r replicaof no one
    exec kill $pid
}
