# The execution unit (src/README.md, "One unit of execution"): what a command, an EXEC or a
# script sees and does as one unit. Expected replies were checked against Debian's
# redis-server 7.0.15; where Redis 7.2+ changed the behaviour, the test expects the newer one
# and says so.

# ---- Scripts ---------------------------------------------------------------------------------

test "Time is frozen for a whole script: a key with PX 1 is still there 25 ms later" {
    r del k
    set script {
        redis.call('set', KEYS[1], 'v', 'px', 1)
        local t0 = redis.call('time')
        local t = t0
        while (t[1] - t0[1]) * 1000000 + (t[2] - t0[2]) < 25000 do t = redis.call('time') end
        return redis.call('get', KEYS[1])
    }
    assert_equal v [r eval $script 1 k]
    after 5
    assert_equal {} [r get k]
}

test "Time is frozen for a whole function" {
    r function flush
    r function load "#!lua name=frozen\nredis.register_function('f', function(keys)
        redis.call('set', keys\[1\], 'v', 'px', 1)
        local t0 = redis.call('time')
        local t = t0
        while (t\[1\] - t0\[1\]) * 1000000 + (t\[2\] - t0\[2\]) < 25000 do t = redis.call('time') end
        return redis.call('exists', keys\[1\])
    end)"
    assert_equal 1 [r fcall f 1 fk]
    r function flush
}

test "Time is frozen for a whole transaction" {
    r del k
    r multi
    r set k v px 1
    r debug sleep 0.02
    r get k
    set res [r exec]
    assert_equal {OK OK v} $res
}

# Redis 7.2+ lets scripts call the blocking commands (7.0 refuses them with "This Redis command
# is not allowed from script"); they never block there and answer as if their timeout expired.
test "Blocking commands called from a script answer at once with their empty reply" {
    r del nol nz src
    foreach {cmd} {
        {blpop nol 0} {brpop nol 0} {blmove nol dst left right 0} {brpoplpush nol dst 0}
        {bzpopmin nz 0} {bzpopmax nz 0} {blmpop 0 1 nol left} {bzmpop 0 1 nz min}
    } {
        set args [join [lmap a $cmd {string cat ' $a '}] ,]
        assert_equal {} [r eval "return redis.call($args)" 0] $cmd
    }
    r rpush src a
    assert_equal {src a} [r eval {return redis.call('blpop', 'src', 0)} 0]
    assert_equal 0 [r exists src]
}

test "Blocking commands are allowed in scripts (no noscript flag)" {
    foreach c {blpop brpop blmove brpoplpush bzpopmin bzpopmax blmpop bzmpop} {
        set flags [lindex [r command info $c] 0 2]
        assert {[lsearch $flags noscript] < 0} "$c: $flags"
        assert {[lsearch $flags blocking] >= 0} "$c: $flags"
    }
}

test "EVAL_RO, FCALL_RO and no-writes scripts refuse may-replicate commands (PUBLISH)" {
    assert_error {ERR Write commands are not allowed from read-only scripts.*} {r eval_ro {return redis.call('publish', 'ch', 'm')} 0}
    assert_error {ERR Write commands are not allowed from read-only scripts.*} {r eval "#!lua flags=no-writes\nreturn redis.call('publish', 'ch', 'm')" 0}
    r function flush
    r function load "#!lua name=ro\nredis.register_function{function_name='f', callback=function() return redis.call('publish', 'ch', 'm') end, flags={'no-writes'}}"
    assert_error {ERR Write commands are not allowed from read-only scripts.*} {r fcall_ro f 0}
    assert_error {ERR Write commands are not allowed from read-only scripts.*} {r fcall f 0}
    r function flush
}

