# EVAL / EVALSHA / EVAL_RO / SCRIPT: conversions in both directions (RESP2 and RESP3), errors,
# the sandbox, the script cache, shebang flags, and a busy script killed with SCRIPT KILL.
# Expected replies were taken from the reference redis-server (7.0; 7.4 differences noted).

proc has_command {name} {
    expr {![catch {r command info $name} info] && [llength [lindex $info 0]] > 0}
}

test "EVAL returns Lua values converted to RESP2" {
    assert_equal 1 [r eval {return 1} 0]
    assert_equal {1 2 3 ciao {1 2}} [r eval {return {1,2,3,'ciao',{1,2}}} 0]
    assert_equal 3 [r eval {return 3.99} 0]
    assert_equal -3 [r eval {return -3.99} 0]
    assert_equal 1 [r eval {return true} 0]
    assert_equal {} [r eval {return false} 0]
    assert_equal {} [r eval {return nil} 0]
    assert_equal {1 2} [r eval {return {1,2,nil,4}} 0]
    assert_equal {1 {} 3} [r eval {return {1,false,3}} 0]
    assert_equal fine [r eval {return {ok='fine'}} 0]
    assert_equal {} [r eval {return {ok=1}} 0]
    assert_equal {} [r eval {return {a=1}} 0]
    assert_equal x [r eval {return 'x', 'y'} 0]
    assert_equal -9223372036854775808 [r eval {return 1e20} 0]
    assert_equal {a 1} [r eval {return {map={a=1}}} 0]
    assert_equal {a} [r eval {return {set={a=true}}} 0]
    assert_equal 3.5 [r eval {return {double=3.5}} 0]
    assert_equal 123 [r eval {return {big_number='123'}} 0]
    assert_equal x [r eval {return {verbatim_string={format='txt',string='x'}}} 0]
}

test "EVAL returns exact RESP2 protocol for nil, false, status and nested arrays" {
    set c [redis_client]
    $c readraw 1
    assert_equal {$-1} [$c eval {return nil} 0]
    assert_equal {$-1} [$c eval {return false} 0]
    assert_equal {+fine} [$c eval {return {ok='fine'}} 0]
    assert_equal {*0} [$c eval {return {}} 0]
    assert_equal {:1} [$c eval {return true} 0]
    $c close
}

