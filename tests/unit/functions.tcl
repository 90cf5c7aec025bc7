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
    # Redis says "Library names" for a bad function name too.
    assert_error {ERR Error registering functions: ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long} {r function load "#!lua name=x\nredis.register_function('a b', function() end)"}
    assert_error {ERR Error registering functions: ERR FUNCTION LOAD timeout} {r function load "#!lua name=x\nlocal i = 0 while true do i = i + 1 end"}
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

# ---- issue 16 leftovers -------------------------------------------------------------------------
# Every expected reply below was read from redis-server 7.0.15 unless a comment says otherwise.

test "Function names are case-insensitive in FCALL / FCALL_RO" {
    r function flush
    r function load "#!lua name=cases
redis.register_function('MyFunc', function(keys, args) return {keys\[1\], args\[1\]} end)
redis.register_function{function_name='RoFunc', callback=function() return 'ro' end, flags={'no-writes'}}"
    assert_equal {k a} [r fcall myfunc 1 k a]
    assert_equal {k a} [r fcall MYFUNC 1 k a]
    assert_equal ro [r fcall_ro rofunc 0]
    assert_error {ERR Can not execute a script with write flag using *_ro command.} {r fcall_ro MYFUNC 0}
    # Errors name the function as it was registered.
    r function load "#!lua name=err\nredis.register_function('BoomFn', function() error('x') end)"
    assert_error {ERR user_function:2: x script: BoomFn, on @user_function:2.} {r fcall boomfn 0}
    # Across libraries a name differing only in case collides (the name in the text is the new one).
    assert_error {ERR Function MYFUNC already exists} {r function load "#!lua name=other\nredis.register_function('MYFUNC', function() end)"}
    # REPLACE of the same library may change the case.
    assert_equal cases [r function load replace "#!lua name=cases\nredis.register_function('MYFUNC', function() return 'new' end)"]
    assert_equal new [r fcall myfunc 0]
    assert_equal MYFUNC [dict get [lindex [dict get [lindex [r function list libraryname cases] 0] functions] 0] name]
    # Library names are case-sensitive.
    assert_equal CASES [r function load "#!lua name=CASES\nredis.register_function('g', function() return 1 end)"]
    assert_equal 3 [llength [r function list]]
    assert_error {ERR Library not found} {r function delete Cases}
    assert_equal OK [r function delete CASES]
    assert_equal OK [r function delete cases]
    assert_error {ERR Function not found} {r fcall myfunc 0}
}