test "MONITOR shows EVAL and FCALL themselves, before the commands they run" {
    set mon [redis_deferring_client]
    $mon monitor
    assert_equal OK [$mon read]
    r eval {redis.call('set', 'mk', '1') return redis.call('get', 'mk')} 0
    r function flush
    r function load "#!lua name=mlib\nredis.register_function('mf', function() return redis.call('incr', 'mk') end)"
    r fcall mf 0
    set lines {}
    for {set i 0} {$i < 6} {incr i} { lappend lines [$mon read] }
    $mon close
    assert_match {*\[0 127.0.0.1:*\] "eval" "redis.call('set', 'mk', '1') return redis.call('get', 'mk')" "0"} [lindex $lines 0]
    assert_match {*\[0 lua\] "set" "mk" "1"} [lindex $lines 1]
    assert_match {*\[0 lua\] "get" "mk"} [lindex $lines 2]
    assert_match {*"function" "flush"} [lindex $lines 3]
    assert_match {*"function" "load" *} [lindex $lines 4]
    assert_match {*\[0 127.0.0.1:*\] "fcall" "mf" "0"} [lindex $lines 5]
    r function flush
}

test "MONITOR shows the EVAL even when the script fails before running" {
    set mon [redis_deferring_client]
    $mon monitor
    assert_equal OK [$mon read]
    catch {r evalsha 0000000000000000000000000000000000000000 0}
    r ping
    assert_match {*"evalsha" "0000000000000000000000000000000000000000" "0"} [$mon read]
    assert_match {*"ping"} [$mon read]
    $mon close
}

test "Messages a script publishes to its own RESP3 client arrive after the script's reply" {
    set c [redis_client -resp 3]
    assert_equal {subscribe ch 1} [$c subscribe ch]
    $c deferred 1
    $c eval {redis.call('publish', 'ch', 'm1') redis.call('publish', 'ch', 'm2') return 'done'} 0
    assert_equal done [$c read]
    assert_equal {message ch m1} [$c read]
    assert_equal {message ch m2} [$c read]
    $c close
}

test "Messages a transaction publishes to its own RESP3 client arrive after EXEC's reply" {
    set c [redis_client -resp 3]
    assert_equal {subscribe ch 1} [$c subscribe ch]
    $c multi
    $c publish ch m1
    $c deferred 1
    $c exec
    assert_equal {1} [$c read]
    assert_equal {message ch m1} [$c read]
    $c close
}

test "INFO memory shows the scripting engines' memory and counts" {
    r script flush
    r function flush
    set d [info_dict [r info memory]]
    foreach f {used_memory_lua used_memory_vm_eval used_memory_lua_human used_memory_scripts_eval
               number_of_cached_scripts number_of_functions number_of_libraries
               used_memory_vm_functions used_memory_vm_total used_memory_vm_total_human
               used_memory_functions used_memory_scripts used_memory_scripts_human} {
        assert {[dict exists $d $f]} "INFO memory has no $f"
    }
    assert_equal 0 [dict get $d number_of_cached_scripts]
    assert {[dict get $d used_memory_vm_eval] > 0}
    assert_equal [dict get $d used_memory_lua] [dict get $d used_memory_vm_eval]
    assert_equal [dict get $d used_memory_vm_total] [expr {[dict get $d used_memory_vm_eval] + [dict get $d used_memory_vm_functions]}]
    r script load {return 1}
    r script load {return 2}
    r function load "#!lua name=ilib\nredis.register_function('a', function() return 1 end)\nredis.register_function('b', function() return 2 end)"
    set d [info_dict [r info memory]]
    assert_equal 2 [dict get $d number_of_cached_scripts]
    assert_equal 2 [dict get $d number_of_functions]
    assert_equal 1 [dict get $d number_of_libraries]
    assert {[dict get $d used_memory_scripts_eval] > 0}
    assert {[dict get $d used_memory_functions] > 0}
    assert_equal [dict get $d used_memory_scripts] [expr {[dict get $d used_memory_scripts_eval] + [dict get $d used_memory_functions]}]
    r script flush
    r function flush
}

# ---- Transactions and a busy script ------------------------------------------------------------

