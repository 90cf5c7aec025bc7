# LATENCY (the latency monitor's events and the per-command histograms), latency-monitor-
# threshold, latency-tracking and INFO latencystats. Reply shapes and error texts were checked
# against redis-server 7.0.15; durations are machine-dependent, so values are checked by range.

# The histogram reply of LATENCY HISTOGRAM as a dict: name -> {calls n histogram_usec {...}}.
proc latency_histograms {args} {
    set out {}
    foreach {name h} [r latency histogram {*}$args] { dict set out $name $h }
    return $out
}

# Checks one command's histogram: `calls` calls, buckets whose bounds rise and whose counts
# are cumulative, the last one holding every call.
proc check_histogram {h calls} {
    assert_equal $calls [dict get $h calls]
    set prev_bound 0
    set prev_count 0
    foreach {bound count} [dict get $h histogram_usec] {
        assert {$bound > $prev_bound}
        assert {$count > $prev_count}
        set prev_bound $bound
        set prev_count $count
    }
    assert_equal $calls $prev_count
}

tags {latency} {

test "LATENCY HELP and arity" {
    set help [r latency help]
    assert_equal {LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} [lindex $help 0]
    assert {[lsearch -exact $help {HISTOGRAM [COMMAND ...]}] > 0}
    assert_equal {HELP} [lindex $help end-1]
    assert_error {ERR wrong number of arguments for 'latency|help' command} {r latency help xxx}
    assert_error {ERR wrong number of arguments for 'latency|history' command} {r latency history}
    assert_error {ERR wrong number of arguments for 'latency|graph' command} {r latency graph}
    assert_error {ERR wrong number of arguments for 'latency|latest' command} {r latency latest x}
    assert_error {ERR unknown subcommand 'foo'. Try LATENCY HELP.} {r latency foo}
    assert_error {ERR wrong number of arguments for 'latency' command} {r latency}
}

test "The latency monitor is off by default: nothing is recorded" {
    r latency reset
    assert_equal {latency-monitor-threshold 0} [r config get latency-monitor-threshold]
    r debug sleep 0.05
    assert_equal {} [r latency latest]
    assert_equal {} [r latency history command]
}

test "latency-monitor-threshold: range and parse errors" {
    assert_error {*argument must be between 0 and 9223372036854775807 inclusive*} {r config set latency-monitor-threshold -1}
    assert_error {*argument couldn't be parsed into an integer*} {r config set latency-monitor-threshold abc}
}

test "Slow commands are logged as the 'command' event" {
    r config set latency-monitor-threshold 100
    r latency reset
    set before [clock seconds]
    r debug sleep 0.15
    r debug sleep 0.25
    set after [clock seconds]
    set latest [r latency latest]
    assert_equal 1 [llength $latest]
    lassign [lindex $latest 0] event time last max
    assert_equal command $event
    assert_range $time $before [expr {$after + 1}]
    assert_range $last 150 10000
    assert_range $max 250 10000
    # One sample per second at most: two sleeps in the same second keep the larger one.
    set history [r latency history command]
    assert_range [llength $history] 1 2
    foreach sample $history {
        lassign $sample t ms
        assert_range $t $before [expr {$after + 1}]
        assert_range $ms 150 10000
    }
    # A command under the threshold adds nothing.
    r ping
    assert_equal $history [r latency history command]
}

test "LATENCY HISTORY and RESET with unknown events" {
    assert_equal {} [r latency history no-such-event]
    assert_equal 0 [r latency reset no-such-event]
    assert_error {ERR No samples available for event 'no-such-event'} {r latency graph no-such-event}
}

test "LATENCY GRAPH draws the event" {
    set graph [r latency graph command]
    set lines [split $graph "\n"]
    assert_match {command - high * ms, low * ms (all time high * ms)} [lindex $lines 0]
    assert_equal [string repeat - 80] [lindex $lines 1]
    assert {[llength $lines] > 4}
}

test "LATENCY DOCTOR" {
    set report [r latency doctor]
    assert {[string length $report] > 0}
    if {[is_keel]} { assert_match {*command*} $report }
}

test "LATENCY RESET drops the named events or all of them" {
    r debug sleep 0.12
    assert_equal 0 [r latency reset no-such-event]
    assert_equal 1 [r latency reset command no-such-event]
    assert_equal {} [r latency latest]
    r debug sleep 0.12
    assert_equal 1 [r latency reset]
    assert_equal 0 [r latency reset]
    assert_equal {} [r latency latest]
}

test "A slow fast command is logged as 'fast-command'" {
    # GET is flagged fast; copying a 32 MB value into the reply takes more than a millisecond.
    r config set latency-monitor-threshold 1
    r latency reset
    r set big [string repeat x [expr {32 * 1024 * 1024}]]
    r get big
    set events {}
    foreach e [r latency latest] { lappend events [lindex $e 0] }
    assert {[lsearch $events fast-command] >= 0}
    r del big
    r latency reset
}

test "Expiring a big value is logged as 'expire-cycle'" {
    r config set latency-monitor-threshold 1
    r latency reset
    r flushall
    r eval {for i = 1, tonumber(ARGV[1]) do redis.call('sadd', KEYS[1], i .. 'x') end} 1 bigset 300000
    r pexpire bigset 50
    wait_for_condition 50 100 {[r dbsize] == 0} {fail "bigset was not expired"}
    set events {}
    foreach e [r latency latest] { lappend events [lindex $e 0] }
    assert {[lsearch $events expire-cycle] >= 0}
    r config set latency-monitor-threshold 0
    r latency reset
}

test "LATENCY HISTOGRAM counts calls per command" {
    r config resetstat
    r set a b
    r set a b
    r set a b
    r get a
    set h [latency_histograms set get]
    assert_equal {set get} [dict keys $h]
    check_histogram [dict get $h set] 3
    check_histogram [dict get $h get] 1
    # Unknown names and commands never run are left out.
    assert_equal {} [latency_histograms nosuch lpush]
    # Without names: every command with samples (LATENCY HISTOGRAM itself included).
    set all [latency_histograms]
    check_histogram [dict get $all set] 3
    assert {[dict exists $all latency|histogram]}
}

test "LATENCY HISTOGRAM of a container lists its subcommands" {
    r config resetstat
    r config get maxmemory
    r config get maxmemory
    set h [latency_histograms config]
    # CONFIG RESETSTAT itself is counted once it has run (as in Redis).
    assert_equal {config|get config|resetstat} [lsort [dict keys $h]]
    check_histogram [dict get $h config|get] 2
    # A name given twice is answered twice (a map with a repeated key, as in Redis).
    set h [latency_histograms config|get CONFIG|GET]
    set flat [r latency histogram config|get CONFIG|GET]
    assert_equal {config|get config|get} [list [lindex $flat 0] [lindex $flat 2]]
    check_histogram [dict get $h config|get] 2
}

test "LATENCY HISTOGRAM in RESP3 is a map of maps" {
    r config resetstat
    r ping
    set c [redis_client -resp 3]
    set reply [$c latency histogram ping]
    $c close
    assert_equal ping [lindex $reply 0]
    check_histogram [lindex $reply 1] 1
}

test "CONFIG RESETSTAT clears the histograms" {
    r set a b
    r config resetstat
    assert_equal {} [latency_histograms set get]
}

test "INFO latencystats: p50, p99, p99.9 per command" {
    r config resetstat
    for {set i 0} {$i < 20} {incr i} { r set a b }
    set info [r info latencystats]
    assert_match "# Latencystats\r\n*" $info
    assert {[regexp {latency_percentiles_usec_set:p50=([0-9]+\.[0-9]{3}),p99=([0-9]+\.[0-9]{3}),p99\.9=([0-9]+\.[0-9]{3})} $info -> p50 p99 p999]}
    assert {$p50 <= $p99 && $p99 <= $p999}
    # Not part of the default INFO; part of "all" and "everything".
    assert_no_match {*Latencystats*} [r info]
    assert_match {*# Latencystats*latency_percentiles_usec_set:*} [r info all]
    assert_match {*# Latencystats*} [r info everything]
}

test "latency-tracking-info-percentiles" {
    r config set latency-tracking-info-percentiles "0 50 100"
    r config resetstat
    r set a b
    set info [r info latencystats]
    assert {[regexp {latency_percentiles_usec_set:p0=([0-9.]+),p50=([0-9.]+),p100=([0-9.]+)\r\n} $info -> p0 p50 p100]}
    # HdrHistogram answers p0 with the lowest value of the bucket, the others with the highest.
    assert {$p0 <= $p50 && $p50 <= $p100}
    r config set latency-tracking-info-percentiles "99.99999 1.5"
    assert_equal {latency-tracking-info-percentiles {99.99999 1.5}} [r config get latency-tracking-info-percentiles]
    assert_match {*latency_percentiles_usec_set:p99.99999=*,p1.5=*} [r info latencystats]
    r config set latency-tracking-info-percentiles "1e1"
    assert_equal {latency-tracking-info-percentiles 10} [r config get latency-tracking-info-percentiles]
    r config set latency-tracking-info-percentiles ""
    assert_equal {latency-tracking-info-percentiles {}} [r config get latency-tracking-info-percentiles]
    assert_match "*latency_percentiles_usec_set:\r\n*" [r info latencystats]
    set bad {*Invalid latency-tracking-info-percentiles parameters*}
    assert_error $bad {r config set latency-tracking-info-percentiles abc}
    assert_error $bad {r config set latency-tracking-info-percentiles "50  99"}
    assert_error $bad {r config set latency-tracking-info-percentiles " 50"}
    assert_error $bad {r config set latency-tracking-info-percentiles "50 nan"}
    set range {*latency-tracking-info-percentiles parameters should sit between \[0.0,100.0\]*}
    assert_error $range {r config set latency-tracking-info-percentiles 101}
    assert_error $range {r config set latency-tracking-info-percentiles "50 -1"}
    # A failed set leaves the old value.
    assert_equal {latency-tracking-info-percentiles {}} [r config get latency-tracking-info-percentiles]
    r config set latency-tracking-info-percentiles "50 99 99.9"
}

test "latency-tracking no stops recording, the data stays" {
    r config resetstat
    r set a b
    r config set latency-tracking no
    r set a b
    r get a
    check_histogram [dict get [latency_histograms set] set] 1
    assert_equal {} [latency_histograms get]
    r config set latency-tracking yes
    r get a
    check_histogram [dict get [latency_histograms get] get] 1
}

}
