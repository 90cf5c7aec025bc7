# String commands: GET SET (all options) SETNX SETEX PSETEX MGET MSET MSETNX GETSET GETDEL GETEX
# APPEND STRLEN GETRANGE SUBSTR SETRANGE LCS, with the encodings Redis 7.4 reports. Replies were
# checked against redis-server 7.0.15 (the encodings and TTL effects too).

# A key of a non-string type for WRONGTYPE tests, made with the first collection command the
# server knows; returns 0 when it knows none yet (the caller then skips).
proc make_nonstring {key} {
    r del $key
    foreach cmd {{lpush a} {sadd a} {hset f v} {zadd 1 a}} {
        if {![catch {r [lindex $cmd 0] $key {*}[lrange $cmd 1 end]}]} {
            return 1
        }
    }
    return 0
}

tags {string} {

test "SET and GET a simple value" {
    r flushall
    assert_equal OK [r set foo bar]
    assert_equal bar [r get foo]
    assert_equal {} [r get nokey]
}

test "SET and GET an empty string" {
    r set e ""
    assert_equal {} [r get e]
    assert_equal 1 [r exists e]
    assert_equal 0 [r strlen e]
}

test "SET and GET are binary safe" {
    set v "a\x00b\r\n\xff\x01end"
    r set bin $v
    assert_equal $v [r get bin]
    assert_equal [string length $v] [r strlen bin]
    r set "key\x00with\nnewline" x
    assert_equal x [r get "key\x00with\nnewline"]
}

test "SET and GET a large value (> 64 KB)" {
    set v [string repeat "0123456789abcdef" 20000]
    r set big $v
    assert_equal $v [r get big]
    assert_equal 320000 [r strlen big]
    assert_encoding raw big
}

test "SET overwrites a value of another length many times" {
    for {set i 0} {$i < 200} {incr i} {
        set v [string repeat x [expr {($i * 37) % 300}]]
        r set k $v
        assert_equal $v [r get k]
    }
}

test "String encodings: int, embstr up to 44 bytes, raw from 45" {
    foreach {v enc} {123 int -5 int 9223372036854775807 int -9223372036854775808 int 0 int
                     01 embstr 9223372036854775808 embstr +1 embstr " 1" embstr 1.5 embstr
                     abc embstr "" embstr} {
        r set k $v
        assert_encoding $enc k
        assert_equal $v [r get k]
    }
    r set k [string repeat a 44]
    assert_encoding embstr k
    r set k [string repeat a 45]
    assert_encoding raw k
    assert_equal [string repeat a 45] [r get k]
    r set k short
    assert_encoding embstr k
    r set k 12345678901234567890
    assert_encoding embstr k
}

test "SET with EX/PX/EXAT/PXAT sets the TTL" {
    r set k v EX 100
    assert_range [r ttl k] 99 100
    r set k v PX 100000
    assert_range [r pttl k] 99000 100000
    set at [expr {[clock seconds] + 200}]
    r set k v EXAT $at
    assert_equal $at [r expiretime k]
    set atms [expr {[clock milliseconds] + 300000}]
    r set k v PXAT $atms
    assert_equal $atms [r pexpiretime k]
    assert_equal v [r get k]
}

test "SET without KEEPTTL drops the TTL, KEEPTTL keeps it" {
    r set k v EX 100
    r set k w KEEPTTL
    assert_range [r ttl k] 99 100
    assert_equal w [r get k]
    r set k x
    assert_equal -1 [r ttl k]
    r set k2 1 EX 100
    r set k2 [string repeat y 100] KEEPTTL
    assert_range [r ttl k2] 99 100
}

test "SET with a repeated expire option takes the last value" {
    r set k v EX 10 EX 1000
    assert_range [r ttl k] 999 1000
    r set k v NX NX
    r set k v XX XX
    assert_equal v [r get k]
}

test "SET with an absolute time in the past: the key is gone" {
    r set past v
    assert_equal OK [r set past v2 EXAT 1]
    assert_equal {} [r get past]
    assert_equal 0 [r exists past]
    assert_equal OK [r set past2 v PXAT 1]
    assert_equal 0 [r exists past2]
    r set past3 old
    assert_equal old [r set past3 new PXAT 1 GET]
    assert_equal 0 [r exists past3]
}

test "SET NX and XX" {
    r del k
    assert_equal {} [r set k v XX]
    assert_equal 0 [r exists k]
    assert_equal OK [r set k v NX]
    assert_equal {} [r set k w NX]
    assert_equal v [r get k]
    assert_equal OK [r set k w XX]
    assert_equal w [r get k]
}

test "SET GET returns the old value" {
    r del k
    assert_equal {} [r set k v GET]
    assert_equal v [r get k]
    assert_equal v [r set k w GET]
    assert_equal w [r get k]
    r set n 42
    assert_equal 42 [r set n x GET]
}

test "SET GET combined with NX, XX and expire options" {
    r del k
    assert_equal {} [r set k v XX GET]
    assert_equal 0 [r exists k]
    assert_equal {} [r set k v NX GET]
    assert_equal v [r get k]
    assert_equal v [r set k w NX GET]
    assert_equal v [r get k]
    assert_equal v [r set k w XX GET EX 100]
    assert_range [r ttl k] 99 100
    assert_equal w [r set k x GET KEEPTTL]
    assert_range [r ttl k] 99 100
}

test "SET option syntax errors" {
    r set k v
    foreach opts {{NX XX} {XX NX} {EX 10 PX 100} {PX 10 EX 10} {EX 10 EXAT 10} {PXAT 10 EXAT 10}
                  {KEEPTTL EX 10} {EX 10 KEEPTTL} {KEEPTTL PXAT 10} {EX} {PX} {EXAT} {PXAT}
                  {foo} {NX foo} {PERSIST} {EX 10 10}} {
        assert_error {ERR syntax error} [list r set k v {*}$opts]
    }
    assert_equal v [r get k]
}

test "SET invalid expire times" {
    foreach {opt val} {EX 0 EX -1 PX 0 PX -100 EXAT 0 PXAT -1 EX 9223372036854776
                       PX 9223372036854775807 EXAT 9223372036854776} {
        assert_error {ERR invalid expire time in 'set' command} [list r set k v $opt $val]
    }
    foreach {opt val} {EX abc PX 1.5 EXAT " 1" PXAT 99999999999999999999} {
        assert_error {ERR value is not an integer or out of range} [list r set k v $opt $val]
    }
}

test "SET errors leave the key untouched, GET option checks the type" {
    r set k keep
    catch {r set k v EX 0}
    assert_equal keep [r get k]
    if {![make_nonstring lst]} {
        skip_test "no collection type yet to make a WRONGTYPE key"
    }
    assert_error {WRONGTYPE*} {r set lst v GET}
    assert_equal OK [r set lst v]
    assert_equal v [r get lst]
}

test "SET and GET arity" {
    assert_error {*wrong number of arguments for 'set' command*} {r set k}
    assert_error {*wrong number of arguments for 'get' command*} {r get}
    assert_error {*wrong number of arguments for 'get' command*} {r get a b}
}

test "SETNX" {
    r del k
    assert_equal 1 [r setnx k v]
    assert_equal 0 [r setnx k w]
    assert_equal v [r get k]
    assert_error {*wrong number of arguments for 'setnx' command*} {r setnx k}
}

test "SETNX over an expired key sets it" {
    r set k v PX 1
    after 5
    assert_equal 1 [r setnx k w]
    assert_equal w [r get k]
}

test "SETEX and PSETEX" {
    assert_equal OK [r setex k 100 v]
    assert_range [r ttl k] 99 100
    assert_equal v [r get k]
    assert_equal OK [r psetex k 100000 w]
    assert_range [r pttl k] 99000 100000
    assert_equal w [r get k]
    r set k n
    assert_error {ERR invalid expire time in 'setex' command} {r setex k 0 v}
    assert_error {ERR invalid expire time in 'setex' command} {r setex k -10 v}
    assert_error {ERR invalid expire time in 'psetex' command} {r psetex k 0 v}
    assert_error {ERR value is not an integer or out of range} {r setex k abc v}
    assert_error {ERR value is not an integer or out of range} {r psetex k 1.5 v}
    assert_equal n [r get k]
    assert_error {*wrong number of arguments for 'setex' command*} {r setex k 10}
    assert_error {*wrong number of arguments for 'psetex' command*} {r psetex k 10 v x}
}

test "SETEX expires the key" {
    r psetex k 30 v
    wait_for_condition 50 10 {[r exists k] == 0}
    assert_equal {} [r get k]
}

test "MGET" {
    r flushall
    r mset a 1 b bval
    assert_equal {1 bval {}} [r mget a b nokey]
    assert_equal {1 1} [r mget a a]
    assert_error {*wrong number of arguments for 'mget' command*} {r mget}
}

test "MGET returns nil for keys of another type" {
    if {![make_nonstring lst]} {
        skip_test "no collection type yet"
    }
    r set a 1
    assert_equal {1 {}} [r mget a lst]
}

test "MSET" {
    assert_equal OK [r mset x 1 y 2 z [string repeat z 100]]
    assert_equal [list 1 2 [string repeat z 100]] [r mget x y z]
    assert_equal OK [r mset x a x b]
    assert_equal b [r get x]
    r set t v EX 100
    r mset t w
    assert_equal -1 [r ttl t]
}

test "MSET with an odd number of arguments" {
    assert_error {ERR wrong number of arguments for 'mset' command} {r mset a 1 b}
    assert_error {ERR wrong number of arguments for 'mset' command} {r mset a}
    assert_error {ERR wrong number of arguments for 'msetnx' command} {r msetnx a 1 b}
}

test "MSETNX sets all keys or none" {
    r del m1 m2 m3
    assert_equal 1 [r msetnx m1 a m2 b]
    assert_equal {a b} [r mget m1 m2]
    assert_equal 0 [r msetnx m3 c m2 x]
    assert_equal {{} b} [r mget m3 m2]
    assert_equal 0 [r exists m3]
    assert_equal 1 [r msetnx m3 c m3 d]
    assert_equal d [r get m3]
}

test "GETSET" {
    r del k
    assert_equal {} [r getset k v]
    assert_equal v [r get k]
    assert_equal v [r getset k w]
    assert_equal w [r get k]
    r set k v EX 100
    r getset k x
    assert_equal -1 [r ttl k]
    assert_error {*wrong number of arguments for 'getset' command*} {r getset k}
}

test "GETSET against a key of another type" {
    if {![make_nonstring lst]} {
        skip_test "no collection type yet"
    }
    assert_error {WRONGTYPE*} {r getset lst v}
    assert_equal 1 [r exists lst]
}

test "GETDEL" {
    r set k v
    assert_equal v [r getdel k]
    assert_equal 0 [r exists k]
    assert_equal {} [r getdel k]
    r set n 123
    assert_equal 123 [r getdel n]
    assert_equal 0 [r exists n]
    assert_error {*wrong number of arguments for 'getdel' command*} {r getdel}
}

test "GETDEL against a key of another type" {
    if {![make_nonstring lst]} {
        skip_test "no collection type yet"
    }
    assert_error {WRONGTYPE*} {r getdel lst}
    assert_equal 1 [r exists lst]
}

test "GETEX without options is GET" {
    r set k v EX 100
    assert_equal v [r getex k]
    assert_range [r ttl k] 99 100
    assert_equal {} [r getex nokey]
}

test "GETEX EX/PX/EXAT/PXAT set the TTL" {
    r set k v
    assert_equal v [r getex k EX 100]
    assert_range [r ttl k] 99 100
    assert_equal v [r getex k PX 200000]
    assert_range [r pttl k] 199000 200000
    set at [expr {[clock seconds] + 300}]
    assert_equal v [r getex k EXAT $at]
    assert_equal $at [r expiretime k]
    set atms [expr {[clock milliseconds] + 400000}]
    assert_equal v [r getex k PXAT $atms]
    assert_equal $atms [r pexpiretime k]
}

test "GETEX PERSIST removes the TTL" {
    r set k v EX 100
    assert_equal v [r getex k PERSIST]
    assert_equal -1 [r ttl k]
    assert_equal v [r getex k PERSIST]
    assert_equal -1 [r ttl k]
}

test "GETEX with an absolute time in the past deletes the key" {
    r set k v
    assert_equal v [r getex k EXAT 1]
    assert_equal 0 [r exists k]
    r set k v
    assert_equal v [r getex k PXAT 1]
    assert_equal 0 [r exists k]
}

test "GETEX errors" {
    r set k v
    assert_error {ERR syntax error} {r getex k NX}
    assert_error {ERR syntax error} {r getex k KEEPTTL}
    assert_error {ERR syntax error} {r getex k EX 10 PERSIST}
    assert_error {ERR syntax error} {r getex k PERSIST EX 10}
    assert_error {ERR syntax error} {r getex k EX 10 PX 10}
    assert_error {ERR syntax error} {r getex k EX}
    assert_error {ERR invalid expire time in 'getex' command} {r getex k EX 0}
    assert_error {ERR invalid expire time in 'getex' command} {r getex k PX -1}
    assert_error {ERR value is not an integer or out of range} {r getex k EX foo}
    assert_equal -1 [r ttl k]
    # A missing key answers nil before the expire value is looked at.
    assert_equal {} [r getex nokey EX 0]
    assert_error {*wrong number of arguments for 'getex' command*} {r getex}
    if {[make_nonstring lst]} {
        assert_error {WRONGTYPE*} {r getex lst}
        assert_error {WRONGTYPE*} {r getex lst EX 10}
    }
}

test "APPEND creates and extends" {
    r del k
    assert_equal 5 [r append k hello]
    assert_equal 11 [r append k " world"]
    assert_equal "hello world" [r get k]
    assert_equal 11 [r append k ""]
    assert_equal "hello world" [r get k]
    assert_equal 11 [r strlen k]
}

test "APPEND encodings: a new key is encoded as SET would, an extended one is raw" {
    r del a1 a2 a3
    r append a1 123
    assert_encoding int a1
    r append a2 abc
    assert_encoding embstr a2
    r append a3 [string repeat x 50]
    assert_encoding raw a3
    r append a1 4
    assert_encoding raw a1
    assert_equal 1234 [r get a1]
    r append a2 d
    assert_encoding raw a2
    r set e ""
    r append e ""
    assert_encoding raw e
}

test "In-place edits of values of every size (inline, embstr, raw)" {
    foreach len {0 1 20 44 45 100 180 200 220 256 300 5000} {
        set v [string repeat v $len]
        r set k $v
        assert_equal [expr {$len + 2}] [r append k ab] "append to $len bytes"
        assert_equal "${v}ab" [r get k]
        assert_encoding raw k
        r set k $v
        assert_equal [expr {max($len, 3)}] [r setrange k 0 xyz] "setrange of $len bytes"
        assert_equal "xyz[string range $v 3 end]" [r get k]
        r set k $v
        r setbit k 7 1
        assert_equal [expr {max($len, 1)}] [r strlen k]
        r set k $v
        r bitfield k set u8 [expr {$len * 8}] 65
        assert_equal "${v}A" [r get k]
        set key [string repeat K 150]
        r set $key $v
        r append $key z
        assert_equal "${v}z" [r get $key]
        r del $key
    }
}

test "APPEND to an int-encoded value" {
    r set n 100
    assert_equal 5 [r append n 42]
    assert_equal 10042 [r get n]
    assert_equal 10043 [r incr n]
    assert_encoding int n
}

test "APPEND is binary safe" {
    r del k
    r append k "a\x00b"
    r append k "\xff\x00"
    assert_equal "a\x00b\xff\x00" [r get k]
    assert_equal 5 [r strlen k]
}

test "APPEND keeps the TTL" {
    r set k v EX 100
    r append k x
    assert_range [r ttl k] 99 100
}

test "APPEND 1 MB in a loop" {
    r del k
    set chunk [string repeat "abcdefgh" 128]
    for {set i 0} {$i < 1024} {incr i} {
        r append k $chunk
    }
    assert_equal 1048576 [r strlen k]
    assert_equal [string repeat $chunk 1024] [r get k]
    assert_encoding raw k
}

test "APPEND beyond proto-max-bulk-len" {
    r config set proto-max-bulk-len 1048576
    r set k [string repeat x 1048570]
    assert_error {ERR string exceeds maximum allowed size (proto-max-bulk-len)} {r append k 1234567}
    assert_equal 1048576 [r append k 123456]
    r config set proto-max-bulk-len 536870912
}

test "APPEND/STRLEN errors" {
    assert_error {*wrong number of arguments for 'append' command*} {r append k}
    assert_error {*wrong number of arguments for 'strlen' command*} {r strlen}
    if {[make_nonstring lst]} {
        assert_error {WRONGTYPE*} {r append lst x}
        assert_error {WRONGTYPE*} {r strlen lst}
        assert_error {WRONGTYPE*} {r get lst}
    }
}

test "STRLEN of int, embstr and raw values" {
    r set n -12345
    assert_equal 6 [r strlen n]
    r set n 0
    assert_equal 1 [r strlen n]
    r set n -9223372036854775808
    assert_equal 20 [r strlen n]
    r set s [string repeat a 44]
    assert_equal 44 [r strlen s]
    assert_equal 0 [r strlen nokey]
}

test "GETRANGE" {
    r set k "This is a string"
    assert_equal "This" [r getrange k 0 3]
    assert_equal "ing" [r getrange k -3 -1]
    assert_equal "This is a string" [r getrange k 0 -1]
    assert_equal "string" [r getrange k 10 100]
    assert_equal "" [r getrange k 5 3]
    assert_equal "" [r getrange k 100 200]
    assert_equal "" [r getrange k -1 -3]
    # Redis 8.0 (#12272): an end that is still negative after adding the length gives "";
    # Debian's 7.0 clamps it to 0 and answers "T" for both.
    assert_equal "" [r getrange k -100 -90]
    assert_equal "" [r getrange k 0 -100]
    assert_equal "T" [r getrange k 0 -16]
    assert_equal "T" [r getrange k -100 0]
    assert_equal "This is a string" [r getrange k -100 100]
    assert_equal "" [r getrange nokey 0 -1]
    r set e ""
    assert_equal "" [r getrange e 0 -1]
    r set n 1234567
    assert_equal 345 [r getrange n 2 4]
    assert_equal 67 [r getrange n -2 -1]
}

test "GETRANGE against random strings matches Tcl's string range" {
    for {set i 0} {$i < 100} {incr i} {
        set len [expr {int(rand() * 30)}]
        set s [string repeat x $len]
        for {set j 0} {$j < $len} {incr j} {
            set s [string replace $s $j $j [format %c [expr {97 + int(rand() * 26)}]]]
        }
        r set k $s
        set a [expr {int(rand() * 40) - 20}]
        set b [expr {int(rand() * 40) - 20}]
        set a2 [expr {$a < 0 ? $a + $len : $a}]
        set b2 [expr {$b < 0 ? $b + $len : $b}]
        if {$a2 < 0} {set a2 0}
        if {$a < 0 && $b < 0 && $a > $b} {
            set exp ""
        } elseif {$b2 < 0} {
            set exp ""   ;# Redis 8.0: the end is before the string (7.0 clamped it to 0)
        } elseif {$len == 0} {
            set exp ""
        } else {
            set exp [string range $s $a2 $b2]
        }
        assert_equal $exp [r getrange k $a $b] "getrange '$s' $a $b"
    }
}

test "SUBSTR is GETRANGE" {
    r set k hello
    assert_equal ell [r substr k 1 3]
    assert_equal lo [r substr k -2 -1]
}

test "GETRANGE errors" {
    assert_error {ERR value is not an integer or out of range} {r getrange k a 1}
    assert_error {ERR value is not an integer or out of range} {r getrange k 0 1.5}
    assert_error {*wrong number of arguments for 'getrange' command*} {r getrange k 0}
    assert_error {*wrong number of arguments for 'substr' command*} {r substr k 0}
    if {[make_nonstring lst]} {
        assert_error {WRONGTYPE*} {r getrange lst 0 1}
    }
}

test "SETRANGE on a missing key zero-pads" {
    r del k
    assert_equal 8 [r setrange k 5 abc]
    assert_equal "\x00\x00\x00\x00\x00abc" [r get k]
    assert_encoding raw k
    r del k
    assert_equal 3 [r setrange k 0 xyz]
    assert_encoding raw k
}

test "SETRANGE on an existing key" {
    r set k "Hello World"
    assert_equal 11 [r setrange k 6 Redis]
    assert_equal "Hello Redis" [r get k]
    assert_equal 11 [r setrange k 0 J]
    assert_equal "Jello Redis" [r get k]
    assert_equal 16 [r setrange k 14 xy]
    assert_equal "Jello Redis\x00\x00\x00xy" [r get k]
    assert_encoding raw k
}

test "SETRANGE on an int-encoded value" {
    r set n 1234
    assert_equal 4 [r setrange n 1 9]
    assert_equal 1934 [r get n]
    assert_encoding raw n
    assert_equal 1935 [r incr n]
    assert_encoding int n
}

test "SETRANGE with an empty value" {
    r del k
    assert_equal 0 [r setrange k 10 ""]
    assert_equal 0 [r exists k]
    r set k abc
    assert_equal 3 [r setrange k 10 ""]
    assert_equal abc [r get k]
    assert_encoding embstr k
}

test "SETRANGE keeps the TTL" {
    r set k hello EX 100
    r setrange k 1 a
    assert_range [r ttl k] 99 100
    assert_equal hallo [r get k]
}

test "SETRANGE errors and limits" {
    r set k abc
    assert_error {ERR offset is out of range} {r setrange k -1 x}
    assert_error {ERR value is not an integer or out of range} {r setrange k abc x}
    assert_error {ERR string exceeds maximum allowed size (proto-max-bulk-len)} {r setrange k 536870912 x}
    assert_error {ERR string exceeds maximum allowed size (proto-max-bulk-len)} {r setrange k 536870911 xy}
    assert_error {ERR string exceeds maximum allowed size (proto-max-bulk-len)} {r setrange k 9223372036854775807 x}
    assert_error {ERR string exceeds maximum allowed size (proto-max-bulk-len)} {r setrange nokey 536870912 x}
    assert_equal 0 [r exists nokey]
    assert_equal abc [r get k]
    assert_error {*wrong number of arguments for 'setrange' command*} {r setrange k 0}
    if {[make_nonstring lst]} {
        assert_error {WRONGTYPE*} {r setrange lst 0 x}
        assert_error {WRONGTYPE*} {r setrange lst 0 ""}
    }
}

test "SETRANGE against a 128 KB value" {
    r set k [string repeat a 131072]
    assert_equal 131072 [r setrange k 131070 bc]
    assert_equal abc [r getrange k 131069 -1]
    assert_equal 131073 [r setrange k 131070 xyz]
    assert_equal axyz [r getrange k -4 -1]
}

test "LCS" {
    r set a ohmytext
    r set b mynewtext
    assert_equal mytext [r lcs a b]
    assert_equal 6 [r lcs a b len]
    assert_equal {} [r lcs a nokey]
    assert_equal 0 [r lcs a nokey len]
    assert_equal ohmytext [r lcs a a]
}

test "LCS IDX, MINMATCHLEN and WITHMATCHLEN" {
    r set a ohmytext
    r set b mynewtext
    assert_equal {matches {{{4 7} {5 8}} {{2 3} {0 1}}} len 6} [r lcs a b idx]
    assert_equal {matches {{{4 7} {5 8}}} len 6} [r lcs a b idx minmatchlen 4]
    assert_equal {matches {{{4 7} {5 8} 4}} len 6} [r lcs a b idx minmatchlen 4 withmatchlen]
    assert_equal {matches {{{4 7} {5 8} 4} {{2 3} {0 1} 2}} len 6} [r lcs a b withmatchlen idx]
    assert_equal {matches {{{4 7} {5 8}} {{2 3} {0 1}}} len 6} [r lcs a b idx minmatchlen -5]
    r set c abcdefg
    r set d xbcxefgx
    assert_equal {matches {{{4 6} {4 6} 3} {{1 2} {1 2} 2}} len 5} [r lcs c d idx withmatchlen]
    assert_equal bcefg [r lcs c d]
    assert_equal {matches {} len 0} [r lcs c nokey idx]
}

test "LCS errors" {
    r set a x
    assert_error {ERR If you want both the length and indexes, please just use IDX.} {r lcs a a len idx}
    assert_error {ERR syntax error} {r lcs a a foo}
    assert_error {ERR syntax error} {r lcs a a minmatchlen}
    assert_error {ERR value is not an integer or out of range} {r lcs a a minmatchlen x}
    assert_error {*wrong number of arguments for 'lcs' command*} {r lcs a}
    if {[make_nonstring lst]} {
        assert_error {ERR The specified keys must contain string values} {r lcs a lst}
        assert_error {ERR The specified keys must contain string values} {r lcs lst a}
    }
}

test "LCS of binary strings and int values" {
    r set a "\x00\x01\x02\x03"
    r set b "\x01\x03\x00"
    assert_equal "\x01\x03" [r lcs a b]
    r set n1 12345
    r set n2 2468
    assert_equal 24 [r lcs n1 n2]
}

}
