# List commands: LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LLEN LINDEX LSET LRANGE LTRIM LREM LINSERT
# LPOS LMOVE RPOPLPUSH LMPOP, in both encodings (listpack, quicklist, quicklist with compression)
# and across the conversions of src/types/README.md (Redis 7.4 rules: the
# 7.0 reference reports quicklist for every list). Replies and error texts were checked against
# redis-server 7.0.15. Blocking commands are in list-blocking.tcl.

# Limits that put a list of >= 2 elements in each encoding.
proc list_config {enc} {
    switch $enc {
        listpack { r config set list-max-listpack-size -2; r config set list-compress-depth 0 }
        quicklist { r config set list-max-listpack-size 1; r config set list-compress-depth 0 }
        compressed { r config set list-max-listpack-size 2; r config set list-compress-depth 1 }
    }
}

proc enc_name {enc} { expr {$enc eq "listpack" ? "listpack" : "quicklist"} }

# Builds `key` from `values` (RPUSH) under the limits of `enc` and asserts the encoding.
proc make_list {key enc values} {
    list_config $enc
    r del $key
    if {[llength $values]} { r rpush $key {*}$values }
    if {[llength $values] >= 3} { assert_encoding [enc_name $enc] $key }
}

proc reset_list_limits {} {
    r config set list-max-listpack-size -2
    r config set list-compress-depth 0
}

