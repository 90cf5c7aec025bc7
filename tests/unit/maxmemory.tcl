# maxmemory, maxmemory-policy and eviction, the -OOM refusals (plain commands, MULTI, scripts),
# OBJECT FREQ and the INFO fields. Replies, error texts and defaults were checked against
# redis-server 7.0.15 (the whole file passes with --server /usr/bin/redis-server, except the
# tests marked Keel-only: DEBUG PROPAGATED, the re-scored pool candidate).

proc used_memory {} { return [server_info used_memory] }
proc evicted_keys {} { return [server_info evicted_keys] }

# Sets maxmemory to `room` bytes above what is used now.
proc set_ceiling_above_used {room} {
    set limit [expr {[used_memory] + $room}]
    r config set maxmemory $limit
    return $limit
}

# A 10 KB string value under `key` with its LRU idle time or LFU counter set through RESTORE.
proc restore_with {key how value} {
    r set __tmp [string repeat x 10000]
    set payload [r dump __tmp]
    r del __tmp
    r restore $key 0 $payload $how $value
}

# An empty server under `policy` with the defaults of everything these tests change, so that
# a test which fails half-way does not leave a ceiling that fails the next ones too.
proc fresh_start {policy} {
    r config set maxmemory 0
    r config set maxmemory-samples 5
    r config set lazyfree-lazy-eviction no
    r config set notify-keyspace-events ""
    r flushall
    r config set maxmemory-policy $policy
}