test "Two names differing only in case in one library are refused" {
    # Redis 7.0-8.0 accept this load and later fail an assertion on FUNCTION DELETE (crash);
    # Keel refuses it as a duplicate within the library.
    r function flush
    assert_error {ERR Error registering functions: ERR Function already exists in the library} {r function load "#!lua name=dup
redis.register_function('aaa', function() return 1 end)
redis.register_function('AAA', function() return 2 end)"}
    assert_equal {} [r function list]
    assert_equal PONG [r ping]
}

test "FCALL numkeys errors and their order" {
    r function flush
    r function load "#!lua name=nk\nredis.register_function('f', function(keys, args) return #keys end)"
    assert_error {ERR Bad number of keys provided} {r fcall f notanumber}
    assert_error {ERR Bad number of keys provided} {r fcall_ro f notanumber}
    assert_error {ERR Bad number of keys provided} {r fcall f 01}
    assert_error {ERR Bad number of keys provided} {r fcall f 1.0 a}
    assert_error {ERR Number of keys can't be negative} {r fcall f -1}
    assert_error {ERR Number of keys can't be negative} {r fcall f -1 a b}
    assert_error {ERR Number of keys can't be greater than number of args} {r fcall f 2 a}
    assert_error {ERR Number of keys can't be greater than number of args} {r fcall f 9223372036854775807}
    # The function is looked up first.
    assert_error {ERR Function not found} {r fcall nosuch notanumber}
    assert_error {ERR Function not found} {r fcall_ro nosuch -1}
    assert_equal 2 [r fcall f 2 a b c]
    # EVAL keeps the generic integer error.
    assert_error {ERR value is not an integer or out of range} {r eval {return 1} notanumber}
}

test "FUNCTION LOAD shebang metadata" {
    r function flush
    set body "\nredis.register_function('mf', function() return 1 end)"
    assert_error {ERR Invalid metadata value, name argument was given multiple times} {r function load "#!lua name=foo name=bar$body"}
    assert_error {ERR Invalid metadata value, name argument was given multiple times} {r function load "#!lua name=foo name=foo$body"}
    assert_error {ERR Invalid metadata value given: foo} {r function load "#!lua name=a-b foo$body"}
    assert_error {ERR Invalid metadata value given: foo=1} {r function load "#!lua name=yy foo=1 name=yy$body"}
    assert_error {ERR Library name was not given} {r function load "#!lua$body"}
    assert_error {ERR Library name was not given} {r function load "#!$body"}
    # The name is checked before the engine.
    assert_error {ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long} {r function load "#!foo name=a-b$body"}
    assert_error {ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long} {r function load "#!lua name=$body"}
    assert_error {ERR Engine 'foo' not found} {r function load "#!foo name=ab$body"}
    assert_error {ERR Engine '' not found} {r function load "#! name=x$body"}
    # No line end, or quotes Redis's argument splitter refuses.
    assert_error {ERR Invalid library metadata} {r function load "#!lua name=ee"}
    assert_error {ERR Invalid library metadata} {r function load "#!lua"}
    assert_error {ERR Invalid library metadata} {r function load "#!lua name=\"unterminated$body"}
    assert_error {ERR Invalid library metadata} {r function load "#!lua name='ac'x$body"}
    assert_error {ERR Invalid library metadata} {r function load "#!lua name=\"z\"\"y\"$body"}
    assert_error {ERR Missing library metadata} {r function load " #!lua name=x$body"}
    # Quotes are removed, escapes read, blanks are spaces and tabs, keys ignore case.
    assert_equal foo [r function load "#!lua name=\"foo\"$body"]
    r function flush
    assert_equal sq [r function load "#!lua name='sq'$body"]
    r function flush
    assert_equal Ab [r function load "#!lua name=\"\\x41b\"$body"]
    r function flush
    assert_equal up [r function load "#!lua NAME=up$body"]
    r function flush
    assert_equal tab [r function load "#!lua\tname=tab$body"]
    r function flush
    assert_equal cr [r function load "#!lua name=cr\r$body"]
    r function flush
    assert_equal q2 [r function load "#!LUA   name=q2   $body"]
    assert_equal "#!LUA   name=q2   $body" [dict get [lindex [r function list withcode] 0] library_code]
    r function flush
    assert_error {ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long} {r function load "#!lua name=\"foo bar\"$body"}
    assert_error {ERR Invalid metadata value given: b} {r function load "#!lua name=a\tb$body"}
    assert_equal {} [r function list]
}

test "EVAL shebang parsing matches Redis's argument splitter" {
    assert_equal 1 [r eval "#!lua flags=\"no-writes\"\nreturn 1" 0]
    assert_equal 1 [r eval "#!lua \"flags=no-writes\"\nreturn 1" 0]
    assert_equal 1 [r eval "#!lua\tflags=no-writes\nreturn 1" 0]
    assert_equal 1 [r eval "#!\"lua\"\nreturn 1" 0]
    assert_equal 1 [r eval "#!lua flags=\nreturn 1" 0]
    assert_equal 1 [r eval "#!lua flags=no-writes flags=allow-oom\nreturn 1" 0]
    assert_error {ERR Unexpected flag in script shebang: } {r eval "#!lua flags=no-writes,,allow-oom\nreturn 1" 0}
    assert_error {ERR Unexpected flag in script shebang: } {r eval "#!lua flags=no-writes,\nreturn 1" 0}
    assert_error {ERR Unexpected flag in script shebang: } {r eval "#!lua flags=,no-writes\nreturn 1" 0}
    assert_error {ERR Unexpected flag in script shebang: a b} {r eval "#!lua flags=\"a b\"\nreturn 1" 0}
    assert_error {ERR Unexpected flag in script shebang: NO-WRITES} {r eval "#!lua flags=NO-WRITES\nreturn 1" 0}
    assert_error {ERR Unknown lua shebang option: FLAGS=no-writes} {r eval "#!lua FLAGS=no-writes\nreturn 1" 0}
    assert_error {ERR Invalid engine in script shebang} {r eval "#!lua flags=\"unterminated\nreturn 1" 0}
    assert_error {ERR Invalid script shebang} {r eval "#!lua" 0}
    assert_error {ERR Invalid script shebang} {r eval "#!lua flags=no-writes" 0}
    assert_error {ERR Unexpected engine in script shebang: #!} {r eval "#! lua\nreturn 1" 0}
    assert_error {ERR Unexpected engine in script shebang: #!LUA} {r eval "#!LUA\nreturn 1" 0}
}

test "redis.register_function argument errors" {
    r function flush
    set p "ERR Error registering functions: ERR"
    set cases {
        "redis.register_function()" "wrong number of arguments to redis.register_function"
        "redis.register_function('a', function() end, nil)" "wrong number of arguments to redis.register_function"
        "redis.register_function(nil, function() end)" "first argument to redis.register_function must be a string"
        "redis.register_function({}, function() end)" "first argument to redis.register_function must be a string"
        "redis.register_function('a', 'b')" "second argument to redis.register_function must be a function"
        "redis.register_function('a', nil)" "second argument to redis.register_function must be a function"
        "redis.register_function(nil)" "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments)."
        "redis.register_function('', function() end)" "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"
        "redis.register_function('a-b', function() end)" "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"
        "redis.register_function{}" "redis.register_function must get a function name argument"
        "redis.register_function{function_name=nil, callback=function() end}" "redis.register_function must get a function name argument"
        "redis.register_function{function_name='a'}" "redis.register_function must get a callback argument"
        "redis.register_function{function_name={}, callback=function() end}" "function_name argument given to redis.register_function must be a string"
        "redis.register_function{function_name=1.5, callback=function() end}" "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"
        "redis.register_function{function_name='', callback=function() end}" "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"
        "redis.register_function{function_name='a', callback='x'}" "callback argument given to redis.register_function must be a function"
        "redis.register_function{callback=1, function_name=2}" "callback argument given to redis.register_function must be a function"
        "redis.register_function{function_name='a', callback=function() end, description={}}" "description argument given to redis.register_function must be a string"
        "redis.register_function{function_name='a', callback=function() end, flags='no-writes'}" "flags argument to redis.register_function must be a table representing function flags"
        "redis.register_function{function_name='a', callback=function() end, flags={1}}" "unknown flag given"
        "redis.register_function{function_name='a', callback=function() end, flags={{}}}" "unknown flag given"
        "redis.register_function{function_name='a', callback=function() end, flags={'no-writes', 'bad'}}" "unknown flag given"
        "redis.register_function{flags={'bad'}, callback=2}" "unknown flag given"
        "redis.register_function{\[true\]='a', callback=function() end}" "named argument key given to redis.register_function is not a string"
        "redis.register_function{\[1\]='a', callback=function() end}" "unknown argument given to redis.register_function"
        "redis.register_function{foo=1}" "unknown argument given to redis.register_function"
        "redis.register_function('a', function() end) redis.register_function('a', function() end)" "Function already exists in the library"
    }
    foreach {code err} $cases {
        assert_error "$p $err" {r function load "#!lua name=t\n$code"}
    }
    assert_equal {} [r function list]
}

test "redis.register_function accepts what Redis accepts" {
    r function flush
    # Keys and flag names ignore case; numbers are strings; flags stop at the first nil.
    r function load "#!lua name=t
redis.register_function{FUNCTION_NAME='a', CallBack=function() return 'a' end, FLAGS={'NO-WRITES', 'Allow-Oom'}, Description=2}
redis.register_function(1, function() return 'one' end)
redis.register_function{function_name='b', callback=function() end, flags={'no-writes', nil, 'bad'}}
redis.register_function{function_name='c', callback=function() end, flags={\[2\]='bad'}}
redis.register_function{function_name='d', callback=function() end, flags={}, description=''}
local shared = function() return 's' end
redis.register_function('s1', shared) redis.register_function('s2', shared)"
    set fns {}
    foreach f [dict get [lindex [r function list] 0] functions] {
        dict set fns [dict get $f name] [list [dict get $f description] [lsort [dict get $f flags]]]
    }
    assert_equal {2 {allow-oom no-writes}} [dict get $fns a]
    assert_equal {{} no-writes} [dict get $fns b]
    assert_equal {{} {}} [dict get $fns c]
    assert_equal {{} {}} [dict get $fns d]
    assert_equal {{} {}} [dict get $fns 1]
    assert_equal one [r fcall 1 0]
    assert_equal a [r fcall_ro A 0]
    assert_equal s [r fcall s2 0]
    r function flush
}

# SCRIPT FLUSH ASYNC / FUNCTION FLUSH ASYNC: Keel closes the old Lua state in a background
# thread. lazyfreed_objects (INFO memory, where Redis 7.0 shows it) counts what Redis 7.0.15
# counts: the scripts or the functions handed over, only when there are more than 64 of them.
proc lazyfreed {} { return [server_info lazyfreed_objects] }
proc library_with {name n} {
    set code "#!lua name=$name\n"
    for {set i 1} {$i <= $n} {incr i} {
        append code "redis.register_function('${name}_f$i', function(keys, args) return $i end)\n"
    }
    return $code
}

test "SCRIPT FLUSH ASYNC counts more than 64 scripts in lazyfreed_objects" {
    r script flush
    r config resetstat
    assert_equal 0 [lazyfreed]
    for {set i 0} {$i < 3} {incr i} { r script load "return $i" }
    assert_equal OK [r script flush async]
    for {set i 0} {$i < 64} {incr i} { r script load "return $i" }
    assert_equal OK [r script flush async]
    assert_equal 0 [lazyfreed]
    for {set i 0} {$i < 70} {incr i} { r script load "return $i" }
    assert_equal OK [r script flush async]
    # A script runs at once on the fresh state while the old one may still be closing.
    assert_equal 7 [r eval {return 7} 0]
    assert_equal {0} [r script exists [r eval {return redis.sha1hex('return 5')} 0]]
    wait_for_condition 100 20 {[lazyfreed] == 70} { fail "lazyfreed_objects is [lazyfreed], not 70" }
    assert_equal 0 [server_info lazyfree_pending_objects]
    # SYNC never counts; no mode: lazyfree-lazy-user-flush decides.
    for {set i 0} {$i < 70} {incr i} { r script load "return $i" }
    r script flush sync
    for {set i 0} {$i < 70} {incr i} { r script load "return $i" }
    r script flush
    assert_equal 70 [lazyfreed]
    r config set lazyfree-lazy-user-flush yes
    for {set i 0} {$i < 65} {incr i} { r script load "return $i" }
    r script flush
    wait_for_condition 100 20 {[lazyfreed] == 135} { fail "lazyfreed_objects is [lazyfreed], not 135" }
    r config set lazyfree-lazy-user-flush no
    r config resetstat
    assert_equal 0 [lazyfreed]
}

test "FUNCTION FLUSH ASYNC counts more than 64 functions in lazyfreed_objects" {
    r function flush
    r config resetstat
    r function load [library_with a 64]
    assert_equal OK [r function flush async]
    assert_equal 0 [lazyfreed]
    # Two libraries, 65 functions together.
    r function load [library_with a 30]
    r function load [library_with b 35]
    assert_equal OK [r function flush async]
    assert_error {ERR Function not found} {r fcall a_f1 0}
    assert_equal c [r function load [library_with c 2]]
    assert_equal 2 [r fcall c_f2 0]
    wait_for_condition 100 20 {[lazyfreed] == 65} { fail "lazyfreed_objects is [lazyfreed], not 65" }
    r function load [library_with d 65]
    r function flush sync
    assert_equal 65 [lazyfreed]
    r config set lazyfree-lazy-user-flush yes
    r function load [library_with d 65]
    r function flush
    wait_for_condition 100 20 {[lazyfreed] == 130} { fail "lazyfreed_objects is [lazyfreed], not 130" }
    r config set lazyfree-lazy-user-flush no
}

test "FLUSH ASYNC of a big Lua state, then scripts and functions at once (repeatedly)" {
    # Each round leaves a state holding a big table (an upvalue of the library) to the
    # background thread, and uses the new state right away. Run this file on the ASan build too.
    r function flush
    for {set round 0} {$round < 20} {incr round} {
        r function load "#!lua name=big
local t = {}
redis.register_function('fill', function(keys, args) for i = 1, tonumber(args\[1\]) do t\[#t + 1\] = {i, tostring(i)} end return #t end)
redis.register_function('get', function(keys, args) return t\[tonumber(args\[1\])\]\[2\] end)"
        assert_equal 20000 [r fcall fill 0 20000]
        assert_equal 123 [r fcall get 0 123]
        r eval {local t = {} for i = 1, 1000 do t[i] = i end return #t} 0
        r function flush async
        r script flush async
        assert_error {ERR Function not found} {r fcall get 0 1}
        assert_equal 3 [r eval {return 3} 0]
        r function load "#!lua name=small\nredis.register_function('one', function() return 1 end)"
        assert_equal 1 [r fcall one 0]
        r function flush async
    }
    assert_equal PONG [r ping]
}

test "FUNCTION LIST LIBRARYNAME matches ignoring case" {
    # Redis 7.0.15 matches the pattern with stringmatchlen(..., nocase=1).
    r function flush
    r function load "#!lua name=MyLib\nredis.register_function('f', function() return 1 end)"
    assert_equal MyLib [dict get [lindex [r function list libraryname mylib] 0] library_name]
    assert_equal MyLib [dict get [lindex [r function list libraryname MY*] 0] library_name]
    assert_equal {} [r function list libraryname other]
    # LIBRARYNAME takes the next argument as its pattern, even WITHCODE.
    assert_equal {} [r function list libraryname withcode]
    assert_error {ERR library name argument was not given} {r function list withcode libraryname}
    r function flush
}

test "Shebang words are C strings: NUL bytes and other blanks as in Redis" {
    # Replies read from redis-server 7.0.15.
    r function flush
    set body "\nredis.register_function('nf', function() return 1 end)"
    # A NUL before the line's end: no line end.
    assert_error {ERR Invalid library metadata} {r function load "#!lua name=a\x00b$body"}
    assert_error {ERR Invalid script shebang} {r eval "#!lua flags=no-writes\x00\nreturn 1" 0}
    # An escaped NUL ends the word where Redis prints or compares it.
    assert_error {ERR Invalid metadata value given: foo=a} {r function load "#!lua foo=\"a\\x00b\"$body"}
    assert_error {ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long} {r function load "#!lua name=\"a\\x00b\"$body"}
    assert_equal 1 [r eval "#!lua flags=\"no-writes\\x00zz\"\nreturn 1" 0]
    assert_error {ERR Unexpected flag in script shebang: x} {r eval "#!lua flags=\"x\\x00zz\"\nreturn 1" 0}
    assert_error {ERR Unknown lua shebang option: fl} {r eval "#!lua \"fl\\x00ags=no-writes\"\nreturn 1" 0}
    # Vertical tab and form feed are skipped between words but do not end one.
    assert_error {ERR Library name was not given} {r function load "#!lua\x0bname=x$body"}
    assert_error {ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long} {r function load "#!lua name=x\x0b$body"}
    assert_equal x [r function load "#!lua name=x \x0c$body"]
    r function flush
}
