# RDB snapshots: SAVE + restart and DEBUG RELOAD round trips of every type x encoding x TTL x db;
# the file each rdb-version writes; start-up loading (log lines, expired keys dropped, no
# notifications) and refusal of bad files (exit 1 naming file, offset and reason, never a partial
# dataset); SHUTDOWN and SIGTERM saving; LASTSAVE; FLUSHALL; keel-check-rdb; files exchanged with
# Debian's redis-server 7.0.15 in both directions; the fixtures of tests/assets/rdb (dumps from
# Redis 6.2 to 7.4 and Valkey) loaded and compared with their contents.jsonl.

source [file join $::keel::tests_dir helpers rdb_util.tcl]

# Fills dbs 0, 1 and 15: every type x encoding, without and with a TTL.
proc populate_dbs {{level 0}} {
    foreach {db ttl} {0 0 1 5000000 15 0 15 7000000} {
        r $level select $db
        populate_types "db$db-ttl$ttl:" $ttl $level
    }
    r $level select 0
}

proc dump_path {{level 0}} { return [file join [srv $level dir] dump.rdb] }

# Starts the server binary on a file that must not load: returns {status log}. The log goes to
# standard output (no logfile), and the process must exit by itself.
proc start_expecting_exit {dir file} {
    set port [::keel::find_free_port]
    set out [file join $dir start-out.txt]
    set status 0
    if {[catch {exec timeout 20 $::keel::opt(server) --port $port --bind 127.0.0.1 --dir $dir \
                    --dbfilename $file --save "" > $out 2>@1} msg opts]} {
        set ec [dict get $opts -errorcode]
        set status [expr {[lindex $ec 0] eq "CHILDSTATUS" ? [lindex $ec 2] : $ec}]
    }
    return [list $status [file_bytes $out]]
}

test "SAVE + restart: every type x encoding x TTL x db comes back, encodings too" {
    r flushall
    populate_dbs
    set before [snapshot_of]
    set enc [dataset_encodings]
    assert_equal OK [r save]
    set loads [log_matches "*DB loaded from disk: * seconds*"]
    restart_server
    assert_equal $before [snapshot_of]
    assert_equal $enc [dataset_encodings]
    assert_equal 1 [log_matches "*Done loading RDB, keys loaded: [expr {4 * [llength $::rdb_type_keys] / 2}], keys expired: 0.*"]
    assert_equal [expr {$loads + 1}] [log_matches "*DB loaded from disk: * seconds*"]
    assert_morethan [log_matches "*Loading RDB produced by version*"] 0
    r select 0
    foreach {name want} $::rdb_type_keys {
        if {[is_keel]} { assert_encoding $want db0-ttl0:$name }
    }
}

test "DEBUG RELOAD keeps every key, TTL and encoding" {
    set before [snapshot_of]
    set enc [dataset_encodings]
    assert_equal OK [r debug reload]
    assert_equal $before [snapshot_of]
    assert_equal $enc [dataset_encodings]
    assert_equal OK [r debug keysizes-check]
}

# Every way a dataset leaves and comes back, as one table: SAVE + restart, BGSAVE + restart,
# DEBUG RELOAD and DUMP + RESTORE (ABSTTL, into the same db), each at every rdb-version Keel
# writes, over populate_dbs (every type x encoding, without and with a TTL, dbs 0, 1 and 15):
# the values, TTLs and encodings must be as before, and KEYSIZES consistent.
proc round_trip {path} {
    switch -- $path {
        save {
            assert_equal OK [r save]
            restart_server
        }
        bgsave {
            assert_equal {Background saving started} [r bgsave]
            wait_for_condition 200 50 {[server_info rdb_bgsave_in_progress] eq 0} { fail "BGSAVE did not finish" }
            assert_equal ok [server_info rdb_last_bgsave_status]
            restart_server
        }
        reload { assert_equal OK [r debug reload] }
        dump {
            set saved {}
            foreach db {0 1 15} {
                r select $db
                foreach k [r keys *] { lappend saved $db $k [r dump $k] [r pexpiretime $k] }
            }
            r flushall
            foreach {db k payload at} $saved {
                r select $db
                if {$at == -1} {
                    assert_equal OK [r restore $k 0 $payload]
                } else {
                    assert_equal OK [r restore $k $at $payload absttl]
                }
            }
            r select 0
        }
    }
}