tags {maxmemory} {

test "maxmemory directives: Redis's defaults" {
    assert_equal {maxmemory 0} [r config get maxmemory]
    assert_equal {maxmemory-policy noeviction} [r config get maxmemory-policy]
    assert_equal {maxmemory-samples 5} [r config get maxmemory-samples]
    assert_equal {maxmemory-eviction-tenacity 10} [r config get maxmemory-eviction-tenacity]
    assert_equal {lfu-log-factor 10} [r config get lfu-log-factor]
    assert_equal {lfu-decay-time 1} [r config get lfu-decay-time]
    assert_equal {lazyfree-lazy-eviction no} [r config get lazyfree-lazy-eviction]
}

test "CONFIG SET maxmemory-policy: the eight policies, and the error for others" {
    foreach p {volatile-lru volatile-lfu volatile-random volatile-ttl allkeys-lru allkeys-lfu
               allkeys-random noeviction} {
        r config set maxmemory-policy $p
        assert_equal [list maxmemory-policy $p] [r config get maxmemory-policy]
        assert_equal $p [server_info maxmemory_policy]
    }
    r config set maxmemory-policy ALLKEYS-LRU
    assert_equal {maxmemory-policy allkeys-lru} [r config get maxmemory-policy]
    assert_error {ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction} {r config set maxmemory-policy foo}
    assert_error {ERR CONFIG SET failed (possibly related to argument 'maxmemory-eviction-tenacity') - argument must be between 0 and 100 inclusive} {r config set maxmemory-eviction-tenacity 101}
    assert_error {ERR CONFIG SET failed (possibly related to argument 'maxmemory-samples') - argument must be between 1 and 2147483647 inclusive} {r config set maxmemory-samples 0}
    assert_error {ERR CONFIG SET failed (possibly related to argument 'lfu-log-factor') - argument must be between 0 and 2147483647 inclusive} {r config set lfu-log-factor -1}
    r config set maxmemory-policy noeviction
}

test "INFO: maxmemory fields, used_memory_dataset, eviction counters" {
    r config set maxmemory 100mb
    assert_equal 104857600 [server_info maxmemory]
    assert_equal 100.00M [server_info maxmemory_human]
    r config set maxmemory 0
    assert_equal 0 [server_info maxmemory]
    assert_equal 0B [server_info maxmemory_human]
    foreach f {used_memory_overhead used_memory_startup used_memory_dataset mem_not_counted_for_evict
               evicted_keys evicted_clients total_eviction_exceeded_time current_eviction_exceeded_time} {
        assert_match {[0-9]*} [server_info $f] $f
    }
    assert_match {*%} [server_info used_memory_dataset_perc]
    assert_equal 0 [server_info mem_not_counted_for_evict]
}

test "noeviction: deny-oom commands get -OOM, reads and deletions run, nothing is evicted" {
    fresh_start noeviction
    for {set i 0} {$i < 100} {incr i} { r set k:$i [string repeat v 100] }
    set before [evicted_keys]
    r config set maxmemory 1
    assert_error {OOM command not allowed when used memory > 'maxmemory'.} {r set x y}
    assert_error {OOM command not allowed when used memory > 'maxmemory'.} {r lpush l a}
    assert_error {OOM command not allowed when used memory > 'maxmemory'.} {r append k:1 more}
    assert_equal [string repeat v 100] [r get k:1]
    assert_equal 1 [r del k:1]
    assert_equal 99 [r dbsize]
    assert_equal PONG [r ping]
    assert_equal $before [evicted_keys]
    r config set maxmemory 0
    assert_equal OK [r set x y]
}

test "-OOM inside MULTI: queueing is refused and EXEC aborts; DISCARD still works" {
    r flushall
    r set a 1
    r config set maxmemory 1
    r multi
    assert_error {OOM command not allowed when used memory > 'maxmemory'.} {r get a}
    assert_error {EXECABORT Transaction discarded because of previous errors.} {r exec}
    r multi
    assert_error {OOM command not allowed when used memory > 'maxmemory'.} {r set a 2}
    assert_equal OK [r discard]
    r config set maxmemory 0
    # Memory ran out between queueing and EXEC: EXEC is refused when a deny-oom command waits.
    r multi
    r set a 2
    r config set maxmemory 1
    assert_equal {OK} [lindex [r exec] 0]
    # (CONFIG SET ran inside the transaction, after SET: the EXEC itself was admitted.)
    r multi
    assert_error {OOM*} {r set a 3}
    r discard
    r config set maxmemory 0
    assert_equal 2 [r get a]
}

test "-OOM and scripts: deny-oom calls before the first write, shebang flags" {
    r flushall
    r set a 1
    r config set maxmemory 1
    # No shebang: checked per redis.call, until the script has written.
    assert_error {OOM command not allowed when used memory > 'maxmemory'.*script*} {r eval {return redis.call('set','x','1')} 0}
    assert_equal 1 [r eval {return redis.call('get','a')} 0]
    assert_equal OK [r eval {redis.call('del','a') return redis.call('set','x','1')} 0]
    assert_equal {OOM command not allowed when used memory > 'maxmemory'.} [r eval {local r = redis.pcall('set','y','1') return r['err']} 0]
    # A shebang without allow-oom / no-writes makes EVAL itself deny-oom.
    assert_error {OOM command not allowed when used memory > 'maxmemory'.} {r eval "#!lua\nreturn redis.call('get','x')" 0}
    assert_equal OK [r eval "#!lua flags=allow-oom\nreturn redis.call('set','x','2')" 0]
    assert_equal 2 [r eval "#!lua flags=no-writes\nreturn redis.call('get','x')" 0]
    r config set maxmemory 0
    r function load replace "#!lua name=oomlib
redis.register_function('f1', function(k, a) return redis.call('set','y','1') end)
redis.register_function{function_name='f2', callback=function(k, a) return redis.call('get','x') end, flags={'no-writes'}}
redis.register_function{function_name='f3', callback=function(k, a) return redis.call('set','y','2') end, flags={'allow-oom'}}"
    r config set maxmemory 1
    assert_error {OOM command not allowed when used memory > 'maxmemory'.} {r fcall f1 0}
    assert_equal 2 [r fcall f2 0]
    assert_equal 2 [r fcall_ro f2 0]
    assert_equal OK [r fcall f3 0]
    r config set maxmemory 0
    r function flush
    # Without a ceiling any more, the last verdict does not linger.
    assert_equal OK [r eval {return redis.call('set','z','1')} 0]
}

test "OBJECT FREQ: the LFU counter (and the errors of the other policy)" {
    fresh_start allkeys-lru
    r set k v
    assert_error {ERR An LFU maxmemory policy is not selected*} {r object freq k}
    r config set maxmemory-policy allkeys-lfu
    r del k
    r set k v
    # A new key starts at Redis's LFU_INIT_VAL.
    assert_equal 5 [r object freq k]
    assert_error {ERR An LFU maxmemory policy is selected, idle time not tracked*} {r object idletime k}
    # lfu-log-factor 0: every access counts.
    r config set lfu-log-factor 0
    for {set i 0} {$i < 10} {incr i} { r get k }
    assert_equal 15 [r object freq k]
    # With the default factor the counter grows logarithmically: far fewer than the accesses.
    r config set lfu-log-factor 10
    for {set i 0} {$i < 1000} {incr i} { r get k }
    assert_range [r object freq k] 16 60
    # RESTORE ... FREQ sets the counter.
    restore_with r FREQ 200
    assert_equal 200 [r object freq r]
    assert_equal {} [r object freq nokey]
    r config set maxmemory-policy noeviction
}

test "The LFU counter and the LRU idle time survive a reload (RDB FREQ and IDLE)" {
    fresh_start allkeys-lfu
    restore_with hot FREQ 200
    r set fresh v
    r debug reload
    assert_equal 200 [r object freq hot]
    assert_equal 5 [r object freq fresh]
    r config set maxmemory-policy allkeys-lru
    restore_with idle IDLETIME 1000
    r debug reload
    # Seconds clocks read at different moments: a second either way.
    assert_range [r object idletime idle] 999 1005
    r config set maxmemory-policy noeviction
}

test "A key loaded under an LFU policy without a saved counter starts at LFU_INIT_VAL" {
    r flushall
    # Saved under noeviction: the RDB holds neither FREQ nor IDLE.
    restore_with k IDLETIME 100000
    r save
    r config set maxmemory-policy allkeys-lfu
    r debug reload nosave
    assert_equal 5 [r object freq k]
    r config set maxmemory-policy noeviction
}

test "Reads touch the LRU idle time" {
    fresh_start allkeys-lru
    restore_with k IDLETIME 1000
    assert_range [r object idletime k] 1000 1002
    r get k
    assert_range [r object idletime k] 0 1
    # EXISTS looks without touching, as in Redis.
    restore_with h IDLETIME 1000
    assert_equal 1 [r exists h]
    assert_range [r object idletime h] 1000 1002
    r config set maxmemory-policy noeviction
}

foreach policy {allkeys-lru allkeys-lfu allkeys-random volatile-lru volatile-lfu volatile-random volatile-ttl} {
    test "$policy: writes past the ceiling evict and memory stays near maxmemory" {
        r flushall
        r config set maxmemory 0
        r config set maxmemory-policy $policy
        set before [evicted_keys]
        set limit [set_ceiling_above_used 2000000]
        set volatile [string match volatile-* $policy]
        for {set i 0} {$i < 4000} {incr i} {
            if {$volatile} {
                r set key:$i [string repeat x 1000] ex 100000
            } else {
                r set key:$i [string repeat x 1000]
            }
        }
        set evicted [expr {[evicted_keys] - $before}]
        assert_morethan $evicted 1000
        # 4000 x ~1 KB do not fit in 2 MB: what is left fits, with one value's slack.
        assert_lessthan [used_memory] [expr {$limit + 100000}]
        assert_lessthan [r dbsize] 2100
        r config set maxmemory 0
    }
}

test "volatile policies evict only keys with a TTL, then refuse writes" {
    fresh_start volatile-lru
    for {set i 0} {$i < 200} {incr i} { r set keep:$i [string repeat x 1000] }
    for {set i 0} {$i < 200} {incr i} { r set ttl:$i [string repeat x 1000] ex 100000 }
    set limit [expr {[used_memory] - 100000}]
    r config set maxmemory $limit
    r set trigger x
    assert_equal 200 [llength [r keys keep:*]]
    assert_morethan 200 [llength [r keys ttl:*]]
    # Below what the keys without TTL need: everything evictable goes, then -OOM.
    r config set maxmemory 1
    assert_error {OOM command not allowed when used memory > 'maxmemory'.} {r set x y}
    assert_equal 0 [llength [r keys ttl:*]]
    assert_equal 200 [llength [r keys keep:*]]
    r config set maxmemory 0
    r config set maxmemory-policy noeviction
}

test "allkeys-lru evicts the idle keys first" {
    fresh_start allkeys-lru
    for {set i 0} {$i < 100} {incr i} { restore_with old:$i IDLETIME 100000 }
    for {set i 0} {$i < 100} {incr i} { r set new:$i [string repeat x 10000] }
    # About 50 values over.
    r config set maxmemory [expr {[used_memory] - 500000}]
    r set trigger x
    assert_morethan [evicted_keys] 0
    assert_morethan_equal [llength [r keys new:*]] 95
    r config set maxmemory 0
    r config set maxmemory-policy noeviction
}

# Keel-only: Redis 7.0 evicts old:1 here (its pool keeps the idle time old:1 had when it was
# sampled; checked with redis-server 7.0.15). Keel re-scores a candidate read since then.
test "allkeys-lru: a pool candidate read after it was sampled is not evicted on its old idle time (Keel-only)" {
    fresh_start allkeys-lru
    # A sample of 64 from 12 keys is every key (ds/hashtable.h), and all fit the pool of 16.
    r config set maxmemory-samples 64
    for {set i 0} {$i < 12} {incr i} { restore_with old:$i IDLETIME [expr {100000 - 1000 * $i}] }
    # About two and a half 10 KB values over: the idlest go, the others stay in the pool.
    r config set maxmemory [expr {[used_memory] - 25000}]
    r set trigger x
    set s 0
    while {![r exists old:$s]} { incr s }
    assert_morethan $s 0
    assert_lessthan $s 8
    # old:$s, the pool's best now, is read: it becomes the most recently used key.
    r get old:$s
    # More data under the same ceiling (a CONFIG SET would empty the pool): more evictions.
    set before [evicted_keys]
    r set filler [string repeat y 25000]
    assert_morethan [evicted_keys] $before
    assert_equal 1 [r exists old:$s]
    assert_equal 0 [r exists old:[expr {$s + 1}]]
    r config set maxmemory 0
    r config set maxmemory-samples 5
    r config set maxmemory-policy noeviction
}

test "allkeys-lfu evicts the least frequently used keys first" {
    fresh_start allkeys-lfu
    for {set i 0} {$i < 100} {incr i} { restore_with hot:$i FREQ 100 }
    for {set i 0} {$i < 100} {incr i} { restore_with cold:$i FREQ 0 }
    r config set maxmemory [expr {[used_memory] - 500000}]
    r set trigger x
    assert_morethan [evicted_keys] 0
    assert_morethan_equal [llength [r keys hot:*]] 95
    r config set maxmemory 0
    r config set maxmemory-policy noeviction
}

test "volatile-ttl evicts the keys that expire soonest" {
    fresh_start volatile-ttl
    for {set i 0} {$i < 100} {incr i} { r set soon:$i [string repeat x 10000] ex 1000 }
    for {set i 0} {$i < 100} {incr i} { r set late:$i [string repeat x 10000] ex 1000000 }
    r config set maxmemory [expr {[used_memory] - 500000}]
    r set trigger x
    assert_morethan_equal [llength [r keys late:*]] 95
    assert_morethan 100 [llength [r keys soon:*]]
    r config set maxmemory 0
    r config set maxmemory-policy noeviction
}

test "an evicted key: 'evicted' keyspace event, WATCH sees it" {
    fresh_start allkeys-random
    r config set notify-keyspace-events Ee
    set sub [redis_deferring_client]
    $sub psubscribe __keyevent@*__:evicted
    $sub read
    r set victim [string repeat x 100000]
    set w [redis_client]
    $w watch victim
    r config set maxmemory 1
    # The next command runs eviction; PING is not deny-oom, so it answers.
    assert_equal PONG [r ping]
    assert_equal 0 [r exists victim]
    set msg [$sub read]
    assert_equal {pmessage __keyevent@*__:evicted __keyevent@0__:evicted victim} $msg
    r config set maxmemory 0
    $w multi
    $w ping
    assert_equal {} [$w exec]
    $w close
    $sub close
    r config set notify-keyspace-events ""
    r config set maxmemory-policy noeviction
}

test "an evicted key is propagated as DEL (UNLINK with lazyfree-lazy-eviction)" {
    if {![is_keel]} { skip_test "DEBUG PROPAGATED is Keel's" }
    fresh_start allkeys-lru
    r set victim [string repeat x 100000]
    r debug propagated on
    r config set maxmemory 1
    r ping
    r config set maxmemory 0
    assert_equal {{select 0} {del victim}} [string tolower [r debug propagated]]
    r set victim [string repeat x 100000]
    r config set lazyfree-lazy-eviction yes
    r config set maxmemory 1
    r ping
    r config set maxmemory 0
    assert_equal {unlink victim} [string tolower [lindex [r debug propagated] end]]
    r debug propagated off
    r config set lazyfree-lazy-eviction no
    r config set maxmemory-policy noeviction
}

}

