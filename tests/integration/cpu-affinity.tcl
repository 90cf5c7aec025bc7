# server_cpulist, bio_cpulist, bgsave_cpulist, aof_rewrite_cpulist (Redis 6.0+ directives,
# immutable): the main thread, the background threads (lazyfree, AOF fsync) and the fork
# children run on the CPUs their list names. Checked through /proc/<pid>/task/<tid>/status
# (Cpus_allowed_list); the machine needs two CPUs, 0 and 1. Names, defaults and the CONFIG SET
# refusal read from redis-server 7.0.15.

proc cpus_allowed {pid {tid ""}} {
    if {$tid eq ""} { set tid $pid }
    set f [open /proc/$pid/task/$tid/status r]
    set text [read $f]
    close $f
    regexp {Cpus_allowed_list:\s*(\S+)} $text -> list
    return $list
}

proc fill_big_set {} {
    set members {}
    for {set i 0} {$i < 1000} {incr i} { lappend members $i }
    r sadd big {*}$members
}

# The first child process of `pid`, or "" while there is none.
proc child_of {pid} {
    if {[catch {exec pgrep -P $pid} kids]} { return "" }
    return [lindex $kids 0]
}

# The thread of the server named `name` (its comm; Redis 7.0 calls it bio_lazy_free), or ""
# while there is none.
proc thread_named {pid name} {
    foreach tid [glob -nocomplain -tails -directory /proc/$pid/task *] {
        if {[catch {open /proc/$pid/task/$tid/comm r} f]} continue
        set comm [string trim [read $f]]
        close $f
        if {$comm eq $name || ($name eq "lazyfree" && $comm eq "bio_lazy_free")} { return $tid }
    }
    return ""
}

test "The cpulist directives: empty by default, immutable" {
    foreach name {server_cpulist bio_cpulist aof_rewrite_cpulist bgsave_cpulist} {
        assert_equal [list $name ""] [r config get $name]
        assert_error "*can't set immutable config*" {r config set $name 0}
    }
}

set ncpu [llength [glob -nocomplain -directory /sys/devices/system/cpu -types d {cpu[0-9]*}]]
if {$ncpu < 2} {
    test "cpulists applied (needs two CPUs)" { skip_test "one CPU" }
} else {
start_server {overrides {server_cpulist 0 bio_cpulist 1 bgsave_cpulist 1 aof_rewrite_cpulist 0-1:1
                         lazyfree-lazy-user-del yes}} {
    test "server_cpulist binds the main thread, bio_cpulist the lazyfree thread" {
        set pid [srv pid]
        assert_equal 0 [cpus_allowed $pid]
        # A big value freed by DEL (lazyfree-lazy-user-del) starts the lazyfree thread.
        fill_big_set
        r del big
        wait_for_condition 100 20 {[thread_named $pid lazyfree] ne ""}
        assert_equal 1 [cpus_allowed $pid [thread_named $pid lazyfree]]
        assert_equal {server_cpulist 0} [r config get server_cpulist]
    }

    test "bio_cpulist binds jemalloc's purge thread too (Keel)" {
        # Redis leaves it where it started (on the main thread's CPUs); the ASan build has no
        # jemalloc.
        set tid [thread_named [srv pid] jemalloc_bg_thd]
        if {![is_keel] || $tid eq ""} { skip_test "no jemalloc purge thread" }
        assert_equal 1 [cpus_allowed [srv pid] $tid]
    }

    test "bgsave_cpulist binds the BGSAVE child" {
        r debug populate 1000
        r config set rdb-key-save-delay 2000
        r bgsave
        set kid ""
        wait_for_condition 100 20 {[set kid [child_of [srv pid]]] ne ""}
        # The child binds itself right after the fork.
        wait_for_condition 100 10 {[cpus_allowed $kid] eq "1"} {
            fail "child $kid runs on [cpus_allowed $kid]"
        }
        r config set rdb-key-save-delay 0
        wait_for_condition 500 20 {[server_info rdb_bgsave_in_progress] eq 0}
    }
}

start_server {overrides {bio_cpulist 0-1:9x}} {
    test "A malformed cpulist is logged and the thread runs unbound" {
        if {![is_keel]} { skip_test "Keel's log line" }
        r config set lazyfree-lazy-user-del yes
        fill_big_set
        r del big
        wait_for_condition 100 20 {[log_matches "*bio_cpulist '0-1:9x' is not a valid CPU list*"] > 0}
        set tid ""
        wait_for_condition 100 20 {[set tid [thread_named [srv pid] lazyfree]] ne ""}
        assert_equal [cpus_allowed [srv pid]] [cpus_allowed [srv pid] $tid]
    }
}
}
