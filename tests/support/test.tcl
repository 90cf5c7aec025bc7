# Keel test framework: test definition, tags, filtering, reporting,
# assertions. Loaded by tests/runtest in each worker process.

namespace eval ::keel {
    # Options (set by tests/runtest).
    variable opt
    array set opt {
        server ./src/keel-server
        host ""
        port ""
        tags_allow {}
        tags_deny {}
        only {}
        verbose 0
        read_timeout 20
        port_base 21111
        port_range 400
        keep_tmp 0
    }
    variable support_dir [file normalize [file dirname [info script]]]
    variable tests_dir [file dirname $support_dir]
    # Per-file state.
    variable file_path ""
    variable file_name ""
    variable passed 0
    variable failed 0
    variable skipped 0
    variable failures {}
    variable tags_stack {}
    variable header_done 0
    variable last_err {}
}

proc ::keel::emit {line} {
    puts stdout $line
    flush stdout
}

# Control line for the parent runner (never shown to the user).
proc ::keel::ctl {args} {
    puts stdout "@@[join $args { }]"
    flush stdout
}

proc ::keel::verbose {line} {
    variable opt
    if {$opt(verbose)} {
        emit $line
    }
}

proc ::keel::header {{port ""}} {
    variable header_done
    variable file_name
    if {$header_done} {
        return
    }
    set header_done 1
    if {$port ne ""} {
        emit "=== $file_name (port $port)"
    } else {
        emit "=== $file_name"
    }
}

proc ::keel::indent {text} {
    set out {}
    foreach l [split [string trimright $text \n] \n] {
        lappend out "    $l"
    }
    return [join $out \n]
}

proc ::keel::record_failure {name msg {loc ""}} {
    variable failed
    variable failures
    variable file_name
    header
    incr failed
    if {$loc ne ""} {
        emit "\[err\]: $name in $loc"
    } else {
        emit "\[err\]: $name"
    }
    if {$msg ne ""} {
        emit [indent $msg]
    }
    lappend failures $name
    # The runner's closing summary repeats the name with the start of the reason: a CI log that
    # keeps only its tail still says why.
    set why [string map {\n { | }} [string trim $msg]]
    if {[string length $why] > 1500} { set why "[string range $why 0 1499]..." }
    ctl FAILED $file_name :: [string map {\n { }} $name][expr {$why ne "" ? " -- $why" : ""}]
}

proc ::keel::record_skip {name {why ""}} {
    variable skipped
    header
    incr skipped
    if {$why ne ""} {
        emit "\[skip\]: $name ($why)"
    } else {
        emit "\[skip\]: $name"
    }
}

# ---------------------------------------------------------------------------
# Source locations.

proc ::keel::is_framework_file {f} {
    variable support_dir
    variable tests_dir
    set f [file normalize $f]
    if {[string first $support_dir/ $f] == 0} {
        return 1
    }
    if {$f eq [file join $tests_dir runtest]} {
        return 1
    }
    return 0
}

proc ::keel::display_path {f} {
    variable tests_dir
    set f [file normalize $f]
    if {[string first $tests_dir/ $f] == 0} {
        return [string range $f [string length $tests_dir/] end]
    }
    return $f
}

# Return "file:line" of the innermost test-file command currently executing.
# Script bodies run through the framework's uplevel only report lines
# relative to the body, so absolute lines are rebuilt from the command that
# received the body.
proc ::keel::location {} {
    set file ""
    set line 0
    set base ""
    set after_framework 1
    set n [info frame]
    for {set l 1} {$l < $n} {incr l} {
        if {[catch {info frame $l} f]} {
            continue
        }
        set type [dict get $f type]
        if {$type eq "source" && [dict exists $f file]} {
            if {[is_framework_file [dict get $f file]]} {
                set after_framework 1
                continue
            }
            set file [dict get $f file]
            set line [dict get $f line]
            set base ""
            set after_framework 0
        } elseif {$type eq "eval" && $file ne "" && [dict exists $f line]} {
            if {$after_framework || $base eq ""} {
                set base $line
            }
            set line [expr {$base + [dict get $f line] - 1}]
            set after_framework 0
        } else {
            set after_framework 1
        }
    }
    if {$file eq ""} {
        return ""
    }
    return "[display_path $file]:$line"
}

