# SORT and SORT_RO. Every expected reply and error was read from Debian's redis-server 7.0.15
# (the file passes with `--server /usr/bin/redis-server`, except the tests it skips there:
# KEYSIZES, DEBUG PROPAGATED and the stored list's encoding, where 7.0 always has quicklists).
# The last block runs a deterministic sample of random SORTs on both servers.

proc setup_sort {} {
    r flushall
    r rpush l 3 1 2 10
    r mset w_1 30 w_2 20 w_3 10 w_10 5 o_1 one o_2 two
    r hset h_1 f 3 n uno
    r hset h_2 f 1
    r hset h_3 f 2
}

test "SORT numeric, ALPHA, DESC, LIMIT" {
    setup_sort
    assert_equal {1 2 3 10} [r sort l]
    assert_equal {1 10 2 3} [r sort l alpha]
    assert_equal {3 2} [r sort l desc limit 1 2]
    assert_equal {10 3 2 1} [r sort l desc]
    assert_equal {1 2 3 10} [r sort l asc limit -5 -1]
    assert_equal {} [r sort l limit 0 0]
    assert_equal {} [r sort l limit 4 10]
    assert_equal {10} [r sort l limit 3 9223372036854775807]
    assert_equal {} [r sort nokey]
    assert_equal {1 2 3 10} [r sort_ro l]
}

# Integer elements (listpack / intset integers) are scored without going through text; the
# scores and the ties must still be strtod's and the bytes' (equal doubles: byte order).
test "SORT numeric: integer and text elements with equal scores" {
    r flushall
    r rpush t 10 9 010 1e1 -3 " 7" 7 9223372036854775807 9223372036854775806 9.223372036854775807e18
    assert_equal {-3 { 7} 7 9 010 10 1e1 9.223372036854775807e18 9223372036854775806 9223372036854775807} [r sort t]
    assert_equal {9223372036854775807 9223372036854775806 9.223372036854775807e18 1e1 10 010 9 7 { 7} -3} [r sort t desc]
    r sadd si 5 3 10 -1 2
    assert_equal {-1 2 3 5 10} [r sort si]
}

