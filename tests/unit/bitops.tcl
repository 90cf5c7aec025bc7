# Bitmap commands: SETBIT GETBIT BITCOUNT BITPOS BITOP, checked against a Tcl model on random
# strings plus fixed cases. Replies were checked against redis-server 7.0.15, except where a
# comment names a Redis 7.2+ behaviour.

proc make_nonstring {key} {
    r del $key
    foreach cmd {{lpush a} {sadd a} {hset f v} {zadd 1 a}} {
        if {![catch {r [lindex $cmd 0] $key {*}[lrange $cmd 1 end]}]} {
            return 1
        }
    }
    return 0
}

proc random_bytes {len} {
    set s ""
    for {set i 0} {$i < $len} {incr i} {
        append s [format %c [expr {int(rand() * 256)}]]
    }
    return $s
}

proc model_popcount {s} {
    binary scan $s B* bits
    return [llength [regexp -all -inline 1 $bits]]
}

# BITOP model over byte strings: missing bytes are zero.
proc model_bitop {op args} {
    set max 0
    foreach s $args {
        if {[string length $s] > $max} {set max [string length $s]}
    }
    set out ""
    for {set i 0} {$i < $max} {incr i} {
        set acc ""
        foreach s $args {
            set c [string index $s $i]
            set b [expr {$c eq "" ? 0 : [scan $c %c]}]
            if {$acc eq ""} {
                set acc $b
            } elseif {$op eq "and"} {
                set acc [expr {$acc & $b}]
            } elseif {$op eq "or"} {
                set acc [expr {$acc | $b}]
            } else {
                set acc [expr {$acc ^ $b}]
            }
        }
        if {$op eq "not"} {set acc [expr {~$acc & 255}]}
        append out [format %c $acc]
    }
    return $out
}

