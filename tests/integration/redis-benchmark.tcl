# redis-benchmark (Debian's, from redis-tools) runs its standard tests against the server with no
# error. This is a compatibility check, not a speed check: only the exit status and the absence
# of errors in the output are asserted.

proc run_benchmark {args} {
    set bin [auto_execok redis-benchmark]
    if {$bin eq ""} { skip_test "redis-benchmark is not installed" }
    set code [catch {exec {*}$bin -h [srv host] -p [srv port] {*}$args 2>@1} out]
    # Progress lines end in CR; keep only the final lines.
    set lines {}
    foreach l [split [string map {"\r" "\n"} $out] "\n"] {
        if {[string trim $l] ne "" && ![string match *rps=* $l]} { lappend lines [string trim $l] }
    }
    return [list $code $lines]
}

tags {integration benchmark} {

test "redis-benchmark -q -n 20000 -t ping,set,get,incr,mset" {
    lassign [run_benchmark -q -n 20000 -t ping,set,get,incr,mset] code lines
    assert_equal 0 $code "redis-benchmark exit status: $lines"
    foreach l $lines {
        assert_no_match *ERROR* [string toupper $l]
        assert_no_match *WARNING* [string toupper $l]
    }
    foreach name {PING_INLINE PING_MBULK SET GET INCR MSET} {
        assert {[lsearch -glob $lines "$name*requests per second*"] >= 0} "no result for $name in: $lines"
    }
    # The benchmark's keys are there and well formed.
    assert_equal 3 [r strlen key:__rand_int__]
    assert_morethan [r get counter:__rand_int__] 0
}

test "redis-benchmark with pipelining and several clients" {
    lassign [run_benchmark -q -n 20000 -P 16 -c 20 -t set,get,incr] code lines
    assert_equal 0 $code "redis-benchmark exit status: $lines"
    foreach l $lines { assert_no_match *ERROR* [string toupper $l] }
    assert_equal 3 [llength [lsearch -all -glob $lines "*requests per second*"]]
    assert_equal PONG [r ping]
}

test "redis-benchmark with an arbitrary command and random keys" {
    lassign [run_benchmark -q -n 5000 -r 1000 set rk:__rand_int__ v] code lines
    assert_equal 0 $code "redis-benchmark exit status: $lines"
    foreach l $lines { assert_no_match *ERROR* [string toupper $l] }
    assert_morethan [r dbsize] 100
}

}