test "SORT BY patterns, hash fields, GET # / patterns / fields" {
    setup_sort
    assert_equal {10 3 2 1} [r sort l by w_*]
    assert_equal {3 2 1 10} [r sort l by w_* alpha]
    # h_10 is missing: it sorts as 0
    assert_equal {10 {} {} 2 {} two 3 {} {} 1 uno one} [r sort l by h_*->f get # get h_*->n get o_*]
    assert_equal {{} {} {} {} {} {} {} {}} [r sort l get fixed get h_*->]
    assert_equal {30 20 10 5} [r sort l by w_* desc get w_* limit 0 -1]
    # a string where a hash is wanted (and the other way round) gives nothing
    assert_equal {{} {} {} {}} [r sort l get w_*->f]
    assert_equal {{} {} {} {}} [r sort l get h_*]
}

test "SORT BY nosort keeps list and zset order, DESC reverses it" {
    setup_sort
    assert_equal {2 1} [r sort l by nosort desc limit 1 2]
    assert_equal {3 1 2 10} [r sort l by nosort]
    r zadd z 3 a 1 b 2 c
    assert_equal {a c b} [r sort z by nosort desc]
    assert_equal {c} [r sort z by nosort limit 1 1]
    assert_equal {c b a} [r sort z alpha desc]
    assert_equal {b {}} [r sort z by nosort get # get nope_* limit 0 1]
}

test "SORT and SORT_RO convert a small sorted set to a skiplist (Redis's zsetConvert)" {
    r del z
    r zadd z 1 a 2 b
    assert_encoding listpack z
    r sort_ro z alpha
    assert_encoding skiplist z
    r del z
    r zadd z 1 a
    catch {r sort z limit x y}
    assert_encoding listpack z
}

test "SORT of a set BY nosort is sorted ALPHA when stored or scripted" {
    r del s dst3
    r sadd s b a c
    assert_equal 3 [r sort s by nosort store dst3]
    assert_equal {a b c} [r lrange dst3 0 -1]
    assert_equal {a b c} [r eval {return redis.call('sort', KEYS[1], 'by', 'nosort')} 1 s]
    assert_equal {c b a} [r sort s alpha desc]
}

test "SORT numeric conversion errors, and what strtod accepts" {
    r del t nanl
    r rpush t " 1" 0x10 inf -inf 1e5 "" 3 +5 0x1p3 infinity
    assert_equal {-inf {} { 1} 3 +5 0x1p3 0x10 1e5 inf infinity} [r sort t]
    r rpush t "  2 "
    assert_error {ERR One or more scores can't be converted into double} {r sort t}
    r rpush nanl nan
    assert_error {ERR One or more scores can't be converted into double} {r sort nanl}
    r del t
    r rpush t 1 1e-400
    assert_error {ERR One or more scores can't be converted into double} {r sort t}
    assert_equal {1 1e-400} [r sort t alpha]
    # ties on the score are broken by the elements' bytes
    r del t
    r rpush t b 0 a 00 -0
    assert_equal {-0 0 00 a b} [r sort t by nosuch_*]
}

test "SORT syntax and type errors" {
    setup_sort
    assert_error {ERR value is not an integer or out of range} {r sort l limit a 1}
    assert_error {ERR syntax error} {r sort l limit 1}
    assert_error {ERR syntax error} {r sort l foo}
    assert_error {ERR syntax error} {r sort l store}
    assert_error {ERR syntax error} {r sort_ro l store x}
    assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} {r sort w_1}
    r hset hh a 1
    assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} {r sort hh}
    r rpush lw a b
    assert_error {ERR One or more scores can't be converted into double} {r sort lw}
    # the error comes after the key lookup, not for a missing key
    assert_equal {} [r sort nokey by w_*]
}

test "SORT STORE: a list, the destination replaced or deleted" {
    setup_sort
    assert_equal 4 [r sort l by nosort store dst]
    assert_equal {3 1 2 10} [r lrange dst 0 -1]
    assert_equal 4 [r sort l by nosort get o_* store dst2]
    assert_equal {{} one two {}} [r lrange dst2 0 -1]
    assert_equal 8 [r sort l get # get o_* store dst2]
    assert_equal {1 one 2 two 3 {} 10 {}} [r lrange dst2 0 -1]
    r set dst2 x
    assert_equal 4 [r sort l store dst2]
    assert_equal list [r type dst2]
    assert_equal 0 [r sort l limit 0 0 store dst2]
    assert_equal 0 [r exists dst2]
    assert_equal 0 [r sort nokey store dst]
    assert_equal 0 [r exists dst]
    # the last STORE wins
    assert_equal 4 [r sort l store d1 store d2]
    assert_equal {0 1} [list [r exists d1] [r exists d2]]
}

test "SORT STORE gives a listpack list when small, a quicklist past the limit" {
    if {![is_keel]} { skip_test "Keel only (7.0 stores quicklists)" }
    setup_sort
    r sort l store dst
    assert_encoding listpack dst
    r del big
    for {set i 0} {$i < 200} {incr i} { r rpush big [string repeat x 100]$i }
    r sort big alpha store dst
    assert_encoding quicklist dst
    assert_equal 200 [r llen dst]
}

test "COMMAND GETKEYS for SORT: the last STORE, LIMIT/GET/BY arguments skipped" {
    assert_equal {a c} [r command getkeys sort a limit 1 2 store b get store store c]
    assert_equal {{a {RO access}} {b {OW update}}} [r command getkeysandflags sort a store b by x]
    assert_equal {{a {RO access}}} [r command getkeysandflags sort_ro a store b]
    assert_equal {a} [r command getkeys sort a by store get store]
}

test "SORT STORE events: sortstore, or del when the result is empty" {
    assert_equal [concat [ke d sortstore] [ke d del]] [events_of KEA { r rpush l 1 2 } {
        r sort l store d
        r sort l limit 0 0 store d
        r sort l limit 0 0 store d
        r sort l
    }]
}

test "KEYSIZES after SORT STORE" {
    if {![is_keel]} { skip_test "Keel only" }
    r flushall
    r rpush l 3 1 2
    r sort l store d
    assert_keysizes "db0_distrib_lists_items:2=2"
    r sort l get # get # store d
    assert_keysizes "db0_distrib_lists_items:2=1,4=1"
    r sort l limit 0 0 store d
    assert_keysizes "db0_distrib_lists_items:2=1"
    r flushall
}

test "Propagation: SORT ... STORE as received when it changed the destination" {
    if {![is_keel]} { skip_test "Keel only" }
    r select 0
    r flushall
    r debug propagated on
    r debug propagated
    r rpush l 3 1 2
    r sort l
    r sort l store d
    r sort l limit 0 0 store d
    r sort l limit 0 0 store d
    r sort_ro l
    assert_equal {{SELECT 0} {rpush l 3 1 2} {sort l store d} {sort l limit 0 0 store d}} [r debug propagated]
    r debug propagated off
}

# ---- Side by side with Debian's redis-server ---------------------------------------------------

if {![external_server] && [file executable [reference_server_binary]] && [is_keel]} {
    start_server [list binary [reference_server_binary] tags {reference}] {
        # Level 0 is redis-server, level -1 Keel.
        proc both {args} {
            set a [catch {r {*}$args} ra]
            set b [catch {r -1 {*}$args} rb]
            assert_equal [list $a $ra] [list $b $rb] $args
            return $ra
        }
        proc pick {l} { lindex $l [expr {int(rand() * [llength $l])}] }

        test "Random SORTs agree with redis-server" {
            expr {srand(11)}
            r flushall
            r -1 flushall
            set vals {}
            for {set i 0} {$i < 30} {incr i} {
                set n [expr {1 + int(rand() * 25)}]
                set nums {}
                set words {}
                for {set j 0} {$j < $n} {incr j} {
                    lappend nums [pick [list [expr {int(rand() * 100) - 50}] [format %.3f [expr {rand() * 200 - 100}]] [expr {int(rand() * 1e12)}]]]
                    lappend words [string range [pick {abc XYZ 019 a_b zz Z9 {} b0 c1}] 0 end][pick {{} a Z 0}]
                }
                both rpush ln$i {*}$nums
                both rpush lw$i {*}$words
                both sadd sn$i {*}[lsort -unique $nums]
                set zargs {}
                foreach m [lsort -unique [concat $nums $words]] { lappend zargs [expr {int(rand() * 10) - 5}] $m }
                both zadd z$i {*}$zargs
                lappend vals {*}$nums {*}$words
            }
            # a unique weight and hash field for every value, so no two elements tie
            set k 0
            foreach v [lsort -unique $vals] {
                both set w_$v [expr {int(rand() * 1000) * 1000 + [incr k]}]
                both hset h_$v f [expr {int(rand() * 1000) * 1000 + $k}] name n$k
                if {rand() < 0.5} { both set o_$v obj-$v }
            }
            for {set t 0} {$t < 300} {incr t} {
                set key [pick {ln lw sn z}][expr {int(rand() * 30)}]
                set opts {}
                set b [expr {rand()}]
                if {$b < 0.3} { lappend opts by w_* } elseif {$b < 0.5} { lappend opts by h_*->f } elseif {$b < 0.6 && ![string match s* $key]} { lappend opts by nosort }
                if {rand() < 0.4} { lappend opts alpha }
                if {rand() < 0.4} { lappend opts desc }
                if {rand() < 0.4} { lappend opts limit [expr {int(rand() * 30) - 3}] [expr {int(rand() * 30) - 3}] }
                for {set g [expr {int(rand() * 3)}]} {$g > 0} {incr g -1} { lappend opts get [pick {# o_* h_*->name w_* fixed}] }
                both sort $key {*}$opts
                if {rand() < 0.3} {
                    both sort $key {*}$opts store dst
                    both lrange dst 0 -1
                }
            }
        }
    }
}