tags {bitops} {

test "SETBIT and GETBIT basics" {
    r flushall
    assert_equal 0 [r setbit b 7 1]
    assert_equal "\x01" [r get b]
    assert_equal 1 [r setbit b 7 1]
    assert_equal 1 [r getbit b 7]
    assert_equal 0 [r getbit b 6]
    assert_equal 1 [r setbit b 7 0]
    assert_equal "\x00" [r get b]
    assert_equal 0 [r setbit b 0 1]
    assert_equal "\x80" [r get b]
}

test "SETBIT grows the string with zero bytes" {
    r del b
    r setbit b 100 1
    assert_equal 13 [r strlen b]
    assert_equal 1 [r getbit b 100]
    assert_equal "[string repeat \x00 12]\x08" [r get b]
    r setbit b 7 1
    assert_equal 13 [r strlen b]
    r setbit b 1000 0
    assert_equal 126 [r strlen b]
}

test "SETBIT makes the value raw, whatever it was" {
    r set b abc
    assert_encoding embstr b
    r setbit b 0 0
    assert_encoding raw b
    r set n 12345
    r setbit n 7 0
    assert_encoding raw n
    assert_equal 02345 [r get n]
    r del nb
    r setbit nb 0 1
    assert_encoding raw nb
}

test "SETBIT on an existing string keeps the TTL" {
    r set b abc EX 100
    r setbit b 100 1
    assert_range [r ttl b] 99 100
}

test "SETBIT against a 128 KB value" {
    r set b [string repeat "\x00" 131072]
    assert_equal 0 [r setbit b 1048575 1]
    assert_equal 1 [r getbit b 1048575]
    assert_equal 1 [r bitcount b]
    assert_equal 1048575 [r bitpos b 1]
}

test "SETBIT errors" {
    r set b x
    assert_error {ERR bit offset is not an integer or out of range} {r setbit b -1 1}
    assert_error {ERR bit offset is not an integer or out of range} {r setbit b 4294967296 1}
    assert_error {ERR bit offset is not an integer or out of range} {r setbit b abc 1}
    assert_error {ERR bit offset is not an integer or out of range} {r setbit b 1.5 1}
    assert_error {ERR bit is not an integer or out of range} {r setbit b 1 2}
    assert_error {ERR bit is not an integer or out of range} {r setbit b 1 -1}
    assert_error {ERR bit is not an integer or out of range} {r setbit b 1 a}
    assert_error {*wrong number of arguments for 'setbit' command*} {r setbit b 1}
    assert_equal x [r get b]
    # The offset limit follows proto-max-bulk-len (in bytes).
    r config set proto-max-bulk-len 1048576
    assert_error {ERR bit offset is not an integer or out of range} {r setbit fresh 8388608 1}
    assert_equal 0 [r exists fresh]
    assert_equal 0 [r setbit fresh 8388607 1]
    assert_equal 1048576 [r strlen fresh]
    r config set proto-max-bulk-len 536870912
    r del fresh
}

test "GETBIT" {
    r set g "\x80\x01"
    assert_equal 1 [r getbit g 0]
    assert_equal 0 [r getbit g 1]
    assert_equal 1 [r getbit g 15]
    assert_equal 0 [r getbit g 16]
    assert_equal 0 [r getbit g 4294967295]
    assert_equal 0 [r getbit nokey 0]
    r set n 1
    assert_equal 1 [r getbit n 2]
    assert_equal 1 [r getbit n 3]
    assert_equal 0 [r getbit n 4]
    assert_encoding int n
    assert_error {ERR bit offset is not an integer or out of range} {r getbit g -1}
    assert_error {ERR bit offset is not an integer or out of range} {r getbit g 4294967296}
    assert_error {*wrong number of arguments for 'getbit' command*} {r getbit g}
}

test "Bit commands against a key of another type" {
    if {![make_nonstring lst]} {
        skip_test "no collection type yet"
    }
    assert_error {WRONGTYPE*} {r setbit lst 0 1}
    assert_error {WRONGTYPE*} {r getbit lst 0}
    assert_error {WRONGTYPE*} {r bitcount lst}
    assert_error {WRONGTYPE*} {r bitcount lst 0 1}
    assert_error {WRONGTYPE*} {r bitpos lst 1}
    r set s x
    assert_error {WRONGTYPE*} {r bitop and dest s lst}
    assert_error {WRONGTYPE*} {r bitop not dest lst}
    assert_equal 0 [r exists dest]
}

test "BITCOUNT fixed cases" {
    r set s foobar
    assert_equal 26 [r bitcount s]
    assert_equal 4 [r bitcount s 0 0]
    assert_equal 6 [r bitcount s 1 1]
    assert_equal 6 [r bitcount s 1 1 BYTE]
    assert_equal 17 [r bitcount s 5 30 BIT]
    assert_equal 26 [r bitcount s 0 -1]
    assert_equal 26 [r bitcount s -100 100]
    assert_equal 0 [r bitcount s -1 -2]
    assert_equal 7 [r bitcount s -2 -1]
    assert_equal 26 [r bitcount s 0 -1 bit]
    assert_equal 0 [r bitcount s 3 3 bit]
    assert_equal 1 [r bitcount s 1 1 bit]
    assert_equal 0 [r bitcount s 10 5]
    assert_equal 0 [r bitcount nokey]
    assert_equal 0 [r bitcount nokey 0 1]
    r set e ""
    assert_equal 0 [r bitcount e]
    assert_equal 0 [r bitcount e 0 -1]
    r set n 12345
    assert_equal 17 [r bitcount n]
}

test "BITCOUNT against random strings (BYTE and BIT ranges)" {
    for {set i 0} {$i < 60} {incr i} {
        set s [random_bytes [expr {int(rand() * 40)}]]
        r set s $s
        assert_equal [model_popcount $s] [r bitcount s]
        set len [string length $s]
        set a [expr {int(rand() * 50) - 25}]
        set b [expr {int(rand() * 50) - 25}]
        # Byte range through the model's own index rules.
        set a2 [expr {$a < 0 ? max(0, $a + $len) : $a}]
        set b2 [expr {$b < 0 ? max(0, $b + $len) : min($b, $len - 1)}]
        set exp [expr {($a < 0 && $b < 0 && $a > $b) || $a2 > $b2 ? 0 :
                       [model_popcount [string range $s $a2 $b2]]}]
        assert_equal $exp [r bitcount s $a $b] "bytes '$a' '$b' of len $len"
        # Bit range.
        binary scan $s B* bits
        set nb [string length $bits]
        set a [expr {int(rand() * 400) - 200}]
        set b [expr {int(rand() * 400) - 200}]
        set a2 [expr {$a < 0 ? max(0, $a + $nb) : $a}]
        set b2 [expr {$b < 0 ? max(0, $b + $nb) : min($b, $nb - 1)}]
        set exp [expr {($a < 0 && $b < 0 && $a > $b) || $a2 > $b2 ? 0 :
                       [llength [regexp -all -inline 1 [string range $bits $a2 $b2]]]}]
        assert_equal $exp [r bitcount s $a $b bit] "bits '$a' '$b' of $nb bits"
    }
}

test "BITCOUNT errors" {
    r set s foobar
    assert_error {ERR syntax error} {r bitcount s 0}
    assert_error {ERR syntax error} {r bitcount s 0 1 foo}
    assert_error {ERR syntax error} {r bitcount s 0 1 bit extra}
    assert_error {ERR value is not an integer or out of range} {r bitcount s a 1}
    assert_error {ERR value is not an integer or out of range} {r bitcount s 0 1.5}
    assert_error {*wrong number of arguments for 'bitcount' command*} {r bitcount}
}

test "BITCOUNT/BITPOS check their arguments even for a missing key (Redis 7.2+)" {
    # Redis 7.0 answered 0 / -1 here; 7.2 made these errors (Keel targets 7.4).
    if {![is_keel]} {
        skip_test "7.2+ behaviour"
    }
    assert_error {ERR syntax error} {r bitcount nokey 0}
    assert_error {ERR value is not an integer or out of range} {r bitcount nokey a b}
    assert_error {ERR syntax error} {r bitpos nokey 1 0 1 foo}
    assert_error {ERR value is not an integer or out of range} {r bitpos nokey 1 a}
}

test "BITPOS fixed cases" {
    r set s "\x00\xff\xf0"
    assert_equal 8 [r bitpos s 1]
    assert_equal 0 [r bitpos s 0]
    assert_equal 8 [r bitpos s 1 0]
    assert_equal 16 [r bitpos s 1 2]
    assert_equal 20 [r bitpos s 0 2]
    assert_equal 16 [r bitpos s 1 2 -1 byte]
    assert_equal 8 [r bitpos s 1 7 15 bit]
    assert_equal 7 [r bitpos s 0 7 15 bit]
    assert_equal -1 [r bitpos s 0 8 19 bit]
    assert_equal 20 [r bitpos s 0 8 -1 bit]
    assert_equal -1 [r bitpos s 1 100]
    assert_equal -1 [r bitpos s 1 2 1]
    assert_equal -1 [r bitpos nokey 1]
    assert_equal 0 [r bitpos nokey 0]
}

test "BITPOS searching 0 in an all-ones string" {
    r set ff "\xff\xff\xff"
    assert_equal 24 [r bitpos ff 0]
    assert_equal 24 [r bitpos ff 0 0]
    assert_equal 24 [r bitpos ff 0 1]
    assert_equal -1 [r bitpos ff 0 0 -1]
    assert_equal -1 [r bitpos ff 0 0 -1 bit]
    assert_equal 0 [r bitpos ff 1 0 -1 bit]
    r setbit zz 0 0
    assert_equal -1 [r bitpos zz 1]
    assert_equal 0 [r bitpos zz 0]
    r set e ""
    assert_equal -1 [r bitpos e 0]
    assert_equal -1 [r bitpos e 1]
}

test "BITPOS against random strings matches a model" {
    for {set i 0} {$i < 60} {incr i} {
        set len [expr {1 + int(rand() * 20)}]
        set s ""
        for {set j 0} {$j < $len} {incr j} {
            append s [lindex [list "\x00" "\xff" [format %c [expr {int(rand() * 256)}]]] [expr {int(rand() * 3)}]]
        }
        r set s $s
        binary scan $s B* bits
        foreach bit {0 1} {
            set exp [string first $bit $bits]
            if {$exp == -1 && $bit == 0} {set exp [string length $bits]}
            assert_equal $exp [r bitpos s $bit] "bitpos $bit of $bits"
            set a [expr {int(rand() * 200) - 100}]
            set b [expr {int(rand() * 200) - 100}]
            set nb [string length $bits]
            set a2 [expr {$a < 0 ? max(0, $a + $nb) : $a}]
            set b2 [expr {$b < 0 ? max(0, $b + $nb) : min($b, $nb - 1)}]
            set exp -1
            if {$a2 <= $b2} {
                set p [string first $bit [string range $bits $a2 $b2]]
                if {$p >= 0} {set exp [expr {$a2 + $p}]}
            }
            assert_equal $exp [r bitpos s $bit $a $b bit] "bitpos $bit $a $b bit of $bits"
        }
    }
}

test "BITPOS errors" {
    r set s x
    assert_error {ERR The bit argument must be 1 or 0.} {r bitpos s 2}
    assert_error {ERR The bit argument must be 1 or 0.} {r bitpos s -1}
    assert_error {ERR value is not an integer or out of range} {r bitpos s a}
    assert_error {ERR value is not an integer or out of range} {r bitpos s 1 a}
    assert_error {ERR value is not an integer or out of range} {r bitpos s 1 0 a}
    assert_error {ERR syntax error} {r bitpos s 1 0 1 bot}
    assert_error {ERR syntax error} {r bitpos s 1 0 1 bit extra}
    assert_error {*wrong number of arguments for 'bitpos' command*} {r bitpos s}
}

test "BITOP fixed cases" {
    r set k1 foobar
    r set k2 abcdef
    assert_equal 6 [r bitop and dest k1 k2]
    assert_equal "`bc`ab" [r get dest]
    assert_equal 6 [r bitop or dest k1 k2]
    assert_equal "goofev" [r get dest]
    assert_equal 6 [r bitop xor dest k1 k2]
    assert_equal "\x07\x0d\x0c\x06\x04\x14" [r get dest]
    assert_equal 6 [r bitop not dest k1]
    assert_equal "\x99\x90\x90\x9d\x9e\x8d" [r get dest]
    assert_encoding raw dest
}

test "BITOP with missing keys and shorter strings" {
    r set k1 foobar
    r set short "\x01"
    assert_equal 6 [r bitop or dest short k1]
    assert_equal "goobar" [r get dest]
    assert_equal 6 [r bitop and dest k1 nokey]
    assert_equal [string repeat "\x00" 6] [r get dest]
    assert_equal 6 [r bitop and dest k1 short]
    assert_equal "\x00[string repeat \x00 5]" [r get dest]
    r set n 12
    assert_equal 2 [r bitop not dest n]
    assert_equal "\xce\xcd" [r get dest]
}

test "BITOP with an empty result deletes the destination" {
    r set dest x EX 100
    assert_equal 0 [r bitop and dest nokey]
    assert_equal 0 [r exists dest]
    assert_equal 0 [r bitop or dest nokey nokey2]
    assert_equal 0 [r exists dest]
    r set e ""
    r set dest x
    assert_equal 0 [r bitop xor dest e]
    assert_equal 0 [r exists dest]
}

test "BITOP overwrites the destination and drops its TTL" {
    r set dest old EX 100
    r set src abc
    assert_equal 3 [r bitop or dest src]
    assert_equal abc [r get dest]
    assert_equal -1 [r ttl dest]
    if {[make_nonstring lst]} {
        assert_equal 3 [r bitop or lst src]
        assert_equal abc [r get lst]
    }
}

test "BITOP where the destination is also a source" {
    r set a "\x0f"
    r set b "\xf0\x01"
    assert_equal 2 [r bitop or a a b]
    assert_equal "\xff\x01" [r get a]
}

foreach op {and or xor not} {
    test "BITOP $op against random strings matches a model" {
        for {set i 0} {$i < 20} {incr i} {
            set n [expr {$op eq "not" ? 1 : 1 + int(rand() * 4)}]
            set keys {}
            set vals {}
            for {set j 0} {$j < $n} {incr j} {
                set v [random_bytes [expr {int(rand() * 30)}]]
                r set src$j $v
                lappend keys src$j
                lappend vals $v
            }
            set exp [model_bitop $op {*}$vals]
            assert_equal [string length $exp] [r bitop $op res {*}$keys]
            if {$exp eq ""} {
                assert_equal 0 [r exists res]
            } else {
                assert_equal $exp [r get res]
            }
        }
    }
}

test "BITOP errors" {
    r del dest
    r set a x
    assert_error {ERR syntax error} {r bitop nand dest a}
    assert_error {ERR BITOP NOT must be called with a single source key.} {r bitop not dest a a}
    assert_error {*wrong number of arguments for 'bitop' command*} {r bitop and dest}
    assert_equal 0 [r exists dest]
}

test "BITOP of large strings" {
    set a [string repeat "\xaa" 70000]
    set b [string repeat "\x55" 80000]
    r set a $a
    r set b $b
    assert_equal 80000 [r bitop or res a b]
    assert_equal [string repeat "\xff" 70000] [r getrange res 0 69999]
    assert_equal [string repeat "\x55" 10000] [r getrange res 70000 -1]
    assert_equal 560000 [r bitcount res 0 69999]
}

}