tags {maxmemory} {

# A bounded write load at the ceiling: pipelined batches of 1 KB SETs.
proc write_load {batches prefix} {
    set rd [redis_deferring_client]
    set errors 0
    set worst 0
    for {set b 0} {$b < $batches} {incr b} {
        for {set i 0} {$i < 500} {incr i} { $rd set $prefix:$b:$i [string repeat v 1000] }
        for {set i 0} {$i < 500} {incr i} {
            if {[catch {$rd read} e]} {
                assert_match {OOM command not allowed when used memory > 'maxmemory'.} $e
                incr errors
            }
        }
        set used [used_memory]
        if {$used > $worst} { set worst $used }
    }
    $rd close
    return [list $errors $worst]
}

test "a write load at the ceiling (allkeys-lru) stays within maxmemory plus slack" {
    fresh_start allkeys-lru
    set limit [set_ceiling_above_used 4000000]
    lassign [write_load 30 lru] errors worst
    assert_equal 0 $errors
    # Slack: what one batch of pipelined commands and their replies hold at most.
    assert_lessthan $worst [expr {$limit + 1000000}]
    assert_morethan [evicted_keys] 0
    assert_equal PONG [r ping]
    r config set maxmemory 0
    r config set maxmemory-policy noeviction
}

test "a write load at the ceiling under noeviction: -OOM, nothing evicted, server alive" {
    r flushall
    r config resetstat
    r config set maxmemory-policy noeviction
    set limit [set_ceiling_above_used 4000000]
    lassign [write_load 30 noev] errors worst
    assert_morethan $errors 0
    assert_equal 0 [evicted_keys]
    assert_lessthan $worst [expr {$limit + 1000000}]
    # Every key written before the ceiling is still there.
    assert_equal [expr {15000 - $errors}] [r dbsize]
    assert_equal PONG [r ping]
    r config set maxmemory 0
}

}
