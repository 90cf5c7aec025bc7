# The append-only file: directives, the multi-part layout (manifest, base, incremental files),
# what is written, loading at start-up (and every way a file may be bad), the upgrade of an old
# single file, BGREWRITEAOF and CONFIG SET appendonly, INFO persistence, keel-check-aof.
# Replies, log lines and file names were first read from Debian's redis-server 7.0.15; this file
# runs against it too (tclsh tests/runtest --server /usr/bin/redis-server --single
# integration/aof); the Keel-only checks say so.

source [file join $::keel::tests_dir helpers rdb_util.tcl]

# A fresh scratch directory (removed with the others when the file passes). Not
# ::keel::new_tmpdir: while a server runs, that returns (and empties) the running server's dir.
proc aof_tmpdir {} {
    set d [file join $::keel::tests_dir tmp aof-[pid]-[incr ::aof_tmp_seq]]
    file delete -force $d
    file mkdir $d
    lappend ::keel::tmpdirs $d
    return $d
}

proc aof_dir {{level 0}} { return [file join [srv $level dir] appendonlydir] }
proc aof_path {name {level 0}} { return [file join [aof_dir $level] $name] }
proc manifest {{level 0}} { return [file_bytes [aof_path appendonly.aof.manifest $level]] }
proc aof_files {{level 0}} {
    return [lsort [lmap f [glob -nocomplain -directory [aof_dir $level] *] {file tail $f}]]
}
proc resp {args} {
    set s "*[llength $args]\r\n"
    foreach a $args { append s "\$[string length $a]\r\n$a\r\n" }
    return $s
}

# Both flags from one INFO reply: read from two, a scheduled rewrite that the cron starts between
# them reads as "not in progress" and then "not scheduled" (seen once in CI).
proc rewrite_idle {level} {
    set d [info_dict [r $level info persistence]]
    expr {[dict get $d aof_rewrite_in_progress] == 0 && [dict get $d aof_rewrite_scheduled] == 0}
}

proc wait_rewrite_done {{level 0}} {
    wait_for_condition 400 50 {[rewrite_idle $level]} {
        fail "AOF rewrite did not finish"
    }
}

# Starts the server binary with appendonly yes on `dir`, expecting it to exit by itself:
# returns {status log}.
proc start_aof_expecting_exit {dir args} {
    set port [::keel::find_free_port]
    set out [file join $dir start-out.txt]
    set status 0
    if {[catch {exec timeout 20 $::keel::opt(server) --port $port --bind 127.0.0.1 --dir $dir \
                    --appendonly yes --save "" {*}$args > $out 2>@1} msg opts]} {
        set ec [dict get $opts -errorcode]
        set status [expr {[lindex $ec 0] eq "CHILDSTATUS" ? [lindex $ec 2] : $ec}]
    }
    return [list $status [file_bytes $out]]
}

# A directory with appendonlydir/ holding `files` (name -> bytes) and a manifest listing
# `entries` ({name seq type} ...). Returns the directory.
proc make_aof_dir {entries files} {
    set dir [aof_tmpdir]
    file mkdir [file join $dir appendonlydir]
    set m ""
    foreach e $entries { append m "file [lindex $e 0] seq [lindex $e 1] type [lindex $e 2]\n" }
    write_bytes [file join $dir appendonlydir appendonly.aof.manifest] $m
    foreach {name bytes} $files { write_bytes [file join $dir appendonlydir $name] $bytes }
    return $dir
}

test "AOF directives: Redis's defaults, enums, bounds and immutable names" {
    foreach {name value} {
        appendonly no appendfilename appendonly.aof appenddirname appendonlydir
        appendfsync everysec no-appendfsync-on-rewrite no auto-aof-rewrite-percentage 100
        auto-aof-rewrite-min-size 67108864 aof-load-truncated yes aof-use-rdb-preamble yes
        aof-timestamp-enabled no aof-rewrite-incremental-fsync yes
    } {
        assert_equal [list $name $value] [r config get $name] $name
    }
    assert_error "*appendfsync*argument(s) must be one of the following: everysec, always, no*" {
        r config set appendfsync sometimes
    }
    foreach v {always no everysec} {
        assert_equal OK [r config set appendfsync $v]
        assert_equal [list appendfsync $v] [r config get appendfsync]
    }
    assert_error "*appendfilename*can't set immutable config*" {r config set appendfilename x.aof}
    assert_error "*appenddirname*can't set immutable config*" {r config set appenddirname x}
    assert_error "*auto-aof-rewrite-percentage*argument must be between 0 and 2147483647 inclusive*" {
        r config set auto-aof-rewrite-percentage -1
    }
    assert_equal OK [r config set auto-aof-rewrite-min-size 1kb]
    assert_equal {auto-aof-rewrite-min-size 1024} [r config get auto-aof-rewrite-min-size]
    assert_error "*appendonly*argument must be 'yes' or 'no'*" {r config set appendonly maybe}
    foreach {name what} {appendfilename filename appenddirname dirname} {
        set dir [aof_tmpdir]
        lassign [start_aof_expecting_exit $dir --$name a/b] status log
        assert_equal 1 $status
        assert_match "*$name can't be a path, just a $what*" $log
    }
    r config set auto-aof-rewrite-min-size 64mb
}

test "INFO persistence with the AOF off: the fields Redis 7.0 shows, and no size fields" {
    set d [info_dict [r info persistence]]
    foreach {f v} {aof_enabled 0 aof_rewrite_in_progress 0 aof_rewrite_scheduled 0
                   aof_last_rewrite_time_sec -1 aof_current_rewrite_time_sec -1
                   aof_last_bgrewrite_status ok aof_rewrites 0 aof_rewrites_consecutive_failures 0
                   aof_last_write_status ok aof_last_cow_size 0 module_fork_in_progress 0
                   module_fork_last_cow_size 0} {
        assert_equal $v [dict get $d $f] $f
    }
    foreach f {aof_current_size aof_base_size aof_pending_rewrite aof_buffer_length
               aof_pending_bio_fsync aof_delayed_fsync} {
        assert_equal 0 [dict exists $d $f] $f
    }
}

