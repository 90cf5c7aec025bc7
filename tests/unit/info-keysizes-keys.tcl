# Exact INFO KEYSIZES text through the generic key paths: DEL/UNLINK, RENAME, MOVE, COPY, EXPIRE
# in the past, lazy and active expiry (strings only for now). Format per
# Redis 8's INFO KEYSIZES (power-of-two bins: an empty string counts in bin "0").

tags {keysizes} {

test "KEYSIZES: header alone on an empty server" {
    r flushall
    assert_equal {} [keysizes]
    assert_match "# Keysizes*" [r info keysizes]
}

test "KEYSIZES: strings, DEL and UNLINK" {
    r flushall
    r set a x
    r set b [string repeat x 5]
    r set c ""
    assert_equal {db0_distrib_strings_sizes:0=1,1=1,4=1} [keysizes]
    r del a
    assert_equal {db0_distrib_strings_sizes:0=1,4=1} [keysizes]
    r unlink b c nokey
    assert_equal {} [keysizes]
}

test "KEYSIZES: RENAME keeps the bin, an overwritten destination leaves" {
    r flushall
    r set a [string repeat x 10]
    r set b xy
    assert_equal {db0_distrib_strings_sizes:2=1,8=1} [keysizes]
    r rename a c
    assert_equal {db0_distrib_strings_sizes:2=1,8=1} [keysizes]
    r rename c b
    assert_equal {db0_distrib_strings_sizes:8=1} [keysizes]
    r rename b b
    assert_equal {db0_distrib_strings_sizes:8=1} [keysizes]
    r set d 1234
    assert_equal 0 [r renamenx d b]
    assert_equal {db0_distrib_strings_sizes:4=1,8=1} [keysizes]
    assert_equal 1 [r renamenx d e]
    assert_equal {db0_distrib_strings_sizes:4=1,8=1} [keysizes]
}

test "KEYSIZES: MOVE leaves the source db and appears in the target" {
    r flushall
    r set a [string repeat x 100]
    r set b x
    r move a 1
    assert_equal {db0_distrib_strings_sizes:1=1 db1_distrib_strings_sizes:64=1} [keysizes]
    r move b 3
    assert_equal {db1_distrib_strings_sizes:64=1 db3_distrib_strings_sizes:1=1} [keysizes]
    # refused moves change nothing
    r select 1
    r set b yy
    r select 3
    assert_equal 0 [r move b 1]
    r select 0
    assert_equal {db1_distrib_strings_sizes:2=1,64=1 db3_distrib_strings_sizes:1=1} [keysizes]
}

test "KEYSIZES: COPY adds the destination, REPLACE swaps its bin" {
    r flushall
    r set a [string repeat x 3000]
    r set b x
    r copy a c
    assert_equal {db0_distrib_strings_sizes:1=1,2K=2} [keysizes]
    assert_equal 0 [r copy a b]
    assert_equal {db0_distrib_strings_sizes:1=1,2K=2} [keysizes]
    r copy a b replace
    assert_equal {db0_distrib_strings_sizes:2K=3} [keysizes]
    r copy b x db 2
    assert_equal {db0_distrib_strings_sizes:2K=3 db2_distrib_strings_sizes:2K=1} [keysizes]
    r select 2
    r set y 12
    r select 0
    # no source in db0: nothing happens
    assert_equal 0 [r copy y y db 2 replace]
    assert_equal {db0_distrib_strings_sizes:2K=3 db2_distrib_strings_sizes:2=1,2K=1} [keysizes]
    r set y 7
    r copy y y db 2 replace
    assert_equal {db0_distrib_strings_sizes:1=1,2K=3 db2_distrib_strings_sizes:1=1,2K=1} [keysizes]
}

test "KEYSIZES: EXPIRE in the past removes the bin" {
    r flushall
    r set a abcd
    r set b ab
    r expire a 100
    assert_equal {db0_distrib_strings_sizes:2=1,4=1} [keysizes]
    r expire a -1
    assert_equal {db0_distrib_strings_sizes:2=1} [keysizes]
    r pexpireat b 1
    assert_equal {} [keysizes]
}

test "KEYSIZES: lazy expiry removes the bin" {
    r flushall
    r debug set-active-expire 0
    r set a abcd
    r set b abcdefgh
    r pexpire a 1
    after 5
    assert_equal {db0_distrib_strings_sizes:4=1,8=1} [keysizes]
    assert_equal {} [r get a]
    assert_equal {db0_distrib_strings_sizes:8=1} [keysizes]
    r debug set-active-expire 1
}

test "KEYSIZES: active expiry removes the bins" {
    r flushall
    for {set i 0} {$i < 50} {incr i} {
        r set k$i [string repeat x 20]
        r pexpire k$i 1
    }
    r set keep x
    wait_for_condition 100 20 {[r dbsize] == 1} { fail "keys not expired" }
    assert_equal {db0_distrib_strings_sizes:1=1} [keysizes]
}

test "KEYSIZES: RENAME and COPY of a key with TTL, then it expires" {
    r flushall
    r debug set-active-expire 0
    r set a [string repeat x 9]
    r pexpire a 50
    r rename a b
    r copy b c
    assert_equal {db0_distrib_strings_sizes:8=2} [keysizes]
    after 70
    assert_equal 0 [r exists b c]
    assert_equal {} [keysizes]
    r debug set-active-expire 1
}

test "KEYSIZES: FLUSHALL clears every line" {
    r set a x
    r select 4
    r set a x
    r select 0
    r flushall
    assert_equal {} [keysizes]
}

}