test "Round trips as a table: SAVE, BGSAVE, DEBUG RELOAD, DUMP/RESTORE x rdb-version x type x encoding x TTL x db" {
    set versions [expr {[is_keel] ? {10 11 12} : {default}}]
    set done 0
    foreach version $versions {
        foreach path {save bgsave reload dump} {
            r flushall
            if {$version ne "default"} { r config set rdb-version $version }
            populate_dbs
            set before [snapshot_of]
            set enc [dataset_encodings]
            round_trip $path
            assert_equal $before [snapshot_of] "$path at rdb-version $version"
            assert_equal $enc [dataset_encodings] "$path at rdb-version $version"
            if {[is_keel]} { assert_equal OK [r debug keysizes-check] }
            incr done
        }
    }
    assert_equal [expr {4 * [llength $versions]}] $done
    if {[is_keel]} { r config set rdb-version 11 }
    r flushall
}

test "DEBUG RELOAD NOSAVE, NOFLUSH, MERGE" {
    r flushall
    r set a file-a
    r set b file-b
    r save
    r set a changed
    r set c extra
    assert_equal OK [r debug reload nosave]
    assert_equal {file-a file-b {}} [r mget a b c]
    r set a changed
    r set c extra
    assert_equal OK [r debug reload nosave noflush merge]
    assert_equal {file-a file-b extra} [r mget a b c]
    # Without MERGE a key in both is an error (Redis 7.0 panics here; Keel refuses the load).
    assert_error {ERR Error trying to load the RDB dump, check server logs.} {r debug reload nosave noflush}
    assert_error {ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.} {r debug reload bad}
    file delete [dump_path]
    assert_error {ERR Error trying to load the RDB dump, check server logs.} {r debug reload nosave}
    r flushall
}

test "Loading emits no keyspace notifications" {
    r flushall
    r rpush l a b
    r set s v
    r save
    r config set notify-keyspace-events KEAn
    set rd [redis_deferring_client]
    $rd psubscribe *
    $rd read
    r debug reload nosave noflush merge
    r publish marker done
    assert_equal {pmessage * marker done} [$rd read]
    $rd close
    r config set notify-keyspace-events ""
}

test "Keys already expired are dropped at load" {
    r flushall
    r debug set-active-expire 0
    r set e1 v px 100
    r set e2 v px 100
    r set keep v
    after 200
    r save
    r debug set-active-expire 1
    restart_server
    assert_equal 1 [r dbsize]
    assert_equal 1 [log_matches "*Done loading RDB, keys loaded: 1, keys expired: 2.*"]
}

test "rdb-version 10, 11 and 12 write their header; 11 is the default" {
    if {![is_keel]} { skip_test "rdb-version is Keel's" }
    assert_equal {rdb-version 11} [r config get rdb-version]
    r flushall
    r sadd s a b c
    foreach v {10 11 12} {
        r config set rdb-version $v
        r save
        assert_equal "REDIS00$v" [string range [file_bytes [dump_path]] 0 8]
        r debug reload
        assert_equal {a b c} [lsort [r smembers s]]
        assert_encoding listpack s
    }
    r config set rdb-version 11
    assert_error {*rdb-version*must be between 10 and 12*} {r config set rdb-version 9}
    assert_error {*rdb-version*must be between 10 and 12*} {r config set rdb-version 13}
}

test "rdbcompression: LZF for strings over 20 bytes" {
    r flushall
    r set big [string repeat abc 10000]
    r config set rdbcompression no
    r save
    set plain [file size [dump_path]]
    r config set rdbcompression yes
    r save
    set packed [file size [dump_path]]
    assert {$packed < $plain / 10}
    restart_server
    assert_equal [string repeat abc 10000] [r get big]
}

