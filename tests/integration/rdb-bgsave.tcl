# BGSAVE: the forked child and its file (round trip, a point-in-time snapshot while writes go on,
# keys expiring under it), BGSAVE SCHEDULE, save points fired by the cron (and the 5 s retry
# delay after a failure), INFO persistence and the fork fields of INFO stats, and the failure
# paths: a directory the child cannot write, a rename target that is a directory, the child
# killed, FLUSHALL and SHUTDOWN ending the child, the server killed (kill -9) mid-BGSAVE and mid-SAVE. Every reply and
# error text was first read from Debian's redis-server 7.0.15 (this file runs against it too:
# tclsh tests/runtest --server /usr/bin/redis-server --single integration/rdb-bgsave; the few
# Keel-only checks say so).

source [file join $::keel::tests_dir helpers rdb_util.tcl]

proc dump_path {{level 0}} { return [file join [srv $level dir] dump.rdb] }

# The saving child of the server at `level` (its only child), or "".
proc bgsave_child {{level 0}} {
    if {[catch {exec pgrep -P [srv $level pid]} out]} { return "" }
    return [lindex $out 0]
}

# Whether pid is a live process (a zombie waiting for its reaper counts as gone).
proc process_running {pid} {
    if {[catch {open /proc/$pid/stat r} f]} { return 0 }
    set stat [read $f]
    close $f
    return [expr {![string match "* Z *" [string range $stat [string last ")" $stat] end]]}]
}

proc wait_bgsave_running {{level 0}} {
    wait_for_condition 100 20 {[bgsave_child $level] ne ""} { fail "no BGSAVE child" }
}

proc wait_bgsave_done {{level 0}} {
    wait_for_condition 400 50 {[server_info rdb_bgsave_in_progress $level] eq 0} {
        fail "BGSAVE did not finish"
    }
}

proc temp_files {{level 0}} { return [glob -nocomplain -directory [srv $level dir] temp-*.rdb] }

# The persistence section's field names, in order.
proc persistence_fields {} {
    set names {}
    foreach l [split [r info persistence] "\n"] {
        if {[regexp {^([a-z_0-9]+):} $l -> name]} { lappend names $name }
    }
    return $names
}

# Makes `dir` unwritable for the server and returns the script that undoes it, or "" when this
# machine cannot. Permission bits stop a normal user; root ignores them, so then the immutable
# attribute (chattr +i, which binds root too) is tried.
proc make_unwritable {dir} {
    set probe [file join $dir probe]
    file attributes $dir -permissions 0555
    if {[catch {close [open $probe w]}]} { return [list file attributes $dir -permissions 0755] }
    file delete $probe
    file attributes $dir -permissions 0755
    if {[catch {exec chattr +i $dir}]} { return "" }
    if {[catch {close [open $probe w]}]} { return [list exec chattr -i $dir] }
    file delete $probe
    exec chattr -i $dir
    return ""
}

set ::misconf_err "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error."

