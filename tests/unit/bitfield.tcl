# BITFIELD and BITFIELD_RO: GET/SET/INCRBY on signed and unsigned fields of 1..64 bits, "#n"
# offsets, OVERFLOW WRAP/SAT/FAIL, growth of the string, errors. Replies were checked against
# redis-server 7.0.15.

proc make_nonstring {key} {
    r del $key
    foreach cmd {{lpush a} {sadd a} {hset f v} {zadd 1 a}} {
        if {![catch {r [lindex $cmd 0] $key {*}[lrange $cmd 1 end]}]} {
            return 1
        }
    }
    return 0
}

tags {bitops bitfield} {

test "BITFIELD signed SET and GET" {
    r flushall
    assert_equal {0 100} [r bitfield bf set i8 0 100 get i8 0]
    assert_equal "d" [r get bf]
    assert_equal {100 -100} [r bitfield bf set i8 0 -100 get i8 0]
    assert_equal {156} [r bitfield bf get u8 0]
}

test "BITFIELD unsigned SET and GET" {
    r del bf
    assert_equal {0 255} [r bitfield bf set u8 0 255 get u8 0]
    assert_equal {255 1} [r bitfield bf set u8 0 1 get u8 0]
    assert_equal {1 15} [r bitfield bf set u4 4 15 get u4 4]
    assert_equal "\x0f" [r get bf]
}

test "BITFIELD fields that are not byte aligned" {
    r del bf
    # -17 does not fit an i5: the default WRAP stores 15.
    assert_equal {0 15} [r bitfield bf set i5 3 -17 get i5 3]
    assert_equal {15} [r bitfield bf set i5 3 14]
    assert_equal {14 1 6} [r bitfield bf get i5 3 get u1 4 get u3 5]
    r set bf "\x12\x34\x56\x78"
    assert_equal {564 34 -8} [r bitfield bf get u12 4 get i7 12 get i4 28]
}

test "BITFIELD # offsets are multiplied by the field width" {
    r del bf
    assert_equal {0 0 0} [r bitfield bf set u8 #0 1 set u8 #1 2 set u8 #2 3]
    assert_equal "\x01\x02\x03" [r get bf]
    assert_equal {2 3} [r bitfield bf get u8 #1 get u8 16]
    assert_equal {1} [r bitfield bf set u4 #1 15]
    assert_equal "\x0f\x02\x03" [r get bf]
}

test "BITFIELD INCRBY with the default WRAP overflow" {
    r del bf
    assert_equal {100} [r bitfield bf incrby i8 0 100]
    assert_equal {-56} [r bitfield bf incrby i8 0 100]
    assert_equal {-100} [r bitfield bf incrby i8 0 -300]
    assert_equal {255} [r bitfield bf incrby u8 8 -1]
    assert_equal {4} [r bitfield bf incrby u8 8 5]
}

test "BITFIELD OVERFLOW SAT" {
    r del bf
    assert_equal {127} [r bitfield bf overflow sat incrby i8 0 1000]
    assert_equal {-128} [r bitfield bf overflow sat incrby i8 0 -1000]
    assert_equal {255} [r bitfield bf overflow sat incrby u8 8 1000]
    assert_equal {0} [r bitfield bf overflow sat incrby u8 8 -1000]
    assert_equal {0} [r bitfield bf overflow sat set u8 16 -1]
    assert_equal {255} [r bitfield bf get u8 16]
    assert_equal {0} [r bitfield bf overflow sat set i8 24 9223372036854775807]
    assert_equal {127} [r bitfield bf get i8 24]
}

test "BITFIELD OVERFLOW FAIL returns nil and writes nothing" {
    r del bf
    assert_equal {0 100} [r bitfield bf set i8 0 100 get i8 0]
    assert_equal {{}} [r bitfield bf overflow fail incrby i8 0 100]
    assert_equal {100} [r bitfield bf get i8 0]
    assert_equal {{} 0} [r bitfield bf overflow fail set u8 8 256 get u8 8]
    assert_equal {{} {} 100} [r bitfield bf overflow fail incrby u2 20 5 incrby u2 20 -1 get i8 0]
}

test "BITFIELD OVERFLOW applies to the operations after it" {
    r del bf
    assert_equal {127 -128 {}} [r bitfield bf overflow sat incrby i8 0 200 overflow wrap incrby i8 0 1 overflow fail incrby i8 0 -1]
    assert_equal {-128} [r bitfield bf get i8 0]
}

test "BITFIELD 64-bit signed and 63-bit unsigned fields" {
    r del bf
    assert_equal {9223372036854775807} [r bitfield bf overflow sat incrby i64 0 9223372036854775807]
    assert_equal {9223372036854775807} [r bitfield bf overflow sat incrby i64 0 1]
    assert_equal {-9223372036854775808} [r bitfield bf overflow wrap incrby i64 0 1]
    assert_equal {{}} [r bitfield bf overflow fail incrby i64 0 -1]
    assert_equal {-9223372036854775808} [r bitfield bf overflow sat incrby i64 0 -1]
    assert_equal {9223372036854775807} [r bitfield bf overflow wrap incrby i64 0 -1]
    assert_equal {0} [r bitfield bf set u63 64 9223372036854775807]
    assert_equal {4} [r bitfield bf overflow wrap incrby u63 64 5]
    assert_equal {9223372036854775807} [r bitfield bf overflow sat incrby u63 64 9223372036854775807]
    assert_equal 16 [r strlen bf]
}

test "BITFIELD SET of values outside the field, all overflow modes" {
    r del bf
    assert_equal {0 255} [r bitfield bf overflow wrap set u8 0 -1 get u8 0]
    assert_equal {-1 0} [r bitfield bf overflow wrap set i8 0 -9223372036854775808 get i8 0]
    # Redis's overflow check reports INT64_MIN as a positive overflow: SAT stores the maximum.
    assert_equal {0 127} [r bitfield bf overflow sat set i8 0 -9223372036854775808 get i8 0]
    assert_equal {127 -128} [r bitfield bf overflow sat set i8 0 -129 get i8 0]
    assert_equal {-128 1} [r bitfield bf overflow wrap set i8 0 257 get i8 0]
}

test "BITFIELD grows the string to the highest written bit" {
    r del bf
    assert_equal {0 0} [r bitfield bf set u1 100 1 get u8 8]
    assert_equal 13 [r strlen bf]
    assert_encoding raw bf
    assert_equal {3 2} [r bitfield bf incrby u2 100 1 incrby u2 102 2]
    assert_equal {0} [r bitfield bf get u32 1000]
    assert_equal 13 [r strlen bf]
    assert_equal {0} [r bitfield bf set u8 200 0]
    assert_equal 26 [r strlen bf]
}

test "BITFIELD on a missing key with only failing writes still creates it" {
    r del bf
    assert_equal {{}} [r bitfield bf overflow fail set u8 0 256]
    assert_equal 1 [r exists bf]
    assert_equal "\x00" [r get bf]
}

test "BITFIELD GET on a missing key does not create it" {
    r del nokey
    assert_equal {0 0} [r bitfield nokey get u8 0 get i64 100]
    assert_equal 0 [r exists nokey]
    assert_equal {} [r bitfield nokey]
    assert_equal 0 [r exists nokey]
}

test "BITFIELD reads int and embstr values" {
    r set s hello
    assert_equal {104 25964 1862270976 111} [r bitfield s get i8 0 get u16 8 get i32 32 get i8 32]
    assert_encoding embstr s
    r set n 12345
    assert_equal {49} [r bitfield n get u8 0]
    assert_encoding int n
    assert_equal {49} [r bitfield n set u8 0 50]
    assert_equal 22345 [r get n]
    assert_encoding raw n
}

test "BITFIELD keeps the TTL" {
    r set bf abc EX 100
    r bitfield bf set u8 100 1
    assert_range [r ttl bf] 99 100
}

test "BITFIELD type errors" {
    r set bf x
    set err {ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.}
    foreach t {u64 i65 i0 u0 x8 I8 U8 i u i-1 i8x ""} {
        assert_error $err [list r bitfield bf get $t 0]
    }
    assert_error $err {r bitfield bf set u64 0 1}
}

test "BITFIELD offset errors" {
    r set bf x
    foreach o {-1 #-1 abc 1.5 "" 4294967296 #536870912} {
        assert_error {ERR bit offset is not an integer or out of range} [list r bitfield bf get i8 $o]
    }
    assert_equal {0} [r bitfield bf get i8 4294967295]
    assert_error {ERR bit offset is not an integer or out of range} {r bitfield bf get i8 #1x}
}

test "BITFIELD syntax errors" {
    r set bf x
    assert_error {ERR syntax error} {r bitfield bf foo}
    assert_error {ERR syntax error} {r bitfield bf get}
    assert_error {ERR syntax error} {r bitfield bf get i8}
    assert_error {ERR syntax error} {r bitfield bf set i8 0}
    assert_error {ERR syntax error} {r bitfield bf incrby i8 0}
    assert_error {ERR syntax error} {r bitfield bf overflow}
    assert_error {ERR Invalid OVERFLOW type specified} {r bitfield bf overflow foo}
    assert_error {ERR value is not an integer or out of range} {r bitfield bf set i8 0 abc}
    assert_error {ERR value is not an integer or out of range} {r bitfield bf incrby i8 0 1.5}
    # Nothing runs when any operation is bad.
    assert_error {ERR syntax error} {r bitfield bf set u8 0 255 foo}
    assert_equal x [r get bf]
    assert_error {*wrong number of arguments for 'bitfield' command*} {r bitfield}
}

test "BITFIELD against a key of another type" {
    if {![make_nonstring lst]} {
        skip_test "no collection type yet"
    }
    assert_error {WRONGTYPE*} {r bitfield lst get u8 0}
    assert_error {WRONGTYPE*} {r bitfield lst set u8 0 1}
    assert_error {WRONGTYPE*} {r bitfield lst}
    assert_error {WRONGTYPE*} {r bitfield_ro lst get u8 0}
}

test "BITFIELD_RO" {
    r set bf "\x64\x0f"
    assert_equal {100 0 15} [r bitfield_ro bf get i8 0 get u4 8 get u4 12]
    assert_equal {0} [r bitfield_ro nokey get u8 0]
    assert_equal {} [r bitfield_ro bf]
    assert_error {ERR BITFIELD_RO only supports the GET subcommand} {r bitfield_ro bf set i8 0 1}
    assert_error {ERR BITFIELD_RO only supports the GET subcommand} {r bitfield_ro bf get i8 0 incrby i8 0 1}
    assert_error {ERR syntax error} {r bitfield_ro bf foo}
    assert_error {*wrong number of arguments for 'bitfield_ro' command*} {r bitfield_ro}
    assert_equal "\x64\x0f" [r get bf]
}

test "BITFIELD unsigned fields against a model on random data" {
    for {set i 0} {$i < 100} {incr i} {
        set bits [expr {1 + int(rand() * 63)}]
        set off [expr {int(rand() * 64)}]
        set max [expr {(1 << $bits) - 1}]
        set v [expr {wide(rand() * $max)}]
        r del bf
        r bitfield bf set u$bits $off $v
        assert_equal $v [r bitfield bf get u$bits $off] "u$bits at $off"
        set inc [expr {int(rand() * 1000) - 500}]
        set exp [expr {($v + $inc) & $max}]
        assert_equal $exp [r bitfield bf incrby u$bits $off $inc] "u$bits $v + $inc"
    }
}

test "BITFIELD signed fields against a model on random data" {
    for {set i 0} {$i < 100} {incr i} {
        set bits [expr {2 + int(rand() * 62)}]
        set off [expr {int(rand() * 64)}]
        set max [expr {(1 << ($bits - 1)) - 1}]
        set min [expr {-$max - 1}]
        set v [expr {wide(rand() * $max * 2) - $max}]
        r del bf
        r bitfield bf set i$bits $off $v
        assert_equal $v [r bitfield bf get i$bits $off] "i$bits at $off"
        set inc [expr {int(rand() * 1000) - 500}]
        set sum [expr {$v + $inc}]
        set sat [expr {$sum > $max ? $max : ($sum < $min ? $min : $sum)}]
        assert_equal $sat [r bitfield bf overflow sat incrby i$bits $off $inc] "i$bits $v + $inc"
    }
}

}