test "BGREWRITEAOF with the AOF off writes a base and a manifest; CONFIG SET appendonly yes during it restarts it" {
    r flushall
    r set k v
    r config set rdb-key-save-delay 200000
    assert_equal {Background append only file rewriting started} [r bgrewriteaof]
    # Turning the AOF on kills that child and starts the rewrite that switches it on.
    assert_equal OK [r config set appendonly yes]
    assert_equal 0 [server_info aof_rewrite_scheduled]
    assert_equal 1 [server_info aof_rewrite_in_progress]
    assert_equal 1 [log_matches "*AOF was enabled but there is already an AOF rewriting in background. Stopping background AOF and starting a rewrite now.*"]
    r config set rdb-key-save-delay 0
    wait_rewrite_done
    assert_equal 1 [server_info aof_enabled]
    r set k2 v2
    set m [manifest]
    assert_match "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" $m
    assert_equal OK [r config set appendonly no]
    r flushall
    # With the AOF off, a rewrite writes a new base; the incremental files become history.
    r set only-in-base 1
    assert_equal {Background append only file rewriting started} [r bgrewriteaof]
    wait_rewrite_done
    assert_equal "file appendonly.aof.2.base.rdb seq 2 type b\n" [manifest]
    assert_equal {appendonly.aof.2.base.rdb appendonly.aof.manifest} [aof_files]
    r flushall
}

test "CONFIG SET appendonly yes inside MULTI: the transaction's writes are counted once" {
    r flushall
    # Keel: with another consumer of the change stream the transaction's first INCR is recorded
    # before the AOF exists; a rewrite forked inside the transaction would hold it twice.
    if {[is_keel]} { r debug propagated on }
    r multi
    r incr c
    r config set appendonly yes
    r incr c
    r exec
    wait_for_condition 100 50 {[server_info aof_enabled] eq 1} { fail "AOF not on" }
    wait_rewrite_done
    r incr c
    set dir [srv dir]
    assert_equal OK [r config set appendonly no]
    if {[is_keel]} { r debug propagated off }
    # The files alone, loaded by a server of their own.
    start_server [list overrides [list dir $dir appendonly yes]] {
        assert_equal 3 [r get c]
    }
    r flushall
}

test "SHUTDOWN while the AOF being turned on has no file yet is refused (unless FORCE)" {
    r flushall
    r set k v
    r config set rdb-key-save-delay 300000
    assert_equal OK [r config set appendonly yes]
    assert_error "ERR Errors trying to SHUTDOWN. Check logs." {r shutdown nosave}
    assert_equal 1 [log_matches "*Writing initial AOF, can't exit.*"]
    assert_equal PONG [r ping]
    r config set rdb-key-save-delay 0
    wait_rewrite_done
    assert_equal 1 [server_info aof_enabled]
    r config set appendonly no
    r flushall
}