# Absolute line of an error inside a test body, from the "body line N"
# entries of the error trace (innermost first, up to the test's uplevel).
proc ::keel::errorinfo_line {testline einfo} {
    set total 0
    foreach l [split $einfo \n] {
        if {[regexp {^\s*\((procedure|file|lambda) } $l]} {
            return ""
        }
        if {[regexp {^\s*\("uplevel" body line (\d+)\)} $l -> n]} {
            return [expr {$testline + $total + $n - 1}]
        }
        if {[regexp {^\s*\(.* line (\d+)\)$} $l -> n]} {
            incr total [expr {$n - 1}]
        }
    }
    return ""
}

proc ::keel::note_error_location {msg} {
    variable last_err
    set last_err [list $msg [location]]
}

# ---------------------------------------------------------------------------
# Tags and selection.

proc ::keel::current_tags {} {
    variable tags_stack
    return [concat {*}$tags_stack]
}

proc ::keel::tags_denied {tags} {
    variable opt
    foreach t $tags {
        if {$t in $opt(tags_deny)} {
            return 1
        }
    }
    if {[external_server] && "external:skip" in $tags} {
        return 1
    }
    return 0
}

proc ::keel::test_selected {name tags} {
    variable opt
    if {[tags_denied $tags]} {
        return 0
    }
    if {[llength $opt(tags_allow)]} {
        set ok 0
        foreach t $tags {
            if {$t in $opt(tags_allow)} {
                set ok 1
                break
            }
        }
        if {!$ok} {
            return 0
        }
    }
    if {[llength $opt(only)]} {
        set ok 0
        foreach p $opt(only) {
            if {[string match $p $name]} {
                set ok 1
                break
            }
        }
        if {!$ok} {
            return 0
        }
    }
    return 1
}

proc tags {taglist body} {
    lappend ::keel::tags_stack $taglist
    set code [catch {uplevel 1 $body} res opts]
    set ::keel::tags_stack [lrange $::keel::tags_stack 0 end-1]
    return -options $opts $res
}

# ---------------------------------------------------------------------------
# test

proc test {name body {tags {}}} {
    set all [concat [::keel::current_tags] $tags]
    if {![::keel::test_selected $name $all]} {
        ::keel::record_skip $name
        return
    }
    ::keel::header
    set testloc [::keel::location]
    set ::keel::last_err {}
    set start [clock milliseconds]
    set code [catch {uplevel 1 $body} err opts]
    set ms [expr {[clock milliseconds] - $start}]
    if {$code == 1} {
        set ecode [dict get $opts -errorcode]
        if {[lindex $ecode 0] eq "KEEL" && [lindex $ecode 1] eq "SKIP"} {
            ::keel::record_skip $name $err
        } elseif {[lindex $ecode 0] eq "KEEL" && [lindex $ecode 1] eq "ABORT"} {
            ::keel::record_failure $name $err $testloc
            return -options $opts $err
        } else {
            set loc ""
            if {[llength $::keel::last_err] && [lindex $::keel::last_err 0] eq $err} {
                set loc [lindex $::keel::last_err 1]
            }
            if {$loc eq "" && [regexp {^(.*):(\d+)$} $testloc -> f l]} {
                set el [::keel::errorinfo_line $l [dict get $opts -errorinfo]]
                if {$el ne ""} {
                    set loc "$f:$el"
                }
            }
            if {$loc eq ""} {
                set loc $testloc
            }
            set msg $err
            if {$::keel::opt(verbose) && [lindex $ecode 0] ne "KEEL"} {
                append msg "\n[dict get $opts -errorinfo]"
            }
            ::keel::record_failure $name $msg $loc
        }
    } else {
        incr ::keel::passed
        ::keel::emit "\[ok\]: $name ($ms ms)"
    }
    ::keel::check_servers_alive
}

# Skip the current test (inside a test body) with a reason.
proc skip_test {{reason "skipped"}} {
    return -code error -errorcode {KEEL SKIP} $reason
}

# ---------------------------------------------------------------------------
# Assertions. Each raises an error whose message explains the mismatch.

proc ::keel::show {v} {
    if {[string length $v] > 400} {
        return "'[string range $v 0 399]'... ([string length $v] chars)"
    }
    return "'$v'"
}

proc fail {msg} {
    ::keel::note_error_location $msg
    return -code error -errorcode {KEEL ASSERTION} $msg
}

proc ::keel::fail_with {msg detail} {
    if {$detail ne ""} {
        append msg " ($detail)"
    }
    tailcall fail $msg
}

proc assert {cond {detail ""}} {
    if {![uplevel 1 [list expr $cond]]} {
        ::keel::fail_with "assertion failed: $cond" $detail
    }
}

proc assert_equal {expected actual {detail ""}} {
    if {$expected ne $actual} {
        ::keel::fail_with "assert_equal: got [::keel::show $actual], expected [::keel::show $expected]" $detail
    }
}

proc assert_not_equal {value actual {detail ""}} {
    if {$value eq $actual} {
        ::keel::fail_with "assert_not_equal: both are [::keel::show $actual]" $detail
    }
}

proc assert_match {pattern value {detail ""}} {
    if {![string match $pattern $value]} {
        ::keel::fail_with "assert_match: [::keel::show $value] does not match pattern [::keel::show $pattern]" $detail
    }
}

proc assert_no_match {pattern value {detail ""}} {
    if {[string match $pattern $value]} {
        ::keel::fail_with "assert_no_match: [::keel::show $value] matches pattern [::keel::show $pattern]" $detail
    }
}

proc assert_error {pattern code {detail ""}} {
    if {[catch {uplevel 1 $code} err]} {
        if {![string match $pattern $err]} {
            ::keel::fail_with "assert_error: error [::keel::show $err] does not match pattern [::keel::show $pattern]" $detail
        }
        return
    }
    ::keel::fail_with "assert_error: no error raised, got [::keel::show $err] (expected error matching [::keel::show $pattern])" $detail
}

proc ::keel::need_number {what v} {
    if {![string is double -strict $v]} {
        fail "$what: [::keel::show $v] is not a number"
    }
}

proc assert_range {value min max {detail ""}} {
    ::keel::need_number assert_range $value
    if {!($value >= $min && $value <= $max)} {
        ::keel::fail_with "assert_range: $value is not within \[$min, $max\]" $detail
    }
}

proc assert_lessthan {value than {detail ""}} {
    ::keel::need_number assert_lessthan $value
    if {!($value < $than)} {
        ::keel::fail_with "assert_lessthan: $value is not < $than" $detail
    }
}

proc assert_lessthan_equal {value than {detail ""}} {
    ::keel::need_number assert_lessthan_equal $value
    if {!($value <= $than)} {
        ::keel::fail_with "assert_lessthan_equal: $value is not <= $than" $detail
    }
}

proc assert_morethan {value than {detail ""}} {
    ::keel::need_number assert_morethan $value
    if {!($value > $than)} {
        ::keel::fail_with "assert_morethan: $value is not > $than" $detail
    }
}

proc assert_morethan_equal {value than {detail ""}} {
    ::keel::need_number assert_morethan_equal $value
    if {!($value >= $than)} {
        ::keel::fail_with "assert_morethan_equal: $value is not >= $than" $detail
    }
}

# Compare two lists ignoring element order.
proc assert_equal_unordered {expected actual {detail ""}} {
    if {[lsort $expected] ne [lsort $actual]} {
        ::keel::fail_with "assert_equal_unordered: got [::keel::show $actual], expected (any order) [::keel::show $expected]" $detail
    }
}

# Compare two dicts ignoring key order.
proc assert_dict_equal {expected actual {detail ""}} {
    set e {}
    dict for {k v} $expected { lappend e [list $k $v] }
    set a {}
    dict for {k v} $actual { lappend a [list $k $v] }
    if {[lsort $e] ne [lsort $a] || [dict size $expected] != [llength $a]} {
        ::keel::fail_with "assert_dict_equal: got [::keel::show $actual], expected [::keel::show $expected]" $detail
    }
}

# OBJECT ENCODING of key on the current server (or `level`).
proc assert_encoding {enc key {level 0}} {
    set got [r $level object encoding $key]
    if {$got ne $enc} {
        ::keel::fail_with "assert_encoding: key '$key' has encoding '$got', expected '$enc'" ""
    }
}

proc assert_type {type key {level 0}} {
    set got [r $level type $key]
    if {$got ne $type} {
        ::keel::fail_with "assert_type: key '$key' has type '$got', expected '$type'" ""
    }
}

# assert_replies {cmd reply cmd reply ...}: run each command with `r` and
# compare the reply (glob match when the expected reply starts with "~").
proc assert_replies {pairs} {
    foreach {cmd expected} $pairs {
        if {[catch {r {*}$cmd} got]} {
            set got "ERROR: $got"
        }
        if {[string index $expected 0] eq "~"} {
            if {![string match [string range $expected 1 end] $got]} {
                ::keel::fail_with "assert_replies: '$cmd' replied [::keel::show $got], expected to match [::keel::show [string range $expected 1 end]]" ""
            }
        } elseif {$got ne $expected} {
            ::keel::fail_with "assert_replies: '$cmd' replied [::keel::show $got], expected [::keel::show $expected]" ""
        }
    }
}
