# The master's replication backlog (a ring of repl-backlog-size bytes) and its replicas' output
# buffers: the ring wraps and a partial resync from its oldest offset gets exactly the stream's
# bytes; CONFIG SET repl-backlog-size trims it at once; a replica that stops reading is dropped
# at its client-output-buffer-limit (checked once per event-loop iteration) and resyncs.

source [file join $::keel::tests_dir helpers rdb_util.tcl]

proc link_up {{level 0}} { expr {[server_info master_link_status $level] eq "up"} }

proc wait_caught_up {level mlevel} {
    wait_for_condition 200 20 {
        [link_up $level] &&
        [server_info master_repl_offset $mlevel] == [server_info slave_repl_offset $level]
    }
}

# A raw connection that asks for PSYNC <replid> <offset> and returns {socket first-line}. It
# says it understands PSYNC2 first (REPLCONF capa psync2), as replicas do, unless `capa` is 0.
proc raw_psync {level replid offset {capa 1}} {
    set s [socket [srv $level host] [srv $level port]]
    fconfigure $s -translation binary -buffering none -blocking 1
    if {$capa} {
        puts -nonewline $s "*3\r\n\$8\r\nREPLCONF\r\n\$4\r\ncapa\r\n\$6\r\npsync2\r\n"
        assert_equal "+OK" [string trimright [gets $s] "\r"]
    }
    set off [string length $offset]
    puts -nonewline $s "*3\r\n\$5\r\nPSYNC\r\n\$[string length $replid]\r\n$replid\r\n\$$off\r\n$offset\r\n"
    set line [string trimright [gets $s] "\r"]
    return [list $s $line]
}

# Exactly n bytes from the socket (fails after 10 s).
proc raw_read {s n} {
    fconfigure $s -blocking 0
    set buf ""
    set deadline [expr {[clock milliseconds] + 10000}]
    while {[string length $buf] < $n} {
        append buf [read $s [expr {$n - [string length $buf]}]]
        if {[string length $buf] < $n} {
            if {[clock milliseconds] > $deadline} { error "read [string length $buf] of $n bytes" }
            after 5
        }
    }
    fconfigure $s -blocking 1
    return $buf
}