start_server {overrides {appendonly yes}} {
    test "appendonly yes at start: base 1 (RDB preamble), incr 1, the manifest naming both" {
        assert_equal {appendonly.aof.1.base.rdb appendonly.aof.1.incr.aof appendonly.aof.manifest} [aof_files]
        assert_equal "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" [manifest]
        assert_equal REDIS [string range [file_bytes [aof_path appendonly.aof.1.base.rdb]] 0 4]
        assert_equal 1 [log_matches "*Creating AOF base file appendonly.aof.1.base.rdb on server start*"]
        assert_equal 1 [log_matches "*Creating AOF incr file appendonly.aof.1.incr.aof on server start*"]
        set d [info_dict [r info persistence]]
        assert_equal 1 [dict get $d aof_enabled]
        foreach f {aof_current_size aof_base_size aof_pending_rewrite aof_buffer_length
                   aof_pending_bio_fsync aof_delayed_fsync} {
            assert_equal 1 [dict exists $d $f] $f
        }
    }

    test "Writes reach the incremental file as RESP, with SELECT, MULTI/EXEC and rewrites" {
        r select 0
        r set k1 v1
        r select 3
        r lpush l a b
        r select 0
        r multi
        r incr counter
        r incrbyfloat f 1.5
        r exec
        r get k1
        set expected [resp SELECT 0][resp set k1 v1][resp SELECT 3][resp lpush l a b]
        if {[is_keel]} {
            # Redis 7.2+ (Keel's target) puts a transaction's SELECT inside its MULTI; 7.0 before.
            append expected [resp MULTI][resp SELECT 0][resp incr counter][resp SET f 1.5 KEEPTTL][resp EXEC]
        } else {
            append expected [resp SELECT 0][resp MULTI][resp incr counter][resp SET f 1.5 KEEPTTL][resp EXEC]
        }
        assert_equal $expected [file_bytes [aof_path appendonly.aof.1.incr.aof]]
        # The base created at start-up is not counted (as in Redis 7.0): the size is what was appended.
        assert_equal [file size [aof_path appendonly.aof.1.incr.aof]] [server_info aof_current_size]
        assert_equal 0 [server_info aof_base_size]
    }

    test "Restart: base + incremental files give the dataset back (every type, TTLs, dbs)" {
        r flushall
        foreach {db ttl} {0 0 1 5000000 9 0} {
            r select $db
            populate_types "db$db:" $ttl
        }
        r select 0
        r set plain v
        r pexpire plain 100000000
        set before [dataset_snapshot]
        restart_server
        assert_equal $before [dataset_snapshot]
        assert_equal 1 [log_matches "*DB loaded from incr file appendonly.aof.1.incr.aof*"]
        assert_equal 1 [log_matches "*DB loaded from append only file:*"]
        assert_equal 1 [log_matches "*Opening AOF incr file appendonly.aof.1.incr.aof on server start*"]
        # Replayed commands are not client traffic: not in commandstats (nor in Redis).
        assert_no_match "*cmdstat_rpush:*" [r info commandstats]
    }

    test "DEBUG LOADAOF: the dataset comes back from the files, and nothing is appended twice" {
        set before [dataset_snapshot]
        set size [file size [aof_path appendonly.aof.1.incr.aof]]
        assert_equal OK [r debug loadaof]
        assert_equal $before [dataset_snapshot]
        assert_equal $size [file size [aof_path appendonly.aof.1.incr.aof]]
        assert_equal 1 [log_matches "*Append Only File loaded by DEBUG LOADAOF*"]
        # Appending goes on.
        r set after-loadaof 1
        assert_morethan [file size [aof_path appendonly.aof.1.incr.aof]] $size
        r del after-loadaof
        # Twice in a row (a propagated DEBUG LOADAOF would replay itself).
        assert_equal OK [r debug loadaof]
        assert_equal OK [r debug loadaof]
        assert_equal $before [dataset_snapshot]
        assert_equal -1 [string first "\r\ndebug\r\n" [string tolower [file_bytes [aof_path appendonly.aof.1.incr.aof]]]]
    }

    test "BGREWRITEAOF: new base and incr (seq 2), history removed, dataset kept" {
        set before [dataset_snapshot]
        set rewrites [server_info aof_rewrites]
        assert_equal {Background append only file rewriting started} [r bgrewriteaof]
        wait_rewrite_done
        assert_equal {appendonly.aof.2.base.rdb appendonly.aof.2.incr.aof appendonly.aof.manifest} [aof_files]
        assert_equal "file appendonly.aof.2.base.rdb seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n" [manifest]
        assert_equal [expr {$rewrites + 1}] [server_info aof_rewrites]
        assert_equal ok [server_info aof_last_bgrewrite_status]
        assert_equal [file size [aof_path appendonly.aof.2.base.rdb]] [server_info aof_base_size]
        assert_equal 1 [log_matches "*Background append only file rewriting started by pid*"]
        assert_equal 1 [log_matches "*Background AOF rewrite finished successfully*"]
        assert_equal 1 [log_matches "*Removing the history file appendonly.aof.1.incr.aof in the background*"]
        # The new incremental file starts with a SELECT.
        r set after rewrite
        assert_equal [resp SELECT 0][resp set after rewrite] [file_bytes [aof_path appendonly.aof.2.incr.aof]]
        r del after
        restart_server
        assert_equal $before [dataset_snapshot]
    }

    test "aof-disable-auto-gc yes keeps the history files (type h) until it is set back to no" {
        assert_equal {aof-disable-auto-gc no} [r config get aof-disable-auto-gc]
        set seq [lindex [regexp -inline {base.rdb seq ([0-9]+)} [manifest]] 1]
        r config set aof-disable-auto-gc yes
        r set gc 1
        r bgrewriteaof
        wait_rewrite_done
        set n [expr {$seq + 1}]
        set m [manifest]
        # History newest first, as Redis lists it.
        assert_equal "file appendonly.aof.$n.base.rdb seq $n type b\nfile appendonly.aof.$seq.incr.aof seq $seq type h\nfile appendonly.aof.$seq.base.rdb seq $seq type h\nfile appendonly.aof.$n.incr.aof seq $n type i\n" $m
        assert_equal 1 [file exists [aof_path appendonly.aof.$seq.base.rdb]]
        r config set aof-disable-auto-gc no
        assert_equal "file appendonly.aof.$n.base.rdb seq $n type b\nfile appendonly.aof.$n.incr.aof seq $n type i\n" [manifest]
        assert_equal 0 [file exists [aof_path appendonly.aof.$seq.base.rdb]]
        r del gc
    }

    test "BGREWRITEAOF while one runs, behind a BGSAVE, and inside MULTI" {
        r config set rdb-key-save-delay 20000
        r set x y
        assert_equal {Background append only file rewriting started} [r bgrewriteaof]
        assert_error "ERR Background append only file rewriting already in progress" {r bgrewriteaof}
        assert_error "ERR Another child process is active (AOF?): can't BGSAVE right now.*" {r bgsave}
        assert_equal {Background saving scheduled} [r bgsave schedule]
        assert_equal 1 [server_info aof_rewrite_in_progress]
        r config set rdb-key-save-delay 0
        wait_rewrite_done
        wait_for_condition 200 50 {[server_info rdb_bgsave_in_progress] eq 0 &&
                                   [log_matches "*Background saving terminated with success*"] >= 1} {
            fail "scheduled BGSAVE did not run"
        }
        r config set rdb-key-save-delay 20000
        assert_equal {Background saving started} [r bgsave]
        assert_equal {Background append only file rewriting scheduled} [r bgrewriteaof]
        assert_equal 1 [server_info aof_rewrite_scheduled]
        r config set rdb-key-save-delay 0
        wait_rewrite_done
        r multi
        r bgrewriteaof
        assert_equal {{Background append only file rewriting scheduled}} [r exec]
        wait_rewrite_done
        # No temporary base is left behind (polled: once, on a loaded CI machine, one was seen
        # right after the rewrite was reported done, and gone when the test ended).
        wait_for_condition 40 50 {[llength [glob -nocomplain -directory [srv dir] temp-rewriteaof-*]] == 0} {
            fail "left behind: [glob -nocomplain -directory [srv dir] temp-rewriteaof-*]"
        }
    }

    test "CONFIG SET appendonly no, then yes: a rewrite writes the new base from the dataset" {
        set before [dataset_snapshot]
        assert_equal OK [r config set appendonly no]
        assert_equal 0 [server_info aof_enabled]
        r set while-off 1
        assert_equal OK [r config set appendonly yes]
        wait_rewrite_done
        assert_equal 1 [server_info aof_enabled]
        set m [manifest]
        assert_equal 2 [llength [split [string trim $m] "\n"]] $m
        assert_match "file appendonly.aof.*.base.rdb seq * type b\nfile appendonly.aof.*.incr.aof seq * type i\n" $m
        r set after-on 1
        r del while-off after-on
        restart_server
        assert_equal $before [dataset_snapshot]
    }
}

