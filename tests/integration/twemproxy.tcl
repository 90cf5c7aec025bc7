# Sharding behind twemproxy (Debian's nutcracker): three Keel servers as the shards of one pool
# (ketama, fnv1a_64). redis-benchmark through the proxy runs without an error and every request
# lands, keys spread over all three shards, and the proxy reconnects to a shard that was killed
# and restarted; auto_eject_hosts and redis_auth. The file passes with `--server
# /usr/bin/redis-server` too (the same setup in front of Redis 7.0).

set ::nutcracker_bin [auto_execok nutcracker]
if {$::nutcracker_bin eq "" && [file executable /usr/sbin/nutcracker]} {
    set ::nutcracker_bin /usr/sbin/nutcracker
}
set ::proxy {}

# Writes the pool's configuration into dir; returns its path.
proc write_nutcracker_conf {dir listen ports args} {
    set path [file join $dir nutcracker.yml]
    set f [open $path w]
    puts $f "keel:"
    puts $f "  listen: 127.0.0.1:$listen"
    puts $f "  hash: fnv1a_64"
    puts $f "  distribution: ketama"
    puts $f "  redis: true"
    puts $f "  timeout: 2000"
    puts $f "  preconnect: true"
    foreach {k v} $args { puts $f "  $k: $v" }
    puts $f "  servers:"
    set i 0
    foreach p $ports { puts $f "   - 127.0.0.1:$p:1 shard[incr i]" }
    close $f
    return $path
}

# Starts nutcracker with conf (under `timeout`, so a worker killed halfway leaves nothing
# behind; the stats port on 127.0.0.1 only) and waits until it accepts connections.
proc start_nutcracker {conf listen} {
    set dir [file dirname $conf]
    set stats [::keel::find_free_port]
    set pid [exec timeout 300 {*}$::nutcracker_bin -c $conf -s $stats -a 127.0.0.1 \
                 -o [file join $dir nutcracker.log] >& [file join $dir nutcracker.stderr] &]
    set ::proxy [dict create pid $pid port $listen]
    wait_for_condition 200 20 {![catch {close [socket 127.0.0.1 $listen]}]}
}

proc stop_nutcracker {} {
    if {$::proxy eq ""} { return }
    catch {exec kill [dict get $::proxy pid]}
    ::keel::wait_exit [dict get $::proxy pid] 5
    set ::proxy {}
}

proc proxy_client {} {
    set c [::keel::client::connect 127.0.0.1 [dict get $::proxy port]]
    $c timeout 5
    return $c
}

proc run_benchmark_via {port args} {
    set bin [auto_execok redis-benchmark]
    if {$bin eq ""} { skip_test "redis-benchmark is not installed" }
    set code [catch {exec {*}$bin -h 127.0.0.1 -p $port {*}$args 2>@1} out]
    set lines {}
    foreach l [split [string map {"\r" "\n"} $out] "\n"] {
        if {[string trim $l] ne "" && ![string match *rps=* $l]} { lappend lines [string trim $l] }
    }
    return [list $code $lines]
}

if {$::nutcracker_bin eq ""} {
    test "twemproxy in front of Keel" {
        skip_test "nutcracker is not installed (Debian package nutcracker, deps/install.sh)"
    }
    return
}

