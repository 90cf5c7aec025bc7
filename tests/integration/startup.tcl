# Start-up: keel-server [config-file] [--name value ...] [-], config file syntax (comments,
# quoting, include), the fatal config errors (exact stderr text, exit status 1), CONFIG REWRITE
# surviving a restart, SIGTERM shutdown, pidfile and daemonize. Every server here is started by
# exec'ing the binary directly, so each test controls its own files and arguments. The expected
# texts were checked against redis-server 7.0.15 (the version in the FATAL banner is masked).

proc su_bin {} { return $::keel::opt(server) }

# A fresh directory per call, under the file's temporary directory.
set ::su_root ""
set ::su_seq 0
proc su_tmpdir {} {
    if {$::su_root eq ""} {
        set ::su_root [::keel::new_tmpdir]
    }
    set d [file join $::su_root d[incr ::su_seq]]
    file mkdir $d
    return $d
}

proc su_write {path text} {
    set f [open $path w]
    puts -nonewline $f $text
    close $f
}

proc su_read {path} {
    set f [open $path]
    set t [read $f]
    close $f
    return $t
}

# Runs the binary expecting it to exit by itself; returns {status stdout stderr} with the
# banner's version masked. `timeout` guards against a server that would start instead.
proc su_run_fail {args} {
    set dir [su_tmpdir]
    set out [file join $dir out.txt]
    set err [file join $dir err.txt]
    set status 0
    if {[catch {exec timeout 5 [su_bin] {*}$args > $out 2> $err} msg opts]} {
        set ec [dict get $opts -errorcode]
        set status [expr {[lindex $ec 0] eq "CHILDSTATUS" ? [lindex $ec 2] : $ec}]
    }
    set e [su_read $err]
    regsub {\((Keel|Redis) [^)]*\)} $e {(VERSION)} e
    return [list $status [su_read $out] $e]
}

proc su_fatal {linenum line reason} {
    return "\n*** FATAL CONFIG FILE ERROR (VERSION) ***\nReading the configuration file, at line $linenum\n>>> '$line'\n$reason\n"
}

# Starts the binary in the background; returns a handle dict {chan pid port dir log}.
# `args` are the command-line arguments; the caller's config decides the port.
proc su_start {port dir args} {
    set log [file join $dir stdout.txt]
    set chan [open |[list [su_bin] {*}$args >>& $log] w]
    set pid [lindex [pid $chan] 0]
    set h [dict create chan $chan pid $pid port $port dir $dir log $log]
    wait_for_condition 200 25 {[su_ping $port] || ![::keel::process_alive $pid]} {
        fail "server did not start: [su_read $log]"
    }
    if {![::keel::process_alive $pid]} {
        catch {close $chan}
        fail "server exited at start-up: [su_read $log]"
    }
    return $h
}

proc su_ping {port} {
    if {[catch {::keel::client::connect 127.0.0.1 $port} c]} {
        return 0
    }
    # A server with requirepass answers NOAUTH: it is up all the same.
    catch {$c ping} r
    set ok [expr {$r eq "PONG" || [string match NOAUTH* $r]}]
    catch {$c close}
    return $ok
}

proc su_client {h} {
    set c [::keel::client::connect 127.0.0.1 [dict get $h port]]
    $c timeout 5
    return $c
}

# SIGTERM, then the exit status ("exit N" / "signal X").
proc su_stop {h} {
    catch {exec kill -TERM [dict get $h pid]}
    set status "exit 0"
    if {[catch {close [dict get $h chan]} msg opts]} {
        set ec [dict get $opts -errorcode]
        switch -- [lindex $ec 0] {
            CHILDSTATUS { set status "exit [lindex $ec 2]" }
            CHILDKILLED { set status "signal [lindex $ec 2]" }
            default { set status "unknown $msg" }
        }
    }
    return $status
}

