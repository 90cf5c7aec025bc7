# Shared by tests/unit/dump.tcl and tests/integration/rdb.tcl (sourced): keys of every type and
# encoding, reading a key's value in a comparable form, CRC64 for crafting DUMP payloads, and
# whole-dataset snapshots through tests/helpers/rdb_contents.py.

# The keys populate_types creates, and the encoding Keel gives each (Redis 7.4's). Debian's
# redis-server 7.0 differs for lists (always quicklist) and small string sets (hashtable).
set ::rdb_type_keys {
    str-int int str-bigint int str-embstr embstr str-raw raw str-empty embstr str-binary raw
    list-lp listpack list-ql quicklist list-plain quicklist
    set-intset intset set-intset-big intset set-lp listpack set-ht hashtable set-long hashtable
    zset-lp listpack zset-inf listpack zset-sl skiplist zset-long skiplist
    hash-lp listpack hash-ht hashtable hash-long hashtable
}

proc rdb_all_bytes {} {
    set s ""
    for {set i 0} {$i < 256} {incr i} { append s [binary format c $i] }
    return $s
}

# Creates <prefix><name> for every entry of ::rdb_type_keys on the current db of level `level`.
# With ttl > 0 each key also gets PEXPIRE ttl.
proc populate_types {prefix {ttl 0} {level 0}} {
    r $level set ${prefix}str-int 12345
    r $level set ${prefix}str-bigint 9223372036854775807
    r $level set ${prefix}str-embstr "hello world"
    r $level set ${prefix}str-raw [string repeat x 100]
    r $level set ${prefix}str-empty ""
    r $level set ${prefix}str-binary [rdb_all_bytes]
    r $level rpush ${prefix}list-lp a 1 -2 "hello world" 3.5
    set items {}
    for {set i 0} {$i < 300} {incr i} { lappend items "item-$i-[string repeat p 50]" }
    r $level rpush ${prefix}list-ql {*}$items
    r $level rpush ${prefix}list-plain small [string repeat y 10000] tail
    r $level sadd ${prefix}set-intset 1 2 3 -5 100000 1099511627776
    set ints {}
    for {set i 0} {$i < 400} {incr i} { lappend ints [expr {$i * 4}] }
    r $level sadd ${prefix}set-intset-big {*}$ints
    r $level sadd ${prefix}set-lp a b c d
    set members {}
    for {set i 0} {$i < 300} {incr i} { lappend members m$i }
    r $level sadd ${prefix}set-ht {*}$members
    r $level sadd ${prefix}set-long [string repeat a 100] b
    r $level zadd ${prefix}zset-lp 1 a 2.5 b -3 c 0 d
    r $level zadd ${prefix}zset-inf -inf lo 1e-300 mid 0.1 frac +inf hi
    set args {}
    for {set i 0} {$i < 200} {incr i} { lappend args [expr {$i * 0.5}] m$i }
    r $level zadd ${prefix}zset-sl {*}$args
    r $level zadd ${prefix}zset-long 1 [string repeat q 100] 2 short
    r $level hset ${prefix}hash-lp f1 v1 f2 2 f3 ""
    set args {}
    for {set i 0} {$i < 600} {incr i} { lappend args field:$i value:$i }
    r $level hset ${prefix}hash-ht {*}$args
    r $level hset ${prefix}hash-long a [string repeat z 100] b 1
    if {$ttl > 0} {
        foreach {name enc} $::rdb_type_keys { r $level pexpire $prefix$name $ttl }
    }
}

# A key's value in a form that compares with `eq` (sets and hashes sorted).
proc key_value {key {level 0}} {
    switch -- [r $level type $key] {
        string { return [list string [r $level get $key]] }
        list { return [list list [r $level lrange $key 0 -1]] }
        set { return [list set [lsort [r $level smembers $key]]] }
        zset {
            # Scores as doubles: Redis 7.0 prints "%.17g", 7.2+ (and Keel) the shortest form.
            set out {}
            foreach {m s} [r $level zrange $key 0 -1 withscores] { lappend out $m [format %.17g $s] }
            return [list zset $out]
        }
        hash { return [list hash [lsort -stride 2 -index 0 [r $level hgetall $key]]] }
        none { return none }
        default { return [list other [r $level type $key]] }
    }
}

# Every db's keys and their OBJECT ENCODING (db 0 is selected again afterwards).
proc dataset_encodings {{dbs 16} {level 0}} {
    set out {}
    for {set db 0} {$db < $dbs} {incr db} {
        r $level select $db
        foreach k [lsort [r $level keys *]] {
            lappend out $db $k [r $level object encoding $k]
        }
    }
    r $level select 0
    return $out
}

# The whole dataset (every db, key, type, value, absolute expire time) as one canonical line.
proc dataset_snapshot {{level 0}} {
    set saved_level $level
    if {$level != 0} { error "dataset_snapshot: level 0 only (python_client_script targets it)" }
    return [python_client_script rdb_contents.py snapshot]
}

# CRC-64/Jones (reflected, init 0), bit by bit: payloads here are small.
proc crc64 {data} {
    set crc 0
    binary scan $data cu* bytes
    foreach b $bytes {
        set crc [expr {$crc ^ $b}]
        for {set i 0} {$i < 8} {incr i} {
            if {$crc & 1} {
                set crc [expr {($crc >> 1) ^ 0x95ac9329ac4bc9b5}]
            } else {
                set crc [expr {$crc >> 1}]
            }
        }
    }
    return $crc
}

# A DUMP payload around `body` (type byte + value): u16 LE version, then the CRC64 LE.
proc payload_with_footer {body {version 10}} {
    set p "$body[binary format s $version]"
    set c [crc64 $p]
    return "$p[binary format ii [expr {$c & 0xffffffff}] [expr {$c >> 32}]]"
}

proc file_bytes {path} {
    set f [open $path rb]
    set d [read $f]
    close $f
    return $d
}

proc write_bytes {path data} {
    set f [open $path wb]
    puts -nonewline $f $data
    close $f
}

# The dataset of the server at `level` as one canonical line (tests/helpers/rdb_contents.py).
proc snapshot_of {{level 0}} {
    set env_saved [array get ::env KEEL_*]
    set ::env(KEEL_HOST) [srv $level host]
    set ::env(KEEL_PORT) [srv $level port]
    set code [catch {exec /usr/bin/python3 [file join $::keel::tests_dir helpers rdb_contents.py] snapshot} out]
    unset -nocomplain ::env(KEEL_HOST) ::env(KEEL_PORT)
    array set ::env $env_saved
    if {$code} { error "snapshot failed: $out" }
    return $out
}
