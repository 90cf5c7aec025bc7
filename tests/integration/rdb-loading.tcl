# The start-up load as Redis runs it: the server listens while the dump loads, answers
# "-LOADING Redis is loading the dataset in memory" to commands without the `loading` flag,
# runs the others (INFO with loading:1 and the loading_* fields, CONFIG, ECHO, SELECT), and
# a SHUTDOWN meanwhile exits at once without saving the partial dataset. The hidden knobs
# key-load-delay (microseconds per key) and loading-process-events-interval-bytes slow the
# load so it can be watched. Every reply was first read from Debian's redis-server 7.0.15 (the
# file runs against it too: --server /usr/bin/redis-server).

source [file join $::keel::tests_dir helpers rdb_util.tcl]

set ::loading_err "LOADING Redis is loading the dataset in memory"

# Starts the server binary by hand on `dir`'s dump.rdb with a slow load (more directives in
# `args`); returns {pid port}.
proc start_slow_loader {dir logname args} {
    set port [::keel::find_free_port]
    set pid [exec $::keel::opt(server) --port $port --bind 127.0.0.1 --dir $dir --save "" \
                 --key-load-delay 100 --loading-process-events-interval-bytes 1024 \
                 --logfile [file join $dir $logname] {*}$args >& /dev/null &]
    return [list $pid $port]
}

# A client of the hand-started server, once it accepts connections.
proc connect_when_up {port} {
    set c ""
    wait_for_condition 250 20 {![catch {::keel::client::connect 127.0.0.1 $port} c]} {
        fail "the loading server never accepted a connection: $c"
    }
    $c timeout 10
    return $c
}

proc info_field {c name} {
    if {[regexp "(?n)^$name:(.*)\r?$" [$c info persistence] -> v]} { return [string trim $v] }
    return ""
}

proc process_gone {pid} {
    return [catch {exec kill -0 $pid}]
}

test "key-load-delay and loading-process-events-interval-bytes are hidden directives" {
    assert_equal {} [r config get key-load-*]
    assert_equal {} [r config get loading-process-*]
    assert_equal {key-load-delay 0} [r config get key-load-delay]
    assert_equal {loading-process-events-interval-bytes 2097152} [r config get loading-process-events-interval-bytes]
}

test "While the dump loads: -LOADING, INFO loading fields, ok-loading commands run; then the dataset" {
    r flushall
    r debug populate 20000 key 10
    r select 3
    r set other-db 1
    r select 0
    r save
    set dir [srv dir]
    set size [file size [file join $dir dump.rdb]]
    lassign [start_slow_loader $dir loading1.log] pid port
    set c [connect_when_up $port]
    wait_for_condition 100 20 {[info_field $c loading] eq 1} { fail "not loading" }
    assert_error $::loading_err {$c ping}
    assert_error $::loading_err {$c get key:1}
    assert_error $::loading_err {$c set k v}
    assert_error $::loading_err {$c dbsize}
    assert_error $::loading_err {$c flushall}
    assert_error $::loading_err {$c save}
    # Commands flagged `loading` run.
    assert_equal hi [$c echo hi]
    assert_equal {maxmemory 0} [$c config get maxmemory]
    assert_equal OK [$c select 3]
    assert_equal OK [$c select 0]
    # Inside MULTI the refused command aborts the transaction, as any rejected command does.
    assert_equal OK [$c multi]
    assert_error $::loading_err {$c get key:1}
    assert_error {EXECABORT Transaction discarded because of previous errors.} {$c exec}
    # INFO persistence: Redis 7.0's fields, after the usual ones.
    set info [$c info persistence]
    assert_match "*\nloading:1*" $info
    assert_match "*\nasync_loading:0*" $info
    assert_match "*module_fork_last_cow_size:0*loading_start_time:*loading_total_bytes:*loading_rdb_used_mem:*loading_loaded_bytes:*loading_loaded_perc:*loading_eta_seconds:*" $info
    assert_equal $size [info_field $c loading_total_bytes]
    set loaded [info_field $c loading_loaded_bytes]
    assert_range $loaded 1 [expr {$size - 1}]
    assert_range [info_field $c loading_start_time] [expr {[clock seconds] - 30}] [clock seconds]
    assert_morethan [info_field $c loading_rdb_used_mem] 0
    assert_range [info_field $c loading_loaded_perc] 0 100
    assert_morethan_equal [info_field $c loading_eta_seconds] 0
    # The counters move while it loads.
    wait_for_condition 100 20 {[info_field $c loading_loaded_bytes] > $loaded} { fail "no progress" }
    # Then the whole dataset, and loading:0 without the loading_* fields.
    wait_for_condition 500 20 {[info_field $c loading] eq 0} { fail "the load did not finish" }
    assert_no_match "*loading_start_time*" [$c info persistence]
    assert_equal PONG [$c ping]
    assert_equal 20000 [$c dbsize]
    assert_equal 20001 [info_field $c rdb_last_load_keys_loaded]
    assert_equal 1 [$c exists key:19999]
    $c select 3
    assert_equal 1 [$c get other-db]
    catch {$c shutdown nosave}
    catch {$c close}
    wait_for_condition 100 50 {[process_gone $pid]} { fail "the server did not exit" }
}

test "SHUTDOWN while the dump loads exits at once and never saves the partial dataset" {
    set dir [srv dir]
    set before [file_bytes [file join $dir dump.rdb]]
    lassign [start_slow_loader $dir loading2.log] pid port
    set c [connect_when_up $port]
    wait_for_condition 100 20 {[info_field $c loading] eq 1} { fail "not loading" }
    # SHUTDOWN SAVE too: a save is never made while loading.
    catch {$c shutdown save}
    catch {$c close}
    wait_for_condition 100 50 {[process_gone $pid]} { fail "the server did not exit" }
    assert_equal $before [file_bytes [file join $dir dump.rdb]]
    set log [file_bytes [file join $dir loading2.log]]
    assert_no_match "*DB saved on disk*" $log
    assert_no_match "*Done loading RDB*" $log
}

test "DEBUG POPULATE / RELOAD / LOADAOF wait for the end of the load; the dump is untouched" {
    # Keel's own rule: DEBUG runs during the load (`loading` flag, as Redis), but Redis 7.0.15
    # would also run these three, saving the half-loaded dataset over the file being read or
    # adding keys the load meets again later.
    if {![is_keel]} {
        skip_test "Keel refuses what Redis runs here"
    }
    set dir [srv dir]
    set before [file_bytes [file join $dir dump.rdb]]
    lassign [start_slow_loader $dir loading3.log --enable-debug-command yes] pid port
    set c [connect_when_up $port]
    wait_for_condition 100 20 {[info_field $c loading] eq 1} { fail "not loading" }
    assert_error $::loading_err {$c debug populate 10}
    assert_error $::loading_err {$c debug reload}
    assert_error $::loading_err {$c debug reload nosave}
    assert_error $::loading_err {$c debug loadaof}
    # Other DEBUG subcommands still answer.
    assert_equal OK [$c debug log still-loading]
    assert_equal 1 [info_field $c loading]
    assert_equal $before [file_bytes [file join $dir dump.rdb]]
    wait_for_condition 500 20 {[info_field $c loading] eq 0} { fail "the load did not finish" }
    assert_equal 20000 [$c dbsize]
    assert_equal OK [$c debug populate 10 extra]
    assert_equal 20010 [$c dbsize]
    catch {$c shutdown nosave}
    catch {$c close}
    wait_for_condition 100 50 {[process_gone $pid]} { fail "the server did not exit" }
}