start_server {overrides {rdbchecksum no}} {
    test "rdbchecksum no: a zero checksum, loaded without a check" {
        assert_error {*can't set immutable config*} {r config set rdbchecksum yes}
        r set k v
        r save
        binary scan [string range [file_bytes [dump_path]] end-7 end] H* tail
        assert_equal 0000000000000000 $tail
        restart_server
        assert_equal v [r get k]
        # A server with rdbchecksum yes loads it too, saying why it did not check.
        file copy -force [dump_path] [dump_path -1]
        restart_server -1
        assert_equal v [r -1 get k]
        assert_equal 1 [log_matches "*RDB file was saved with checksum disabled: no check performed.*" -1]
        r -1 flushall
    }
}

test "A missing dump file: the server starts empty" {
    file delete [dump_path]
    restart_server
    assert_equal 0 [r dbsize]
}

test "A bad file at start-up: exit 1, the file, offset and reason in the log, nothing served" {
    r flushall
    populate_types x:
    r save
    set good [file_bytes [dump_path]]
    set dir [::keel::new_tmpdir]
    set n [string length $good]
    set cases [list \
        truncated.rdb [string range $good 0 [expr {$n / 2}]] {*Unexpected EOF reading RDB file*} \
        badcrc.rdb "[string range $good 0 end-1][binary format c [expr {[scan [string index $good end] %c] ^ 1}]]" {*-> RDB CRC error*} \
        badmagic.rdb "XEDIS[string range $good 5 end]" {*-> Wrong signature trying to load DB from file*} \
        version13.rdb "REDIS0013[string range $good 9 end]" {*-> Can't handle RDB format version 13*} \
        badtype.rdb "[string range $good 0 [expr {$n - 10}]][binary format c 8][string range $good end-8 end]" {*offset*->*} \
    ]
    foreach {name data pattern} $cases {
        write_bytes [file join $dir $name] $data
        lassign [start_expecting_exit $dir $name] status log
        assert_equal 1 $status $name
        assert_match "*Internal error in RDB reading offset * of file $name -> *" $log $name
        assert_match $pattern $log $name
        assert_match "*Fatal error loading the DB, check server logs. Exiting.*" $log $name
        assert_no_match "*Ready to accept connections*" $log $name
    }
    # The offset is where the damage is: a truncated file fails in its last value.
    lassign [start_expecting_exit $dir truncated.rdb] status log
    assert {[regexp {reading offset (\d+) of file truncated.rdb} $log -> off]}
    assert_range $off [expr {$n / 2 - 20000}] [expr {$n / 2 + 1}]
}

test "keel-check-rdb: OK, or the offset and reason of the first error" {
    if {![is_keel]} { skip_test "keel-check-rdb is Keel's" }
    set dir [::keel::new_tmpdir]
    set tool [file join $dir keel-check-rdb]
    file link -symbolic $tool [file normalize $::keel::opt(server)]
    set good [file_bytes [dump_path]]
    write_bytes [file join $dir good.rdb] $good
    set out [exec $tool [file join $dir good.rdb]]
    assert_match "*\\\\o/ RDB looks OK! \\\\o/*" $out
    assert_match "*Checksum OK*" $out
    write_bytes [file join $dir cut.rdb] [string range $good 0 99]
    assert_equal 1 [catch {exec $tool [file join $dir cut.rdb]} out]
    assert_match "*--- RDB ERROR DETECTED ---*\\\[offset *\\\] Unexpected EOF reading RDB file*" $out
    assert_match "*\\\[additional info\\\] While doing: *" $out
    # Debian's redis-check-rdb finds the same file bad.
    assert_equal 1 [catch {exec /usr/bin/redis-check-rdb [file join $dir cut.rdb]} out]
    assert_match "*RDB ERROR DETECTED*" $out
}

test "SHUTDOWN saves when save points exist; NOSAVE does not; SAVE always does" {
    r flushall
    r config set save "3600 1"
    r set k1 v1
    catch {r shutdown}
    assert_equal {exit 0} [wait_server_exit]
    restart_server
    assert_equal v1 [r get k1]
    assert_equal 1 [log_matches "*Saving the final RDB snapshot before exiting.*"]
    r config set save "3600 1"
    r set k2 v2
    catch {r shutdown nosave}
    assert_equal {exit 0} [wait_server_exit]
    restart_server
    assert_equal {v1 {}} [r mget k1 k2]
    r config set save ""
    r set k3 v3
    catch {r shutdown save}
    assert_equal {exit 0} [wait_server_exit]
    restart_server
    assert_equal {v1 {} v3} [r mget k1 k2 k3]
}

test "SIGTERM saves when save points exist, not with save \"\"" {
    r flushall
    r config set save "3600 1"
    r set t1 v1
    exec kill -TERM [srv pid]
    assert_equal {exit 0} [wait_server_exit]
    restart_server
    assert_equal v1 [r get t1]
    r config set save ""
    r set t2 v2
    exec kill -TERM [srv pid]
    assert_equal {exit 0} [wait_server_exit]
    restart_server
    assert_equal {v1 {}} [r mget t1 t2]
}

test "A failing save: SAVE says ERR, SHUTDOWN is cancelled, the old file stays" {
    r flushall
    r set k old
    r save
    set before [file_bytes [dump_path]]
    r set k new
    # The temporary file's name taken by a directory: the save cannot open it.
    set blocker [file join [srv dir] temp-[srv pid].rdb]
    file mkdir $blocker
    assert_error {ERR} {r save}
    assert_equal 1 [log_matches "*Failed opening the temp RDB file temp-[srv pid].rdb*"]
    r config set save "3600 1"
    assert_error {ERR Errors trying to SHUTDOWN. Check logs.} {r shutdown}
    assert_equal PONG [r ping]
    assert_equal $before [file_bytes [dump_path]]
    file delete $blocker
    r config set save ""
}

test "LASTSAVE moves with a successful SAVE" {
    set t [r lastsave]
    assert_range $t [expr {[clock seconds] - 600}] [clock seconds]
    after 1100
    r save
    assert_morethan [r lastsave] $t
    assert_range [r lastsave] [expr {[clock seconds] - 2}] [clock seconds]
}

test "FLUSHALL writes the empty snapshot when save points exist" {
    r set k v
    r save
    r config set save "3600 1"
    r flushall
    r config set save ""
    restart_server
    assert_equal 0 [r dbsize]
    # Without save points the file is left alone.
    r set k v
    r save
    r flushall
    restart_server
    assert_equal v [r get k]
}

test "Function libraries are saved and loaded" {
    r function flush
    r function load "#!lua name=savedlib\nredis.register_function('savedfn', function() return 'yes' end)"
    r save
    restart_server
    assert_equal yes [r fcall savedfn 0]
    assert_equal OK [r debug reload]
    assert_equal yes [r fcall savedfn 0]
    r function flush
}

start_server {binary /usr/bin/redis-server tags {cross-server}} {
    test "Keel loads a dump redis-server 7.0.15 wrote, every key identical" {
        if {![is_keel -1]} { skip_test "needs Keel as the outer server" }
        r flushall
        populate_dbs
        r function load "#!lua name=r7lib\nredis.register_function('r7fn', function() return 7 end)"
        r save
        set want [snapshot_of]
        file copy -force [dump_path] [dump_path -1]
        restart_server -1
        assert_equal $want [snapshot_of -1]
        assert_equal 7 [r -1 fcall r7fn 0]
        r -1 select 1
        foreach {name enc} $::rdb_type_keys {
            assert_equal $enc [r -1 object encoding db1-ttl5000000:$name] $name
        }
        r -1 select 0
        assert_equal OK [r -1 debug keysizes-check]
    }

    test "redis-server 7.0.15 loads Keel's version-10 dump, every key identical; redis-check-rdb accepts it" {
        if {![is_keel -1]} { skip_test "needs Keel as the outer server" }
        r -1 flushall
        r -1 function flush
        r -1 config set list-compress-depth 1
        populate_dbs -1
        r -1 config set list-compress-depth 0
        r -1 function load "#!lua name=keellib\nredis.register_function('keelfn', function() return 'k' end)"
        r -1 config set rdb-version 10
        r -1 save
        r -1 config set rdb-version 11
        set want [snapshot_of -1]
        set out [exec /usr/bin/redis-check-rdb [dump_path -1]]
        assert_match "*\\\\o/ RDB looks OK! \\\\o/*" $out
        file copy -force [dump_path -1] [dump_path]
        restart_server
        assert_equal $want [snapshot_of]
        assert_equal k [r fcall keelfn 0]
        # A version-11 file is beyond Redis 7.0.
        r -1 save
        set dir [::keel::new_tmpdir]
        file copy [dump_path -1] [file join $dir v11.rdb]
        set port [::keel::find_free_port]
        assert_equal 1 [catch {exec timeout 10 /usr/bin/redis-server --port $port --bind 127.0.0.1 \
                                   --dir $dir --dbfilename v11.rdb --save "" 2>@1} out]
        assert_match "*Can't handle RDB format version 11*" $out
        r -1 function flush
    }
}

test "Every fixture dump loads and matches its contents.jsonl, and its DUMP payloads restore" {
    set root [file join $::keel::tests_dir assets rdb]
    set checked 0
    foreach server {redis-6.2.9 redis-7.0.15 redis-7.2.6 redis-7.4.1 valkey-8.1-dev} {
        r function flush
        file copy -force [file join $root $server dump.rdb] [dump_path]
        restart_server
        set out [python_client_script rdb_contents.py check [file join $root $server contents.jsonl] --restore]
        assert_equal "ok 34 keys" [string trim $out] $server
        incr checked
    }
    assert_equal 5 $checked
    r flushall
    r function flush
}