test "EVAL replies in RESP3 for a RESP3 client" {
    set c [redis_client -resp 3]
    $c readraw 1
    assert_equal {_} [$c eval {return nil} 0]
    assert_equal {_} [$c eval {return false} 0]
    assert_equal {:1} [$c eval {return true} 0]
    assert_equal {#t} [$c eval {redis.setresp(3); return true} 0]
    assert_equal {#f} [$c eval {redis.setresp(3); return false} 0]
    assert_equal {,3.5} [$c eval {return {double=3.5}} 0]
    assert_equal {(123} [$c eval {return {big_number='123'}} 0]
    assert_equal {%1} [$c eval {return {map={a=1}}} 0]
    assert_equal {$1} [$c read]
    assert_equal {a} [$c read]
    assert_equal {:1} [$c read]
    assert_equal {~1} [$c eval {return {set={a=true}}} 0]
    assert_equal {$1} [$c read]
    assert_equal {a} [$c read]
    assert_equal {=5} [$c eval {return {verbatim_string={format='txt',string='x'}}} 0]
    assert_equal {txt:x} [$c read]
    $c close
}

test "redis.call replies converted to Lua (RESP2)" {
    r set s x
    r del nokey
    assert_equal PONG [r eval {return redis.call('ping')} 0]
    assert_equal PONG [r eval {return redis.call('ping').ok} 0]
    assert_equal boolean [r eval {return type(redis.call('get','nokey'))} 0]
    assert_equal {} [r eval {return redis.call('get','nokey')} 0]
    assert_equal string [r eval {return type(redis.call('get','s'))} 0]
    assert_equal number [r eval {return type(redis.call('incr','n'))} 0]
    assert_equal table [r eval {return type(redis.call('mget','s','nokey'))} 0]
    assert_equal {x {}} [r eval {return redis.call('mget','s','nokey')} 0]
    assert_equal {boolean} [r eval {return type(redis.call('mget','s','nokey')[2])} 0]
}

test "redis.call replies converted to Lua (RESP3 with redis.setresp(3))" {
    r del nokey
    assert_equal nil [r eval {redis.setresp(3); return type(redis.call('get','nokey'))} 0]
    assert_equal 1 [r eval {redis.setresp(3); return redis.call('get','nokey') == nil} 0]
    # COMMAND DOCS replies with a map in RESP3.
    assert_equal table [r eval {redis.setresp(3); return type(redis.call('command','docs','get').map)} 0]
    assert_equal nil [r eval {redis.setresp(2); return type(redis.call('command','docs','get').map)} 0]
    if {[has_command zadd]} {
        r del z
        r zadd z 1.5 a
        assert_equal 1.5 [r eval {redis.setresp(3); return tostring(redis.call('zscore','z','a').double)} 0]
        r del z
    }
    if {[has_command sadd]} {
        r del st
        r sadd st x
        assert_equal true [r eval {redis.setresp(3); return tostring(redis.call('smembers','st').set.x)} 0]
        r del st
    }
}

test "redis.setresp and redis.set_repl argument errors" {
    assert_error {ERR RESP version must be 2 or 3. script: *} {r eval {redis.setresp(4)} 0}
    assert_error {ERR redis.setresp() requires one argument. script: *} {r eval {redis.setresp()} 0}
    assert_error {ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE. script: *} {r eval {redis.set_repl(99)} 0}
    assert_equal {} [r eval {return redis.set_repl(redis.REPL_ALL)} 0]
    assert_equal {0 1 2 3 0 1 2 2 3} [r eval {return {redis.LOG_DEBUG,redis.LOG_VERBOSE,redis.LOG_NOTICE,redis.LOG_WARNING, redis.REPL_NONE, redis.REPL_AOF, redis.REPL_SLAVE, redis.REPL_REPLICA, redis.REPL_ALL}} 0]
}

test "KEYS and ARGV" {
    assert_equal {k a 1 2} [r eval {return {KEYS[1], ARGV[1], #KEYS, #ARGV}} 1 k a b]
    assert_equal {0 0} [r eval {return {#KEYS, #ARGV}} 0]
    assert_equal {a b c} [r eval {return ARGV} 0 a b c]
    assert_equal {a b} [r eval {return KEYS} 2 a b]
}

test "numkeys validation" {
    assert_error {ERR Number of keys can't be negative} {r eval {return 1} -1}
    assert_error {ERR Number of keys can't be greater than number of args} {r eval {return 1} 2 a}
    assert_error {ERR value is not an integer or out of range} {r eval {return 1} x}
    assert_error {ERR Number of keys can't be negative} {r evalsha e0e1f9fabfc9d4800c877a703b823ac0578ff8db -1}
    assert_error {*wrong number of arguments for 'eval' command*} {r eval {return 1}}
    assert_error {*wrong number of arguments for 'evalsha' command*} {r evalsha abc}
}

test "Errors: redis.call raises, redis.pcall returns an error table" {
    r set s x
    assert_error {ERR Unknown Redis command called from script script: *, on @user_script:1.} {r eval {return redis.call('nosuch')} 0}
    assert_error {ERR Unknown Redis command called from script} {r eval {return redis.pcall('nosuch')} 0}
    assert_error {ERR Wrong number of args calling Redis command from script script: *} {r eval {return redis.call('get')} 0}
    assert_error {ERR value is not an integer or out of range script: *} {r eval {return redis.call('incr','s')} 0}
    assert_error {ERR value is not an integer or out of range} {r eval {return redis.pcall('incr','s')} 0}
    assert_equal table [r eval {return type(redis.pcall('incr','s'))} 0]
    assert_equal {ERR value is not an integer or out of range} [r eval {return redis.pcall('incr','s')['err']} 0]
    assert_error {ERR This Redis command is not allowed from script script: *} {r eval {return redis.call('subscribe','x')} 0}
    assert_error {ERR This Redis command is not allowed from script script: *} {r eval {return redis.call('eval','return 1','0')} 0}
    assert_error {ERR Please specify at least one argument for this redis lib call script: *} {r eval {return redis.call()} 0}
    assert_error {ERR Lua redis lib command arguments must be strings or integers script: *} {r eval {return redis.call({})} 0}
    assert_error {ERR Unknown Redis command called from script script: *} {r eval {return redis.call(1.5)} 0}
    # Lua's pcall hands back the err string of a caught error table.
    assert_equal {ERR Unknown Redis command called from script} [r eval {local ok, e = pcall(redis.call, 'nosuch'); return e} 0]
    assert_equal string [r eval {local ok, e = pcall(error, {err='x'}); return type(e)} 0]
    assert_equal {user_script:1: x} [r eval {local ok, e = pcall(function() error('x') end); return e} 0]
    assert_equal {1 1 2} [r eval {return {pcall(function() return 1, 2 end)}} 0]
}

test "Errors raised by the script and error replies" {
    assert_error {ERR user_script:1: boom script: 82903a0434f1503e152f89c03c9acd881a0e8150, on @user_script:1.} {r eval {error('boom')} 0}
    assert_error {ERR boom script: *, on @user_script:1.} {r eval {error('boom', 0)} 0}
    assert_error {XX boom script: *, on @user_script:1.} {r eval {error({err='XX boom'})} 0}
    assert_error {ERR user_script:1: 42 script: *} {r eval {error(42)} 0}
    assert_error {My Error} {r eval {return {err='My Error'}} 0}
    assert_error {MY err} {r eval {return redis.error_reply('MY err')} 0}
    assert_error {MY err} {r eval {return redis.error_reply('-MY err')} 0}
    assert_error {ERR OOPS} {r eval {return redis.error_reply('OOPS')} 0}
    assert_error {ERR wrong number or type of arguments} {r eval {return redis.error_reply()} 0}
    assert_equal FOO [r eval {return redis.status_reply('FOO')} 0]
    assert_error {ERR wrong number or type of arguments} {r eval {return redis.status_reply()} 0}
    assert_error {ERR Error compiling script (new function): user_script:1: '=' expected near 'error'} {r eval {syntax error here} 0}
    # Error text with newlines becomes one line.
    assert_error {ERR a b} {r eval "return {err='ERR a\\nb'}" 0}
}

test "Globals are protected" {
    assert_error {ERR user_script:1: Attempt to modify a readonly table script: *} {r eval {a=1} 0}
    assert_error {ERR user_script:1: Attempt to modify a readonly table script: *} {r eval {redis.foo = 1} 0}
    assert_error {ERR user_script:1: Attempt to modify a readonly table script: *} {r eval {string.foo = 1} 0}
    assert_error {ERR user_script:1: Attempt to modify a readonly table script: *} {r eval {function f() end} 0}
    assert_error {ERR Attempt to modify a readonly table script: *} {r eval {rawset(_G, 'x', 1)} 0}
    assert_error {ERR user_script:1: Script attempted to access nonexistent global variable 'b' script: *} {r eval {return b} 0}
    assert_equal {} [r eval {return redis.foo} 0]
    # Locals are fine, and iteration over the globals works.
    assert_equal 3 [r eval {local x = 1; local function f(y) return x + y end; return f(2)} 0]
    assert_morethan [r eval {local n = 0 for k,v in pairs(_G) do n = n + 1 end return n} 0] 25
    assert_equal 1 [r eval {return rawget(_G, 'redis') ~= nil} 0]
}

test "Sandbox: libraries present and absent" {
    foreach name {dofile loadfile print io require setfenv getfenv module newproxy debug} {
        assert_error "*nonexistent global variable '$name'*" [list r eval "return type($name)" 0]
    }
    foreach {expr type} {string table math table table table cjson table bit table coroutine table
                         loadstring function pcall function unpack function os table} {
        assert_equal $type [r eval "return type($expr)" 0]
    }
    # Redis 7.4: os has only clock.
    assert_equal number [r eval {return type(os.clock())} 0]
    assert_equal nil [r eval {return type(os.time)} 0]
    assert_equal {7.4.0 459776} [r eval {return {redis.REDIS_VERSION, redis.REDIS_VERSION_NUM}} 0]
}

test "math.random is rand48 seeded by math.randomseed" {
    assert_equal 0.041630344484761 [r eval {math.randomseed(1); return tostring(math.random())} 0]
    set a [r eval {math.randomseed(42); return {math.random(100), math.random(5,10)}} 0]
    assert_equal $a [r eval {math.randomseed(42); return {math.random(100), math.random(5,10)}} 0]
    assert_error {*interval is empty*} {r eval {return math.random(0)} 0}
}

test "redis.sha1hex, redis.log and friends" {
    assert_equal da39a3ee5e6b4b0d3255bfef95601890afd80709 [r eval {return redis.sha1hex('')} 0]
    assert_equal 356a192b7913b04c54574d18c28d46e6395428ab [r eval {return redis.sha1hex(1)} 0]
    assert_error {ERR wrong number of arguments script: *} {r eval {return redis.sha1hex()} 0}
    assert_equal {} [r eval {return redis.log(redis.LOG_WARNING, 'hello from', 'lua-test-marker')} 0]
    wait_for_condition 50 10 {[log_matches {*hello from lua-test-marker*}] >= 1}
    assert_error {ERR redis.log() requires two arguments or more. script: *} {r eval {return redis.log(1)} 0}
    assert_error {ERR Invalid debug level. script: *} {r eval {return redis.log(99, 'x')} 0}
    assert_equal 1 [r eval {return redis.replicate_commands()} 0]
    assert_equal {} [r eval {return redis.breakpoint()} 0]
    assert_equal {} [r eval {return redis.debug('x')} 0]
}

test "cjson round trips" {
    assert_equal {[1,2,{"a":1}]} [r eval {return cjson.encode({1,2,{a=1}})} 0]
    assert_equal {[1,2.5,"x",null,true]} [r eval {return cjson.encode(cjson.decode('[1,2.5,"x",null,true]'))} 0]
    assert_equal 2 [r eval {return cjson.decode('{"a":[1,2]}').a[2]} 0]
    assert_equal {{"k":"v"}} [r eval {return cjson.encode({k='v'})} 0]
    set bad "return cjson.decode('\{bad')"
    assert_error {*Expected object key string but found invalid token*} {r eval $bad 0}
    assert_error {*readonly table*} {r eval {cjson.encode = nil} 0}
}

test "bit operations" {
    assert_equal 15 [r eval {return bit.band(0xff, 0x0f)} 0]
    assert_equal 255 [r eval {return bit.bor(0xf0, 0x0f)} 0]
    assert_equal 0000ffff [r eval {return bit.tohex(65535)} 0]
    assert_equal 256 [r eval {return bit.lshift(1, 8)} 0]
    assert_equal -1 [r eval {return bit.bnot(0)} 0]
    assert_equal 3 [r eval {return bit.bxor(5, 6)} 0]
}

test "Number arguments of redis.call are sent as integers or %.17g" {
    r del num
    assert_equal OK [r eval {return redis.call('set', KEYS[1], 42)} 1 num]
    assert_equal 42 [r get num]
    r eval {return redis.call('set', KEYS[1], 1.5)} 1 num
    assert_equal 1.5 [r get num]
    r eval {return redis.call('set', KEYS[1], 0.1)} 1 num
    assert_equal 0.10000000000000001 [r get num]
    r del num
}

test "EVALSHA and the script cache: SCRIPT LOAD / EXISTS / FLUSH" {
    r script flush
    set sha [r script load {return 'loaded'}]
    assert_equal [r eval {return redis.sha1hex(ARGV[1])} 0 {return 'loaded'}] $sha
    assert_equal loaded [r evalsha $sha 0]
    assert_equal loaded [r evalsha [string toupper $sha] 0]
    assert_equal {1 0} [r script exists $sha ffffffffffffffffffffffffffffffffffffffff]
    assert_error {NOSCRIPT No matching script. Please use EVAL.} {r evalsha ffffffffffffffffffffffffffffffffffffffff 0}
    assert_error {NOSCRIPT No matching script. Please use EVAL.} {r evalsha abc 0}
    # Redis 7.0.15: a sha that is not 40 characters is NOSCRIPT before numkeys is read; a
    # 40-character unknown one reads numkeys first.
    assert_error {NOSCRIPT No matching script. Please use EVAL.} {r evalsha abc notanumber}
    assert_error {NOSCRIPT No matching script. Please use EVAL.} {r evalsha_ro abc -1}
    assert_error {ERR value is not an integer or out of range} {r evalsha ffffffffffffffffffffffffffffffffffffffff notanumber}
    assert_error {ERR Number of keys can't be negative} {r evalsha ffffffffffffffffffffffffffffffffffffffff -1}
    # EVAL caches the script too.
    r eval {return 'via eval'} 0
    assert_equal {via eval} [r evalsha [r eval {return redis.sha1hex(ARGV[1])} 0 {return 'via eval'}] 0]
    assert_equal OK [r script flush]
    assert_equal {0} [r script exists $sha]
    assert_equal OK [r script flush async]
    assert_equal OK [r script flush sync]
    assert_error {ERR SCRIPT FLUSH only support SYNC|ASYNC option} {r script flush bad}
    assert_error {ERR Error compiling script (new function): *} {r script load {syntax error here}}
    assert_error {*wrong number of arguments for 'script|load' command*} {r script load}
    assert_error {*wrong number of arguments for 'script|exists' command*} {r script exists}
    assert_error {*unknown subcommand 'nosuch'*} {r script nosuch}
    assert_match {SCRIPT <subcommand>*} [lindex [r script help] 0]
}

test "EVAL_RO and no-writes scripts reject write commands" {
    r set ro_key v
    assert_equal v [r eval_ro {return redis.call('get', KEYS[1])} 1 ro_key]
    assert_error {ERR Write commands are not allowed from read-only scripts. script: *, on @user_script:1.} {r eval_ro {return redis.call('set','a','b')} 0}
    assert_error {ERR Write commands are not allowed from read-only scripts. script: *, on @user_script:2.} {r eval "#!lua flags=no-writes\nreturn redis.call('set','a','b')" 0}
    assert_equal v [r eval "#!lua flags=no-writes\nreturn redis.call('get','ro_key')" 0]
    # A shebang script without no-writes cannot run through *_RO.
    assert_error {ERR Can not execute a script with write flag using *_ro command.} {r eval_ro "#!lua\nreturn 1" 0}
    set sha [r script load {return redis.call('get', KEYS[1])}]
    assert_equal v [r evalsha_ro $sha 1 ro_key]
    assert_equal 0 [r exists a]
    assert_error {*wrong number of arguments for 'eval_ro' command*} {r eval_ro {return 1}}
}

test "Shebang flags" {
    assert_equal 1 [r eval "#!lua\nreturn 1" 0]
    assert_equal 1 [r eval "#!lua flags=\nreturn 1" 0]
    assert_equal 1 [r eval "#!lua flags=no-writes,allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\nreturn 1" 0]
    assert_error {ERR Unexpected flag in script shebang: bad} {r eval "#!lua flags=bad\nreturn 1" 0}
    assert_error {ERR Unknown lua shebang option: name=x} {r eval "#!lua name=x\nreturn 1" 0}
    assert_error {ERR Unexpected engine in script shebang: #!nolua} {r eval "#!nolua\nreturn 1" 0}
    # Line numbers count the shebang line.
    assert_error {*user_script:2: boom*on @user_script:2.} {r eval "#!lua\nerror('boom')" 0}
}

test "Scripts see the caller's db; SELECT inside a script does not change the caller's" {
    r select 9
    r set dbkey nine
    assert_equal nine [r eval {return redis.call('get','dbkey')} 0]
    assert_equal {} [r eval {redis.call('select', 0); return redis.call('get','dbkey')} 0]
    assert_equal nine [r get dbkey]
    r del dbkey
    r select 0
}

test "Writes from scripts go through the keyspace (keysizes stay consistent)" {
    r flushall
    r eval {for i=1,50 do redis.call('set', 'k'..i, string.rep('x', i)) end} 0
    assert_equal 50 [r dbsize]
    r eval {for i=1,25 do redis.call('del', 'k'..i) end} 0
    assert_equal 25 [r dbsize]
    assert_equal OK [r debug keysizes-check]
    r flushall
}

test "Scripts are atomic and counted in commandstats" {
    r config resetstat
    r eval {redis.call('set','a','1'); redis.call('incr','a'); return redis.call('get','a')} 0
    assert_match {*cmdstat_eval:calls=1*} [r info commandstats]
    assert_match {*cmdstat_incr:calls=1*} [r info commandstats]
    r del a
}

test "A busy script gets -BUSY for others and is stopped by SCRIPT KILL" {
    r config set busy-reply-threshold 50
    set rd [redis_deferring_client]
    set other [redis_client]
    $rd eval {local i = 0 while true do i = i + 1 end} 0
    wait_for_condition 100 20 {
        [catch {$other ping} e] && [string match {BUSY*} $e]
    } {
        fail "the script never made the server busy"
    }
    assert_error {BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.} {$other get x}
    assert_error {BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.} {$other function kill}
    assert_error {BUSY*} {$other function stats}
    assert_equal OK [$other script kill]
    assert_error {ERR Script killed by user with SCRIPT KILL... script: *, on @user_script:1.} {$rd read}
    assert_equal PONG [$other ping]
    assert_error {NOTBUSY No scripts in execution right now.} {$other script kill}
    # A script cannot survive SCRIPT KILL by catching the error.
    $rd eval {while true do pcall(function() while true do end end) end} 0
    wait_for_condition 100 20 {
        [catch {$other ping} e] && [string match {BUSY*} $e]
    }
    assert_equal OK [$other script kill]
    assert_error {ERR Script killed by user with SCRIPT KILL...*} {$rd read}
    $rd close
    $other close
    r config set busy-reply-threshold 5000
}

test "SCRIPT KILL refuses a script that already wrote: UNKILLABLE" {
    r config set busy-reply-threshold 50
    set rd [redis_deferring_client]
    set other [redis_client]
    $rd eval {redis.call('set','unk','1') local t = redis.call('time') while redis.call('time')[1] - t[1] < 3 do end return 'done'} 0
    wait_for_condition 100 20 {
        [catch {$other ping} e] && [string match {BUSY*} $e]
    }
    assert_error {UNKILLABLE Sorry the script already executed write commands against the dataset.*} {$other script kill}
    assert_equal done [$rd read]
    assert_equal 1 [$other get unk]
    $rd close
    $other close
    r del unk
    r config set busy-reply-threshold 5000
}

test "lua-time-limit is an alias of busy-reply-threshold" {
    r config set lua-time-limit 1234
    assert_equal {busy-reply-threshold 1234} [r config get busy-reply-threshold]
    r config set busy-reply-threshold 5000
}