start_server {overrides {enable-protected-configs yes}} {

test "BGSAVE: replies, log lines, and the file it writes comes back after a restart" {
    r flushall
    foreach {db ttl} {0 0 1 5000000 15 0} {
        r select $db
        populate_types "db$db-ttl$ttl:" $ttl
    }
    r select 0
    set before [dataset_snapshot]
    set forks [server_info total_forks]
    set lastsave [r lastsave]
    after 1100
    assert_equal {Background saving started} [r bgsave]
    wait_bgsave_done
    assert_equal ok [server_info rdb_last_bgsave_status]
    assert_equal 0 [server_info rdb_changes_since_last_save]
    assert_morethan [r lastsave] $lastsave
    assert_equal [expr {$forks + 1}] [server_info total_forks]
    assert_morethan [server_info latest_fork_usec] 0
    assert_equal 1 [log_matches "*:M * Background saving started by pid *"]
    assert_equal 1 [log_matches "*:C * DB saved on disk"]
    assert_equal 1 [log_matches "*:C * Fork CoW for RDB: current * MB, peak * MB, average * MB"]
    assert_equal 1 [log_matches "*:M * Background saving terminated with success"]
    assert_equal {} [temp_files]
    restart_server
    assert_equal $before [dataset_snapshot]
    if {[is_keel]} { assert_equal OK [r debug keysizes-check] }
}

test "BGSAVE while a child runs: already in progress (SCHEDULE too); SAVE refused; syntax" {
    r flushall
    r debug populate 2000
    r config set rdb-key-save-delay 1000
    assert_equal {Background saving started} [r bgsave]
    assert_error {ERR Background save already in progress} {r bgsave}
    assert_error {ERR Background save already in progress} {r bgsave schedule}
    assert_error {ERR Background save already in progress} {r save}
    r multi
    r bgsave
    assert_equal {{ERR Background save already in progress}} [r exec]
    assert_error {ERR syntax error} {r bgsave now}
    assert_error {ERR syntax error} {r bgsave schedule x}
    assert_equal 1 [server_info rdb_bgsave_in_progress]
    r config set rdb-key-save-delay 0
    # Ends the child (SIGUSR1: not an error).
    r flushall
    wait_bgsave_done
    assert_equal ok [server_info rdb_last_bgsave_status]
    # With no child, SCHEDULE starts at once (Keel has no AOF rewrite to wait for).
    assert_equal {Background saving started} [r bgsave schedule]
    wait_bgsave_done
    assert_equal ok [server_info rdb_last_bgsave_status]
}

test "BGSAVE inside MULTI is scheduled; the cron starts it" {
    r flushall
    r set k v
    set forks [server_info total_forks]
    r multi
    r bgsave
    assert_equal {{Background saving scheduled}} [r exec]
    wait_for_condition 100 50 {[server_info total_forks] > $forks} { fail "scheduled BGSAVE never ran" }
    wait_bgsave_done
    assert_equal 0 [server_info rdb_changes_since_last_save]
    r debug reload nosave
    assert_equal v [r get k]
}

test "FLUSHALL ends a running BGSAVE without an error; its temp file goes" {
    r flushall
    r debug populate 3000
    r config set rdb-key-save-delay 1000
    r bgsave
    wait_bgsave_running
    wait_for_condition 100 20 {[llength [temp_files]] == 1} { fail "no temp file" }
    set usr1 [log_matches "*Received SIGUSR1 in child, exiting now.*"]
    set sig10 [log_matches "*Background saving terminated by signal 10*"]
    r flushall
    wait_bgsave_done
    r config set rdb-key-save-delay 0
    assert_equal ok [server_info rdb_last_bgsave_status]
    assert_equal [incr usr1] [log_matches "*Received SIGUSR1 in child, exiting now.*"]
    assert_equal [incr sig10] [log_matches "*Background saving terminated by signal 10*"]
    assert_equal {} [temp_files]
}

test "The dump is the point in time of the fork while writes go on" {
    r flushall
    r debug populate 3000
    set forks [server_info total_forks]
    r config set rdb-key-save-delay 1000
    r bgsave
    wait_bgsave_running
    # Change 1000 keys, delete 1000, add 1000 while the child writes (pipelined).
    set rd [redis_deferring_client]
    for {set i 0} {$i < 1000} {incr i} {
        $rd set key:$i changed
        $rd del key:[expr {1000 + $i}]
        $rd set new:$i x
    }
    for {set i 0} {$i < 3000} {incr i} { $rd read }
    $rd close
    assert_equal 1 [server_info rdb_bgsave_in_progress] "the child ended before the writes did"
    # The copy-on-write those writes caused shows up while the child runs.
    wait_for_condition 100 50 {[server_info current_cow_peak] > 0} { fail "no copy-on-write reported" }
    r config set rdb-key-save-delay 0
    wait_bgsave_done
    assert_equal ok [server_info rdb_last_bgsave_status]
    assert_equal [expr {$forks + 1}] [server_info total_forks]
    # The changes made while the child ran are not in the file.
    assert_equal 3000 [server_info rdb_changes_since_last_save]
    assert_morethan [server_info rdb_last_cow_size] 0
    r debug reload nosave
    assert_equal 3000 [r dbsize]
    assert_equal {value:0 value:999 value:1000 value:1999 value:2999} [r mget key:0 key:999 key:1000 key:1999 key:2999]
    assert_equal 0 [r exists new:0 new:999]
}

test "SET and APPEND while a child runs: values, TTLs, encodings and KEYSIZES as without one" {
    r flushall
    # 2000 keys at 1 ms each keep the child running for 2 s.
    r debug populate 2000
    r set s1 abc
    r set s2 abc px 1000000
    r set s3 abc px 1000000
    r set n1 12345
    r set big [string repeat x 100]
    r config set rdb-key-save-delay 1000
    r bgsave
    wait_bgsave_running
    r set s1 xyz
    r set s2 xyz
    r set s3 xyz keepttl
    r set n1 54321
    r set big [string repeat y 100]
    r append s1 !
    r set s4 new
    assert_equal 1 [server_info rdb_bgsave_in_progress] "the child ended before the writes did"
    assert_equal {xyz! xyz xyz 54321 new} [r mget s1 s2 s3 n1 s4]
    assert_equal [string repeat y 100] [r get big]
    assert_equal -1 [r ttl s2]
    assert_morethan [r ttl s3] 900
    assert_equal {raw embstr embstr int raw} [lmap k {s1 s2 s3 n1 big} {r object encoding $k}]
    assert_equal OK [r debug keysizes-check]
    r config set rdb-key-save-delay 0
    wait_bgsave_done
    assert_equal ok [server_info rdb_last_bgsave_status]
    # The dump has the values of the fork's time; the next one has the new values.
    r debug reload
    assert_equal {xyz! xyz xyz 54321 new} [r mget s1 s2 s3 n1 s4]
    assert_morethan [r ttl s3] 900
}

test "A dump written while keys expire: they are in the file, dropped at load" {
    r flushall
    r debug populate 2000 keep
    for {set i 0} {$i < 1000} {incr i} { r set vol:$i v px 300 }
    r config set rdb-key-save-delay 700
    r bgsave
    wait_bgsave_running
    # Active expiry deletes them in the parent while the child still writes its copy.
    wait_for_condition 100 50 {[r dbsize] == 2000} { fail "keys did not expire" }
    assert_equal 1 [server_info rdb_bgsave_in_progress]
    r config set rdb-key-save-delay 0
    wait_bgsave_done
    assert_equal ok [server_info rdb_last_bgsave_status]
    r debug reload nosave
    assert_equal 2000 [r dbsize]
    # The file holds the 1000 volatile keys: the loader counted them as expired.
    assert_equal 2000 [server_info rdb_last_load_keys_loaded]
    assert_equal 1000 [server_info rdb_last_load_keys_expired]
    assert_equal value:7 [r get keep:7]
    if {[is_keel]} {
        assert_equal 1 [log_matches "*Done loading RDB, keys loaded: 2000, keys expired: 1000.*"]
        set tool [file join [srv dir] keel-check-rdb]
        file link -symbolic $tool [file normalize $::keel::opt(server)]
        assert_match "*RDB looks OK!*" [exec $tool [dump_path]]
    }
}

test "INFO persistence: Redis's fields in its order, and their values around a BGSAVE" {
    assert_equal [join {loading async_loading current_cow_peak current_cow_size current_cow_size_age
        current_fork_perc current_save_keys_processed current_save_keys_total
        rdb_changes_since_last_save rdb_bgsave_in_progress rdb_last_save_time
        rdb_last_bgsave_status rdb_last_bgsave_time_sec rdb_current_bgsave_time_sec rdb_saves
        rdb_last_cow_size rdb_last_load_keys_expired rdb_last_load_keys_loaded aof_enabled
        aof_rewrite_in_progress aof_rewrite_scheduled aof_last_rewrite_time_sec
        aof_current_rewrite_time_sec aof_last_bgrewrite_status aof_rewrites
        aof_rewrites_consecutive_failures aof_last_write_status aof_last_cow_size
        module_fork_in_progress module_fork_last_cow_size}] [persistence_fields]
    r flushall
    r debug populate 3000
    set saves [server_info rdb_saves]
    r config set rdb-key-save-delay 1000
    r bgsave
    wait_bgsave_running
    assert_equal [expr {$saves + 1}] [server_info rdb_saves]
    assert_equal 1 [server_info rdb_bgsave_in_progress]
    assert_equal 3000 [server_info current_save_keys_total]
    assert_range [server_info rdb_current_bgsave_time_sec] 0 5
    # Progress arrives through the child-info pipe at most once a second.
    wait_for_condition 100 50 {[server_info current_save_keys_processed] > 1} { fail "no progress" }
    set perc [server_info current_fork_perc]
    assert {$perc > 0 && $perc < 100}
    assert_match {*.??} $perc
    r config set rdb-key-save-delay 0
    wait_bgsave_done
    set d [info_dict [r info persistence]]
    foreach {f v} {current_cow_peak 0 current_cow_size 0 current_cow_size_age 0
                   current_fork_perc 0.00 current_save_keys_processed 0 current_save_keys_total 0
                   rdb_bgsave_in_progress 0 rdb_current_bgsave_time_sec -1 rdb_last_bgsave_status ok
                   aof_enabled 0 aof_last_cow_size 0 module_fork_in_progress 0} {
        assert_equal $v [dict get $d $f] $f
    }
    assert_range [dict get $d rdb_last_bgsave_time_sec] 0 10
    # SAVE counts in rdb_saves; the saves of FLUSHALL, DEBUG RELOAD and SHUTDOWN do not.
    r save
    assert_equal [expr {$saves + 2}] [server_info rdb_saves]
    r debug reload
    assert_equal [expr {$saves + 2}] [server_info rdb_saves]
}

test "rdb-key-save-delay is a hidden directive: only its exact name finds it" {
    assert_equal {} [r config get rdb-key-*]
    assert_equal {rdb-key-save-delay 0} [r config get rdb-key-save-delay]
}

test "A child killed with SIGKILL: status err, the previous dump intact, MISCONF, recovery" {
    r flushall
    r config set save "3600 1"
    r set good 1
    r save
    set before [file_bytes [dump_path]]
    r debug populate 3000
    r config set rdb-key-save-delay 1000
    r bgsave
    wait_bgsave_running
    wait_for_condition 100 20 {[llength [temp_files]] == 1} { fail "no temp file" }
    exec kill -9 [bgsave_child]
    wait_bgsave_done
    r config set rdb-key-save-delay 0
    assert_equal err [server_info rdb_last_bgsave_status]
    assert_equal 1 [log_matches "*Background saving terminated by signal 9*"]
    assert_equal {} [temp_files]
    assert_equal $before [file_bytes [dump_path]]
    # Writes and PING are refused, reads and admin commands are not.
    assert_error $::misconf_err {r set k v}
    assert_error $::misconf_err {r ping}
    assert_error $::misconf_err {r del good}
    assert_error $::misconf_err {r flushall}
    assert_equal 1 [r get good]
    assert_equal hi [r echo hi]
    assert_equal 3001 [r dbsize]
    # Inside MULTI the write is refused when queued and EXEC aborts.
    r multi
    assert_error $::misconf_err {r set k v}
    assert_error {EXECABORT Transaction discarded because of previous errors.} {r exec}
    # A script's write fails; its PING and reads do not.
    assert_error "$::misconf_err*" {r eval {return redis.call('set','k','v')} 0}
    assert_equal PONG [r eval {return redis.call('ping')} 0]
    assert_equal 1 [r eval {return redis.call('get','good')} 0]
    # stop-writes-on-bgsave-error no, or no save points: writes are allowed.
    r config set stop-writes-on-bgsave-error no
    assert_equal OK [r set k v]
    r config set stop-writes-on-bgsave-error yes
    assert_error $::misconf_err {r set k v}
    r config set save ""
    assert_equal OK [r set k v]
    r config set save "3600 1"
    assert_error $::misconf_err {r set k v}
    # A successful BGSAVE clears it.
    assert_equal {Background saving started} [r bgsave]
    wait_bgsave_done
    assert_equal ok [server_info rdb_last_bgsave_status]
    assert_equal OK [r set k v]
    assert_equal PONG [r ping]
    r config set save ""
}

# Redis's evalGetCommandFlags / fcallGetCommandFlags: a function, or a script with a shebang, is
# admitted as a write command unless it declares no-writes, so MISCONF refuses it before it runs
# (no "script: ..." suffix) and, inside MULTI, before it is queued. Read from redis-server 7.0.15.
test "MISCONF refuses functions and shebang scripts that may write at admission" {
    r flushall
    r function flush
    r config set save "3600 1"
    r set k 1
    r function load "#!lua name=m
redis.register_function('w', function() return redis.call('set','k','v') end)
redis.register_function('nw', function() return redis.call('get','k') end)
redis.register_function{function_name='ro', callback=function() return redis.call('get','k') end, flags={'no-writes'}}
redis.register_function{function_name='ro_w', callback=function() return redis.call('set','k','v') end, flags={'no-writes'}}"
    r save
    # Transactions queued before the failure: EXEC is refused when a write (here a SET, or a
    # function that may write) is queued, and runs when only reads are.
    set tw [redis_client]
    set tr [redis_client]
    $tw multi
    $tw set a 1
    $tw fcall w 0
    $tr multi
    $tr get k
    $tr fcall ro 0
    r debug populate 3000
    r config set rdb-key-save-delay 1000
    r bgsave
    wait_bgsave_running
    exec kill -9 [bgsave_child]
    wait_bgsave_done
    r config set rdb-key-save-delay 0
    assert_equal err [server_info rdb_last_bgsave_status]
    assert_error "EXECABORT Transaction discarded because of: [string range $::misconf_err 0 50]*" {$tw exec}
    assert_equal {1 1} [$tr exec]
    assert_equal {} [r get a]
    $tw close
    $tr close
    # Without no-writes a function is a write, even one that only reads; before numkeys is read.
    assert_error $::misconf_err {r fcall w 0}
    assert_error $::misconf_err {r fcall nw 0}
    assert_error $::misconf_err {r fcall w notanumber}
    assert_equal 1 [r fcall ro 0]
    assert_equal 1 [r fcall_ro ro 0]
    assert_error {ERR Write commands are not allowed from read-only scripts. script: ro_w, on @user_function:5.} {r fcall ro_w 0}
    assert_error {ERR Function not found} {r fcall nosuch 0}
    assert_error $::misconf_err {r eval "#!lua\nreturn redis.call('get','k')" 0}
    assert_equal 1 [r eval "#!lua flags=no-writes\nreturn redis.call('get','k')" 0]
    assert_equal 1 [r eval "return redis.call('get','k')" 0]
    set sha [r script load "#!lua\nreturn 2"]
    assert_error $::misconf_err {r evalsha $sha 0}
    r multi
    assert_error $::misconf_err {r fcall w 0}
    assert_equal QUEUED [r fcall ro 0]
    assert_error {EXECABORT Transaction discarded because of previous errors.} {r exec}
    assert_equal {Background saving started} [r bgsave]
    wait_bgsave_done
    assert_equal OK [r fcall w 0]
    r config set save ""
    r function flush
}

test "A rename target that is a directory: Error moving temp DB file, err, no temp file left" {
    r flushall
    r config set save "3600 1"
    r set k v
    file mkdir [file join [srv dir] dumpdir sub]
    r config set dbfilename dumpdir
    r bgsave
    wait_bgsave_done
    assert_equal err [server_info rdb_last_bgsave_status]
    assert_equal 1 [log_matches "*:C * Error moving temp DB file temp-*.rdb on the final destination dumpdir (in server root dir *): *"]
    assert_equal 1 [log_matches "*:M * Background saving error"]
    assert_equal {} [temp_files]
    assert_error $::misconf_err {r set k v}
    # A successful SAVE clears the error too (and is not refused by it).
    r config set dbfilename dump.rdb
    assert_equal OK [r save]
    assert_equal ok [server_info rdb_last_bgsave_status]
    assert_equal OK [r set k v2]
    r config set save ""
}

test "A directory the child cannot write: err, the old dump intact, MISCONF until a save succeeds" {
    set dir [file join [srv dir] locked]
    file mkdir $dir
    r config set dir $dir
    r flushall
    r config set save "3600 1"
    r set k old
    r save
    set before [file_bytes [file join $dir dump.rdb]]
    r set k new
    set undo [make_unwritable $dir]
    if {$undo eq ""} {
        r config set dir [srv dir]
        r config set save ""
        skip_test "cannot make a directory unwritable here"
    }
    set errors [log_matches "*:M * Background saving error"]
    try {
        assert_equal {Background saving started} [r bgsave]
        wait_bgsave_done
        assert_equal err [server_info rdb_last_bgsave_status]
        assert_equal 1 [log_matches "*:C * Failed opening the temp RDB file temp-*.rdb (in server root dir $dir) for saving: *"]
        assert_equal [incr errors] [log_matches "*:M * Background saving error"]
        assert_equal $before [file_bytes [file join $dir dump.rdb]]
        assert_error $::misconf_err {r set k x}
        assert_equal new [r get k]
        # A failing SAVE answers a bare ERR and leaves the status as it was.
        assert_error {ERR} {r save}
        assert_equal err [server_info rdb_last_bgsave_status]
    } finally {
        eval $undo
    }
    assert_equal OK [r save]
    assert_equal ok [server_info rdb_last_bgsave_status]
    assert_equal OK [r set k x]
    r config set dir [srv dir]
    r config set save ""
}

test "Save points fire from the cron; after a failure the next try waits 5 seconds" {
    r flushall
    r config set save "100 1"
    r set k v
    after 1500
    # 100 seconds have not passed since the last save.
    assert_equal 0 [log_matches "*changes in * seconds. Saving...*"]
    set forks [server_info total_forks]
    r config set save "1 1"
    wait_for_condition 60 50 {[server_info total_forks] > $forks} { fail "the save point never fired" }
    wait_bgsave_done
    assert_equal 1 [log_matches "*:M * 1 changes in 1 seconds. Saving...*"]
    assert_equal 0 [server_info rdb_changes_since_last_save]
    assert_equal ok [server_info rdb_last_bgsave_status]
    # Fails: the rename target is a directory.
    file mkdir [file join [srv dir] pointdir sub]
    r config set dbfilename pointdir
    r set k v2
    wait_for_condition 60 50 {[log_matches "*1 changes in 1 seconds. Saving...*"] == 2} { fail "no second save" }
    wait_bgsave_done
    assert_equal err [server_info rdb_last_bgsave_status]
    set failed_at [clock milliseconds]
    # Writes are refused now; the change count stays, and nothing retries for 5 seconds.
    after 3500
    assert_equal 2 [log_matches "*1 changes in 1 seconds. Saving...*"]
    r config set dbfilename dump.rdb
    wait_for_condition 60 100 {[log_matches "*1 changes in 1 seconds. Saving...*"] == 3} { fail "no retry" }
    assert_morethan [expr {[clock milliseconds] - $failed_at}] 4000
    wait_bgsave_done
    assert_equal ok [server_info rdb_last_bgsave_status]
    r config set save ""
    r debug reload nosave
    assert_equal v2 [r get k]
}

}