tags {type list} {

foreach enc {listpack quicklist compressed} {
    test "LPUSH / RPUSH / LLEN / LRANGE ($enc)" {
        make_list l $enc {}
        assert_equal 3 [r rpush l a b c]
        assert_equal 5 [r lpush l x y]
        assert_equal {y x a b c} [r lrange l 0 -1]
        assert_equal 5 [r llen l]
        assert_equal 6 [r rpushx l 1]
        assert_equal 7 [r lpushx l -2]
        assert_equal {-2 y x a b c 1} [r lrange l 0 -1]
        assert_encoding [enc_name $enc] l
    }

    test "LRANGE index rules ($enc)" {
        make_list l $enc {0 1 2 3 4 5 6 7 8 9}
        assert_equal {0 1 2} [r lrange l 0 2]
        assert_equal {7 8 9} [r lrange l -3 -1]
        assert_equal {8 9} [r lrange l 8 100]
        assert_equal {0 1} [r lrange l -100 1]
        assert_equal {} [r lrange l 5 4]
        assert_equal {} [r lrange l 10 20]
        assert_equal {} [r lrange l -1 -2]
        assert_equal {9} [r lrange l -1 -1]
        assert_equal {0 1 2 3 4 5 6 7 8 9} [r lrange l -9223372036854775808 9223372036854775807]
        assert_equal {} [r lrange nokey 0 -1]
    }

    test "LINDEX ($enc)" {
        make_list l $enc {a b c 100 -5}
        assert_equal a [r lindex l 0]
        assert_equal -5 [r lindex l -1]
        assert_equal 100 [r lindex l 3]
        assert_equal a [r lindex l -5]
        assert_equal {} [r lindex l 5]
        assert_equal {} [r lindex l -6]
        assert_equal {} [r lindex l 9223372036854775807]
        assert_equal {} [r lindex nokey 0]
    }

    test "LPOP / RPOP single and with count ($enc)" {
        make_list l $enc {a b c d e f}
        assert_equal a [r lpop l]
        assert_equal f [r rpop l]
        assert_equal {b c} [r lpop l 2]
        assert_equal {e d} [r rpop l 5]
        assert_equal 0 [r exists l]
        assert_equal {} [r lpop l]
    }

    test "LPOP count 0 and count on a missing key ($enc)" {
        make_list l $enc {a b c}
        assert_equal {} [r lpop l 0]
        assert_equal 3 [r llen l]
        set c [redis_client]
        $c readraw 1
        assert_equal {*0} [$c lpop l 0]
        assert_equal {*-1} [$c lpop nokey 0]
        assert_equal {*-1} [$c rpop nokey 3]
        assert_equal {$-1} [$c lpop nokey]
        $c close
    }

    test "LSET ($enc)" {
        make_list l $enc {a b c d}
        assert_equal OK [r lset l 0 x]
        assert_equal OK [r lset l -1 y]
        assert_equal OK [r lset l 1 [string repeat z 100]]
        assert_equal [list x [string repeat z 100] c y] [r lrange l 0 -1]
        assert_error {ERR index out of range} {r lset l 4 q}
        assert_error {ERR index out of range} {r lset l -5 q}
        assert_error {ERR no such key} {r lset nokey 0 q}
        assert_error {ERR value is not an integer*} {r lset l x q}
    }

    test "LTRIM ($enc)" {
        make_list l $enc {0 1 2 3 4 5 6 7 8 9}
        assert_equal OK [r ltrim l 1 -2]
        assert_equal {1 2 3 4 5 6 7 8} [r lrange l 0 -1]
        assert_equal OK [r ltrim l -3 100]
        assert_equal {6 7 8} [r lrange l 0 -1]
        assert_equal OK [r ltrim l 0 0]
        assert_equal {6} [r lrange l 0 -1]
        assert_equal OK [r ltrim l 1 0]
        assert_equal 0 [r exists l]
        assert_equal OK [r ltrim nokey 0 1]
        make_list l $enc {a b c}
        assert_equal OK [r ltrim l 5 10]
        assert_equal 0 [r exists l]
    }

    test "LREM from head, tail, all ($enc)" {
        make_list l $enc {a b a c a d a}
        assert_equal 2 [r lrem l 2 a]
        assert_equal {b c a d a} [r lrange l 0 -1]
        assert_equal 1 [r lrem l -1 a]
        assert_equal {b c a d} [r lrange l 0 -1]
        assert_equal 0 [r lrem l 0 zz]
        assert_equal 1 [r lrem l 0 a]
        assert_equal {b c d} [r lrange l 0 -1]
        assert_equal 0 [r lrem nokey 0 a]
        make_list l $enc {x x x}
        assert_equal 3 [r lrem l -9223372036854775808 x]
        assert_equal 0 [r exists l]
    }

    test "LREM compares integers by value ($enc)" {
        make_list l $enc {1 01 1 foo}
        assert_equal 2 [r lrem l 0 1]
        assert_equal {01 foo} [r lrange l 0 -1]
    }

    test "LINSERT ($enc)" {
        make_list l $enc {a b c}
        assert_equal 4 [r linsert l before b x]
        assert_equal 5 [r linsert l AFTER c y]
        assert_equal 6 [r linsert l after a 12]
        assert_equal {a 12 x b c y} [r lrange l 0 -1]
        assert_equal -1 [r linsert l before zz q]
        assert_equal 0 [r linsert nokey before a q]
        assert_equal 0 [r exists nokey]
        assert_error {ERR syntax error} {r linsert l middle a q}
    }

    test "LPOS ($enc)" {
        make_list l $enc {a b c a b c a}
        assert_equal 0 [r lpos l a]
        assert_equal 3 [r lpos l a rank 2]
        assert_equal 6 [r lpos l a rank -1]
        assert_equal 3 [r lpos l a rank -2]
        assert_equal {} [r lpos l a rank 4]
        assert_equal {0 3 6} [r lpos l a count 0]
        assert_equal {0 3} [r lpos l a count 2]
        assert_equal {6 3 0} [r lpos l a count 0 rank -1]
        assert_equal {3 6} [r lpos l a count 0 rank 2]
        assert_equal {0} [r lpos l a count 0 maxlen 3]
        assert_equal {0 3} [r lpos l a count 0 maxlen 4]
        assert_equal {6} [r lpos l a count 0 rank -1 maxlen 3]
        assert_equal {} [r lpos l zz]
        assert_equal {} [r lpos l zz count 1]
        assert_equal {} [r lpos nokey a]
        assert_equal {} [r lpos nokey a count 0]
        assert_equal 1 [r lpos l b maxlen 0]
    }

    test "LMOVE all directions ($enc)" {
        make_list src $enc {a b c d}
        r del dst
        assert_equal a [r lmove src dst left left]
        assert_equal d [r lmove src dst right right]
        assert_equal b [r lmove src dst left right]
        assert_equal c [r lmove src dst right left]
        assert_equal 0 [r exists src]
        assert_equal {c a d b} [r lrange dst 0 -1]
        assert_equal {} [r lmove nokey dst left left]
    }

    test "LMOVE / RPOPLPUSH onto the same list rotates ($enc)" {
        make_list l $enc {a b c}
        assert_equal c [r rpoplpush l l]
        assert_equal {c a b} [r lrange l 0 -1]
        assert_equal c [r lmove l l left right]
        assert_equal {a b c} [r lrange l 0 -1]
        assert_equal a [r lmove l l left left]
        assert_equal {a b c} [r lrange l 0 -1]
        make_list one $enc {x}
        assert_equal x [r lmove one one right left]
        assert_equal {x} [r lrange one 0 -1]
    }

    test "LMPOP ($enc)" {
        make_list l $enc {a b c d e}
        r del e1 e2
        assert_equal {l a} [r lmpop 3 e1 e2 l left]
        assert_equal {l {e d}} [r lmpop 2 e1 l right count 2]
        assert_equal {l {b c}} [r lmpop 1 l LEFT COUNT 10]
        assert_equal 0 [r exists l]
        assert_equal {} [r lmpop 2 e1 e2 left]
    }
}

reset_list_limits

# ---- errors --------------------------------------------------------------------------------

test "List commands against a non-list" {
    r del l
    r set str x
    foreach cmd {
        {lpush str a} {rpush str a} {lpushx str a} {rpushx str a} {lpop str} {rpop str}
        {lpop str 2} {llen str} {lindex str 0} {lset str 0 a} {lrange str 0 -1}
        {ltrim str 0 1} {lrem str 0 a} {linsert str before a b} {lpos str a}
        {lmove str l left left} {rpoplpush str l} {lmpop 1 str left}
    } {
        assert_error {WRONGTYPE*} [list r {*}$cmd]
    }
    r rpush l a
    assert_error {WRONGTYPE*} {r lmove l str left left}
    assert_error {WRONGTYPE*} {r rpoplpush l str}
    assert_equal {a} [r lrange l 0 -1]
    # the first existing key decides: a list before the string is popped
    assert_equal {l a} [r lmpop 2 l str left]
    assert_error {WRONGTYPE*} {r lmpop 2 l str left}
    assert_equal x [r get str]
}

test "List commands: wrong number of arguments" {
    foreach {cmd} {
        {lpush l} {rpush l} {lpushx l} {rpushx l} {lpop} {lpop l 1 2} {rpop}
        {llen} {llen a b} {lindex l} {lset l 0} {lrange l 0} {ltrim l 0}
        {lrem l 0} {linsert l before a} {lpos l} {lmove a b left} {rpoplpush a}
        {lmpop 1 l}
    } {
        set name [lindex $cmd 0]
        assert_error "*wrong number of arguments for '$name' command*" [list r {*}$cmd]
    }
}

test "LPOP / RPOP bad count" {
    r rpush l a b
    assert_error {ERR value is out of range, must be positive} {r lpop l -1}
    assert_error {ERR value is out of range, must be positive} {r rpop l x}
    assert_error {ERR value is out of range, must be positive} {r lpop nokey -1}
    assert_equal 2 [r llen l]
}

test "Index arguments must be integers" {
    r rpush l a b
    assert_error {ERR value is not an integer*} {r lindex l x}
    assert_error {ERR value is not an integer*} {r lrange l a 1}
    assert_error {ERR value is not an integer*} {r lrange l 0 1.5}
    assert_error {ERR value is not an integer*} {r ltrim l a 1}
    assert_error {ERR value is not an integer*} {r lrem l x a}
    assert_error {ERR value is not an integer*} {r lindex l 9223372036854775808}
}

test "LPOS option errors" {
    r del l
    r rpush l a b a
    assert_error {ERR RANK can't be zero*} {r lpos l a rank 0}
    assert_error {ERR value is not an integer*} {r lpos l a rank x}
    assert_error {*out of range*} {r lpos l a rank -9223372036854775808}
    assert_error {ERR COUNT can't be negative} {r lpos l a count -1}
    assert_error {ERR COUNT can't be negative} {r lpos l a count x}
    assert_error {ERR MAXLEN can't be negative} {r lpos l a maxlen -1}
    assert_error {ERR syntax error} {r lpos l a foo}
    assert_error {ERR syntax error} {r lpos l a rank}
    assert_error {ERR syntax error} {r lpos l a count 1 maxlen}
    assert_equal 2 [r lpos l a rank 9223372036854775807 rank -1]
    assert_equal {2 0} [r lpos l a rank 9223372036854775807 count 0 rank -1]
}

test "LMOVE / LMPOP syntax errors" {
    r del l
    r rpush l a b
    assert_error {ERR syntax error} {r lmove l x middle left}
    assert_error {ERR syntax error} {r lmove l x left up}
    assert_error {ERR numkeys should be greater than 0} {r lmpop 0 l left}
    assert_error {ERR numkeys should be greater than 0} {r lmpop -1 l left}
    assert_error {ERR numkeys should be greater than 0} {r lmpop x l left}
    assert_error {ERR syntax error} {r lmpop 2 l left}
    assert_error {ERR syntax error} {r lmpop 9223372036854775807 l left}
    assert_error {ERR syntax error} {r lmpop 1 l middle}
    assert_error {ERR count should be greater than 0} {r lmpop 1 l left count 0}
    assert_error {ERR count should be greater than 0} {r lmpop 1 l left count -1}
    assert_error {ERR count should be greater than 0} {r lmpop 1 l left count x}
    assert_error {ERR syntax error} {r lmpop 1 l left count 1 count 2}
    assert_error {ERR syntax error} {r lmpop 1 l left foo}
    assert_error {ERR syntax error} {r lmpop 1 l left count}
    assert_equal {a b} [r lrange l 0 -1]
}

# ---- encodings and conversions ---------------------------------------------------------------

test "New small list is listpack" {
    r del l
    r rpush l a b c
    assert_encoding listpack l
    r lpush l2 1
    assert_encoding listpack l2
}

test "100-byte elements: quicklist at the 80th push, back to listpack at 39" {
    reset_list_limits
    r del l
    set v [string repeat x 100]
    for {set i 0} {$i < 79} {incr i} { r rpush l $v }
    assert_encoding listpack l
    r rpush l $v
    assert_encoding quicklist l
    assert_equal 80 [r llen l]
    # shrinking: a single node within half the limit (4096 bytes) converts back
    r ltrim l 0 39
    assert_encoding quicklist l
    r rpop l
    assert_encoding listpack l
    assert_equal 39 [r llen l]
}

test "Variadic push converts up front by the sum of raw lengths" {
    # Redis 7.4 estimates with raw lengths: 7 + 81 * 100 <= 8192 stays listpack (although the
    # listpack ends up larger), 7 + 82 * 100 > 8192 converts before adding.
    r del l
    set v [string repeat y 100]
    r rpush l {*}[lrepeat 81 $v]
    assert_encoding listpack l
    r rpush l x
    assert_encoding quicklist l
    r del l
    r rpush l {*}[lrepeat 82 $v]
    assert_encoding quicklist l
}

test "Count limit 5: quicklist at 6, back to listpack at 2" {
    r config set list-max-listpack-size 5
    r del l
    r rpush l 1 2 3 4 5
    assert_encoding listpack l
    r rpush l 6
    assert_encoding quicklist l
    r rpop l
    r rpop l
    r rpop l
    assert_encoding quicklist l
    r rpop l
    assert_encoding listpack l
    assert_equal {1 2} [r lrange l 0 -1]
    reset_list_limits
}

test "A single 9000-byte element makes a quicklist at once" {
    r del l
    r rpush l [string repeat a 9000]
    assert_encoding quicklist l
    assert_equal 9000 [string length [r lindex l 0]]
    r rpush l small
    r lpop l
    assert_encoding listpack l
    assert_equal {small} [r lrange l 0 -1]
}

test "LINSERT and LSET grow a listpack into a quicklist" {
    r del l
    r rpush l a b c
    r linsert l after b [string repeat z 9000]
    assert_encoding quicklist l
    assert_equal {a b} [lrange [r lrange l 0 -1] 0 1]
    r del l
    r rpush l a b c
    r lset l 1 [string repeat z 9000]
    assert_encoding quicklist l
    r lset l 1 b
    assert_equal {a b c} [r lrange l 0 -1]
}

test "LREM and LTRIM shrink a quicklist back to listpack" {
    r config set list-max-listpack-size 4
    r del l
    r rpush l a b c d e f
    assert_encoding quicklist l
    r lrem l 0 a
    r lrem l 0 b
    r lrem l 0 c
    assert_encoding quicklist l
    r lrem l 0 d
    assert_encoding listpack l
    r rpush l 1 2 3 4 5
    assert_encoding quicklist l
    r ltrim l 0 1
    assert_encoding listpack l
    assert_equal {e f} [r lrange l 0 -1]
    reset_list_limits
}

test "CONFIG SET list-max-listpack-size affects later conversions only" {
    r del l
    r rpush l a b c d
    r config set list-max-listpack-size 2
    assert_encoding listpack l
    r rpush l e
    assert_encoding quicklist l
    reset_list_limits
}

test "Compressed quicklist keeps every element" {
    r config set list-max-listpack-size 4
    r config set list-compress-depth 1
    r del l
    set expected {}
    for {set i 0} {$i < 200} {incr i} {
        lappend expected "element-[string repeat $i 5]"
    }
    r rpush l {*}$expected
    assert_encoding quicklist l
    assert_equal $expected [r lrange l 0 -1]
    assert_equal [lindex $expected 100] [r lindex l 100]
    r lset l 100 changed
    assert_equal changed [r lindex l 100]
    r linsert l before changed ins
    assert_equal 100 [r lpos l ins]
    assert_equal 1 [r lrem l 0 ins]
    assert_equal 200 [r llen l]
    reset_list_limits
}

test "Large values (> 64 KB) round-trip in both ends" {
    r del l l2
    set big [string repeat "0123456789abcdef" 5000]
    r rpush l a $big b
    r lpush l $big
    assert_encoding quicklist l
    assert_equal 4 [r llen l]
    assert_equal $big [r lindex l 0]
    assert_equal $big [r lindex l 2]
    assert_equal [list $big a $big b] [r lrange l 0 -1]
    assert_equal $big [r lmove l l2 left right]
    assert_equal $big [r lindex l2 0]
    assert_equal 2 [r lpos l b]
    assert_equal 1 [r lrem l 0 $big]
    assert_equal {a b} [r lrange l 0 -1]
}

test "Integer-looking values keep their text" {
    r del l
    r rpush l 1 -1 01 +1 9223372036854775807 9223372036854775808 -9223372036854775808 " 1" 1.0
    assert_equal {1 -1 01 +1 9223372036854775807 9223372036854775808 -9223372036854775808 { 1} 1.0} \
        [r lrange l 0 -1]
    assert_equal 5 [r lpos l 9223372036854775808]
}

test "Binary-safe elements" {
    r del l
    set v "a\x00b\r\nc"
    r rpush l $v ""
    assert_equal [list $v ""] [r lrange l 0 -1]
    assert_equal 1 [r lpos l ""]
}

test "COPY and RENAME of a list" {
    foreach enc {listpack quicklist compressed} {
        make_list l $enc {a b c d e}
        r del l2 l3
        r copy l l2
        r rpush l f
        assert_equal {a b c d e} [r lrange l2 0 -1]
        assert_encoding [enc_name $enc] l2
        r rename l2 l3
        assert_equal {a b c d e} [r lrange l3 0 -1]
    }
    reset_list_limits
}

test "Random operations match a model (both encodings)" {
    foreach fill {-2 3} {
        r config set list-max-listpack-size $fill
        r del l
        set model {}
        expr {srand(42)}
        for {set i 0} {$i < 400} {incr i} {
            set v [expr {int(rand()*20)}]
            if {rand() < 0.1} { set v [string repeat $v 50] }
            switch [expr {int(rand()*6)}] {
                0 { r lpush l $v; set model [linsert $model 0 $v] }
                1 { r rpush l $v; lappend model $v }
                2 { if {[llength $model]} { assert_equal [lindex $model 0] [r lpop l]; set model [lrange $model 1 end] } }
                3 { if {[llength $model]} { assert_equal [lindex $model end] [r rpop l]; set model [lrange $model 0 end-1] } }
                4 {
                    set n [r lrem l 1 $v]
                    set idx [lsearch -exact $model $v]
                    if {$idx >= 0} { set model [lreplace $model $idx $idx]; assert_equal 1 $n } else { assert_equal 0 $n }
                }
                5 {
                    if {[llength $model]} {
                        set idx [expr {int(rand()*[llength $model])}]
                        r lset l $idx $v
                        lset model $idx $v
                    }
                }
            }
        }
        assert_equal $model [r lrange l 0 -1]
    }
    reset_list_limits
}

# Found by tests/fuzz/cmdfuzz.py: the index was parsed before the key was looked up.
test "LINDEX looks the key up before parsing the index" {
    r del nolist str l
    r set str x
    assert_equal {} [r lindex nolist abc]
    assert_error {WRONGTYPE*} {r lindex str abc}
    r rpush l a
    assert_error {ERR value is not an integer or out of range} {r lindex l abc}
    assert_equal a [r lindex l 0]
}

}