start_server {tags {repl} overrides {repl-diskless-sync-delay 0}} {
    start_server {tags {repl}} {
        assert_equal OK [r replicaof [srv -1 host] [srv -1 port]]
        wait_caught_up 0 -1

        test "Backlog: CONFIG SET repl-backlog-size trims it at once; it wraps; PSYNC from its oldest offset" {
            # No master PING may move the oldest offset between reading it and asking for it
            # (seen once under ASan: +FULLRESYNC instead of +CONTINUE).
            r -1 config set repl-ping-replica-period 3600
            set replid [server_info master_replid -1]
            # A raw replica that records the stream from here on.
            set start [expr {[server_info master_repl_offset -1] + 1}]
            lassign [raw_psync -1 $replid $start] rec line
            assert_equal "+CONTINUE $replid" $line
            set value [string repeat x 1000]
            for {set i 0} {$i < 40} {incr i} { r -1 set k$i $value }
            assert_morethan [server_info repl_backlog_histlen -1] 40000
            # Keel's own: the backlog is trimmed to the new size when it is set (Redis 7.0 trims
            # its shared buffer incrementally).
            r -1 config set repl-backlog-size 16384
            assert_equal 16384 [server_info repl_backlog_histlen -1]
            for {set i 0} {$i < 40} {incr i} { r -1 set j$i "$value$i" }
            wait_caught_up 0 -1
            set end [server_info master_repl_offset -1]
            assert_equal 16384 [server_info repl_backlog_histlen -1]
            set first [server_info repl_backlog_first_byte_offset -1]
            assert_equal [expr {$end - 16384 + 1}] $first
            set stream [raw_read $rec [expr {$end - $start + 1}]]
            close $rec
            # The oldest offset held: +CONTINUE and exactly the newest 16384 bytes of the stream.
            lassign [raw_psync -1 $replid $first] s line
            assert_equal "+CONTINUE $replid" $line
            set tail [raw_read $s 16384]
            close $s
            assert_equal [string range $stream end-16383 end] $tail
            # One byte further back is no longer held: a full sync.
            lassign [raw_psync -1 $replid [expr {$first - 1}]] s line
            close $s
            assert_match "+FULLRESYNC *" $line
            assert_equal [snapshot_of -1] [snapshot_of]
            r -1 config set repl-backlog-size 1mb
            r -1 config set repl-ping-replica-period 10
        }

        # Keel streams a command's own bytes when they are its canonical encoding
        # (commands/propagate.cc): the stream must read as if every command were encoded again,
        # as redis-server 7.0.15 does (the same expectations pass against it).
        test "The stream holds each command in its canonical form, whatever framing the client used" {
            # No PING of the master's into the bytes compared below.
            set period [lindex [r -1 config get repl-ping-replica-period] 1]
            r -1 config set repl-ping-replica-period 3600
            r -1 set warm 1
            wait_caught_up 0 -1
            set replid [server_info master_replid -1]
            set start [expr {[server_info master_repl_offset -1] + 1}]
            # Without capa psync2 the answer does not name the ID (as redis-server 7.0.15).
            lassign [raw_psync -1 $replid $start 0] rec line
            assert_equal "+CONTINUE" $line
            close $rec
            lassign [raw_psync -1 $replid $start] rec line
            assert_equal "+CONTINUE $replid" $line
            set c [socket [srv -1 host] [srv -1 port]]
            fconfigure $c -translation binary -buffering none
            # Canonical (lowercase kept), inline, and two framings the parser accepts (it skips
            # the byte after a '\r' unread, as Redis's does) that are not the canonical form.
            puts -nonewline $c "*3\r\n\$3\r\nset\r\n\$1\r\na\r\n\$1\r\n1\r\n"
            puts -nonewline $c "set b 2\r\n"
            puts -nonewline $c "*3\r\n\$3\r\nSET\r\n\$1\r\nc\r\n\$1\r\n3\rZ"
            puts -nonewline $c "*3\rZ\$3\r\nSET\r\n\$1\r\nd\r\n\$1\r\n4\r\n"
            for {set i 0} {$i < 4} {incr i} { assert_equal "+OK" [string trimright [gets $c] "\r"] }
            close $c
            set want "*3\r\n\$3\r\nset\r\n\$1\r\na\r\n\$1\r\n1\r\n"
            append want "*3\r\n\$3\r\nset\r\n\$1\r\nb\r\n\$1\r\n2\r\n"
            append want "*3\r\n\$3\r\nSET\r\n\$1\r\nc\r\n\$1\r\n3\r\n"
            append want "*3\r\n\$3\r\nSET\r\n\$1\r\nd\r\n\$1\r\n4\r\n"
            assert_equal $want [raw_read $rec [string length $want]]
            close $rec
            wait_caught_up 0 -1
            assert_equal {1 2 3 4} [r mget a b c d]
            r -1 config set repl-ping-replica-period $period
        }

        test "INFO: sync_full / sync_partial_ok / sync_partial_err, replication bytes and buffers" {
            wait_caught_up 0 -1
            set d [info_dict [r -1 info stats]]
            set full [dict get $d sync_full]
            set ok [dict get $d sync_partial_ok]
            set err [dict get $d sync_partial_err]
            set replid [server_info master_replid -1]
            set off [expr {[server_info master_repl_offset -1] + 1}]
            lassign [raw_psync -1 $replid $off] s line
            close $s
            assert_equal "+CONTINUE $replid" $line
            # An offset past the end: a full sync instead (and the error counted).
            lassign [raw_psync -1 $replid [expr {$off + 1000000}]] s line
            close $s
            assert_match "+FULLRESYNC *" $line
            set d [info_dict [r -1 info stats]]
            assert_equal [expr {$ok + 1}] [dict get $d sync_partial_ok]
            assert_equal [expr {$err + 1}] [dict get $d sync_partial_err]
            assert_equal [expr {$full + 1}] [dict get $d sync_full]
            # The stream to the replica and from the master, apart from the clients' bytes.
            r -1 set counted [string repeat c 1000]
            wait_caught_up 0 -1
            assert_morethan [dict get [info_dict [r -1 info stats]] total_net_repl_output_bytes] 1000
            assert_morethan [dict get [info_dict [r info stats]] total_net_repl_input_bytes] 1000
            assert_equal 0 [dict get [info_dict [r info stats]] total_net_repl_output_bytes]
            # Keel's figures (redis-server 7.0.15 attributes its shared buffer differently and
            # samples client memory from its cron: 0 for both here).
            if {[is_keel]} {
                set m [info_dict [r -1 info memory]]
                assert_morethan [dict get $m mem_replication_backlog] 0
                assert_morethan [dict get $m mem_clients_slaves] 0
                assert_morethan_equal [dict get $m mem_total_replication_buffers] [dict get $m mem_replication_backlog]
            }
            wait_for_condition 100 50 {[server_info rdb_bgsave_in_progress -1] == 0}
        }

        test "A replica that stops reading is dropped at its output limit and resyncs" {
            wait_caught_up 0 -1
            r -1 config set client-output-buffer-limit "replica 1mb 0 0"
            set drops [server_info client_output_buffer_limit_disconnections -1]
            set full [log_matches "*Full resync from master*"]
            set pattern "*scheduled to be closed ASAP for overcoming of output buffer limits*"
            set logged [log_matches $pattern -1]
            exec kill -STOP [srv pid]
            try {
                set value [string repeat v 10000]
                # 20 MB: more than the socket buffers and the limit together.
                for {set i 0} {$i < 2000} {incr i} { r -1 set big:$i $value }
                wait_for_condition 100 20 {
                    [server_info client_output_buffer_limit_disconnections -1] > $drops
                }
                assert_morethan [log_matches $pattern -1] $logged
                # The master did not hold the 20 MB for it.
                assert_lessthan [server_info mem_not_counted_for_evict -1] 2000000
            } finally {
                exec kill -CONT [srv pid]
            }
            wait_caught_up 0 -1
            # 20 MB is past the 1 MB backlog: a full sync.
            assert_equal [expr {$full + 1}] [log_matches "*Full resync from master*"]
            assert_equal [snapshot_of -1] [snapshot_of]
            r -1 config set client-output-buffer-limit "replica 256mb 64mb 60"
        }
    }
}