test "A command refused with -BUSY while queueing fails the transaction; EXEC during BUSY aborts" {
    r config set busy-reply-threshold 50
    set busy [redis_deferring_client]
    set a [redis_client]
    set b [redis_client]
    assert_equal OK [$a multi]
    assert_equal QUEUED [$a set x 1]
    assert_equal OK [$b multi]
    $busy eval {local i = 0 while true do i = i + 1 end} 0
    wait_for_condition 100 20 {
        [catch {$b ping} e] && [string match {BUSY*} $e]
    }
    # $b's PING above was refused: its transaction is failed.
    assert_error {BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.} {$b set y 1}
    assert_error {EXECABORT Transaction discarded because of: BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.} {$a exec}
    assert_equal OK [r script kill]
    assert_error {ERR Script killed by user*} {$busy read}
    assert_error {ERR EXEC without MULTI} {$a exec}
    assert_error {EXECABORT Transaction discarded because of previous errors.} {$b exec}
    assert_equal 0 [r exists x y]
    $busy close
    $a close
    $b close
    r config set busy-reply-threshold 5000
}

# ---- Stats ---------------------------------------------------------------------------------

proc dirty {} { server_info rdb_changes_since_last_save }

test "rdb_changes_since_last_save counts as Redis: elements, one per LMOVE, SWAPDB, functions" {
    r flushall
    set d0 [dirty]
    r rpush src a b c
    assert_equal 3 [expr {[dirty] - $d0}]
    set d0 [dirty]
    r lmove src dst left right
    assert_equal 1 [expr {[dirty] - $d0}]
    set d0 [dirty]
    r swapdb 0 1
    r swapdb 0 1
    assert_equal 2 [expr {[dirty] - $d0}]
    set d0 [dirty]
    r function load "#!lua name=dlib\nredis.register_function('f', function() return 1 end)"
    r function delete dlib
    r function flush
    assert_equal 3 [expr {[dirty] - $d0}]
    set d0 [dirty]
    r hset h a 1 b 2
    r sadd s a b c
    r sadd s a
    r set k v ex 100
    r zadd z 1 a 2 b
    assert_equal 8 [expr {[dirty] - $d0}]
    set d0 [dirty]
    r flushall
    assert_equal 6 [expr {[dirty] - $d0}]
}

# Redis 7.2+ runs the served command again, so it counts like its plain form (7.0 counted
# nothing for a served BLMOVE): the push and the move, 2.
test "A served BLMOVE adds its change to rdb_changes_since_last_save after the push's" {
    r del q qdst
    set rd [redis_deferring_client]
    $rd blmove q qdst left right 0
    wait_for_blocked_clients 1
    set d0 [dirty]
    r rpush q x
    assert_equal x [$rd read]
    assert_equal 2 [expr {[dirty] - $d0}]
    $rd close
}

test "Expiry does not count in rdb_changes_since_last_save" {
    r debug set-active-expire 0
    r set ek v px 1
    after 10
    set d0 [dirty]
    r get ek
    assert_equal 0 [expr {[dirty] - $d0}]
    r debug set-active-expire 1
}

test "lazyfreed_objects counts FLUSHALL / FLUSHDB ASYNC keys and UNLINK of big values" {
    r flushall
    r config resetstat
    r debug populate 5
    r flushall async
    wait_for_condition 100 10 {[server_info lazyfreed_objects] == 5} { fail "lazyfreed_objects [server_info lazyfreed_objects], not 5" }
    r debug populate 7
    r flushdb async
    r debug populate 3
    r flushdb sync
    r flushall
    wait_for_condition 100 10 {[server_info lazyfreed_objects] == 12} { fail "lazyfreed_objects [server_info lazyfreed_objects], not 12" }
    # Redis hands a value to its lazyfree thread when freeing it costs more than 64 steps
    # (hashtable or skiplist entries, quicklist nodes); small values are freed at once.
    r eval {for i = 1, 600 do redis.call('sadd', 'bigs', 'm' .. i) end
            for i = 1, 200 do redis.call('zadd', 'bigz', i, 'm' .. i) end
            for i = 1, 10 do redis.call('sadd', 'smalls', 'm' .. i) end return 1} 0
    r eval {for i = 1, 600 do redis.call('sadd', 'bigs2', 'm' .. i) end return 1} 0
    r unlink bigs smalls nosuch
    r del bigs2
    # The big values are freed by the lazyfree thread: counted once it is done.
    wait_for_condition 100 10 {[server_info lazyfreed_objects] == 13} { fail "lazyfreed_objects [server_info lazyfreed_objects], not 13" }
    r config set lazyfree-lazy-user-del yes
    r del bigz
    r config set lazyfree-lazy-user-del no
    wait_for_condition 100 10 {[server_info lazyfreed_objects] == 14} { fail "lazyfreed_objects [server_info lazyfreed_objects], not 14" }
    r config set lazyfree-lazy-user-flush yes
    r debug populate 2
    r flushall
    r config set lazyfree-lazy-user-flush no
    wait_for_condition 100 10 {[server_info lazyfreed_objects] == 16} { fail "lazyfreed_objects [server_info lazyfreed_objects], not 16" }
    r config resetstat
    assert_equal 0 [server_info lazyfreed_objects]
}

