# Hash commands: HSET HSETNX HMSET HGET HMGET HGETALL HDEL HLEN HEXISTS HKEYS HVALS HINCRBY
# HINCRBYFLOAT HSTRLEN HRANDFIELD HSCAN. The shared tests run once per encoding (listpack, and
# hashtable by setting hash-max-listpack-entries to 0); conversions are tested at exactly the
# thresholds. Expected replies and errors were checked on redis-server 7.0.15, except where a
# test says it follows 7.4 (up-front conversion by argument count, HSCAN NOVALUES).

# Sets the thresholds so that new hashes get `enc`.
proc hash_encoding {enc} {
    if {$enc eq "listpack"} {
        r config set hash-max-listpack-entries 512
    } else {
        r config set hash-max-listpack-entries 0
    }
    r config set hash-max-listpack-value 64
}

# Creates hash `key` with the given field/value pairs in encoding `enc` and checks the encoding.
proc make_hash {key enc pairs} {
    hash_encoding $enc
    r del $key
    r hset $key {*}$pairs
    assert_encoding $enc $key
}

proc restore_hash_defaults {} {
    r config set hash-max-listpack-entries 512
    r config set hash-max-listpack-value 64
}

tags {hash} {

foreach enc {listpack hashtable} {
    test "HSET / HGET / HLEN basics ($enc)" {
        make_hash h $enc {a 1 b 2}
        assert_equal 1 [r hset h c 3]
        assert_equal 0 [r hset h a 10]
        assert_equal 1 [r hset h a 11 d 4]
        assert_equal 11 [r hget h a]
        assert_equal 4 [r hget h d]
        assert_equal {} [r hget h nofield]
        assert_equal 4 [r hlen h]
        assert_encoding $enc h
    }

    test "HSET with repeated fields in one call ($enc)" {
        make_hash h $enc {x 0}
        assert_equal 2 [r hset h a 1 a 2 b 3 b 4]
        assert_equal {2 4} [r hmget h a b]
        assert_equal 3 [r hlen h]
    }

    test "HMSET / HMGET ($enc)" {
        make_hash h $enc {a 1}
        assert_equal OK [r hmset h b 2 c 3 a 1b]
        assert_equal {1b 2 3 {}} [r hmget h a b c missing]
        assert_equal {{} {}} [r hmget nokey a b]
    }

    test "HSETNX ($enc)" {
        make_hash h $enc {a 1}
        assert_equal 0 [r hsetnx h a 2]
        assert_equal 1 [r hget h a]
        assert_equal 1 [r hsetnx h b 2]
        assert_equal 2 [r hget h b]
        r del nx
        assert_equal 1 [r hsetnx nx f v]
        assert_equal v [r hget nx f]
    }

    test "HGETALL / HKEYS / HVALS ($enc)" {
        make_hash h $enc {a 1 b 2 c 3}
        set all [r hgetall h]
        assert_equal 6 [llength $all]
        assert_dict_equal {a 1 b 2 c 3} $all
        assert_equal_unordered {a b c} [r hkeys h]
        assert_equal_unordered {1 2 3} [r hvals h]
        if {$enc eq "listpack"} {
            # insertion order, and an update keeps the field's place
            r hset h a 9
            assert_equal {a 9 b 2 c 3} [r hgetall h]
            assert_equal {a b c} [r hkeys h]
            assert_equal {9 2 3} [r hvals h]
        }
        assert_equal {} [r hgetall nokey]
        assert_equal {} [r hkeys nokey]
        assert_equal {} [r hvals nokey]
    }

    test "HDEL removes fields and the emptied key ($enc)" {
        make_hash h $enc {a 1 b 2 c 3}
        assert_equal 0 [r hdel h nofield]
        assert_equal 1 [r hdel h a a]
        assert_equal 2 [r hdel h b c nofield]
        assert_equal 0 [r exists h]
        assert_equal 0 [r hdel h a]
        assert_equal 0 [r hdel nokey a]
    }

    test "HDEL keeps the rest and the encoding ($enc)" {
        make_hash h $enc {a 1 b 2 c 3 d 4}
        assert_equal 2 [r hdel h a c]
        assert_dict_equal {b 2 d 4} [r hgetall h]
        assert_encoding $enc h
    }

    test "HEXISTS / HSTRLEN ($enc)" {
        make_hash h $enc {a hello n 12345 neg -7 e {}}
        assert_equal 1 [r hexists h a]
        assert_equal 1 [r hexists h e]
        assert_equal 0 [r hexists h z]
        assert_equal 0 [r hexists nokey a]
        assert_equal 5 [r hstrlen h a]
        assert_equal 5 [r hstrlen h n]
        assert_equal 2 [r hstrlen h neg]
        assert_equal 0 [r hstrlen h e]
        assert_equal 0 [r hstrlen h z]
        assert_equal 0 [r hstrlen nokey a]
    }

    test "Integer-looking fields and values stay as written ($enc)" {
        make_hash h $enc {1 a 01 b -0 c 9223372036854775808 d}
        assert_equal a [r hget h 1]
        assert_equal b [r hget h 01]
        assert_equal c [r hget h -0]
        assert_equal d [r hget h 9223372036854775808]
        assert_equal {} [r hget h 001]
        r hset h v1 007 v2 -9223372036854775808 v3 " 1"
        assert_equal {007 -9223372036854775808 { 1}} [r hmget h v1 v2 v3]
    }

    test "Binary-safe and empty fields and values ($enc)" {
        make_hash h $enc [list "a\x00b" "v\x00\xff" {} empty]
        assert_equal "v\x00\xff" [r hget h "a\x00b"]
        assert_equal {} [r hget h "a"]
        assert_equal empty [r hget h {}]
        assert_equal 3 [r hstrlen h "a\x00b"]
    }

    test "HINCRBY ($enc)" {
        make_hash h $enc {n 10 s abc sp { 1} big 9223372036854775807 small -9223372036854775808}
        assert_equal 15 [r hincrby h n 5]
        assert_equal -5 [r hincrby h n -20]
        assert_equal 3 [r hincrby h fresh 3]
        assert_equal 3 [r hget h fresh]
        assert_error {ERR hash value is not an integer} {r hincrby h s 1}
        assert_error {ERR hash value is not an integer} {r hincrby h sp 1}
        assert_error {ERR increment or decrement would overflow} {r hincrby h big 1}
        assert_error {ERR increment or decrement would overflow} {r hincrby h small -1}
        assert_equal 9223372036854775807 [r hget h big]
        assert_error {ERR value is not an integer or out of range} {r hincrby h n notnum}
        assert_error {ERR value is not an integer or out of range} {r hincrby h n 1.5}
        assert_error {ERR value is not an integer or out of range} {r hincrby h n " 1"}
        assert_error {ERR value is not an integer or out of range} {r hincrby h n +1}
        assert_equal -5 [r hget h n]
        r del newkey
        assert_equal -9223372036854775808 [r hincrby newkey f -9223372036854775808]
        assert_encoding $enc newkey
    }

    test "HINCRBYFLOAT ($enc)" {
        make_hash h $enc {f 10.5 i 5 s abc}
        assert_equal 10.6 [r hincrbyfloat h f 0.1]
        assert_equal 5000 [r hincrbyfloat h g 5.0e3]
        assert_equal 0 [r hincrbyfloat h z -0.0]
        assert_equal 7.5 [r hincrbyfloat h i 2.5]
        assert_equal 7.5 [r hget h i]
        assert_error {ERR hash value is not a float} {r hincrbyfloat h s 1}
        assert_error {ERR value is not a valid float} {r hincrbyfloat h f abc}
        assert_error {ERR value is not a valid float} {r hincrbyfloat h f nan}
        assert_error {ERR value is not a valid float} {r hincrbyfloat h f " 1"}
        assert_error {ERR value is NaN or Infinity} {r hincrbyfloat h f inf}
        assert_error {ERR value is NaN or Infinity} {r hincrbyfloat h f -inf}
        r hincrbyfloat h huge 1e4932
        assert_error {ERR increment would produce NaN or Infinity} {r hincrbyfloat h huge 1e4932}
        assert_equal 10.6 [r hget h f]
    }

    test "HRANDFIELD without count ($enc)" {
        make_hash h $enc {a 1 b 2 c 3}
        for {set i 0} {$i < 20} {incr i} {
            assert_match {[abc]} [r hrandfield h]
        }
        assert_equal {} [r hrandfield nokey]
    }

    test "HRANDFIELD with a positive count gives distinct fields ($enc)" {
        set pairs {}
        for {set i 0} {$i < 30} {incr i} { lappend pairs f$i v$i }
        make_hash h $enc $pairs
        foreach count {1 5 10 11 20 29} {
            set got [r hrandfield h $count]
            assert_equal $count [llength $got]
            assert_equal $count [llength [lsort -unique $got]]
            foreach f $got { assert_match {f*} $f }
            set got [r hrandfield h $count withvalues]
            assert_equal [expr {2 * $count}] [llength $got]
            assert_equal $count [dict size $got]
            dict for {f v} $got { assert_equal "v[string range $f 1 end]" $v }
        }
        # count >= size: the whole hash
        assert_equal_unordered [r hkeys h] [r hrandfield h 30]
        assert_equal_unordered [r hkeys h] [r hrandfield h 1000]
        assert_dict_equal [r hgetall h] [r hrandfield h 1000 withvalues]
        assert_equal {} [r hrandfield h 0]
        assert_equal {} [r hrandfield h 0 withvalues]
    }

    test "HRANDFIELD positive count covers every field over many calls ($enc)" {
        make_hash h $enc {a 1 b 2 c 3 d 4 e 5 f 6 g 7 h 8 i 9 j 10}
        set seen {}
        for {set i 0} {$i < 200} {incr i} {
            foreach f [r hrandfield h 3] { dict set seen $f 1 }
        }
        assert_equal 10 [dict size $seen]
    }

    test "HRANDFIELD with a negative count repeats fields ($enc)" {
        make_hash h $enc {a 1 b 2}
        set got [r hrandfield h -100]
        assert_equal 100 [llength $got]
        assert_equal {a b} [lsort -unique $got]
        set got [r hrandfield h -50 withvalues]
        assert_equal 100 [llength $got]
        foreach {f v} $got {
            assert_equal [dict get {a 1 b 2} $f] $v
        }
        assert_equal {} [r hrandfield nokey -5]
        assert_equal {} [r hrandfield nokey 5 withvalues]
    }

    test "HRANDFIELD RESP3 WITHVALUES replies pairs ($enc)" {
        make_hash h $enc {a 1 b 2}
        set c [redis_client -resp 3]
        set got [$c hrandfield h -5 withvalues]
        assert_equal 5 [llength $got]
        foreach pair $got {
            assert_equal 2 [llength $pair]
            assert_equal [dict get {a 1 b 2} [lindex $pair 0]] [lindex $pair 1]
        }
        set got [$c hrandfield h 1 withvalues]
        assert_equal 1 [llength $got]
        assert_equal 2 [llength [lindex $got 0]]
        assert_equal 2 [llength [$c hrandfield h 2]]
        $c readraw 1
        assert_equal {*2} [$c hrandfield h 5 withvalues]
        assert_equal {*2} [$c read]
        $c close
    }

    test "HSCAN returns every pair ($enc)" {
        set pairs {}
        for {set i 0} {$i < 200} {incr i} { lappend pairs f$i v$i }
        make_hash h $enc {a 1}
        r hset h {*}$pairs
        set cursor 0
        set got {}
        set calls 0
        while 1 {
            lassign [r hscan h $cursor count 20] cursor items
            foreach {f v} $items { dict set got $f $v }
            incr calls
            if {$cursor == 0} break
        }
        assert_equal 201 [dict size $got]
        assert_equal v77 [dict get $got f77]
        if {$enc eq "hashtable"} { assert_morethan $calls 1 }
    }

    test "HSCAN MATCH and NOVALUES ($enc)" {
        make_hash h $enc {foo 1 fob 2 bar 3}
        set cursor 0
        set got {}
        set vals {}
        while 1 {
            lassign [r hscan h $cursor match fo* count 100] cursor items
            lappend got {*}$items
            lassign [r hscan h 0 match fo* count 100 novalues] - fields
            if {$cursor == 0} break
        }
        assert_dict_equal {foo 1 fob 2} $got
        assert_equal_unordered {foo fob} $fields
        # NOVALUES (7.4) alone
        lassign [r hscan h 0 novalues count 1000] c fields
        assert_equal 0 $c
        assert_equal_unordered {foo fob bar} $fields
    }
}

test "HSCAN on a listpack hash ignores the cursor and returns all with cursor 0" {
    make_hash h listpack {a 1 b 2}
    assert_equal {0 {a 1 b 2}} [r hscan h 0]
    assert_equal {0 {a 1 b 2}} [r hscan h 5 count 1]
    assert_equal {0 {a 1 b 2}} [r hscan h 18446744073709551615]
    # Redis 7.4 cursor rules (string2ull): " 1" and "01" are cursors, "-1" and "" are not.
    assert_equal {0 {a 1 b 2}} [r hscan h " 1"]
    assert_equal {0 {a 1 b 2}} [r hscan h 01]
    assert_error {ERR invalid cursor} {r hscan h -1}
    assert_error {ERR invalid cursor} {r hscan h ""}
    assert_equal {0 {a b}} [r hscan h 0 NOVALUES]
    assert_equal {0 {b 2}} [r hscan h 0 MATCH b COUNT 3]
    restore_hash_defaults
}

test "HSCAN errors and a missing key" {
    r del h
    r hset h a 1
    assert_equal {0 {}} [r hscan nokey 0]
    assert_equal {0 {}} [r hscan nokey 0 badoption]
    assert_error {ERR invalid cursor} {r hscan nokey abc}
    assert_error {ERR invalid cursor} {r hscan h 18446744073709551616}
    assert_error {ERR invalid cursor} {r hscan h -1}
    assert_error {ERR invalid cursor} {r hscan h 1x}
    assert_error {ERR syntax error} {r hscan h 0 count 0}
    assert_error {ERR syntax error} {r hscan h 0 count -1}
    assert_error {ERR value is not an integer or out of range} {r hscan h 0 count x}
    assert_error {ERR syntax error} {r hscan h 0 type string}
    assert_error {ERR syntax error} {r hscan h 0 match}
    assert_error {ERR syntax error} {r hscan h 0 badoption}
    r set str x
    assert_error {WRONGTYPE*} {r hscan str 0}
    assert_error {ERR invalid cursor} {r hscan str abc}
}

test "HRANDFIELD argument errors" {
    r del h
    r hset h a 1 b 2
    r set str x
    assert_error {ERR value is not an integer or out of range} {r hrandfield h x}
    assert_error {ERR value is not an integer or out of range} {r hrandfield str x}
    assert_error {ERR syntax error} {r hrandfield h 5 withvalue}
    assert_error {ERR syntax error} {r hrandfield h 5 withvalues x}
    assert_error {ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807} {r hrandfield h -9223372036854775808}
    assert_error {ERR value is out of range} {r hrandfield h -9223372036854775807 withvalues}
    assert_error {ERR value is out of range} {r hrandfield h -4611686018427387904 withvalues}
    assert_error {ERR value is out of range} {r hrandfield h 4611686018427387904 withvalues}
    assert_equal {a b} [lsort [r hrandfield h 9223372036854775807]]
    assert_error {WRONGTYPE*} {r hrandfield str}
    assert_error {WRONGTYPE*} {r hrandfield str 1}
}

test "HRANDFIELD with a huge negative count is refused instead of exhausting memory (Keel)" {
    # Redis builds the whole reply and dies of OOM here; Keel refuses replies over 2 GB.
    r del h
    r hset h a 1
    assert_error {ERR value is out of range} {r hrandfield h -9223372036854775807}
    assert_error {ERR value is out of range} {r hrandfield h -4611686018427387903 withvalues}
    assert_equal 1000 [llength [r hrandfield h -1000]]
    assert_equal PONG [r ping]
}

test "Wrong type for every hash command" {
    r del str
    r set str x
    foreach cmd {
        {hset str a 1} {hsetnx str a 1} {hmset str a 1} {hget str a} {hmget str a}
        {hgetall str} {hdel str a} {hlen str} {hexists str a} {hkeys str} {hvals str}
        {hincrby str a 1} {hincrbyfloat str a 1} {hstrlen str a} {hrandfield str 1}
        {hscan str 0}
    } {
        assert_error {WRONGTYPE Operation against a key holding the wrong kind of value} {r {*}$cmd}
    }
    assert_equal x [r get str]
}

test "Wrong number of arguments" {
    r del h
    foreach cmd {
        {hset h} {hset h a} {hset h a 1 b} {hsetnx h a} {hsetnx h a 1 2} {hmset h a}
        {hmset h a 1 b} {hget h} {hget h a b} {hmget h} {hgetall} {hgetall h a} {hdel h}
        {hlen} {hlen h a} {hexists h} {hkeys} {hvals h a} {hincrby h a} {hincrby h a 1 2}
        {hincrbyfloat h a} {hstrlen h} {hrandfield} {hscan h}
    } {
        set name [lindex $cmd 0]
        assert_error "ERR wrong number of arguments for '$name' command" {r {*}$cmd}
    }
    assert_equal 0 [r exists h]
}

test "Errors leave the hash unchanged" {
    r del h
    r hset h n 5 s x
    catch {r hincrby h s 1}
    catch {r hincrby h n x}
    catch {r hincrbyfloat h s 1}
    catch {r hset h a}
    assert_equal {n 5 s x} [r hgetall h]
}

test "Listpack stays at hash-max-listpack-entries and converts one past it" {
    restore_hash_defaults
    r del h
    for {set i 0} {$i < 512} {incr i} { r hset h f$i $i }
    assert_encoding listpack h
    r hset h f0 updated
    assert_encoding listpack h
    r hset h f512 x
    assert_encoding hashtable h
    assert_equal 513 [r hlen h]
    assert_equal updated [r hget h f0]
    assert_equal 511 [r hget h f511]
}

test "Listpack converts one past hash-max-listpack-entries inside one HSET" {
    r config set hash-max-listpack-entries 4
    r del h
    r hset h a 1 b 2 c 3
    assert_encoding listpack h
    assert_equal 2 [r hset h d 4 e 5]
    assert_encoding hashtable h
    assert_dict_equal {a 1 b 2 c 3 d 4 e 5} [r hgetall h]
    restore_hash_defaults
}

test "Value and field of exactly hash-max-listpack-value bytes stay listpack" {
    restore_hash_defaults
    r del h
    r hset h [string repeat f 64] [string repeat v 64]
    assert_encoding listpack h
    r hset h a [string repeat v 65]
    assert_encoding hashtable h
    r del h
    r hset h a 1
    r hset h [string repeat f 65] 1
    assert_encoding hashtable h
    assert_equal 1 [r hget h [string repeat f 65]]
}

test "HSETNX of an existing field with a long value does not convert" {
    restore_hash_defaults
    r del h
    r hset h a 1
    assert_equal 0 [r hsetnx h a [string repeat v 100]]
    assert_encoding listpack h
    assert_equal 1 [r hsetnx h b [string repeat v 100]]
    assert_encoding hashtable h
}

test "HINCRBY / HINCRBYFLOAT convert on a long field or result" {
    restore_hash_defaults
    r del h1 h2 h3
    r hset h1 a 1
    r hincrby h1 [string repeat f 65] 1
    assert_encoding hashtable h1
    r hset h2 a 1
    r hincrbyfloat h2 a 1e100
    assert_encoding hashtable h2
    assert_equal 9999999999999999999669353532207342619498699019828496079271391541752018669482644324418977840117055488 [r hget h2 a]
    r config set hash-max-listpack-value 3
    r hset h3 a 999
    assert_encoding listpack h3
    assert_equal 1000 [r hincrby h3 a 1]
    assert_encoding hashtable h3
    restore_hash_defaults
}

test "Up-front conversion by argument count (7.4), even for repeated fields" {
    restore_hash_defaults
    r del h
    set args {}
    for {set i 0} {$i < 600} {incr i} { lappend args f v }
    assert_equal 1 [r hset h {*}$args]
    assert_encoding hashtable h
    assert_equal 1 [r hlen h]
    r config set hash-max-listpack-entries 2
    r del h
    r hset h a 1 a 2 a 3
    assert_encoding hashtable h
    assert_equal 1 [r hlen h]
    r del h
    r hset h a 1 b 2
    assert_encoding listpack h
    restore_hash_defaults
}

test "hash-max-listpack-entries 0 makes every hash a hashtable" {
    r config set hash-max-listpack-entries 0
    r del a b c
    r hset a f v
    r hsetnx b f v
    r hincrby c f 1
    assert_encoding hashtable a
    assert_encoding hashtable b
    assert_encoding hashtable c
    restore_hash_defaults
}

test "A hashtable hash never goes back to listpack" {
    restore_hash_defaults
    r del h
    r hset h a [string repeat x 100] b 1 c 2
    assert_encoding hashtable h
    r hdel h a b
    assert_encoding hashtable h
    r hset h a 1
    assert_encoding hashtable h
    assert_dict_equal {a 1 c 2} [r hgetall h]
}

test "CONFIG SET of the thresholds affects later conversions only" {
    restore_hash_defaults
    r del h
    r hset h a 1 b 2 c 3
    r config set hash-max-listpack-entries 1
    assert_encoding listpack h
    assert_equal 1 [r hget h a]
    assert_equal 0 [r hsetnx h a 2]
    assert_encoding listpack h
    # the next write, even an update of an existing field, converts (Redis checks after any set)
    r hset h a 9
    assert_encoding hashtable h
    foreach cmd {{hincrby h2 a 1} {hincrbyfloat h3 a 1} {hset h4 a 1}} {
        r config set hash-max-listpack-entries 512
        set key [lindex $cmd 1]
        r del $key
        r hset $key a 1 b 2
        r config set hash-max-listpack-entries 1
        r {*}$cmd
        assert_encoding hashtable $key
    }
    assert_dict_equal {a 9 b 2 c 3} [r hgetall h]
    assert_dict_equal {a 2 b 2} [r hgetall h2]
    restore_hash_defaults
}

test "Large values (> 64 KB)" {
    restore_hash_defaults
    r del h
    set big [string repeat "0123456789abcdef" 8192]
    append big tail
    assert_equal 2 [r hset h big $big small x]
    assert_encoding hashtable h
    assert_equal $big [r hget h big]
    assert_equal [string length $big] [r hstrlen h big]
    assert_dict_equal [list big $big small x] [r hgetall h]
    r hset h big short
    assert_equal short [r hget h big]
    r hset h big $big
    assert_equal $big [r hget h big]
    # a listpack may hold large strings when the value limit allows
    r config set hash-max-listpack-value 200000
    r del lp
    r hset lp big $big a 1
    assert_encoding listpack lp
    assert_equal $big [r hget lp big]
    assert_equal {1 1} [r hmget lp a a]
    r hset lp big [string repeat y 5000]
    assert_equal 5000 [r hstrlen lp big]
    assert_equal 1 [r hget lp a]
    restore_hash_defaults
}

test "Big hashtable: many fields, updates and deletes" {
    restore_hash_defaults
    r del h
    set args {}
    for {set i 0} {$i < 5000} {incr i} { lappend args field:$i $i }
    r hset h {*}$args
    assert_encoding hashtable h
    assert_equal 5000 [r hlen h]
    for {set i 0} {$i < 5000} {incr i 2} { r hincrby h field:$i 1000000 }
    assert_equal 1000000 [r hget h field:0]
    assert_equal 1 [r hget h field:1]
    set del {}
    for {set i 0} {$i < 4990} {incr i} { lappend del field:$i }
    assert_equal 4990 [r hdel h {*}$del]
    assert_equal 10 [r hlen h]
    assert_equal 4999 [r hget h field:4999]
    assert_equal 10 [llength [r hkeys h]]
    r hset h field:0 again
    assert_equal again [r hget h field:0]
}

test "COPY of a hash is a deep copy (both encodings)" {
    foreach enc {listpack hashtable} {
        make_hash src $enc {a 1 b 2}
        r del dst
        r copy src dst
        r hset dst a changed
        r hdel dst b
        assert_dict_equal {a 1 b 2} [r hgetall src]
        assert_equal {a changed} [r hgetall dst]
        assert_encoding $enc dst
    }
    restore_hash_defaults
}

test "HSET on an expired key creates a fresh hash" {
    r del h
    r hset h old 1
    r pexpire h 1
    after 5
    assert_equal 1 [r hset h new 2]
    assert_equal {new 2} [r hgetall h]
    assert_equal -1 [r ttl h]
}

test "HGETALL replies a map in RESP3, a flat array in RESP2" {
    r del h
    r hset h a 1
    set c [redis_client -resp 3]
    $c readraw 1
    assert_equal {%1} [$c hgetall h]
    assert_equal {$1} [$c read]
    assert_equal {a} [$c read]
    assert_equal {$1} [$c read]
    assert_equal {1} [$c read]
    assert_equal {%0} [$c hgetall nokey]
    assert_equal {*0} [$c hkeys nokey]
    assert_equal {_} [$c hget nokey a]
    $c close
    set c [redis_client]
    $c readraw 1
    assert_equal {*2} [$c hgetall h]
    $c close
}

test "TYPE and OBJECT ENCODING of hashes" {
    restore_hash_defaults
    r del h
    r hset h a 1
    assert_type hash h
    assert_equal listpack [r object encoding h]
}

}