# SYNC, what replicas older than Redis 2.8 and tools that read the replication stream send: the
# snapshot as one $<length> bulk (no $EOF: mark without `REPLCONF capa eof`), then the write
# stream from the snapshot's offset, starting with a SELECT. redis-cli --rdb asks the same way
# (capa eof, rdb-only) for the snapshot alone. Each snapshot is loaded by a second server
# (DEBUG RELOAD NOSAVE) and compared key by key with the master.
start_server {tags {repl} overrides {repl-diskless-sync-delay 0 repl-ping-replica-period 3600}} {
    start_server {tags {repl}} {
        test "SYNC: the snapshot as a \$<length> bulk, then the write stream; redis-cli --rdb" {
            populate_types sync:
            r -1 select 0
            set dump [file join [srv 0 dir] dump.rdb]

            set s [socket [srv -1 host] [srv -1 port]]
            fconfigure $s -translation binary -buffering none -blocking 1
            puts -nonewline $s "*1\r\n\$4\r\nSYNC\r\n"
            set line [string trimright [gets $s] "\r"]
            assert_match {$[0-9]*} $line
            set rdb [raw_read $s [string range $line 1 end]]
            assert_equal REDIS [string range $rdb 0 4]
            write_bytes $dump $rdb
            r debug reload nosave
            assert_equal [snapshot_of -1] [snapshot_of]

            # The stream goes on from the snapshot: the next write, after a SELECT of its db.
            r -1 set after-sync 1
            set want "*2\r\n\$6\r\nSELECT\r\n\$1\r\n0\r\n*3\r\n\$3\r\nset\r\n\$10\r\nafter-sync\r\n\$1\r\n1\r\n"
            assert_equal $want [raw_read $s [string length $want]]
            close $s

            r -1 del after-sync
            file delete $dump
            set file [file join [srv 0 dir] cli.rdb]
            exec redis-cli -h [srv -1 host] -p [srv -1 port] --rdb $file 2>@1
            file rename -force $file $dump
            r debug reload nosave
            assert_equal [snapshot_of -1] [snapshot_of]
        }
    }
}
