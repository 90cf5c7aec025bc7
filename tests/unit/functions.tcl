# FUNCTION LOAD / DELETE / LIST / FLUSH / STATS / KILL and FCALL / FCALL_RO. Expected replies
# were taken from the reference redis-server 7.0.

set lib1 "#!lua name=mylib
redis.register_function('myfunc', function(keys, args) return {keys\[1\], args\[1\]} end)
redis.register_function{function_name='ro', callback=function(keys, args) return redis.call('get', keys\[1\]) end, flags={'no-writes'}, description='desc'}"

test "FUNCTION LOAD and FCALL" {
    r function flush
    assert_equal mylib [r function load $lib1]
    assert_equal {k a} [r fcall myfunc 1 k a]
    r set k v
    assert_equal v [r fcall_ro ro 1 k]
    assert_equal v [r fcall ro 1 k]
    assert_error {ERR Library 'mylib' already exists} {r function load $lib1}
    assert_error {ERR Can not execute a script with write flag using *_ro command.} {r fcall_ro myfunc 1 k a}
    assert_error {ERR Function not found} {r fcall nosuch 0}
    assert_error {ERR Number of keys can't be negative} {r fcall myfunc -1}
    assert_error {ERR Number of keys can't be greater than number of args} {r fcall myfunc 5 a}
    assert_error {*wrong number of arguments for 'fcall' command*} {r fcall myfunc}
    r del k
}

test "FUNCTION LOAD REPLACE" {
    r function flush
    r function load $lib1
    assert_equal mylib [r function load replace "#!lua name=mylib\nredis.register_function('myfunc', function() return 'new' end)"]
    assert_equal new [r fcall myfunc 0]
    assert_error {ERR Function not found} {r fcall ro 0}
    r function load "#!lua name=other\nredis.register_function('f_other', function() return 1 end)"
    assert_error {ERR Function f_other already exists} {r function load replace "#!lua name=mylib\nredis.register_function('f_other', function() end)"}
    # The failed replace kept the old library.
    assert_equal new [r fcall myfunc 0]
    assert_error {ERR Unknown option given: foo} {r function load foo "#!lua name=q"}
}

test "FUNCTION LIST" {
    r function flush
    r function load $lib1
    set list [r function list]
    assert_equal 1 [llength $list]
    set lib [lindex $list 0]
    assert_equal mylib [dict get $lib library_name]
    assert_equal LUA [dict get $lib engine]
    set fns [dict get $lib functions]
    assert_equal {name myfunc description {} flags {}} [lindex $fns 0]
    assert_equal {name ro description desc flags no-writes} [lindex $fns 1]
    assert_equal 0 [dict exists $lib library_code]
    set withcode [lindex [r function list withcode libraryname my*] 0]
    assert_equal $lib1 [dict get $withcode library_code]
    assert_equal {} [r function list libraryname nomatch*]
    assert_error {ERR Unknown argument foo} {r function list foo}
    assert_error {ERR library name argument was not given} {r function list libraryname}
    assert_error {ERR Unknown argument withcode} {r function list withcode withcode}
}

test "FUNCTION LIST in RESP3 is maps, flags a set" {
    set c [redis_client -resp 3]
    $c readraw 1
    assert_equal {*1} [$c function list libraryname mylib]
    assert_equal {%3} [$c read]
    $c close
}

test "FUNCTION DELETE and FLUSH" {
    r function flush
    r function load $lib1
    assert_error {ERR Library not found} {r function delete nosuch}
    assert_equal OK [r function delete mylib]
    assert_error {ERR Library not found} {r function delete mylib}
    assert_error {ERR Function not found} {r fcall myfunc 0}
    r function load $lib1
    assert_equal OK [r function flush]
    assert_equal {} [r function list]
    assert_equal OK [r function flush async]
    assert_equal OK [r function flush sync]
    assert_error {ERR FUNCTION FLUSH only supports SYNC|ASYNC option} {r function flush bad}
    assert_error {*wrong number of arguments for 'function|delete' command*} {r function delete}
}

test "FUNCTION LOAD errors" {
    r function flush
    assert_error {ERR Missing library metadata} {r function load "return 1"}
    assert_error {ERR Library name was not given} {r function load "#!lua\nreturn 1"}
    assert_error {ERR No functions registered} {r function load "#!lua name=x\nreturn 1"}
    assert_error {ERR Invalid metadata value given: foo=bar} {r function load "#!lua name=x foo=bar\nreturn 1"}
    assert_error {ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long} {r function load "#!lua name=a-b\nreturn 1"}
    assert_error {ERR Error compiling function: user_function:2: '=' expected near 'error'} {r function load "#!lua name=x\nsyntax error"}
    assert_error {ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'call'} {r function load "#!lua name=x\nredis.call('ping')"}
    assert_error {ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'error'} {r function load "#!lua name=x\nerror('y')"}
    assert_error {ERR Error registering functions: ERR user_function:2: Attempt to modify a readonly table} {r function load "#!lua name=x\nfoo = 1"}
    assert_error {ERR Error registering functions: ERR Function already exists in the library} {r function load "#!lua name=x\nredis.register_function('f1', function() end) redis.register_function('f1', function() end)"}
    assert_error {ERR Error registering functions: ERR unknown flag given} {r function load "#!lua name=x\nredis.register_function{function_name='g', callback=function() end, flags={'bad'}}"}
    assert_error {ERR Error registering functions: ERR unknown argument given to redis.register_function} {r function load "#!lua name=x\nredis.register_function{function_name='g', callback=function() end, foo=1}"}
    assert_error {ERR Error registering functions: ERR calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).} {r function load "#!lua name=x\nredis.register_function('g')"}
    assert_error {ERR Error registering functions: ERR second argument to redis.register_function must be a function} {r function load "#!lua name=x\nredis.register_function('g', 1)"}
    assert_error {ERR Error registering functions: ERR wrong number of arguments to redis.register_function} {r function load "#!lua name=x\nredis.register_function()"}
    assert_error {*Function names can only contain letters*} {r function load "#!lua name=x\nredis.register_function('a b', function() end)"}
    assert_error {ERR Error registering functions: FUNCTION LOAD timeout} {r function load "#!lua name=x\nlocal i = 0 while true do i = i + 1 end"}
    assert_equal {} [r function list]
    # redis.log and the version are available while loading.
    assert_equal x [r function load "#!lua name=x\nredis.log(redis.LOG_NOTICE, 'loading') redis.register_function('g', function() return redis.REDIS_VERSION end)"]
    assert_equal 7.4.0 [r fcall g 0]
}

test "Errors inside functions name the function" {
    r function flush
    r function load "#!lua name=lib1
redis.register_function('f1', function(keys, args) error('boom') end)
redis.register_function('f2', function(keys, args) return redis.call('nosuch') end)
redis.register_function{function_name='f3', callback=function(keys, args) return redis.call('set','a','b') end, flags={'no-writes'}}
redis.register_function('f4', function(keys, args) return {KEYS, ARGV} end)
redis.register_function('f5', function(keys, args) error({err='MYERR x'}) end)"
    assert_error {ERR user_function:2: boom script: f1, on @user_function:2.} {r fcall f1 0}
    assert_error {ERR Unknown Redis command called from script script: f2, on @user_function:3.} {r fcall f2 0}
    assert_error {ERR Write commands are not allowed from read-only scripts. script: f3, on @user_function:4.} {r fcall f3 0}
    assert_error {ERR user_function:5: Script attempted to access nonexistent global variable 'KEYS' script: f4, on @user_function:5.} {r fcall f4 0}
    assert_error {MYERR x script: f5, on @user_function:6.} {r fcall f5 0}
}

test "FUNCTION STATS" {
    r function flush
    r function load $lib1
    assert_equal {running_script {} engines {LUA {libraries_count 1 functions_count 2}}} [r function stats]
    assert_error {NOTBUSY No scripts in execution right now.} {r function kill}
}

test "A busy function is stopped by FUNCTION KILL, not SCRIPT KILL" {
    r function flush
    r function load "#!lua name=busy\nredis.register_function('spin', function() while true do end end)"
    r config set busy-reply-threshold 50
    set rd [redis_deferring_client]
    set other [redis_client]
    $rd fcall spin 0
    wait_for_condition 100 20 {
        [catch {$other ping} e] && [string match {BUSY*} $e]
    }
    assert_error {BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.} {$other get x}
    assert_error {BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.} {$other script kill}
    set stats [$other function stats]
    assert_equal spin [dict get [dict get $stats running_script] name]
    assert_equal {fcall spin 0} [dict get [dict get $stats running_script] command]
    assert_equal OK [$other function kill]
    assert_error {ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:2.} {$rd read}
    assert_equal PONG [$other ping]
    $rd close
    $other close
    r config set busy-reply-threshold 5000
    r function flush
}

test "FUNCTION HELP and unknown subcommands" {
    assert_match {FUNCTION <subcommand>*} [lindex [r function help] 0]
    assert_error {*unknown subcommand 'nosuch'*} {r function nosuch}
}
