# MEMORY USAGE / STATS / DOCTOR / MALLOC-STATS / PURGE / HELP. Reply shapes and error texts were
# checked against redis-server 7.0.15. Sizes are Keel's own (its objects are smaller than
# Redis's), so they are checked by how they grow, not by value.

# MEMORY STATS as a dict (RESP2 gives a flat list of name/value pairs).
proc memory_stats {} { return [r memory stats] }

tags {memory} {

test "MEMORY HELP, arity and unknown subcommands" {
    set help [r memory help]
    assert_equal {MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} [lindex $help 0]
    assert {[lsearch -exact $help {USAGE <key> [SAMPLES <count>]}] > 0}
    assert_equal {HELP} [lindex $help end-1]
    assert_error {ERR wrong number of arguments for 'memory' command} {r memory}
    assert_error {ERR wrong number of arguments for 'memory|usage' command} {r memory usage}
    assert_error {ERR wrong number of arguments for 'memory|stats' command} {r memory stats x}
    assert_error {ERR wrong number of arguments for 'memory|doctor' command} {r memory doctor x}
    assert_error {ERR wrong number of arguments for 'memory|purge' command} {r memory purge x}
    assert_error {ERR unknown subcommand 'foo'. Try MEMORY HELP.} {r memory foo}
}

test "MEMORY USAGE: missing key and argument errors" {
    r flushall
    assert_equal {} [r memory usage nokey]
    r set s hello
    assert_error {ERR syntax error} {r memory usage s samples -1}
    assert_error {ERR value is not an integer or out of range} {r memory usage s samples abc}
    assert_error {ERR syntax error} {r memory usage s samples}
    assert_error {ERR syntax error} {r memory usage s foo}
    assert_error {ERR syntax error} {r memory usage s SAMPLES 1 foo}
    # Options may repeat; the last SAMPLES wins.
    assert_equal [r memory usage s] [r memory usage s samples 0 samples 5]
    # The options are checked before the key is looked up.
    assert_error {ERR syntax error} {r memory usage nokey foo}
}

test "MEMORY USAGE of strings grows with the value" {
    r flushall
    r set small x
    r set n 12345
    r set medium [string repeat a 1000]
    r set large [string repeat a 100000]
    set small [r memory usage small]
    set medium [r memory usage medium]
    set large [r memory usage large]
    assert_range $small 8 200
    assert_range [r memory usage n] 8 200
    assert_range $medium 1000 2000
    assert_range $large 100000 150000
    # A key costs its name too.
    r set [string repeat k 500] x
    assert_range [r memory usage [string repeat k 500]] 500 1000
}

test "MEMORY USAGE of collections in every encoding" {
    r flushall
    set elems {}
    for {set i 0} {$i < 2000} {incr i} { lappend elems "member:$i:[string repeat x 10]" }
    r rpush biglist {*}$elems
    r sadd bigset {*}$elems
    r zadd bigzset {*}[concat {*}[lmap e $elems {list 1.5 $e}]]
    r hset bighash {*}[concat {*}[lmap e $elems {list $e v}]]
    r rpush smalllist a b c
    r sadd intset 1 2 3
    r sadd smallset a b c
    r zadd smallzset 1 a 2 b
    r hset smallhash a 1 b 2
    foreach key {biglist bigset bigzset bighash} {
        set u [r memory usage $key]
        # About the member bytes (25 each, a listpack packs them tightly) up to a few hundred
        # bytes per member.
        assert_range $u 40000 600000 "$key: $u"
        # Sampling every member gives a close figure (the members are alike).
        set all [r memory usage $key samples 0]
        assert_range $all [expr {$u * 0.8}] [expr {$u * 1.2}] "$key: $u vs samples 0 $all"
    }
    foreach key {smalllist intset smallset smallzset smallhash} {
        assert_range [r memory usage $key] 16 400 "$key"
    }
    # Growing a value grows its usage.
    set before [r memory usage smallhash]
    for {set i 0} {$i < 100} {incr i} { r hset smallhash f$i [string repeat v 50] }
    assert_morethan [r memory usage smallhash] [expr {$before + 5000}]
}

test "MEMORY USAGE sees a logically expired key still in memory (no lazy expiry)" {
    r flushall
    r debug set-active-expire 0
    r set ek v px 1
    after 20
    assert_range [r memory usage ek] 8 200
    assert_equal 1 [r dbsize]
    r debug set-active-expire 1
}

test "MEMORY USAGE from scripts and transactions" {
    r set s hello
    assert_equal [r memory usage s] [r eval {return redis.call('memory', 'usage', KEYS[1])} 1 s]
    set want [r memory usage s]
    r multi
    r memory usage s
    r memory usage nokey
    assert_equal [list $want {}] [r exec]
}

test "MEMORY STATS reports Redis's fields" {
    r flushall
    r set a 1
    r select 9
    r set b 2
    r expire b 100
    r select 9
    set st [memory_stats]
    r select 0
    foreach f {peak.allocated total.allocated startup.allocated replication.backlog
               clients.slaves clients.normal aof.buffer lua.caches overhead.total keys.count
               keys.bytes-per-key dataset.bytes dataset.percentage peak.percentage
               allocator.allocated allocator.active allocator.resident
               allocator-fragmentation.ratio allocator-fragmentation.bytes allocator-rss.ratio
               allocator-rss.bytes rss-overhead.ratio rss-overhead.bytes fragmentation
               fragmentation.bytes db.0 db.9} {
        assert {[dict exists $st $f]} "missing $f"
    }
    assert {![dict exists $st db.1]} "empty databases are not listed"
    assert_equal 2 [dict get $st keys.count]
    assert {[dict exists [dict get $st db.0] overhead.hashtable.main]}
    assert {[dict get [dict get $st db.9] overhead.hashtable.expires] > 0}
    assert {[dict get $st total.allocated] > 0}
    assert {[dict get $st peak.allocated] >= [dict get $st total.allocated]}
    assert_range [dict get $st dataset.percentage] 0 100
    if {[is_keel]} {
        # Redis 7.4's layout: the db totals, no slot-to-keys (7.0 had it).
        set names [lmap {k v} $st {set k}]
        assert_equal {peak.allocated total.allocated startup.allocated replication.backlog clients.slaves clients.normal cluster.links aof.buffer lua.caches functions.caches db.0 db.9 overhead.db.hashtable.lut overhead.db.hashtable.rehashing overhead.total db.dict.rehashing.count keys.count keys.bytes-per-key dataset.bytes dataset.percentage peak.percentage allocator.allocated allocator.active allocator.resident allocator.muzzy allocator-fragmentation.ratio allocator-fragmentation.bytes allocator-rss.ratio allocator-rss.bytes rss-overhead.ratio rss-overhead.bytes fragmentation fragmentation.bytes} $names
        assert_equal {overhead.hashtable.main overhead.hashtable.expires} [dict keys [dict get $st db.0]]
        assert {[dict get $st clients.normal] > 0}
    }
}

test "MEMORY STATS in RESP3 is a map with doubles" {
    set c [redis_client -resp 3]
    $c readraw 1
    assert_match {%*} [$c memory stats]
    $c close
    set c [redis_client -resp 3]
    set st [$c memory stats]
    $c close
    assert_match {*.*} [dict get $st fragmentation]
}

test "MEMORY DOCTOR, MALLOC-STATS and PURGE" {
    assert {[string length [r memory doctor]] > 0}
    set report [r memory malloc-stats]
    assert {[string match "___ Begin jemalloc statistics ___*" $report] ||
            $report eq "Stats not supported for the current allocator"}
    assert_equal OK [r memory purge]
}

test "MEMORY DOCTOR reads a loaded instance" {
    r flushall
    r debug populate 60000 key 100
    set report [r memory doctor]
    assert {[string length $report] > 0}
    if {[is_keel]} { assert_no_match {*less than 5 MB*} $report }
    r flushall
}

}
