# Transactions and scripting together: EVAL / EVALSHA / SCRIPT / FUNCTION / FCALL queued in
# MULTI, WATCH invalidated (or not) by scripts and functions run by other clients, and the
# transaction commands refused inside scripts. Expected replies were checked against the
# reference redis-server 7.0 (same behaviour in 7.4); the file also passes against it.

set other [redis_client]

set lib_code {#!lua name=mslib
redis.register_function('ms_set', function(keys, args)
  return redis.call('set', keys[1], args[1])
end)
redis.register_function{function_name='ms_get', callback=function(keys)
  return redis.call('get', keys[1])
end, flags={'no-writes'}}}

test "EVAL inside MULTI is queued and runs at EXEC" {
    r del k1 k2
    assert_equal OK [r multi]
    assert_equal QUEUED [r eval {redis.call('set', KEYS[1], ARGV[1]) return redis.call('incr', KEYS[2])} 2 k1 k2 v]
    assert_equal QUEUED [r eval {return redis.call('get', KEYS[1])} 1 k1]
    assert_equal QUEUED [r get k1]
    # Nothing ran yet.
    assert_equal 0 [$other exists k1 k2]
    assert_equal {1 v v} [r exec]
    # Its writes are visible to everyone afterwards.
    assert_equal v [$other get k1]
    assert_equal 1 [$other get k2]
}

test "EVAL in MULTI sees the writes of the commands queued before it" {
    r del cnt
    r multi
    r set cnt 10
    r eval {return redis.call('incrby', KEYS[1], 5)} 1 cnt
    r incr cnt
    assert_equal {OK 15 16} [r exec]
}

test "EVAL in MULTI, raw protocol" {
    set c [redis_client]
    $c readraw 1
    assert_equal +OK [$c multi]
    assert_equal +QUEUED [$c eval {return {1, 'two'}} 0]
    assert_equal +QUEUED [$c eval {return redis.status_reply('FINE')} 0]
    assert_equal *2 [$c exec]
    assert_equal *2 [$c read]
    assert_equal :1 [$c read]
    assert_equal {$3} [$c read]
    assert_equal two [$c read]
    assert_equal +FINE [$c read]
    $c close
}

test "Script errors inside EXEC are per command and do not stop the others" {
    r del str lst
    r set str x
    r multi
    r eval {return redis.call('lpush', KEYS[1], 'a')} 1 str
    r eval {return redis.error_reply('MYERR custom')} 0
    r eval {return nosuchglobal} 0
    r eval {this is not lua} 0
    r rpush lst a
    set res [r exec]
    assert_equal 5 [llength $res]
    assert_match {WRONGTYPE Operation against a key holding the wrong kind of value script: *} [lindex $res 0]
    assert_equal {MYERR custom} [lindex $res 1]
    assert_match {ERR user_script:1: Script attempted to access nonexistent global variable 'nosuchglobal' script: *} [lindex $res 2]
    assert_match {ERR Error compiling script *} [lindex $res 3]
    assert_equal 1 [lindex $res 4]
    assert_equal x [r get str]
    assert_equal a [r lindex lst 0]
}