# The SLOWLOG entries (argument lists) whose command is `name`, newest first.
proc slowlog_entries {name} {
    set found {}
    foreach e [r slowlog get -1] {
        if {[string equal -nocase [lindex $e 3 0] $name]} { lappend found [lindex $e 3] }
    }
    return $found
}

test "SLOWLOG records a blocking command when it is served, not when it blocks" {
    r del q
    r config set slowlog-log-slower-than 0
    r slowlog reset
    set rd [redis_deferring_client]
    $rd blpop q 0
    wait_for_blocked_clients 1
    assert_equal {} [slowlog_entries blpop]
    r rpush q x
    assert_equal {q x} [$rd read]
    assert_equal {{blpop q 0}} [slowlog_entries blpop]
    $rd close
    r config set slowlog-log-slower-than 10000
}

# Redis 7.2+ counts a blocked command in commandstats and SLOWLOG when it ends, also on a
# timeout (7.0 counted the call when it blocked and logged nothing on a timeout).
test "A blocked command is counted once in commandstats, when it ends" {
    r del q
    r config resetstat
    r config set slowlog-log-slower-than 0
    r slowlog reset
    set rd [redis_deferring_client]
    $rd blpop q 0
    wait_for_blocked_clients 1
    assert_no_match {*cmdstat_blpop*} [r info commandstats]
    r rpush q x
    assert_equal {q x} [$rd read]
    assert_match {*cmdstat_blpop:calls=1,*} [r info commandstats]
    $rd blpop q 0.05
    assert_equal {} [$rd read]
    assert_match {*cmdstat_blpop:calls=2,*} [r info commandstats]
    assert_equal {{blpop q 0.05} {blpop q 0}} [slowlog_entries blpop]
    $rd close
    r config set slowlog-log-slower-than 10000
}

test "MONITOR shows a blocking command once, when it is sent" {
    r del q
    set mon [redis_deferring_client]
    $mon monitor
    assert_equal OK [$mon read]
    set rd [redis_deferring_client]
    $rd blpop q 0
    wait_for_blocked_clients 1
    r rpush q x
    assert_equal {q x} [$rd read]
    r ping
    # wait_for_blocked_clients sends INFO: leave those lines out.
    set lines {}
    while {[llength $lines] < 3} {
        set l [$mon read]
        if {![string match {*"info"*} $l]} { lappend lines $l }
    }
    assert_match {*"blpop" "q" "0"} [lindex $lines 0]
    assert_match {*"rpush" "q" "x"} [lindex $lines 1]
    assert_match {*"ping"} [lindex $lines 2]
    $mon close
    $rd close
}

# ---- Preparing for fork children -------------------------------------------------------------

proc thp_enabled {pid} {
    set f [open /proc/$pid/status]
    set status [read $f]
    close $f
    if {![regexp {THP_enabled:\s*(\d)} $status -> v]} { return "" }
    return $v
}

test "disable-thp yes (the default) turns transparent huge pages off for the process" {
    set v [thp_enabled [srv pid]]
    if {$v eq ""} { skip_test "the kernel does not report THP_enabled" }
    assert_equal 0 $v
    assert_equal {disable-thp yes} [r config get disable-thp]
}

start_server {overrides {disable-thp no}} {
    test "disable-thp no leaves transparent huge pages to the system setting" {
        set v [thp_enabled [srv pid]]
        if {$v eq ""} { skip_test "the kernel does not report THP_enabled" }
        assert_equal 1 $v
    }
}