tags {integration twemproxy} {
start_server {} {
start_server {} {
start_server {} {
    set ports [list [srv -2 port] [srv -1 port] [srv 0 port]]
    set listen [::keel::find_free_port]
    set conf [write_nutcracker_conf [srv -2 dir] $listen $ports \
                  auto_eject_hosts false server_retry_timeout 500 server_failure_limit 1]

    test "nutcracker -t accepts the configuration" {
        set code [catch {exec $::nutcracker_bin -t -c $conf 2>@1} out]
        assert_equal 0 $code $out
        assert_match "*syntax is ok*" $out
    }

    start_nutcracker $conf $listen

    test "redis-benchmark through the proxy: no error, every request lands" {
        # -r spreads the keys (key:NNN, counter:NNN) so that ketama puts some on every shard.
        lassign [run_benchmark_via $listen -t set,get,incr,lpush,sadd,mset -n 20000 -q -r 1000] \
            code lines
        assert_equal 0 $code "redis-benchmark exit status: $lines"
        foreach l $lines {
            # twemproxy does not forward CONFIG, so the benchmark cannot read the server's
            # settings; redis-server behind the proxy gives the same warning.
            if {$l eq "WARNING: Could not fetch server CONFIG"} continue
            assert_no_match *ERR* [string toupper $l]
            assert_no_match *WARNING* [string toupper $l]
        }
        foreach name {SET GET INCR LPUSH SADD {MSET (10 keys)}} {
            assert {[lsearch -glob $lines "$name: *requests per second*"] >= 0} "no result for $name in: $lines"
        }
        set c [proxy_client]
        # Every LPUSH and INCR landed once.
        assert_equal 20000 [$c llen mylist]
        set sum 0
        for {set i 0} {$i < 1000} {incr i} {
            set v [$c get [format counter:%012d $i]]
            if {$v ne ""} { incr sum $v }
        }
        assert_equal 20000 $sum
        assert_range [$c scard myset] 1 1000
        $c close
    }

    test "Keys land on all three shards, each key on exactly one" {
        set all {}
        set total 0
        foreach level {-2 -1 0} {
            set n [r $level dbsize]
            assert_morethan $n 0 "shard at level $level is empty"
            incr total $n
            lappend all {*}[r $level keys *]
        }
        assert_equal [llength [lsort -unique $all]] $total
        # The proxy finds each of them.
        set c [proxy_client]
        foreach k [lrange $all 0 199] { assert_equal 1 [$c exists $k] "$k through the proxy" }
        $c close
    }

    test "A shard killed and restarted: the proxy reconnects to it" {
        set k [lindex [r -1 keys key:*] 0]
        assert_not_equal "" $k
        kill_server -1 -kill
        set c [proxy_client]
        assert_error * {$c get $k}
        catch {$c close}
        restart_server -1
        # The restarted shard is empty (save ""); the proxy sends the key to it again.
        wait_for_condition 100 50 {![catch {set c [proxy_client]; $c set $k again} r] && $r eq "OK"} {
            fail "proxy still fails: $r"
        }
        catch {$c close}
        assert_equal again [r -1 get $k]
        # Keys of the other shards are still served.
        set k2 [lindex [r -2 keys key:*] 0]
        set c [proxy_client]
        assert_equal [r -2 get $k2] [$c get $k2]
        $c close
    }

    stop_nutcracker

    test "auto_eject_hosts: a dead shard's keys go to the others, and come back when it returns" {
        set listen [::keel::find_free_port]
        set conf [write_nutcracker_conf [srv -2 dir] $listen $ports \
                      auto_eject_hosts true server_retry_timeout 1000 server_failure_limit 1]
        start_nutcracker $conf $listen
        foreach level {-2 -1 0} { r $level flushall }
        set c [proxy_client]
        for {set i 0} {$i < 100} {incr i} { $c set ej:$i $i }
        $c close
        set on_b [r -1 keys ej:*]
        assert_morethan [llength $on_b] 0
        set k [lindex $on_b 0]
        kill_server -1 -kill
        # The first request to the dead shard fails and ejects it; then the ring without it
        # places the key on another shard.
        wait_for_condition 100 50 {![catch {set c [proxy_client]; $c set $k moved} r] && $r eq "OK"} {
            fail "proxy still fails: $r"
        }
        catch {$c close}
        assert_equal moved [expr {[r -2 get $k] ne "" ? [r -2 get $k] : [r 0 get $k]}]
        restart_server -1
        # After server_retry_timeout the shard is back in the ring: the key maps to it again.
        wait_for_condition 100 100 {
            ![catch {set c [proxy_client]; $c set $k back} r] && $r eq "OK" && [r -1 get $k] eq "back"
        } {
            fail "the key did not go back to its shard: $r"
        }
        catch {$c close}
        stop_nutcracker
    }

    test "redis_db: the proxy selects that database on every shard" {
        set listen [::keel::find_free_port]
        set conf [write_nutcracker_conf [srv -2 dir] $listen $ports redis_db 3]
        start_nutcracker $conf $listen
        set c [proxy_client]
        for {set i 0} {$i < 60} {incr i} { $c set db3:$i $i }
        $c close
        set total 0
        foreach level {-2 -1 0} {
            r $level select 3
            incr total [llength [r $level keys db3:*]]
            r $level select 0
            assert_equal {} [r $level keys db3:*]
        }
        assert_equal 60 $total
        stop_nutcracker
    }

    test "redis_auth: the proxy authenticates to Keel shards that have requirepass" {
        foreach level {-2 -1 0} { r $level config set requirepass s3cret }
        set listen [::keel::find_free_port]
        set conf [write_nutcracker_conf [srv -2 dir] $listen $ports redis_auth s3cret]
        start_nutcracker $conf $listen
        set c [proxy_client]
        # The proxy asks its own clients for the password, then forwards with its own AUTH.
        assert_error {NOAUTH*} {$c set authkey 1}
        assert_error {ERR*invalid password*} {$c auth wrong}
        assert_equal OK [$c auth s3cret]
        for {set i 0} {$i < 50} {incr i} { assert_equal OK [$c set auth:$i $i] }
        assert_equal {0 1 2} [$c mget auth:0 auth:1 auth:2]
        $c close
        set total 0
        foreach level {-2 -1 0} {
            set rc [redis_client -port [srv $level port]]
            $rc auth s3cret
            incr total [llength [$rc keys auth:*]]
            $rc config set requirepass ""
            $rc close
        }
        assert_equal 50 $total
        stop_nutcracker
    }
}
}
}
}
