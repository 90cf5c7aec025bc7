# INFO KEYSIZES for strings: exact lines after SET, APPEND growth, SETRANGE, INCR crossing digit
# counts, MSET/MSETNX, DEL, expiry, empty strings and the bit commands. Redis 7.0 has no KEYSIZES
# section: the format and rules (Redis 8's) are in src/keyspace/README.md, "INFO KEYSIZES" (an
# empty string counts in the "0" bin, as later Redis does).

tags {keysizes string} {

test "KEYSIZES: empty database prints only the header" {
    r flushall
    assert_equal "# Keysizes" [string trim [r info keysizes]]
    assert_keysizes ""
}

test "KEYSIZES scenario 1: SET lengths 1..10 land in power-of-two bins" {
    r flushall
    foreach {n label} {1 1 2 2 3 2 4 4 5 4 6 4 7 4 8 8 9 8 10 8} {
        r set k [string repeat x $n]
        assert_keysizes "db0_distrib_strings_sizes:$label=1"
    }
}

test "KEYSIZES scenario 2: APPEND its own value up to 2M" {
    r flushall
    r set k [string repeat a 16]
    assert_keysizes "db0_distrib_strings_sizes:16=1"
    set labels {32 64 128 256 512 1K 2K 4K 8K 16K 32K 64K 128K 256K 512K 1M 2M}
    foreach label $labels {
        r append k [r get k]
        assert_keysizes "db0_distrib_strings_sizes:$label=1"
    }
    assert_equal 2097152 [r strlen k]
}

test "KEYSIZES scenario 6: SETRANGE growth, MSET/MSETNX, DEL, PEXPIRE, SET grow and shrink" {
    r flushall
    r setrange sr 0 a
    assert_keysizes "db0_distrib_strings_sizes:1=1"
    r setrange sr 1 b
    assert_keysizes "db0_distrib_strings_sizes:2=1"
    r setrange sr 9 z
    assert_keysizes "db0_distrib_strings_sizes:8=1"
    r setrange sr 0 [string repeat q 5]
    assert_keysizes "db0_distrib_strings_sizes:8=1"
    r setrange missing 100 x
    assert_keysizes "db0_distrib_strings_sizes:8=1,64=1"
    r del sr missing
    assert_keysizes ""
    r mset a 1 b 2 c 3
    assert_keysizes "db0_distrib_strings_sizes:1=3"
    assert_equal 1 [r msetnx d 4 e 5]
    assert_keysizes "db0_distrib_strings_sizes:1=5"
    assert_equal 0 [r msetnx e 5 f 6]
    assert_keysizes "db0_distrib_strings_sizes:1=5"
    r mset a 11 b 222
    assert_keysizes "db0_distrib_strings_sizes:1=3,2=2"
    r del a b c
    assert_keysizes "db0_distrib_strings_sizes:1=2"
    r pexpire d 1
    wait_for_condition 50 10 {[r exists d] == 0}
    assert_keysizes "db0_distrib_strings_sizes:1=1"
    r set e [string repeat x 100]
    assert_keysizes "db0_distrib_strings_sizes:64=1"
    r set e [string repeat x 1000]
    assert_keysizes "db0_distrib_strings_sizes:512=1"
    r set e xy
    assert_keysizes "db0_distrib_strings_sizes:2=1"
    r del e
    assert_keysizes ""
}

test "KEYSIZES scenario 8: BITOP, SETBIT and BITFIELD growing strings" {
    r flushall
    r set s1 abcd
    r set s2 ab
    assert_keysizes "db0_distrib_strings_sizes:2=1,4=1"
    r bitop and d1 s1 s2
    r bitop or d2 s1 s2
    r bitop xor d3 s2
    assert_keysizes "db0_distrib_strings_sizes:2=2,4=3"
    r bitop and d1 nokey
    assert_keysizes "db0_distrib_strings_sizes:2=2,4=2"
    r setbit b 0 1
    assert_keysizes "db0_distrib_strings_sizes:1=1,2=2,4=2"
    r setbit b 100 1
    assert_keysizes "db0_distrib_strings_sizes:2=2,4=2,8=1"
    r setbit s2 40 1
    assert_keysizes "db0_distrib_strings_sizes:2=1,4=3,8=1"
    r bitfield bf set u8 0 1
    assert_keysizes "db0_distrib_strings_sizes:1=1,2=1,4=3,8=1"
    r bitfield bf set u8 256 1
    assert_keysizes "db0_distrib_strings_sizes:2=1,4=3,8=1,32=1"
    r bitfield bf get u8 100000
    assert_keysizes "db0_distrib_strings_sizes:2=1,4=3,8=1,32=1"
}

test "KEYSIZES: INCR/DECR in place across digit counts" {
    r flushall
    r set n 999
    assert_keysizes "db0_distrib_strings_sizes:2=1"
    r incr n
    assert_keysizes "db0_distrib_strings_sizes:4=1"
    r decr n
    assert_keysizes "db0_distrib_strings_sizes:2=1"
    r set n 9999999
    assert_keysizes "db0_distrib_strings_sizes:4=1"
    r incr n
    assert_keysizes "db0_distrib_strings_sizes:8=1"
    r set n 999999999
    r incr n
    assert_equal 1000000000 [r get n]
    assert_keysizes "db0_distrib_strings_sizes:8=1"
    r set n 999999999999999
    assert_keysizes "db0_distrib_strings_sizes:8=1"
    r incr n
    assert_keysizes "db0_distrib_strings_sizes:16=1"
    r set n 0
    r decr n
    assert_keysizes "db0_distrib_strings_sizes:2=1"
    r incrby n 1
    assert_keysizes "db0_distrib_strings_sizes:1=1"
    r incr newcounter
    assert_keysizes "db0_distrib_strings_sizes:1=2"
    r incrbyfloat n 1.25
    assert_keysizes "db0_distrib_strings_sizes:1=1,4=1"
    r incrbyfloat newfloat 123456.5
    assert_keysizes "db0_distrib_strings_sizes:1=1,4=1,8=1"
}

test "KEYSIZES: empty strings count in the 0 bin" {
    r flushall
    r set e ""
    assert_keysizes "db0_distrib_strings_sizes:0=1"
    r append e ab
    assert_keysizes "db0_distrib_strings_sizes:2=1"
    r set e ""
    r setbit e 7 1
    assert_keysizes "db0_distrib_strings_sizes:1=1"
    r set e ""
    r bitfield e set u8 8 1
    assert_keysizes "db0_distrib_strings_sizes:2=1"
    r set e ""
    r setrange e 0 ""
    r append e ""
    assert_keysizes "db0_distrib_strings_sizes:0=1"
    r mset e2 "" e3 ""
    assert_keysizes "db0_distrib_strings_sizes:0=3"
    r del e e2 e3
    assert_keysizes ""
}

test "KEYSIZES: GETDEL, GETEX, GETSET, SET with expire in the past" {
    r flushall
    r set a hello
    r set b hi
    assert_keysizes "db0_distrib_strings_sizes:2=1,4=1"
    r getdel a
    assert_keysizes "db0_distrib_strings_sizes:2=1"
    r getset b [string repeat y 20]
    assert_keysizes "db0_distrib_strings_sizes:16=1"
    r getex b PXAT 1
    assert_keysizes ""
    r set c v PXAT 1
    assert_equal 0 [r exists c]
    assert_keysizes ""
    r set d value EX 100
    r set d [string repeat z 33] KEEPTTL
    assert_keysizes "db0_distrib_strings_sizes:32=1"
}

test "KEYSIZES: random string commands keep the histogram equal to a recount" {
    r flushall
    for {set i 0} {$i < 2000} {incr i} {
        set k key[expr {int(rand() * 20)}]
        set n [expr {int(rand() * 300)}]
        switch [expr {int(rand() * 14)}] {
            0 {r set $k [string repeat x $n]}
            1 {r append $k [string repeat y [expr {$n / 10}]]}
            2 {r setrange $k [expr {$n / 3}] abc}
            3 {catch {r incrby $k [expr {$n * 100000 - 15000000}]}}
            4 {r setbit $k [expr {$n * 3}] 1}
            5 {r bitfield $k set u8 [expr {$n * 2}] 7}
            6 {r del $k}
            7 {r mset $k [string repeat z $n] key[expr {$n % 20}] 1}
            8 {r getdel $k}
            9 {r bitop or $k key[expr {$n % 20}] key[expr {($n + 1) % 20}]}
            10 {catch {r incrbyfloat $k 1.5}}
            11 {r set $k $n PX [expr {1 + $n % 3}]}
            12 {r getex $k PXAT [expr {$n % 2 ? 1 : 99999999999999}]}
            13 {r set $k ""}
        }
    }
    # Let the short TTLs run out and be noticed.
    after 5
    for {set i 0} {$i < 20} {incr i} {
        r exists key$i
    }
    # Recount from STRLEN of every key and compare with INFO.
    set bins {}
    for {set i 0} {$i < 20} {incr i} {
        if {![r exists key$i]} continue
        set len [r strlen key$i]
        set b [expr {$len == 0 ? 0 : 1}]
        while {$b > 0 && $b * 2 <= $len} {set b [expr {$b * 2}]}
        dict incr bins $b
    }
    set parts {}
    foreach b [lsort -integer [dict keys $bins]] {
        set label $b
        if {$b >= 1024} {set label "[expr {$b / 1024}]K"}
        lappend parts "$label=[dict get $bins $b]"
    }
    set exp [expr {[llength $parts] ? "db0_distrib_strings_sizes:[join $parts ,]" : ""}]
    assert_keysizes $exp
    if {[is_keel]} {
        assert_equal OK [r debug keysizes-check]
    }
}

test "KEYSIZES: other databases have their own lines" {
    r flushall
    r set k abc
    r select 2
    r set k [string repeat x 3000]
    r mset a 1 b 22
    assert_keysizes "db0_distrib_strings_sizes:2=1 db2_distrib_strings_sizes:1=1,2=1,2K=1"
    r flushdb
    r select 0
    assert_keysizes "db0_distrib_strings_sizes:2=1"
}

}