start_server {overrides {appendonly yes}} {
    test "Automatic rewrite: auto-aof-rewrite-min-size and -percentage (0 disables it)" {
        r config set rdbcompression no  ;# the base keeps the values' size
        r config set auto-aof-rewrite-percentage 0
        r config set auto-aof-rewrite-min-size 10kb
        for {set i 0} {$i < 50} {incr i} { r set k$i [string repeat x 500] }
        after 300
        assert_equal 0 [server_info aof_rewrites]
        r config set auto-aof-rewrite-percentage 100
        wait_for_condition 100 50 {[server_info aof_rewrites] eq 1} { fail "no automatic rewrite" }
        wait_rewrite_done
        assert_equal 1 [log_matches "*Starting automatic rewriting of AOF on *% growth*"]
        set base [server_info aof_base_size]
        assert_morethan $base 25000
        # The next one comes when the files have doubled since that rewrite.
        for {set i 0} {$i < 20} {incr i} { r set k$i [string repeat y 500] }
        after 300
        assert_equal 1 [server_info aof_rewrites]
        for {set i 20} {$i < 80} {incr i} { r set k$i [string repeat y 500] }
        wait_for_condition 100 50 {[server_info aof_rewrites] eq 2} { fail "no second automatic rewrite" }
        wait_rewrite_done
        r config set auto-aof-rewrite-min-size 64mb
    }
}

