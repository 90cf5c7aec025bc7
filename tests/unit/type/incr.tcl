# INCR DECR INCRBY DECRBY INCRBYFLOAT: results, encodings, TTL kept, overflow and parse errors.
# Replies were checked against redis-server 7.0.15.

proc make_nonstring {key} {
    r del $key
    foreach cmd {{lpush a} {sadd a} {hset f v} {zadd 1 a}} {
        if {![catch {r [lindex $cmd 0] $key {*}[lrange $cmd 1 end]}]} {
            return 1
        }
    }
    return 0
}

tags {incr string} {

test "INCR against a missing key" {
    r flushall
    assert_equal 1 [r incr novar]
    assert_equal 1 [r get novar]
    assert_encoding int novar
}

test "INCR against a key created by INCR" {
    assert_equal 2 [r incr novar]
}

test "INCR against a key set by SET" {
    r set novar 100
    assert_equal 101 [r incr novar]
}

test "DECR, INCRBY, DECRBY" {
    r set n 10
    assert_equal 9 [r decr n]
    assert_equal 109 [r incrby n 100]
    assert_equal 9 [r decrby n 100]
    assert_equal -1 [r decrby n 10]
    assert_equal -5 [r incrby n -4]
}

test "DECR and DECRBY against missing keys" {
    r del d1 d2 d3
    assert_equal -1 [r decr d1]
    assert_equal -5 [r decrby d2 5]
    assert_equal 7 [r incrby d3 7]
}

test "INCR over 32 bit and 64 bit boundaries" {
    r set n 2147483647
    assert_equal 2147483648 [r incr n]
    r set n 4294967295
    assert_equal 4294967296 [r incr n]
    r set n 9223372036854775806
    assert_equal 9223372036854775807 [r incr n]
    r set n -9223372036854775807
    assert_equal -9223372036854775808 [r decr n]
}

test "INCR overflow errors leave the value" {
    r set n 9223372036854775807
    assert_error {ERR increment or decrement would overflow} {r incr n}
    assert_error {ERR increment or decrement would overflow} {r incrby n 1}
    assert_equal 9223372036854775807 [r get n]
    r set n -9223372036854775808
    assert_error {ERR increment or decrement would overflow} {r decr n}
    assert_error {ERR increment or decrement would overflow} {r decrby n 1}
    assert_error {ERR increment or decrement would overflow} {r incrby n -1}
    assert_equal -9223372036854775808 [r get n]
    r set n 1
    assert_error {ERR increment or decrement would overflow} {r incrby n 9223372036854775807}
    assert_equal 9223372036854775807 [r incrby n 9223372036854775806]
}

test "DECRBY LLONG_MIN" {
    r set n 0
    assert_error {ERR decrement would overflow} {r decrby n -9223372036854775808}
    assert_equal -9223372036854775807 [r decrby n 9223372036854775807]
    assert_equal -9223372036854775808 [r incrby n -1]
}

test "INCR on values that are not canonical integers" {
    foreach v {" 11" "11 " "+1" "01" "-0" "1.5" "abc" "" "99999999999999999999" "1e3" "0x10"} {
        r set n $v
        assert_error {ERR value is not an integer or out of range} {r incr n} "value '$v'"
        assert_error {ERR value is not an integer or out of range} {r decrby n 1} "value '$v'"
        assert_equal $v [r get n]
    }
}

test "INCRBY argument errors" {
    r set n 1
    foreach v {abc 1.5 " 1" "+1" "" 99999999999999999999} {
        assert_error {ERR value is not an integer or out of range} [list r incrby n $v]
        assert_error {ERR value is not an integer or out of range} [list r decrby n $v]
    }
    assert_equal 1 [r get n]
}

test "INCR family arity" {
    assert_error {*wrong number of arguments for 'incr' command*} {r incr}
    assert_error {*wrong number of arguments for 'incr' command*} {r incr a b}
    assert_error {*wrong number of arguments for 'decr' command*} {r decr}
    assert_error {*wrong number of arguments for 'incrby' command*} {r incrby a}
    assert_error {*wrong number of arguments for 'decrby' command*} {r decrby a}
    assert_error {*wrong number of arguments for 'incrbyfloat' command*} {r incrbyfloat a}
}

test "INCR family against a key of another type" {
    if {![make_nonstring lst]} {
        skip_test "no collection type yet"
    }
    assert_error {WRONGTYPE*} {r incr lst}
    assert_error {WRONGTYPE*} {r decr lst}
    assert_error {WRONGTYPE*} {r incrby lst 2}
    assert_error {WRONGTYPE*} {r decrby lst 2}
    assert_error {WRONGTYPE*} {r incrbyfloat lst 1.5}
}

test "INCR turns raw and embstr integer strings into int" {
    r del n
    r append n 12
    r append n 34
    assert_encoding raw n
    assert_equal 1235 [r incr n]
    assert_encoding int n
    r set n [string repeat 1 5]
    r setrange n 0 2
    assert_encoding raw n
    assert_equal 21112 [r incr n]
    assert_encoding int n
}

test "INCR keeps the TTL" {
    r set n 10 EX 100
    r incr n
    assert_range [r ttl n] 99 100
    r incrby n 1000000000
    assert_range [r ttl n] 99 100
    assert_equal 1000000011 [r get n]
}

test "INCR across digit-count changes reads back exactly" {
    r set n 9
    assert_equal 10 [r incr n]
    assert_equal 2 [r strlen n]
    r set n 999999999
    assert_equal 1000000000 [r incr n]
    assert_equal 10 [r strlen n]
    assert_equal 999999999 [r decr n]
    assert_equal 9 [r strlen n]
    r set n 0
    assert_equal -1 [r decr n]
    assert_equal 2 [r strlen n]
}

test "INCR many times" {
    r del n
    for {set i 1} {$i <= 1000} {incr i} {
        r incr n
    }
    assert_equal 1000 [r get n]
    assert_encoding int n
}

test "INCRBYFLOAT against a missing key" {
    r del f
    assert_equal 10.5 [r incrbyfloat f 10.5]
    assert_equal 10.5 [r get f]
    assert_encoding embstr f
}

test "INCRBYFLOAT against an int and a float" {
    r set f 10
    assert_equal 11.5 [r incrbyfloat f 1.5]
    assert_equal 10.6 [r incrbyfloat f -0.9]
    r set f 10.5
    assert_equal 10.6 [r incrbyfloat f 0.1]
    r set f 5.0e3
    assert_equal 5000 [r incrbyfloat f 0]
    r set f 1
    assert_equal 0 [r incrbyfloat f -1]
    assert_equal 0 [r get f]
}

test "INCRBYFLOAT results are strings (embstr), never int" {
    r set f 1
    assert_equal 3 [r incrbyfloat f 2]
    assert_encoding embstr f
    assert_equal 4 [r incr f]
    assert_encoding int f
    r set f 1e30
    assert_equal 1000000000000000000024696061952 [r incrbyfloat f 0]
    assert_encoding embstr f
}

test "INCRBYFLOAT accepts the number forms strtold does" {
    r set f 0
    assert_equal 1000 [r incrbyfloat f 1e3]
    assert_equal 1000.5 [r incrbyfloat f .5]
    assert_equal 1016.5 [r incrbyfloat f 0x10]
    assert_equal 1017.5 [r incrbyfloat f +1]
}

test "INCRBYFLOAT keeps the TTL" {
    r set f 1 EX 100
    r incrbyfloat f 1.5
    assert_range [r ttl f] 99 100
}

test "INCRBYFLOAT errors" {
    r set f 1
    assert_error {ERR value is not a valid float} {r incrbyfloat f abc}
    assert_error {ERR value is not a valid float} {r incrbyfloat f ""}
    assert_error {ERR value is not a valid float} {r incrbyfloat f " 1"}
    assert_error {ERR value is not a valid float} {r incrbyfloat f nan}
    r set f abc
    assert_error {ERR value is not a valid float} {r incrbyfloat f 1}
    r set f "1 "
    assert_error {ERR value is not a valid float} {r incrbyfloat f 1}
    assert_equal "1 " [r get f]
}

test "INCRBYFLOAT does not allow NaN or Infinity" {
    r set f 0
    assert_error {ERR increment would produce NaN or Infinity} {r incrbyfloat f +inf}
    assert_error {ERR increment would produce NaN or Infinity} {r incrbyfloat f -inf}
    assert_equal 0 [r get f]
    r set f 1e4932
    assert_error {ERR increment would produce NaN or Infinity} {r incrbyfloat f 1e4932}
    assert_equal 1e4932 [r get f]
}

test "INCRBYFLOAT decrement and precision" {
    r set f 1
    assert_equal 0.9 [r incrbyfloat f -0.1]
    r set f 17179869184
    assert_equal 25769803776 [r incrbyfloat f 8589934592]
    r set f 0
    assert_equal 0.1 [r incrbyfloat f 0.1]
    assert_equal 0.3 [r incrbyfloat f 0.2]
}

# Found by tests/fuzz/cmdfuzz.py on the UBSan build: the integer reply -9223372036854775808
# overflowed while being converted for Lua.
test "DECRBY to INT64_MIN from a script" {
    r set x -1
    assert_equal -9223372036854775808 [r eval {return redis.call('decrby', KEYS[1], '9223372036854775807')} 1 x]
    assert_equal -9223372036854775808 [r get x]
}

}