test "EVAL argument errors: arity aborts the transaction, numkeys fails at EXEC" {
    r del nk
    r multi
    assert_error {*wrong number of arguments for 'eval' command*} {r eval {return 1}}
    r set nk 1
    assert_error {EXECABORT Transaction discarded because of previous errors.} {r exec}
    assert_equal 0 [r exists nk]

    r multi
    assert_equal QUEUED [r eval {return 1} 5]
    assert_equal QUEUED [r eval {return 1} -1]
    assert_equal QUEUED [r eval {return 1} abc]
    r set nk 1
    set res [r exec]
    assert_equal {ERR Number of keys can't be greater than number of args} [lindex $res 0]
    assert_equal {ERR Number of keys can't be negative} [lindex $res 1]
    assert_equal {ERR value is not an integer or out of range} [lindex $res 2]
    assert_equal OK [lindex $res 3]
    assert_equal 1 [r get nk]
}

test "SCRIPT LOAD then EVALSHA in the same MULTI; EVALSHA of an unknown script fails at EXEC" {
    r script flush
    set body {return 'from-sha'}
    set sha [r eval {return redis.sha1hex(ARGV[1])} 0 $body]
    r multi
    assert_equal QUEUED [r script load $body]
    assert_equal QUEUED [r evalsha $sha 0]
    assert_equal QUEUED [r script exists $sha]
    assert_equal [list $sha from-sha 1] [r exec]

    r script flush
    r multi
    assert_equal QUEUED [r evalsha $sha 0]
    assert_equal QUEUED [r evalsha_ro $sha 0]
    set res [r exec]
    assert_equal {NOSCRIPT No matching script. Please use EVAL.} [lindex $res 0]
    assert_equal {NOSCRIPT No matching script. Please use EVAL.} [lindex $res 1]
}

test "SCRIPT FLUSH inside MULTI drops scripts loaded before" {
    set sha [r script load {return 42}]
    r multi
    r evalsha $sha 0
    r script flush
    r evalsha $sha 0
    set res [r exec]
    assert_equal {42 OK} [lrange $res 0 1]
    assert_equal {NOSCRIPT No matching script. Please use EVAL.} [lindex $res 2]
}

test "EVAL_RO and no-writes scripts inside MULTI" {
    r set ro v
    r multi
    r eval_ro {return redis.call('get', KEYS[1])} 1 ro
    r eval_ro {return redis.call('set', KEYS[1], 'w')} 1 ro
    r eval "#!lua flags=no-writes\nreturn redis.call('del', KEYS\[1\])" 1 ro
    set res [r exec]
    assert_equal v [lindex $res 0]
    assert_match {ERR Write commands are not allowed from read-only scripts. script: *} [lindex $res 1]
    assert_match {ERR Write commands are not allowed from read-only scripts. script: *} [lindex $res 2]
    assert_equal v [r get ro]
}

test "A script run by another client invalidates WATCH" {
    r set wk 1
    r watch wk
    assert_equal OK [$other eval {return redis.call('set', KEYS[1], '2')} 1 wk]
    r multi
    r get wk
    assert_equal {} [r exec]
    assert_equal 2 [r get wk]
}

test "A script that deletes or expires the watched key invalidates WATCH" {
    r set wk 1
    r watch wk
    $other eval {return redis.call('del', KEYS[1])} 1 wk
    r multi
    r ping
    assert_equal {} [r exec]

    r set wk 1
    r watch wk
    $other eval {return redis.call('pexpire', KEYS[1], 100000)} 1 wk
    r multi
    r ping
    assert_equal {} [r exec]

    # A collection changed by a script.
    r del wl
    r rpush wl a
    r watch wl
    $other eval {return redis.call('rpush', KEYS[1], 'b')} 1 wl
    r multi
    r ping
    assert_equal {} [r exec]
}

test "A script that only reads, or writes other keys, leaves WATCH alone" {
    r set wk 1
    r del wother
    r watch wk
    assert_equal 1 [$other eval {return redis.call('get', KEYS[1])} 1 wk]
    assert_equal OK [$other eval {return redis.call('set', KEYS[1], 'x')} 1 wother]
    # A write that fails changes nothing.
    assert_error {WRONGTYPE*} {$other eval {return redis.call('lpush', KEYS[1], 'x')} 1 wk}
    r multi
    r incr wk
    assert_equal {2} [r exec]
}

test "A script writing the watched key in another db (SELECT inside the script)" {
    r select 9
    r set dbk 1
    r watch dbk
    # The other client is in db 0; its script switches to db 9.
    $other eval {redis.call('select', 9) return redis.call('set', KEYS[1], 'changed')} 1 dbk
    r multi
    r get dbk
    assert_equal {} [r exec]
    assert_equal changed [r get dbk]
    # The same key name in db 0 is another key.
    r watch dbk
    $other eval {return redis.call('set', KEYS[1], 'db0')} 1 dbk
    r multi
    r get dbk
    assert_equal {changed} [r exec]
    r del dbk
    r select 0
    r del dbk
}

test "The client's own script between WATCH and MULTI invalidates its WATCH" {
    r set wk 1
    r watch wk
    r eval {return redis.call('incr', KEYS[1])} 1 wk
    r multi
    r get wk
    assert_equal {} [r exec]
}

test "A script queued in the transaction does not abort it" {
    r set wk 1
    r watch wk
    r multi
    r eval {return redis.call('incr', KEYS[1])} 1 wk
    r get wk
    assert_equal {2 2} [r exec]
}

test "A script waiting in another client's MULTI does not touch WATCH until EXEC" {
    r set wk 1
    r watch wk
    $other multi
    $other eval {return redis.call('set', KEYS[1], 'later')} 1 wk
    r multi
    r get wk
    assert_equal {1} [r exec]
    assert_equal {OK} [$other exec]
    assert_equal later [r get wk]
}

test "Transaction commands are refused inside scripts" {
    foreach cmd {multi exec discard watch unwatch} {
        set args [expr {$cmd eq "watch" ? "'x'" : ""}]
        set script "return redis.call('$cmd'[expr {$args ne "" ? ", $args" : ""}])"
        assert_error {ERR This Redis command is not allowed from script script: *} [list r eval $script 0]
    }
    # redis.pcall gets the error as a table; returned, it is an error reply without the suffix.
    assert_error {ERR This Redis command is not allowed from script} {r eval {return redis.pcall('multi')} 0}
    assert_equal {ERR This Redis command is not allowed from script} \
        [r eval {return redis.pcall('exec')['err']} 0]
    # Nor can a script start another script.
    assert_error {ERR This Redis command is not allowed from script script: *} {r eval {return redis.call('eval', 'return 1', 0)} 0}
    assert_error {ERR This Redis command is not allowed from script script: *} {r eval {return redis.call('fcall', 'ms_set', 0)} 0}
    # The session is not left in a transaction.
    assert_equal PONG [r ping]
}

test "redis.call('multi') in a script queued in MULTI fails at EXEC only" {
    r del after
    r multi
    r eval {return redis.call('multi')} 0
    r set after 1
    set res [r exec]
    assert_match {ERR This Redis command is not allowed from script script: *} [lindex $res 0]
    assert_equal OK [lindex $res 1]
    assert_equal 1 [r get after]
    assert_equal PONG [r ping]
}

test "A function refused MULTI too" {
    r function flush
    r function load {#!lua name=badlib
redis.register_function('try_multi', function() return redis.call('multi') end)}
    assert_error {ERR This Redis command is not allowed from script script: try_multi, on @user_function:2.} {r fcall try_multi 0}
    r function flush
}

test "FUNCTION LOAD and FCALL in the same MULTI" {
    r function flush
    r del fk
    r multi
    assert_equal QUEUED [r function load $lib_code]
    assert_equal QUEUED [r fcall ms_set 1 fk hello]
    assert_equal QUEUED [r fcall_ro ms_get 1 fk]
    assert_equal QUEUED [r fcall ms_get 1 fk]
    assert_equal {mslib OK hello hello} [r exec]
    assert_equal hello [$other get fk]
}

test "FCALL of a missing function and FCALL_RO of a writer fail at EXEC" {
    r function flush
    r function load $lib_code
    r multi
    assert_equal QUEUED [r fcall nosuchfn 0]
    assert_equal QUEUED [r fcall_ro ms_set 1 fk x]
    r function delete mslib
    r fcall ms_get 1 fk
    set res [r exec]
    assert_equal {ERR Function not found} [lindex $res 0]
    assert_equal {ERR Can not execute a script with write flag using *_ro command.} [lindex $res 1]
    assert_equal OK [lindex $res 2]
    assert_equal {ERR Function not found} [lindex $res 3]
    assert_error {*wrong number of arguments for 'fcall' command*} {r fcall ms_get}
}

test "FUNCTION FLUSH / RESTORE-free reload inside MULTI" {
    r function flush
    r function load $lib_code
    r multi
    r function flush
    r function load $lib_code
    r fcall ms_set 1 fk again
    assert_equal {OK mslib OK} [r exec]
    assert_equal again [r get fk]
}

test "A function run by another client invalidates WATCH; a read-only one does not" {
    r function flush
    r function load $lib_code
    r set fw 1
    r watch fw
    assert_equal 1 [$other fcall_ro ms_get 1 fw]
    r multi
    r get fw
    assert_equal {1} [r exec]

    r watch fw
    assert_equal OK [$other fcall ms_set 1 fw 2]
    r multi
    r get fw
    assert_equal {} [r exec]
    assert_equal 2 [r get fw]
    r function flush
}

test "DISCARD drops queued scripts" {
    r del dk
    r multi
    r eval {return redis.call('set', KEYS[1], 'x')} 1 dk
    r fcall ms_set 1 dk y
    assert_equal OK [r discard]
    assert_equal 0 [r exists dk]
}

test "EVAL inside MULTI in RESP3" {
    set c [redis_client -resp 3]
    $c multi
    $c eval {redis.setresp(3) return redis.call('hgetall', KEYS[1])} 1 nohash
    $c eval {return {map={a=1}}} 0
    $c eval {return {double=1.5}} 0
    assert_equal {{} {a 1} 1.5} [$c exec]
    $c close
}