start_server {overrides {save {3600 1}}} {
    test "SHUTDOWN during a BGSAVE ends the child, then writes the final snapshot" {
        r debug populate 3000
        r config set rdb-key-save-delay 1000
        r bgsave
        wait_bgsave_running
        set child [bgsave_child]
        r config set rdb-key-save-delay 0
        catch {r shutdown}
        assert_equal {exit 0} [wait_server_exit]
        assert_equal 1 [log_matches "*There is a child saving an .rdb. Killing it!*"]
        assert_equal 1 [log_matches "*Saving the final RDB snapshot before exiting.*"]
        wait_for_condition 100 50 {![process_running $child]} { fail "the child lives on" }
        assert_equal {} [temp_files]
        restart_server
        assert_equal 3000 [r dbsize]
    }
}

start_server {overrides {save {3600 1}}} {
    test "kill -9 of the server during BGSAVE: the port is free, the last good dump loads" {
        r debug populate 1000 good
        r save
        set before [file_bytes [dump_path]]
        r debug populate 5000 more
        # 2 ms a key: the child's second report to its parent (key 1025) is 2 s away.
        r config set rdb-key-save-delay 2000
        r bgsave
        wait_bgsave_running
        set child [bgsave_child]
        # The new server binds the same port although the child still runs: the child closed
        # its copy of the listening socket.
        restart_server -kill
        assert [process_running $child]
        assert_equal 1000 [r dbsize]
        assert_equal value:7 [r get good:7]
        # The orphan notices at its next report to the parent and exits. Keel's child removes
        # its temp file then (Redis's leaves it behind; neither server ever loads one).
        wait_for_condition 100 100 {![process_running $child]} { fail "the orphaned child lives on" }
        if {[is_keel]} { assert_equal {} [temp_files] }
        assert_equal $before [file_bytes [dump_path]]
        restart_server
        assert_equal 1000 [r dbsize]
    }
}

start_server {} {
    test "kill -9 of the server during a foreground SAVE: the old dump intact and loaded, the temp file never" {
        r debug populate 1000 good
        r save
        set before [file_bytes [dump_path]]
        r flushall
        r debug populate 3000 more
        # 1 ms a key: the SAVE takes 3 s, and the server answers nothing meanwhile.
        r config set rdb-key-save-delay 1000
        set rd [redis_deferring_client]
        $rd save
        wait_for_condition 100 20 {[llength [temp_files]] == 1} { fail "no temp file" }
        set temp [lindex [temp_files] 0]
        assert_equal [file tail $temp] "temp-[srv pid].rdb"
        restart_server -kill
        catch {$rd close}
        # The half-written temp file is left behind (by Redis too) and ignored: the server
        # loads dbfilename only.
        assert [file exists $temp]
        assert_equal $before [file_bytes [dump_path]]
        assert_equal 1000 [r dbsize]
        assert_equal value:7 [r get good:7]
        assert_equal 0 [r exists more:7]
        # The next SAVE writes its own temp file (another pid) and leaves the orphan alone.
        r set after 1
        assert_equal OK [r save]
        assert [file exists $temp]
        restart_server
        assert_equal 1001 [r dbsize]
        file delete $temp
    }
}
