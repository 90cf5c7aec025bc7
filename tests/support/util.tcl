# Keel test framework: helpers for test files.

# wait_for_condition maxtries delayms {condition} ?{else-body}?
# Evaluates the expression up to maxtries times, sleeping delayms between
# tries. If it never becomes true, runs else-body in the caller (or fails).
proc wait_for_condition {maxtries delay cond {elsebody ""}} {
    for {set i 0} {$i < $maxtries} {incr i} {
        if {[uplevel 1 [list expr $cond]]} {
            return
        }
        after $delay
    }
    if {$elsebody ne ""} {
        uplevel 1 $elsebody
    } else {
        fail "condition not met after $maxtries tries of $delay ms: $cond"
    }
}

# Parse an INFO reply into a dict field -> value.
proc info_dict {text} {
    set d {}
    foreach line [split $text \n] {
        set line [string trimright $line \r]
        if {$line eq "" || [string index $line 0] eq "#"} {
            continue
        }
        set i [string first : $line]
        if {$i > 0} {
            dict set d [string range $line 0 [expr {$i - 1}]] [string range $line [expr {$i + 1}] end]
        }
    }
    return $d
}

# server_info field ?level?: value of an INFO field ("" when absent).
proc server_info {field {level 0}} {
    set d [info_dict [r $level info]]
    if {![dict exists $d $field]} {
        set d [info_dict [r $level info all]]
    }
    if {[dict exists $d $field]} {
        return [dict get $d $field]
    }
    return ""
}

proc debug_sleep {seconds {level 0}} {
    r $level debug sleep $seconds
}

# Path of the reference server (for side-by-side comparisons).
proc reference_server_binary {} {
    if {[info exists ::env(KEEL_REFERENCE_SERVER)]} {
        return $::env(KEEL_REFERENCE_SERVER)
    }
    return /usr/bin/redis-server
}

# Wait until INFO clients reports at least n blocked clients.
proc wait_for_blocked_clients {{n 1} {level 0}} {
    wait_for_condition 500 10 {[server_info blocked_clients $level] >= $n} {
        fail "expected $n blocked client(s), INFO says [server_info blocked_clients $level]"
    }
}

# Number of lines of the server log matching a glob pattern.
proc log_matches {pattern {level 0}} {
    set path [srv $level stdout]
    if {$path eq "" || [catch {open $path r} f]} {
        return 0
    }
    set n 0
    while {[gets $f line] >= 0} {
        if {[string match $pattern $line]} {
            incr n
        }
    }
    close $f
    return $n
}

# python_client_script file ?args ...?
# Runs /usr/bin/python3 (Debian's, which has python3-redis) on file, looked
# up as given or in tests/helpers/. The environment carries KEEL_HOST and
# KEEL_PORT of the current server. Returns stdout; fails on a non-zero exit.
proc python_client_script {file args} {
    set path $file
    if {![file exists $path]} {
        set path [file join $::keel::tests_dir helpers $file]
    }
    if {![file exists $path]} {
        error "python_client_script: no such script '$file'"
    }
    set saved [array get ::env KEEL_*]
    set ::env(KEEL_HOST) [srv host]
    set ::env(KEEL_PORT) [srv port]
    set errfile [file join [::keel::scratch_dir] pyerr.[pid].[clock microseconds]]
    set code [catch {exec /usr/bin/python3 $path {*}$args 2> $errfile} out opts]
    unset -nocomplain ::env(KEEL_HOST) ::env(KEEL_PORT)
    array set ::env $saved
    set err [::keel::tail_file $errfile 40]
    file delete -force $errfile
    if {$code} {
        error "python script $file failed: $out\n$err"
    }
    return $out
}

proc ::keel::scratch_dir {} {
    set d [file join $::keel::tests_dir tmp]
    file mkdir $d
    return $d
}

# Skips the current test unless the server knows every named command (COMMAND INFO). Used by
# tests of the framework itself that exercise replies of commands Keel has not implemented yet.
proc require_commands {args} {
    foreach c $args {
        set info [r command info $c]
        if {$info eq "" || [lindex $info 0] eq ""} { skip_test "needs $c" }
    }
}

# Keyspace-notification helpers shared by tests/unit/notifications*.tcl.
# A deferring client subscribed to every keyspace/keyevent channel.
proc ev_reader {} {
    set rd [redis_deferring_client]
    $rd psubscribe __key*__:*
    assert_equal {psubscribe __key*__:* 1} [$rd read]
    return $rd
}

# Publishes a marker the reader also matches, then returns every event received before it as
# {channel payload} pairs, in order.
proc ev_collect {rd} {
    r publish __key__:end end
    set out {}
    while 1 {
        set m [$rd read]
        if {[lindex $m 2] eq "__key__:end"} break
        lappend out [list [lindex $m 2] [lindex $m 3]]
    }
    return $out
}

# Expected notification pairs for `events` on `key` with both K and E on: keyspace first, then
# keyevent. `ke key events` is db 0; `ke db key events` names the db.
proc ke {args} {
    if {[llength $args] == 3} {
        lassign $args db key events
    } else {
        set db 0
        lassign $args key events
    }
    set out {}
    foreach e $events {
        lappend out [list __keyspace@${db}__:$key $e] [list __keyevent@${db}__:$e $key]
    }
    return $out
}

# Flushes and selects db 0, runs `setup` with notifications off, then `body` with
# notify-keyspace-events = flags and a fresh reader; returns the events `body` caused.
proc events_of {flags setup body} {
    r select 0
    r flushall
    uplevel 1 $setup
    r config set notify-keyspace-events $flags
    set rd [ev_reader]
    uplevel 1 $body
    set ev [ev_collect $rd]
    $rd close
    r config set notify-keyspace-events ""
    r select 0
    return $ev
}

# INFO KEYSIZES without its header: the section's lines joined by spaces (also a Tcl list).
proc keysizes {} {
    set out {}
    foreach line [split [r info keysizes] \n] {
        set line [string trim $line]
        if {$line eq "" || [string index $line 0] eq "#"} continue
        lappend out $line
    }
    return [join $out " "]
}

proc assert_keysizes {expected} {
    assert_equal $expected [keysizes]
}
