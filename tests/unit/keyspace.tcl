# Generic key commands: DEL UNLINK EXISTS TYPE TOUCH KEYS RANDOMKEY RENAME RENAMENX MOVE COPY.
# Expected replies were checked against redis-server 7.0.15. Only strings exist so far; the
# other types get their COPY/RENAME/TYPE tests when they land.

tags {keyspace} {

test "DEL and UNLINK return the number of keys removed" {
    r flushall
    r set a 1
    r set b 2
    r set c 3
    assert_equal 2 [r del a b nokey]
    assert_equal 0 [r exists a b]
    assert_equal 1 [r unlink c c]
    assert_equal 0 [r del a]
    assert_equal 0 [r unlink a]
    assert_equal 0 [r dbsize]
}

test "DEL of a repeated key counts it once" {
    r set k v
    assert_equal 1 [r del k k k]
}

test "DEL/UNLINK/EXISTS arity" {
    assert_error {*wrong number of arguments for 'del' command*} {r del}
    assert_error {*wrong number of arguments for 'unlink' command*} {r unlink}
    assert_error {*wrong number of arguments for 'exists' command*} {r exists}
}

test "EXISTS counts every argument, repeated ones included" {
    r flushall
    r set k v
    r set e ""
    assert_equal 1 [r exists k]
    assert_equal 0 [r exists nokey]
    assert_equal 3 [r exists k k nokey e]
}

test "TYPE of a string and of a missing key" {
    r set s hello
    r set n 12
    assert_equal string [r type s]
    assert_equal string [r type n]
    assert_equal none [r type nokey]
    assert_error {*wrong number of arguments for 'type' command*} {r type}
    assert_error {*wrong number of arguments for 'type' command*} {r type a b}
}

test "TOUCH counts existing keys" {
    r flushall
    r set a 1
    r set b 2
    assert_equal 2 [r touch a b nokey]
    assert_equal 3 [r touch a a b]
    assert_error {*wrong number of arguments for 'touch' command*} {r touch}
}

test "KEYS with glob patterns" {
    r flushall
    foreach k {foo foobar fo bar hello hallo hxllo h\[llo} { r set $k 1 }
    assert_equal {fo foo foobar} [lsort [r keys fo*]]
    assert_equal [list "h\[llo" hallo hello hxllo] [lsort [r keys h?llo]]
    assert_equal {hallo hello} [lsort [r keys {h[ae]llo}]]
    assert_equal [list "h\[llo" hxllo] [lsort [r keys {h[^ae]llo}]]
    assert_equal [list "h\[llo"] [r keys {h\[llo}]
    assert_equal 8 [llength [r keys *]]
    assert_equal {} [r keys nomatch*]
    assert_equal {bar} [r keys bar]
}

test "KEYS * lists the empty key name, KEYS ** does not" {
    r flushall
    r set "" v
    r set x v
    assert_equal [list "" x] [lsort [r keys *]]
    assert_equal {x} [r keys **]
}

test "KEYS on an empty db and arity" {
    r flushall
    assert_equal {} [r keys *]
    assert_error {*wrong number of arguments for 'keys' command*} {r keys}
    assert_error {*wrong number of arguments for 'keys' command*} {r keys a b}
}

test "KEYS skips keys that expired but were not deleted yet" {
    r flushall
    r debug set-active-expire 0
    r set live 1
    r set gone 1
    r pexpire gone 1
    after 5
    assert_equal {live} [r keys *]
    r debug set-active-expire 1
}

test "RANDOMKEY" {
    r flushall
    assert_equal {} [r randomkey]
    r set only v
    assert_equal only [r randomkey]
    for {set i 0} {$i < 20} {incr i} { r set k$i $i }
    set seen {}
    for {set i 0} {$i < 200} {incr i} { dict set seen [r randomkey] 1 }
    assert_morethan [dict size $seen] 5
    foreach k [dict keys $seen] { assert_equal 1 [r exists $k] }
    assert_error {*wrong number of arguments for 'randomkey' command*} {r randomkey x}
}

test "RANDOMKEY does not return expired keys" {
    r flushall
    r debug set-active-expire 0
    for {set i 0} {$i < 10} {incr i} {
        r set e$i v
        r pexpire e$i 1
    }
    r set live v
    after 5
    for {set i 0} {$i < 20} {incr i} { assert_equal live [r randomkey] }
    r debug set-active-expire 1
}

test "RENAME moves the value and removes the source" {
    r flushall
    r set a hello
    assert_equal OK [r rename a b]
    assert_equal 0 [r exists a]
    assert_equal hello [r get b]
}

test "RENAME overwrites the destination" {
    r set a new
    r set b old
    assert_equal OK [r rename a b]
    assert_equal new [r get b]
    assert_equal 1 [r dbsize]
}

test "RENAME keeps the TTL, and drops the destination's one" {
    r flushall
    r set a v
    r expire a 100
    r set b v
    r rename a b
    assert_range [r ttl b] 90 100
    r set c v
    r expire c 100
    r set d v
    r rename d c
    assert_equal -1 [r ttl c]
}

test "RENAME errors and same-key semantics" {
    r flushall
    assert_error {ERR no such key} {r rename nokey x}
    assert_error {ERR no such key} {r rename nokey nokey}
    r set k v
    assert_equal OK [r rename k k]
    assert_equal v [r get k]
    assert_error {*wrong number of arguments for 'rename' command*} {r rename k}
    assert_error {*wrong number of arguments for 'rename' command*} {r rename a b c}
}

test "RENAMENX" {
    r flushall
    r set a 1
    r set b 2
    assert_equal 0 [r renamenx a b]
    assert_equal 1 [r get a]
    assert_equal 1 [r renamenx a c]
    assert_equal 0 [r exists a]
    assert_equal 1 [r get c]
    assert_equal 0 [r renamenx c c]
    assert_error {ERR no such key} {r renamenx nokey x}
    assert_error {ERR no such key} {r renamenx nokey nokey}
    assert_error {*wrong number of arguments for 'renamenx' command*} {r renamenx a}
}

test "RENAME of an expired source is 'no such key'" {
    r flushall
    r debug set-active-expire 0
    r set a v
    r pexpire a 1
    after 5
    assert_error {ERR no such key} {r rename a b}
    assert_equal 0 [r dbsize]
    r debug set-active-expire 1
}

test "RENAME keeps the encoding" {
    r flushall
    r set i 12345
    r set s abc
    r set l [string repeat x 100]
    r rename i i2
    r rename s s2
    r rename l l2
    assert_encoding int i2
    assert_encoding embstr s2
    assert_encoding raw l2
    assert_equal 12345 [r get i2]
    assert_equal [string repeat x 100] [r get l2]
}

test "MOVE to another db" {
    r flushall
    r set k v
    r expire k 100
    assert_equal 1 [r move k 1]
    assert_equal 0 [r exists k]
    r select 1
    assert_equal v [r get k]
    assert_range [r ttl k] 90 100
    r select 0
}

test "MOVE returns 0 when the key is missing or exists in the target" {
    r flushall
    assert_equal 0 [r move nokey 1]
    r set k here
    r select 1
    r set k there
    r select 0
    assert_equal 0 [r move k 1]
    assert_equal here [r get k]
    r select 1
    assert_equal there [r get k]
    r select 0
}

test "MOVE errors" {
    r flushall
    r set k v
    assert_error {ERR source and destination objects are the same} {r move k 0}
    assert_error {ERR source and destination objects are the same} {r move nokey 0}
    assert_error {ERR value is not an integer or out of range} {r move k abc}
    assert_error {ERR value is out of range, value must between -2147483648 and 2147483647} {r move k 99999999999}
    assert_error {ERR DB index is out of range} {r move k 16}
    assert_error {ERR DB index is out of range} {r move k -1}
    assert_error {*wrong number of arguments for 'move' command*} {r move k}
    assert_error {*wrong number of arguments for 'move' command*} {r move k 1 2}
    assert_equal v [r get k]
}

test "COPY in the same db" {
    r flushall
    r set a hello
    assert_equal 1 [r copy a b]
    assert_equal hello [r get a]
    assert_equal hello [r get b]
    r set b changed
    assert_equal hello [r get a]
}

test "COPY does not overwrite without REPLACE" {
    r flushall
    r set a 1
    r set b 2
    assert_equal 0 [r copy a b]
    assert_equal 2 [r get b]
    assert_equal 1 [r copy a b replace]
    assert_equal 1 [r get b]
    assert_equal 1 [r copy a b REPLACE]
}

test "COPY to another db" {
    r flushall
    r set a v
    assert_equal 1 [r copy a a db 1]
    assert_equal 1 [r copy a b db 2 replace]
    r select 1
    assert_equal v [r get a]
    r select 2
    assert_equal v [r get b]
    r select 0
    assert_equal v [r get a]
}

test "COPY keeps the TTL and the encoding" {
    r flushall
    r set a 123
    r expire a 100
    r copy a b
    assert_range [r ttl b] 90 100
    assert_encoding int b
    r set s [string repeat y 60]
    r copy s s2
    assert_encoding raw s2
    assert_equal -1 [r ttl s2]
    r set e abc
    r copy e e2
    assert_encoding embstr e2
}

test "COPY REPLACE drops the destination's TTL when the source has none" {
    r flushall
    r set src v
    r set dst old
    r expire dst 100
    r copy src dst replace
    assert_equal -1 [r ttl dst]
    assert_equal v [r get dst]
}

test "COPY returns 0 for a missing source" {
    r flushall
    assert_equal 0 [r copy nokey b]
    assert_equal 0 [r exists b]
}

test "COPY errors" {
    r flushall
    r set k v
    assert_error {ERR source and destination objects are the same} {r copy k k}
    assert_error {ERR source and destination objects are the same} {r copy k k db 0}
    assert_error {ERR value is not an integer or out of range} {r copy k x db abc}
    assert_error {ERR DB index is out of range} {r copy k x db 16}
    assert_error {ERR DB index is out of range} {r copy k x db -1}
    assert_error {ERR syntax error} {r copy k x db 0 foo}
    assert_error {ERR syntax error} {r copy k x replace db}
    assert_error {ERR syntax error} {r copy k x db}
    assert_error {*wrong number of arguments for 'copy' command*} {r copy k}
    assert_equal 0 [r exists x]
}

test "Commands see an expired key as missing" {
    r flushall
    r debug set-active-expire 0
    r set k v
    r pexpire k 1
    after 5
    assert_equal 0 [r exists k]
    assert_equal none [r type k]
    assert_equal 0 [r touch k]
    assert_equal 0 [r copy k k2]
    assert_equal 0 [r move k 1]
    assert_equal 0 [r del k]
    r debug set-active-expire 1
}

test "Keyspace events of generic commands" {
    if {[catch {r config set notify-keyspace-events KEA}]} { skip_test "no CONFIG SET of notify-keyspace-events yet" }
    set rd [redis_deferring_client]
    $rd psubscribe __keyevent@*
    if {[catch {$rd read} err]} { $rd close; skip_test "no PSUBSCRIBE yet" }
    r flushall
    r set a 1
    r set b 2
    r del a nokey
    r rename b c
    r set d 1
    r copy d e
    r move e 1
    r expire d 100
    r persist d
    r pexpire d -1
    set got {}
    foreach _ {1 2 3 4 5 6 7 8 9 10 11 12} { lappend got [lrange [$rd read] 2 3] }
    assert_equal [list \
        {__keyevent@0__:set a} {__keyevent@0__:set b} {__keyevent@0__:del a} \
        {__keyevent@0__:rename_from b} {__keyevent@0__:rename_to c} \
        {__keyevent@0__:set d} {__keyevent@0__:copy_to e} \
        {__keyevent@0__:move_from e} {__keyevent@1__:move_to e} \
        {__keyevent@0__:expire d} {__keyevent@0__:persist d} {__keyevent@0__:del d} \
        ] [lrange $got 0 11]
    $rd close
    r config set notify-keyspace-events ""
}

# Found by tests/fuzz/cmdfuzz.py: SELECT said "invalid DB index" (Redis 6.0's text).
test "SELECT, MOVE and COPY read the db index with getIntFromObject" {
    assert_error {ERR value is not an integer or out of range} {r select abc}
    assert_error {ERR value is not an integer or out of range} {r select 9223372036854775808}
    assert_error {ERR value is out of range, value must between -2147483648 and 2147483647} {r select 2147483648}
    assert_error {ERR DB index is out of range} {r select 16}
    assert_error {ERR DB index is out of range} {r select -1}
    r set k v
    assert_error {ERR value is out of range, value must between -2147483648 and 2147483647} {r copy k k2 db 99999999999}
    assert_error {ERR value is not an integer or out of range} {r copy k k2 db 1.5}
    assert_equal OK [r select 0]
}

}