start_server {overrides {appendonly yes appendfsync always}} {
    test "appendfsync always: pipelined clients share one fdatasync per loop iteration" {
        if {[catch {exec which strace}]} { skip_test "no strace" }
        set trace [file join [srv dir] strace.out]
        set pid [srv pid]
        set st [open "|strace -f -qq -e trace=fdatasync,fsync -o $trace -p $pid 2>@1" r]
        after 300
        set clients {}
        for {set c 0} {$c < 10} {incr c} { lappend clients [redis_deferring_client] }
        set batch ""
        foreach rd $clients {
            set bytes ""
            for {set i 0} {$i < 100} {incr i} { append bytes [resp SET k$i-$rd v$i] }
            $rd write $bytes
        }
        foreach rd $clients {
            for {set i 0} {$i < 100} {incr i} { assert_equal OK [$rd read] }
            $rd close
        }
        after 200
        catch {exec kill -INT [pid $st]}
        catch {close $st}
        set syncs [expr {[file exists $trace] ? [regexp -all -line {^.*(fdatasync|fsync)\(} [file_bytes $trace]] : 0}]
        if {$syncs == 0} { skip_test "strace could not attach (ptrace not allowed here?)" }
        # 1000 acknowledged writes; one fsync per command would be 1000.
        assert_lessthan $syncs 200
        assert_equal 1000 [r dbsize]
    }
}

start_server {overrides {appendonly yes appendfsync always}} {
    test "Nothing pipelined after a successful SHUTDOWN runs (no reply for a write not in the AOF)" {
        set dir [srv dir]
        set rd [redis_deferring_client]
        $rd write "[resp SET a 1][resp SHUTDOWN NOSAVE][resp SET b 2]"
        set replies {}
        while {![catch {$rd read} reply]} { lappend replies $reply }
        # Redis exits before sending anything; Keel sends the first SET's reply (it is in the AOF).
        assert_lessthan_equal [llength $replies] 1
        assert_equal {exit 0} [wait_server_exit]
        start_server [list overrides [list dir $dir appendonly yes]] {
            assert_equal {1 0} [list [r get a] [r exists b]]
        }
    }
}

start_server {overrides {appendonly yes appendfsync everysec}} {
    test "everysec with a stalled disk: writes wait up to 2 s for the fsync, then go anyway; the loop never blocks" {
        if {![is_keel]} { skip_test "DEBUG AOF-FSYNC-DELAY is Keel's" }
        r debug aof-fsync-delay 3500
        r set a 1
        after 1100
        r set a 2  ;# written, and the once-a-second fsync starts (and stalls)
        wait_for_condition 20 20 {[server_info aof_pending_bio_fsync] eq 1} { fail "no background fsync" }
        r set b 1  ;# its write waits for the fsync: answered, held in the buffer
        assert_morethan [server_info aof_buffer_length] 0
        assert_equal 0 [server_info aof_delayed_fsync]
        set t0 [clock milliseconds]
        for {set i 0} {$i < 20} {incr i} { r ping }
        assert_lessthan [expr {[clock milliseconds] - $t0}] 500
        wait_for_condition 60 50 {[server_info aof_delayed_fsync] eq 1} { fail "the write was not forced" }
        assert_equal 0 [server_info aof_buffer_length]
        assert_equal 1 [log_matches "*Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer without waiting for fsync to complete, this may slow down Redis.*"]
        r debug aof-fsync-delay 0
        wait_for_condition 100 50 {[server_info aof_pending_bio_fsync] eq 0} { fail "fsync never ended" }
        restart_server
        assert_equal {2 1} [list [r get a] [r get b]]
    }
}

start_server {overrides {appendonly yes aof-use-rdb-preamble no}} {
    test "aof-use-rdb-preamble no: the base file is named .base.aof" {
        assert_equal {appendonly.aof.1.base.aof appendonly.aof.1.incr.aof appendonly.aof.manifest} [aof_files]
        r set a 1
        restart_server
        assert_equal 1 [r get a]
    }

    test "aof-use-rdb-preamble no: a rewrite writes the dataset as commands (every type, TTLs, functions)" {
        r flushall
        foreach {db ttl} {0 0 4 5000000} {
            r select $db
            populate_types "db$db:" $ttl
        }
        r select 0
        r function load "#!lua name=aoflib\nredis.register_function('aoff', function() return 7 end)"
        set before [dataset_snapshot]
        r bgrewriteaof
        wait_rewrite_done
        assert_equal {appendonly.aof.2.base.aof appendonly.aof.2.incr.aof appendonly.aof.manifest} [aof_files]
        set base [file_bytes [aof_path appendonly.aof.2.base.aof]]
        assert_match "[resp FUNCTION LOAD "#!lua name=aoflib\nredis.register_function('aoff', function() return 7 end)"][resp SELECT 0]*" $base
        assert_match "*[resp SELECT 4]*" $base
        # Collections go in commands of at most 64 items: hash-ht has 600 fields (9 x 64 + 24).
        assert_equal 9 [regexp -all {\*130\r\n\$5\r\nHMSET\r\n\$11\r\ndb0:hash-ht\r\n} $base]
        assert_equal 1 [regexp -all {\*50\r\n\$5\r\nHMSET\r\n\$11\r\ndb0:hash-ht\r\n} $base]
        assert_match "*PEXPIREAT*" $base
        restart_server
        assert_equal $before [dataset_snapshot]
        assert_equal 7 [r fcall aoff 0]
    }

    test "aof-use-rdb-preamble no: streams (groups, pending entries, idle consumers, empty) and hash-field TTLs as commands" {
        r flushall
        r xadd s 1-1 f v n 12
        r xadd s 2-1 f w
        r xadd s 3-1 other x
        r xdel s 2-1
        r xgroup create s g1 0
        r xreadgroup group g1 alice count 2 streams s >
        r xgroup createconsumer s g1 bob
        r xgroup create s g2 $ entriesread 3
        r xadd empty 5-5 a b
        r xdel empty 5-5
        r hset h a 1 b 2 c 3
        r hpexpireat h 4102444800000 fields 2 a c
        set fv {}
        for {set i 0} {$i <= 200} {incr i} { lappend fv f$i $i }
        r hset hbig {*}$fv
        r hpexpireat hbig 4102444800123 fields 1 f7
        set digest [r debug digest]
        # Consumers' seen/active times are those of the reload (XCLAIM), as in Redis; pending
        # entries keep their delivery times and counts.
        set full [dict get [lindex [dict get [r xinfo stream s full] groups] 0] pending]
        set pending [lmap e [r xpending s g1 - + 10] {list [lindex $e 0] [lindex $e 1] [lindex $e 3]}]
        r bgrewriteaof
        wait_rewrite_done
        set base [file_bytes [aof_path [lindex [aof_files] 0]]]
        assert_match "*[resp XADD empty MAXLEN 0 5-5 x y]*" $base
        assert_match "*[resp XGROUP CREATECONSUMER s g1 bob]*" $base
        assert_match "*[resp HPEXPIREAT hbig 4102444800123 FIELDS 1 f7]*" $base
        restart_server
        assert_equal $digest [r debug digest]
        assert_equal $full [dict get [lindex [dict get [r xinfo stream s full] groups] 0] pending]
        assert_equal $pending [lmap e [r xpending s g1 - + 10] {list [lindex $e 0] [lindex $e 1] [lindex $e 3]}]
        assert_equal {4102444800000 -1 4102444800000} [r hpexpiretime h fields 3 a b c]
        assert_equal {0 0 5-5} [list [r xlen empty] [dict get [r xinfo stream empty] length] [dict get [r xinfo stream empty] last-generated-id]]
    }
}

start_server {overrides {appendonly yes aof-timestamp-enabled yes}} {
    test "aof-timestamp-enabled: #TS annotations are written and skipped when loading" {
        r set a 1
        set data [file_bytes [aof_path appendonly.aof.1.incr.aof]]
        assert_match "#TS:*\r\n*" $data
        restart_server
        assert_equal 1 [r get a]
    }
}

# ---- Loading: bad input ---------------------------------------------------------------------

set ::ok_cmds "[resp SET a 1][resp SET b 2]"

test "Load: a truncated last command with aof-load-truncated yes loads, warns and cuts the file" {
    set dir [make_aof_dir {{appendonly.aof.1.base.aof 1 b} {appendonly.aof.1.incr.aof 1 i}} \
                 [list appendonly.aof.1.base.aof "" appendonly.aof.1.incr.aof "$::ok_cmds*3\r\n\$3\r\nSET\r\n\$1\r\nc\r\n\$2\r\n1"]]
    set good [string length $::ok_cmds]
    start_server [list overrides [list appendonly yes dir $dir]] {
        assert_equal {1 2 {}} [list [r get a] [r get b] [r get c]]
        assert_equal 1 [log_matches "*!!! Warning: short read while loading the AOF file appendonly.aof.1.incr.aof!!!*"]
        assert_equal 1 [log_matches "*!!! Truncating the AOF appendonly.aof.1.incr.aof at offset $good !!!*"]
        assert_equal 1 [log_matches "*AOF appendonly.aof.1.incr.aof loaded anyway because aof-load-truncated is enabled*"]
        assert_equal $good [file size [file join $dir appendonlydir appendonly.aof.1.incr.aof]]
        # Appending goes on after the cut.
        r set d 4
        restart_server
        assert_equal {1 2 4} [list [r get a] [r get b] [r get d]]
    }
}

test "Load: the same with aof-load-truncated no exits 1 with Redis's message" {
    set dir [make_aof_dir {{appendonly.aof.1.incr.aof 1 i}} \
                 [list appendonly.aof.1.incr.aof "$::ok_cmds*3\r\n\$3\r\nSET"]]
    lassign [start_aof_expecting_exit $dir --aof-load-truncated no] status log
    assert_equal 1 $status
    assert_match "*Unexpected end of file reading the append only file appendonly.aof.1.incr.aof. You can: 1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. 2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.*" $log
    # Nothing was cut.
    assert_equal [expr {[string length $::ok_cmds] + 11}] [file size [file join $dir appendonlydir appendonly.aof.1.incr.aof]]
}

test "Load: a truncated file that is not the last one is fatal" {
    set dir [make_aof_dir {{appendonly.aof.1.incr.aof 1 i} {appendonly.aof.2.incr.aof 2 i}} \
                 [list appendonly.aof.1.incr.aof "$::ok_cmds*3\r\n\$3\r\nSET" appendonly.aof.2.incr.aof $::ok_cmds]]
    lassign [start_aof_expecting_exit $dir] status log
    assert_equal 1 $status
    assert_match "*Fatal error: the truncated file is not the last file*" $log
}

test "Load: corruption in the middle (not a command) exits 1 naming the file" {
    set dir [make_aof_dir {{appendonly.aof.1.incr.aof 1 i}} \
                 [list appendonly.aof.1.incr.aof "[resp SET a 1]garbage\r\n[resp SET b 2]"]]
    lassign [start_aof_expecting_exit $dir] status log
    assert_equal 1 $status
    assert_match "*Bad file format reading the append only file appendonly.aof.1.incr.aof: make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>*" $log
}

test "Load: an unknown command exits 1" {
    set dir [make_aof_dir {{appendonly.aof.1.incr.aof 1 i}} \
                 [list appendonly.aof.1.incr.aof "[resp SET a 1][resp NOSUCHCMD x][resp SET b 2]"]]
    lassign [start_aof_expecting_exit $dir] status log
    assert_equal 1 $status
    assert_match "*Unknown command 'NOSUCHCMD' reading the append only file appendonly.aof.1.incr.aof*" $log
}

test "Load: a file named in the manifest that does not exist is fatal" {
    set dir [make_aof_dir {{appendonly.aof.1.base.rdb 1 b} {appendonly.aof.1.incr.aof 1 i}} \
                 [list appendonly.aof.1.incr.aof $::ok_cmds]]
    lassign [start_aof_expecting_exit $dir] status log
    assert_equal 1 $status
    assert_match "*Unable to obtain the AOF file appendonly.aof.1.base.rdb length. stat: No such file or directory*" $log
}

test "Load: malformed manifests are refused with Redis's reasons" {
    foreach {text reason} {
        "" "Found an empty AOF manifest"
        "file appendonly.aof.1.base.aof seq 1\n" "Invalid AOF manifest file format"
        "file a/b seq 1 type b\n" "File can't be a path, just a filename"
        "file x seq 1 type b\nfile y seq 2 type b\n" "Found duplicate base file information"
        "file x seq 2 type i\nfile y seq 1 type i\n" "Found a non-monotonic sequence number"
        "file x seq 1 type z\n" "Unknown AOF file type"
    } {
        set dir [aof_tmpdir]
        file mkdir [file join $dir appendonlydir]
        write_bytes [file join $dir appendonlydir appendonly.aof.manifest] $text
        lassign [start_aof_expecting_exit $dir] status log
        assert_equal 1 $status $text
        assert_match "*FATAL AOF MANIFEST FILE ERROR*" $log
        assert_match "*$reason*" $log $text
    }
}

test "Load: an unfinished MULTI at the end is reverted (the file cut before it)" {
    set data "[resp SET a 1][resp MULTI][resp SET b 2]"
    set dir [make_aof_dir {{appendonly.aof.1.incr.aof 1 i}} [list appendonly.aof.1.incr.aof $data]]
    start_server [list overrides [list appendonly yes dir $dir]] {
        assert_equal {1 {}} [list [r get a] [r get b]]
        assert_equal 1 [log_matches "*Revert incomplete MULTI/EXEC transaction in AOF file appendonly.aof.1.incr.aof*"]
        assert_equal [string length [resp SET a 1]] [file size [file join $dir appendonlydir appendonly.aof.1.incr.aof]]
    }
}

# A SIGKILL during the AOF write of a transaction (MULTI/EXEC, or a script's effects) can leave
# its last command cut short. Redis 7.0 cuts the file after the last whole command, inside the
# transaction, so the writes it appends next join that MULTI and the next load reverts them:
# acknowledged writes lost. Keel cuts before the MULTI.
test "Load: a command cut short inside a transaction: the cut is before its MULTI, later writes survive (Keel only)" {
    if {![is_keel]} { skip_test "Redis 7.0 cuts inside the transaction and loses the writes after it" }
    set data "[resp SET a 1][resp MULTI][resp SET b 2]*3\r\n\$3\r\nSET\r\n\$1\r\nc"
    set dir [make_aof_dir {{appendonly.aof.1.incr.aof 1 i}} [list appendonly.aof.1.incr.aof $data]]
    start_server [list overrides [list appendonly yes dir $dir]] {
        assert_equal {1 {} {}} [list [r get a] [r get b] [r get c]]
        set good [string length [resp SET a 1]]
        assert_equal 1 [log_matches "*!!! Truncating the AOF appendonly.aof.1.incr.aof at offset $good !!!*"]
        assert_equal $good [file size [file join $dir appendonlydir appendonly.aof.1.incr.aof]]
        r set d 4
        r set e 5
        restart_server
        assert_equal {1 {} {} 4 5} [list [r get a] [r get b] [r get c] [r get d] [r get e]]
        assert_equal 0 [log_matches "*Revert incomplete MULTI/EXEC*"]
    }
}

# A MULTI inside a transaction (written by hand, or by an old tool) changes nothing, as in
# Redis, where EXEC refuses the nested one.
test "Load: a MULTI nested in a transaction is ignored" {
    set data "[resp MULTI][resp SET a 1][resp MULTI][resp SET b 2][resp EXEC][resp SET c 3]"
    set dir [make_aof_dir {{appendonly.aof.1.incr.aof 1 i}} [list appendonly.aof.1.incr.aof $data]]
    start_server [list overrides [list appendonly yes dir $dir]] {
        assert_equal {1 2 3} [list [r get a] [r get b] [r get c]]
    }
}

test "Load: an old single appendonly.aof is moved into the directory and loaded" {
    set dir [aof_tmpdir]
    write_bytes [file join $dir appendonly.aof] "[resp SELECT 0][resp SET a 1][resp RPUSH l x y]"
    start_server [list overrides [list appendonly yes dir $dir]] {
        assert_equal {1 {x y}} [list [r get a] [r lrange l 0 -1]]
        assert_equal 1 [log_matches "*Successfully migrated an old-style AOF file (appendonly.aof) into the AOF directory (appendonlydir).*"]
        assert_equal 0 [file exists [file join $dir appendonly.aof]]
        assert_equal {appendonly.aof appendonly.aof.1.incr.aof appendonly.aof.manifest} \
            [lsort [lmap f [glob -directory [file join $dir appendonlydir] *] {file tail $f}]]
        assert_equal "file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n" \
            [file_bytes [file join $dir appendonlydir appendonly.aof.manifest]]
        r set b 2
        restart_server
        assert_equal {1 2} [list [r get a] [r get b]]
    }
}

test "Load: an old single file with an RDB preamble and a command tail" {
    # The preamble: a dump written by the server at hand, then commands appended.
    set src [aof_tmpdir]
    set overrides [list dir $src]
    if {[is_keel]} { lappend overrides rdb-version 10 }
    start_server [list overrides $overrides] {
        r set pre 1
        r set ttlkey v
        r pexpire ttlkey 100000000
        r save
    }
    set dir [aof_tmpdir]
    write_bytes [file join $dir appendonly.aof] "[file_bytes [file join $src dump.rdb]][resp SET tail 2][resp PERSIST ttlkey]"
    start_server [list overrides [list appendonly yes dir $dir]] {
        assert_equal {1 2 v -1} [list [r get pre] [r get tail] [r get ttlkey] [r ttl ttlkey]]
    }
}

test "Load: with appendonly yes the RDB file is not read" {
    set dir [aof_tmpdir]
    start_server [list overrides [list dir $dir]] {
        r set from-rdb 1
        r save
    }
    start_server [list overrides [list dir $dir appendonly yes]] {
        assert_equal 0 [r dbsize]
    }
}

# ---- keel-check-aof -------------------------------------------------------------------------

test "keel-check-aof: valid files, truncation, --fix, manifests" {
    if {![is_keel]} { skip_test "keel-check-aof is Keel's" }
    set dir [aof_tmpdir]
    set tool [file join $dir keel-check-aof]
    file link -symbolic $tool [file normalize $::keel::opt(server)]
    write_bytes [file join $dir ok.aof] $::ok_cmds
    set out [exec $tool [file join $dir ok.aof]]
    assert_match "*Start checking Old-Style AOF*" $out
    assert_match "*ok_up_to=[string length $::ok_cmds],*diff=0*" $out
    assert_match "*is valid*" $out
    set cut "$::ok_cmds*3\r\n\$3\r\nSET\r\n\$1\r\nc\r\n\$2\r\n1"
    write_bytes [file join $dir cut.aof] $cut
    assert_equal 1 [catch {exec $tool [file join $dir cut.aof]} out]
    assert_match "*Expected to read 4 bytes, got 1 bytes*" $out
    assert_match "*ok_up_to=[string length $::ok_cmds],*" $out
    assert_match "*is not valid. Use the --fix option to try fixing it.*" $out
    # The same report as redis-check-aof 7.0 for this file.
    assert_equal 1 [catch {exec /usr/bin/redis-check-aof [file join $dir cut.aof]} rout]
    regexp {size=.*} $rout rline
    assert_match "*size=79, ok_up_to=[string length $::ok_cmds], ok_up_to_line=21, diff=25*" $rline
    assert_match "*$rline*" $out
    set out [exec $tool --fix [file join $dir cut.aof] << "y\n"]
    assert_match "*Successfully truncated AOF*" $out
    assert_equal $::ok_cmds [file_bytes [file join $dir cut.aof]]
    # An unfinished MULTI: ok only up to before it.
    write_bytes [file join $dir multi.aof] "$::ok_cmds[resp MULTI][resp SET x 1]"
    assert_equal 1 [catch {exec $tool [file join $dir multi.aof]} out]
    assert_match "*Reached EOF before reading EXEC for MULTI*ok_up_to=[string length $::ok_cmds],*" $out
    # A manifest: the base (RDB) and the incremental files of a live server.
    start_server {overrides {appendonly yes}} {
        r set a 1
        set out [exec $tool [aof_path appendonly.aof.manifest]]
        assert_match "*Start checking Multi Part AOF*Start to check BASE AOF (RDB format).*RDB preamble is OK*Start to check INCR files.*INCR AOF appendonly.aof.1.incr.aof is valid*All AOF files and manifest are valid*" $out
    }
}

# ---- Files exchanged with Debian's redis-server 7.0 -----------------------------------------

test "Interop: an appendonlydir written by redis-server 7.0 (base, rewrite, incr) loads in Keel" {
    if {![is_keel]} { skip_test "compares Keel with redis-server" }
    set dir [aof_tmpdir]
    start_server [list binary [reference_server_binary] overrides [list dir $dir appendonly yes]] {
        foreach {db ttl} {0 0 2 5000000} {
            r select $db
            populate_types "before:" $ttl
        }
        r bgrewriteaof
        wait_rewrite_done
        r select 0
        populate_types "after:" 0
        r multi
        r incr c
        r expire c 1000000
        r exec
        r select 0
        set before [dataset_snapshot]
    }
    start_server [list overrides [list dir $dir appendonly yes]] {
        assert_equal $before [dataset_snapshot]
        assert_match "*DB loaded from base file appendonly.aof.2.base.rdb*" [file_bytes [srv stdout]]
    }
}

test "Interop: an appendonlydir written by Keel (rdb-version 10; RDB or commands base) loads in redis-server 7.0" {
    if {![is_keel]} { skip_test "compares Keel with redis-server" }
    foreach preamble {yes no} {
    set dir [aof_tmpdir]
    start_server [list overrides [list dir $dir appendonly yes rdb-version 10 aof-use-rdb-preamble $preamble]] {
        foreach {db ttl} {0 0 3 5000000} {
            r select $db
            populate_types "before:" $ttl
        }
        r bgrewriteaof
        wait_rewrite_done
        r select 0
        populate_types "after:" 0
        r set f 1.5
        r incrbyfloat f 2
        r set ex v ex 1000000
        r select 0
        set before [dataset_snapshot]
    }
    start_server [list binary [reference_server_binary] overrides [list dir $dir appendonly yes]] {
        assert_equal $before [dataset_snapshot] "aof-use-rdb-preamble $preamble"
    }
    }
}

# ---- Write errors: a full disk (a small tmpfs mounted as the server's dir; needs root) -------

# Mounts a tmpfs of `kb` KB on dir; 0 when this machine does not allow it.
proc mount_small_fs {dir kb} {
    if {[catch {exec mount -t tmpfs -o size=${kb}k tmpfs $dir}]} { return 0 }
    return 1
}
proc fill_fs {mnt} {
    catch {exec dd if=/dev/zero of=[file join $mnt filler] bs=4k count=100000 2>/dev/null}
}

test "Disk full: writes refused with MISCONF, reads served, recovery when space comes back" {
    set dir [aof_tmpdir]
    if {![mount_small_fs $dir 256]} { skip_test "cannot mount a tmpfs here" }
    set mnt $dir
    try {
        start_server [list overrides [list dir $dir appendonly yes appendfsync everysec]] {
            r set before 1
            fill_fs $mnt
            # This write is executed (and answered, as Redis does) but cannot reach the file.
            r set big [string repeat x 20000]
            wait_for_condition 50 50 {[server_info aof_last_write_status] eq "err"} {
                fail "the write error was not noticed"
            }
            assert_error "MISCONF Errors writing to the AOF file: No space left on device" {r set other 1}
            assert_error "MISCONF Errors writing to the AOF file: *" {r ping}
            assert_equal 1 [r get before]
            assert_equal 20000 [r strlen big]
            # Nothing fitted (a write error) or part of it (a short write, cut back off the file).
            assert {[regexp {Error writing to the AOF file: No space left on device|Short write while writing to the AOF file: \(nwritten=[0-9]+, expected=[0-9]+\)} [file_bytes [srv stdout]]]}
            # Space again: the buffer is written by the cron's retry and writes are accepted.
            file delete [file join $mnt filler]
            wait_for_condition 100 50 {[server_info aof_last_write_status] eq "ok"} {
                fail "the AOF did not recover"
            }
            assert_equal OK [r set after 2]
            assert_match "*AOF write error looks solved, Redis can write again.*" [file_bytes [srv stdout]]
            restart_server
            assert_equal {1 20000 2} [list [r get before] [r strlen big] [r get after]]
        }
    } finally {
        catch {exec umount $mnt}
    }
}

test "Disk full with appendfsync always: the server exits rather than acknowledge" {
    set dir [aof_tmpdir]
    if {![mount_small_fs $dir 256]} { skip_test "cannot mount a tmpfs here" }
    set mnt $dir
    try {
        start_server [list overrides [list dir $dir appendonly yes appendfsync always]] {
            r set before 1
            fill_fs $mnt
            catch {r set big [string repeat x 20000]} err
            assert_match "*I/O error*" $err
            assert_equal {exit 1} [wait_server_exit]
            assert_match "*Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...*" \
                [file_bytes [srv stdout]]
        }
    } finally {
        catch {exec umount $mnt}
    }
}

# Runs a checker in `dir` (so both print the same relative names): {exit-status output}.
proc run_checker {dir tool args} {
    set old [pwd]
    cd $dir
    set status [catch {exec $tool {*}$args} out]
    cd $old
    return [list $status $out]
}

test "keel-check-aof --truncate-to-timestamp: the same output and cut as redis-check-aof 7.0" {
    if {![is_keel]} { skip_test "keel-check-aof is Keel's" }
    set base [aof_tmpdir]
    set tool [file join $base keel-check-aof]
    file link -symbolic $tool [file normalize $::keel::opt(server)]
    set ts "#TS:100\r\n[resp set a 1]#TS:200\r\n[resp set b 2]#TS:300\r\n[resp set c 3]"
    foreach {name files manifest args} [list \
        cut [list t.aof $ts] "" {--truncate-to-timestamp 250 t.aof} \
        nothing-before [list t.aof $ts] "" {--truncate-to-timestamp 50 t.aof} \
        nothing-after [list t.aof $ts] "" {--truncate-to-timestamp 1000 t.aof} \
        bad-ts [list t.aof $ts] "" {--truncate-to-timestamp abc t.aof} \
        both-options [list t.aof $ts] "" {--fix --truncate-to-timestamp 5 t.aof} \
        not-last [list a.1.incr.aof $ts a.2.incr.aof $ts] \
            "file a.1.incr.aof seq 1 type i\nfile a.2.incr.aof seq 2 type i\n" {--truncate-to-timestamp 150 a.manifest} \
        last [list a.1.incr.aof "#TS:100\r\n" a.2.incr.aof $ts] \
            "file a.1.incr.aof seq 1 type i\nfile a.2.incr.aof seq 2 type i\n" {--truncate-to-timestamp 150 a.manifest} \
        plain [list t.aof $ts] "" {t.aof} \
    ] {
        set results {}
        foreach checker [list $tool /usr/bin/redis-check-aof] {
            set dir [file join $base $name-[file tail $checker]]
            file mkdir $dir
            foreach {f bytes} $files { write_bytes [file join $dir $f] $bytes }
            if {$manifest ne ""} { write_bytes [file join $dir a.manifest] $manifest }
            lassign [run_checker $dir $checker {*}$args] status out
            # Usage lines name the program.
            regsub -all {Usage: \S+} $out {Usage: CHECKER} out
            set sizes [lmap {f bytes} $files {file size [file join $dir $f]}]
            lappend results [list $status $out $sizes]
        }
        assert_equal [lindex $results 1] [lindex $results 0] $name
    }
}

test "Damaged files (cut, flipped, inserted, deleted bytes): loaded or refused with exit 1, never a crash" {
    if {![is_keel]} { skip_test "runs keel-check-aof" }
    set dir [aof_tmpdir]
    set tool [file join $dir keel-check-aof]
    file link -symbolic $tool [file normalize $::keel::opt(server)]
    r flushall
    r set a 1
    r rpush l 1 2 3
    r hset h f v
    r save
    file copy [file join [srv dir] dump.rdb] [file join $dir base.rdb]
    set port [::keel::find_free_port]
    set out [exec /usr/bin/python3 [file join $::keel::tests_dir helpers aof_damage.py] \
                 --server $::keel::opt(server) --checker $tool --port $port --dir $dir \
                 --base [file join $dir base.rdb] --seconds 4 2>@1]
    lassign [lindex [split [string trim $out] "\n"] end] ok cases loaded refused
    assert_equal OK $ok $out
    assert_morethan $cases 10
    assert_morethan $refused 0
}
