# Crash safety of the AOF: tests/helpers/aof_crash.py writes acknowledged SET / INCR / LPUSH /
# HSET / ZADD / EXPIRE / MULTI / EVAL traffic, kills the server with SIGKILL at random moments,
# restarts it and checks that the dataset is exactly a prefix of the operations containing every
# acknowledged one (appendfsync always: 0 lost at every kill; everysec: only what was
# acknowledged in the last 2 s may be missing), also with kills while a rewrite runs. Then the
# files Keel wrote are loaded by Debian's redis-server 7.0, which must give the same dataset.
# Bounded: about 20-40 s on a quiet machine.

source [file join $::keel::tests_dir helpers rdb_util.tcl]

# One scratch directory for the file (not ::keel::new_tmpdir: while a server runs, that returns
# and empties the running server's dir), with a subdirectory per run.
set ::crash_base [file join $::keel::tests_dir tmp aof-crash-[pid]]
file delete -force $::crash_base
lappend ::keel::tmpdirs $::crash_base
proc crash_dir {name} {
    set d [file join $::crash_base $name]
    file mkdir $d
    return $d
}

proc crash_run {dir args} {
    set port [::keel::find_free_port]
    set out [exec /usr/bin/python3 [file join $::keel::tests_dir helpers aof_crash.py] \
                 --server $::keel::opt(server) --port $port --dir $dir {*}$args 2>@1]
    return $out
}

# The last line of the helper: OK <rounds> <operations> <acknowledged writes lost>.
proc crash_summary {out} {
    set last [lindex [split [string trim $out] "\n"] end]
    if {![string match "OK *" $last]} { fail "crash run failed:\n$out" }
    return [lrange $last 1 end]
}

test "appendfsync always: 20 kills with SIGKILL, no acknowledged write lost" {
    set dir [crash_dir always]
    set ::crash_dir $dir
    set rdbv [expr {[is_keel] ? {--rdb-version 10} : {}}]
    lassign [crash_summary [crash_run $dir --fsync always --rounds 20 {*}$rdbv]] rounds ops lost
    assert_equal 20 $rounds
    assert_morethan $ops 100
    assert_equal 0 $lost
}

# A reply leaves after its write reached the kernel, so a process kill loses nothing, except
# what waits while a background fsync is slow: Redis (and Keel) then answer and hold the write for
# up to 2 s. So only writes acknowledged in the last 2.5 s before the kill may be missing.
test "appendfsync everysec: kills lose at most the last 2 seconds" {
    set dir [crash_dir everysec]
    lassign [crash_summary [crash_run $dir --fsync everysec --rounds 6 --allow-loss-sec 2.5]] rounds ops lost
    assert_equal 6 $rounds
}

test "Kills while a rewrite runs lose nothing with always (everysec: the last 2 s at most)" {
    set dir [crash_dir rewrite-always]
    lassign [crash_summary [crash_run $dir --fsync always --rounds 8 --rewrite]] rounds ops lost
    assert_equal 8 $rounds
    assert_equal 0 $lost
    set dir [crash_dir rewrite-everysec]
    lassign [crash_summary [crash_run $dir --fsync everysec --rounds 8 --rewrite --allow-loss-sec 2.5]] rounds ops lost
    assert_equal 8 $rounds
}

test "The AOF written through the kills loads in Debian's redis-server 7.0 with the same keys" {
    if {![is_keel]} { skip_test "compares Keel's files with redis-server" }
    set copy [crash_dir redis]
    file copy [file join $::crash_dir appendonlydir] $copy
    start_server [list overrides [list dir $::crash_dir appendonly yes]] {
        set keel [dataset_snapshot]
        assert_morethan [r dbsize] 10
    }
    start_server [list binary [reference_server_binary] overrides [list dir $copy appendonly yes]] {
        assert_equal $keel [dataset_snapshot]
    }
}