tags {startup} {

test "Unknown directive: FATAL block on stderr, exit 1" {
    set dir [su_tmpdir]
    su_write $dir/bad.conf "# comment\n\n  foo  \"a b\"  \n"
    lassign [su_run_fail $dir/bad.conf] status out err
    assert_equal 1 $status
    assert_equal [su_fatal 3 {foo  "a b"} {Bad directive or wrong number of arguments}] $err
}

test "Wrong number of arguments, bad integer, bad memory value, bad enum" {
    set dir [su_tmpdir]
    foreach {text line reason} {
        "port 1 2\n"     {port 1 2}    {wrong number of arguments}
        "port\n"         {port}        {wrong number of arguments}
        "hz abc\n"       {hz abc}      {argument couldn't be parsed into an integer}
        "maxclients 0\n" {maxclients 0} {argument must be between 1 and 4294967295 inclusive}
        "maxmemory 1x\n" {maxmemory 1x} {argument must be a memory value}
        "protected-mode maybe\n" {protected-mode maybe} {argument must be 'yes' or 'no'}
        "notify-keyspace-events Q\n" {notify-keyspace-events Q} {Invalid event class character. Use 'Ag$lshzxeKEtmdn'.}
        "include\n"      {include}     {Bad directive or wrong number of arguments}
        "timeout \"abc\n" {timeout "abc} {Unbalanced quotes in configuration line}
        "dir /nonexistent-keel-dir\n" {dir /nonexistent-keel-dir} {No such file or directory}
    } {
        su_write $dir/bad.conf $text
        lassign [su_run_fail $dir/bad.conf] status out err
        assert_equal 1 $status "for '$line'"
        assert_equal [su_fatal 1 $line $reason] $err
    }
}

test "rename-command: unknown command, taken name, a command renamed twice" {
    set dir [su_tmpdir]
    foreach {text linenum line reason} {
        "rename-command nosuch x\n" 1 {rename-command nosuch x} {No such command in rename-command}
        "rename-command config get\n" 1 {rename-command config get} {Target command name already exists}
        "rename-command config cfg\nrename-command config x\n" 2 {rename-command config x} {No such command in rename-command}
        "rename-command config\n" 1 {rename-command config} {Bad directive or wrong number of arguments}
    } {
        su_write $dir/bad.conf $text
        lassign [su_run_fail $dir/bad.conf] status out err
        assert_equal 1 $status "for '$line'"
        assert_equal [su_fatal $linenum $line $reason] $err
    }
}

test "save with an odd count is refused; appendonly must be yes or no" {
    set dir [su_tmpdir]
    su_write $dir/bad.conf "save 100\n"
    lassign [su_run_fail $dir/bad.conf] status out err
    assert_equal 1 $status
    assert_equal [su_fatal 1 {save 100} {Invalid save parameters}] $err
    su_write $dir/bad.conf "save 0 1\n"
    lassign [su_run_fail $dir/bad.conf] status out err
    assert_equal [su_fatal 1 {save 0 1} {Invalid save parameters}] $err
    su_write $dir/bad.conf "appendonly maybe\n"
    lassign [su_run_fail $dir/bad.conf] status out err
    assert_equal 1 $status
    assert_match "*>>> 'appendonly maybe'\n*argument must be 'yes' or 'no'*" $err
}

test "save lines in a file: the first drops the defaults, the next ones add, save \"\" empties" {
    set dir [su_tmpdir]
    set port [::keel::find_free_port]
    su_write $dir/s.conf "port $port\nbind 127.0.0.1\ndir $dir\nsave 900 1\nsave 300 10 60 10000\n"
    set h [su_start $port $dir $dir/s.conf]
    set c [su_client $h]
    assert_equal {save {900 1 300 10 60 10000}} [$c config get save]
    su_stop $h
    set port [::keel::find_free_port]
    su_write $dir/s.conf "port $port\nbind 127.0.0.1\ndir $dir\nsave 900 1\nsave \"\"\nsave 5 5\n"
    set h [su_start $port $dir $dir/s.conf]
    set c [su_client $h]
    assert_equal {save {5 5}} [$c config get save]
    su_stop $h
    # Without any save line: Redis's defaults.
    set port [::keel::find_free_port]
    su_write $dir/s.conf "port $port\nbind 127.0.0.1\ndir $dir\n"
    set h [su_start $port $dir $dir/s.conf]
    set c [su_client $h]
    assert_equal {save {3600 1 300 100 60 10000}} [$c config get save]
    su_stop $h
}

test "Command-line options are lines after the file (quoted values, line numbers)" {
    set dir [su_tmpdir]
    su_write $dir/ok.conf "hz 11\n"
    lassign [su_run_fail $dir/ok.conf --port 0 --foo bar] status out err
    assert_equal 1 $status
    assert_equal [su_fatal 4 {foo "bar"} {Bad directive or wrong number of arguments}] $err
    lassign [su_run_fail $dir/ok.conf --port 0 --hz] status out err
    assert_equal [su_fatal 4 hz {wrong number of arguments}] $err
    lassign [su_run_fail --port 0 --hz 10 --bad] status out err
    assert_equal 1 $status
    assert_equal [su_fatal 4 bad {Bad directive or wrong number of arguments}] $err
    lassign [su_run_fail --hz x] status out err
    assert_equal [su_fatal 2 {hz "x"} {argument couldn't be parsed into an integer}] $err
}

test "A missing config file or include is fatal" {
    set dir [su_tmpdir]
    lassign [su_run_fail $dir/none.conf] status out err
    assert_equal 1 $status
    assert_match "*Fatal error, can't open config file '$dir/none.conf': No such file or directory*" $out
    su_write $dir/inc.conf "include $dir/missing.conf\n"
    lassign [su_run_fail $dir/inc.conf] status out err
    assert_equal 1 $status
    assert_match "*can't open config file '$dir/missing.conf'*" $out
}

test "An unwritable logfile is fatal" {
    set dir [su_tmpdir]
    lassign [su_run_fail --port 0 --logfile /nonexistent-keel-dir/x.log] status out err
    assert_equal 1 $status
    assert_equal "\n*** FATAL CONFIG FILE ERROR (VERSION) ***\nCan't open the log file: No such file or directory\n" $err
}

test "--save '' --appendonly no and a bind list with '-' values are accepted" {
    set dir [su_tmpdir]
    set port [::keel::find_free_port]
    set h [su_start $port $dir --port $port --bind 127.0.0.1 -::1 --save {} --appendonly no --dir $dir]
    set c [su_client $h]
    assert_equal {save {}} [$c config get save]
    assert_equal {appendonly no} [$c config get appendonly]
    assert_equal {bind {127.0.0.1 -::1}} [$c config get bind]
    assert_error {ERR The server is running without a config file} {$c config rewrite}
    $c close
    assert_equal {exit 0} [su_stop $h]
}

test "--save followed by another option means save \"\"" {
    set dir [su_tmpdir]
    set port [::keel::find_free_port]
    set h [su_start $port $dir --save --port $port --bind 127.0.0.1 --dir $dir]
    set c [su_client $h]
    assert_equal {save {}} [$c config get save]
    assert_equal [list port $port] [$c config get port]
    $c close
    assert_equal {exit 0} [su_stop $h]
}

test "Config file syntax: comments, quoting, aliases, include, then argv overrides" {
    set dir [su_tmpdir]
    set port [::keel::find_free_port]
    su_write $dir/inc.conf "maxclients 321\ntimeout 40\n"
    su_write $dir/main.conf [join [list \
        "# a comment" \
        "   # an indented comment" \
        "" \
        "port $port" \
        "bind 127.0.0.1" \
        "save \"\"" \
        "appendonly no" \
        "dir $dir" \
        "requirepass \"a b\\\"c\\x41\\n\"" \
        "masteruser 'it\\'s'" \
        "HASH-MAX-ZIPLIST-ENTRIES 99" \
        "client-output-buffer-limit pubsub 1mb 2mb 3" \
        "include $dir/inc.conf" \
        "timeout 50" \
        "list-max-ziplist-entries 5" \
    ] \n]\n
    set h [su_start $port $dir $dir/main.conf --hz 25 --maxclients 500]
    set c [su_client $h]
    assert_equal OK [$c auth "a b\"cA\n"]
    assert_equal {hash-max-listpack-entries 99} [$c config get hash-max-listpack-entries]
    assert_equal [list masteruser "it's"] [$c config get masteruser]
    assert_equal {timeout 50} [$c config get timeout]
    assert_equal {maxclients 500} [$c config get maxclients]
    assert_equal {hz 25} [$c config get hz]
    assert_match {*pubsub 1048576 2097152 3} [lindex [$c config get client-output-buffer-limit] 1]
    assert_equal [list dir [file normalize $dir]] [$c config get dir]
    assert_match "*config_file:[file normalize $dir/main.conf]*" [$c info server]
    $c close
    assert_equal {exit 0} [su_stop $h]
}

test "Config from standard input with '-'" {
    set dir [su_tmpdir]
    set port [::keel::find_free_port]
    set log [file join $dir stdout.txt]
    set pid [exec [su_bin] - --port $port --bind 127.0.0.1 --dir $dir << "hz 33\nsave \"\"\n" >& $log &]
    wait_for_condition 200 25 {[su_ping $port]} { fail "no start: [su_read $log]" }
    set c [::keel::client::connect 127.0.0.1 $port]
    assert_equal {hz 33} [$c config get hz]
    $c close
    exec kill -TERM $pid
    wait_for_condition 200 25 {![::keel::process_alive $pid]}
}

test "CONFIG REWRITE survives a restart" {
    set dir [su_tmpdir]
    set port [::keel::find_free_port]
    set conf $dir/keel.conf
    su_write $conf "# keep me\nport $port\nbind 127.0.0.1\ndir $dir\nsave \"\"\nappendonly no\nhash-max-ziplist-entries 100\ntimeout 5\n"
    set h [su_start $port $dir $conf]
    set c [su_client $h]
    assert_equal OK [$c config set maxmemory 5mb hz 25 notify-keyspace-events KEA hash-max-listpack-entries 300 timeout 0 client-output-buffer-limit {pubsub 1mb 2mb 3} masteruser {x "y"}]
    assert_equal OK [$c config rewrite]
    $c close
    assert_equal {exit 0} [su_stop $h]
    set text [su_read $conf]
    assert_match "# keep me\n*" $text
    assert_match "*\nmaxmemory 5mb\n*" $text
    assert_match "*\nclient-output-buffer-limit pubsub 1mb 2mb 3\n*" $text
    set h [su_start $port $dir $conf]
    set c [su_client $h]
    assert_equal {maxmemory 5242880} [$c config get maxmemory]
    assert_equal {hz 25} [$c config get hz]
    assert_equal {notify-keyspace-events AKE} [$c config get notify-keyspace-events]
    assert_equal {hash-max-listpack-entries 300} [$c config get hash-max-listpack-entries]
    assert_equal {timeout 0} [$c config get timeout]
    assert_equal {masteruser {x "y"}} [$c config get masteruser]
    assert_match {*pubsub 1048576 2097152 3} [lindex [$c config get client-output-buffer-limit] 1]
    $c close
    assert_equal {exit 0} [su_stop $h]
}

test "SIGTERM: logs the shutdown, removes the pidfile, exits 0" {
    set dir [su_tmpdir]
    set port [::keel::find_free_port]
    set h [su_start $port $dir --port $port --bind 127.0.0.1 --save {} --dir $dir --pidfile $dir/keel.pid]
    assert_equal [dict get $h pid] [string trim [su_read $dir/keel.pid]]
    assert_equal {exit 0} [su_stop $h]
    set log [su_read [dict get $h log]]
    assert_match "*Received SIGTERM scheduling shutdown...*" $log
    assert_match "*is now ready to exit, bye bye...*" $log
    assert_equal 0 [file exists $dir/keel.pid]
}

test "daemonize yes detaches, writes the pidfile and logs to the logfile" {
    set dir [su_tmpdir]
    set port [::keel::find_free_port]
    su_write $dir/d.conf "port $port\nbind 127.0.0.1\nsave \"\"\ndaemonize yes\npidfile $dir/d.pid\nlogfile $dir/d.log\ndir $dir\n"
    set t0 [clock milliseconds]
    exec [su_bin] $dir/d.conf
    assert_lessthan [expr {[clock milliseconds] - $t0}] 3000
    wait_for_condition 200 25 {[file exists $dir/d.pid] && [su_ping $port]} {
        fail "daemon did not start"
    }
    set pid [string trim [su_read $dir/d.pid]]
    assert {[::keel::process_alive $pid]}
    set c [::keel::client::connect 127.0.0.1 $port]
    assert_equal {daemonize yes} [$c config get daemonize]
    assert_equal [list pidfile $dir/d.pid] [$c config get pidfile]
    $c close
    exec kill -TERM $pid
    wait_for_condition 200 25 {![::keel::process_alive $pid]} { fail "daemon did not exit" }
    assert_equal 0 [file exists $dir/d.pid]
    assert_match "*Received SIGTERM scheduling shutdown...*" [su_read $dir/d.log]
}

}
