# Stream commands, core: XADD (explicit, `*`, `<ms>-*` IDs, NOMKSTREAM, MAXLEN / MINID with = / ~
# and LIMIT), XLEN, XRANGE / XREVRANGE (exclusive bounds, COUNT), XDEL, XTRIM, XSETID, XINFO
# STREAM, the generic key commands on streams, KEYSIZES and keyspace events. Every expected reply
# and error string was read from Debian's redis-server 7.0.15 (the file passes against it:
# `--server /usr/bin/redis-server`), except the tests marked as Keel-only (INFO KEYSIZES is
# Redis 8's; the node sizes read with DEBUG LISTPACK-free introspection are Keel's).

# Entries of a stream as {id {f v ...}} lists.
proc xr {key} { r xrange $key - + }

tags {stream} {

test "XADD explicit, <ms>-* and * IDs" {
    r del s
    assert_equal 1-1 [r xadd s 1-1 a 1]
    assert_equal 1-2 [r xadd s 1-* b 2]
    assert_equal 5-0 [r xadd s 5-* c 3]
    assert_equal 5-1 [r xadd s 5-* c 3]
    set id [r xadd s * d 4]
    lassign [split $id -] ms seq
    assert {$ms > 1000000000000}
    assert_equal 0 $seq
    assert_equal 5 [r xlen s]
    assert_equal {{1-1 {a 1}} {1-2 {b 2}}} [r xrange s - + count 2]
    assert_equal $id [lindex [r xrevrange s + - count 1] 0 0]
}

test "XADD ID errors" {
    r del s s2
    r xadd s 1-1 a 1
    assert_error {ERR The ID specified in XADD is equal or smaller than the target stream top item} {r xadd s 1-1 a 1}
    assert_error {ERR The ID specified in XADD is equal or smaller than the target stream top item} {r xadd s 1 a 1}
    assert_error {ERR The ID specified in XADD is equal or smaller than the target stream top item} {r xadd s 0-* a 1}
    assert_error {ERR The ID specified in XADD must be greater than 0-0} {r xadd s 0-0 a 1}
    assert_error {ERR The ID specified in XADD must be greater than 0-0} {r xadd s2 0-0 a 1}
    assert_equal 0 [r exists s2]
    assert_error {ERR Invalid stream ID specified as stream command argument} {r xadd s abc a 1}
    assert_error {ERR Invalid stream ID specified as stream command argument} {r xadd s 1-x a 1}
    assert_error {ERR Invalid stream ID specified as stream command argument} {r xadd s 18446744073709551616 a 1}
    assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s * a}
    assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s * a 1 b}
    assert_error {ERR wrong number of arguments for 'xadd' command} {r xadd s nomkstream}
    assert_equal 18446744073709551615-18446744073709551615 [r xadd s 18446744073709551615-18446744073709551615 a 1]
    assert_error {ERR The stream has exhausted the last possible ID, unable to add more items} {r xadd s * a 1}
    assert_error {ERR The stream has exhausted the last possible ID, unable to add more items} {r xadd s 18446744073709551615-* a 1}
    assert_equal 2 [r xlen s]
    r set str x
    assert_error {WRONGTYPE*} {r xadd str * a 1}
    assert_error {WRONGTYPE*} {r xlen str}
    assert_error {WRONGTYPE*} {r xrange str - +}
    assert_error {WRONGTYPE*} {r xdel str 1-1}
    assert_error {WRONGTYPE*} {r xtrim str maxlen 1}
}

test "XADD <ms>-* when the sequence is exhausted" {
    r del s
    r xadd s 7-18446744073709551615 a 1
    # Redis 7.0 (and 7.4) answer this with the size error.
    assert_error {ERR Elements are too large to be stored} {r xadd s 7-* a 1}
    assert_equal 8-0 [r xadd s 8-* a 1]
}

test "XADD NOMKSTREAM" {
    r del s
    assert_equal {} [r xadd s nomkstream 1-1 a 1]
    assert_equal 0 [r exists s]
    r xadd s 1-1 a 1
    assert_equal 2-0 [r xadd s nomkstream 2-0 a 1]
    assert_equal 2 [r xlen s]
}

test "XADD option errors" {
    r del s
    assert_error {ERR syntax error, LIMIT cannot be used without the special ~ option} {r xadd s maxlen 1 limit 10 * a 1}
    assert_error {ERR The MAXLEN argument must be >= 0.} {r xadd s maxlen -1 * a 1}
    assert_error {ERR value is not an integer or out of range} {r xadd s maxlen x * a 1}
    assert_error {ERR Invalid stream ID specified as stream command argument} {r xadd s minid abc * a 1}
    assert_error {ERR The LIMIT argument must be >= 0.} {r xadd s limit -1 * a 1}
    assert_error {ERR syntax error, LIMIT cannot be used without specifying a trimming strategy} {r xadd s limit 1 * a 1}
    assert_error {ERR syntax error, MAXLEN and MINID options at the same time are not compatible} {r xadd s maxlen = 1 minid 0 * a 1}
    assert_equal 0 [r exists s]
}

test "XADD with MAXLEN and MINID, exact" {
    r del s
    for {set i 1} {$i <= 10} {incr i} { r xadd s maxlen 5 $i-0 f $i }
    assert_equal 5 [r xlen s]
    assert_equal 6-0 [lindex [xr s] 0 0]
    r xadd s maxlen = 3 11-0 f 11
    assert_equal {9-0 10-0 11-0} [lmap e [xr s] {lindex $e 0}]
    r xadd s minid 11 12-0 f 12
    assert_equal {11-0 12-0} [lmap e [xr s] {lindex $e 0}]
    r xadd s MAXLEN 0 13-0 f 13
    assert_equal 0 [r xlen s]
    assert_equal 1 [r exists s]
    assert_equal stream [r type s]
}

test "XADD / XTRIM with ~ remove whole nodes only, LIMIT bounds the work" {
    r config set stream-node-max-entries 10
    r del s
    for {set i 1} {$i <= 95} {incr i} { r xadd s $i-0 f $i }
    # ~ 50: nodes of 10; removing 4 whole nodes leaves 55, a fifth would leave 45 < 50.
    assert_equal 40 [r xtrim s maxlen ~ 50]
    assert_equal 55 [r xlen s]
    assert_equal 41-0 [lindex [r xrange s - + count 1] 0 0]
    # LIMIT 15: only one whole node (10 entries) fits under the limit.
    assert_equal 10 [r xtrim s maxlen ~ 0 limit 15]
    assert_equal 0 [r xtrim s maxlen ~ 0 limit 5]
    assert_equal 45 [r xlen s]
    # MINID ~: whole nodes whose last entry is below the threshold.
    assert_equal 10 [r xtrim s minid ~ 65]
    assert_equal 61-0 [lindex [r xrange s - + count 1] 0 0]
    # Exact: entries inside the first node are deleted too.
    assert_equal 4 [r xtrim s minid 65]
    assert_equal 65-0 [lindex [r xrange s - + count 1] 0 0]
    assert_equal 31 [r xlen s]
    assert_equal 26 [r xtrim s maxlen 5]
    assert_equal {91-0 92-0 93-0 94-0 95-0} [lmap e [xr s] {lindex $e 0}]
    r config set stream-node-max-entries 100
}

test "XTRIM errors and missing key" {
    r del s
    assert_equal 0 [r xtrim nokey maxlen 0]
    assert_error {ERR syntax error} {r xtrim nokey foo 1}
    assert_error {ERR value is not an integer or out of range} {r xtrim nokey maxlen x}
    assert_error {ERR wrong number of arguments for 'xtrim' command} {r xtrim s maxlen}
    r xadd s 1-1 a 1
    assert_error {ERR syntax error, LIMIT cannot be used without the special ~ option} {r xtrim s maxlen 0 limit 1}
    assert_error {ERR syntax error, MAXLEN and MINID options at the same time are not compatible} {r xtrim s maxlen 0 minid 1}
    assert_equal 1 [r xlen s]
}

test "XRANGE / XREVRANGE bounds, exclusive ranges and COUNT" {
    r del s
    foreach id {1-1 1-2 5-5 6-0 6-1 7-0} { r xadd s $id f $id }
    assert_equal {1-2 5-5 6-0} [lmap e [r xrange s (1-1 (6-1] {lindex $e 0}]
    assert_equal {6-0 6-1} [lmap e [r xrange s 6 6] {lindex $e 0}]
    assert_equal {7-0 6-1} [lmap e [r xrevrange s + - count 2] {lindex $e 0}]
    assert_equal {6-0 5-5 1-2 1-1} [lmap e [r xrevrange s (6-1 -] {lindex $e 0}]
    assert_equal {1-1 1-2} [lmap e [r xrange s - + COUNT 1 COUNT 2] {lindex $e 0}]
    assert_equal {} [r xrange s 3 1]
    assert_equal {} [r xrange nokey - +]
    assert_equal {} [r xrange nokey - + count 0]
    assert_equal {} [r xrange s - + count 0]
    assert_equal {} [r xrange s - + count -1]
    assert_error {ERR invalid start ID for the interval} {r xrange s (18446744073709551615-18446744073709551615 +}
    assert_error {ERR invalid end ID for the interval} {r xrange s - (0-0}
    assert_error {ERR Invalid stream ID specified as stream command argument} {r xrange s (- +}
    assert_error {ERR Invalid stream ID specified as stream command argument} {r xrange s x +}
    assert_error {ERR syntax error} {r xrange s - + foo}
    assert_error {ERR syntax error} {r xrange s - + count}
}

test "XRANGE returns fields of entries that differ from the node's master fields" {
    r del s
    r xadd s 1-0 a 1 b 2
    r xadd s 2-0 a 3 b 4
    r xadd s 3-0 b 5 a 6
    r xadd s 4-0 c 7
    r xadd s 5-0 a 123456789012 b {}
    assert_equal {{1-0 {a 1 b 2}} {2-0 {a 3 b 4}} {3-0 {b 5 a 6}} {4-0 {c 7}} {5-0 {a 123456789012 b {}}}} [xr s]
    assert_equal {{5-0 {a 123456789012 b {}}} {4-0 {c 7}}} [r xrevrange s + - count 2]
}

test "XADD with many fields (same and other fields than the node's first entry)" {
    r del s
    set fv {}
    for {set i 0} {$i < 40} {incr i} { lappend fv f$i v$i }
    r xadd s 1-1 {*}$fv
    r xadd s 2-1 {*}$fv
    r xadd s 3-1 {*}[lreplace $fv 0 0 other]
    assert_equal [list [list 1-1 $fv] [list 2-1 $fv] [list 3-1 [lreplace $fv 0 0 other]]] [xr s]
    assert_equal [list 3-1 [lreplace $fv 0 0 other]] [lindex [r xrevrange s + - count 1] 0]
}

test "XDEL" {
    r del s
    foreach id {1-1 1-2 5-5} { r xadd s $id f $id }
    assert_equal 1 [r xdel s 1-2 9-9]
    assert_equal 0 [r xdel s 1-2]
    assert_equal 0 [r xdel nokey 1-1]
    assert_error {ERR Invalid stream ID specified as stream command argument} {r xdel s 1-1 x}
    assert_equal 2 [r xlen s]
    assert_equal {1-1 5-5} [lmap e [xr s] {lindex $e 0}]
    assert_equal 2 [r xdel s 1-1 5-5]
    assert_equal 0 [r xlen s]
    assert_equal 1 [r exists s]
    set info [r xinfo stream s]
    assert_equal 5-5 [dict get $info max-deleted-entry-id]
    assert_equal 0-0 [dict get $info recorded-first-entry-id]
    assert_equal 5-5 [dict get $info last-generated-id]
}

test "XDEL across nodes keeps walking both ways" {
    r config set stream-node-max-entries 3
    r del s
    for {set i 1} {$i <= 20} {incr i} { r xadd s $i-0 f $i }
    # Empty a whole node (4-6) and parts of others.
    assert_equal 5 [r xdel s 4-0 5-0 6-0 8-0 20-0]
    set want {}
    foreach i {1 2 3 7 9 10 11 12 13 14 15 16 17 18 19} { lappend want $i-0 }
    assert_equal $want [lmap e [xr s] {lindex $e 0}]
    assert_equal [lreverse $want] [lmap e [r xrevrange s + -] {lindex $e 0}]
    assert_equal {7-0 9-0} [lmap e [r xrange s 4 9] {lindex $e 0}]
    assert_equal {9-0 7-0 3-0} [lmap e [r xrevrange s 9 2 count 3] {lindex $e 0}]
    r config set stream-node-max-entries 100
}

test "XSETID" {
    r del s
    assert_error {ERR no such key} {r xsetid s 1-1}
    r xadd s 5-1 a 1
    r xadd s 6-1 a 1
    assert_error {ERR The ID specified in XSETID is smaller than the target stream top item} {r xsetid s 5-5}
    assert_equal OK [r xsetid s 6-1]
    assert_error {ERR The entries_added specified in XSETID is smaller than the target stream length} {r xsetid s 7 entriesadded 1}
    assert_error {ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id} {r xsetid s 7 entriesadded 2 maxdeletedid 8-0}
    assert_equal OK [r xsetid s 7 entriesadded 20 maxdeletedid 3-0]
    assert_error {ERR entries_added must be positive} {r xsetid s 7 entriesadded -1}
    assert_error {ERR value is not an integer or out of range} {r xsetid s 7 entriesadded x}
    assert_error {ERR Invalid stream ID specified as stream command argument} {r xsetid s 7 maxdeletedid x}
    assert_error {ERR syntax error} {r xsetid s 7 foo}
    assert_error {ERR syntax error} {r xsetid s 7 entriesadded}
    assert_error {ERR Invalid stream ID specified as stream command argument} {r xsetid s *}
    set info [r xinfo stream s]
    assert_equal 7-0 [dict get $info last-generated-id]
    assert_equal 3-0 [dict get $info max-deleted-entry-id]
    assert_equal 20 [dict get $info entries-added]
    assert_error {ERR The ID specified in XADD is equal or smaller than the target stream top item} {r xadd s 7-0 a 1}
    assert_equal 7-1 [r xadd s 7-* a 1]
    # An empty stream takes any ID, even below its entries' past.
    r xtrim s maxlen 0
    assert_equal OK [r xsetid s 1-0]
    assert_equal 1-1 [r xadd s 1-* a 1]
    r set str x
    assert_error {WRONGTYPE*} {r xsetid str 1}
}

test "XINFO STREAM" {
    r del s
    r xadd s 1-1 a 1
    r xadd s 2-1 b 2
    r xdel s 1-1
    set info [r xinfo stream s]
    assert_equal 1 [dict get $info length]
    assert_equal 1 [dict get $info radix-tree-keys]
    assert_equal 2 [dict get $info radix-tree-nodes]
    assert_equal 2-1 [dict get $info last-generated-id]
    assert_equal 1-1 [dict get $info max-deleted-entry-id]
    assert_equal 2 [dict get $info entries-added]
    assert_equal 2-1 [dict get $info recorded-first-entry-id]
    assert_equal 0 [dict get $info groups]
    assert_equal {2-1 {b 2}} [dict get $info first-entry]
    assert_equal {2-1 {b 2}} [dict get $info last-entry]
    set full [r xinfo stream s full]
    assert_equal {{2-1 {b 2}}} [dict get $full entries]
    assert_equal {} [dict get $full groups]
    assert_error {ERR no such key} {r xinfo stream nokey}
    assert_error {ERR unknown subcommand or wrong number of arguments for 'stream'. Try XINFO HELP.} {r xinfo stream s foo}
    assert_error {ERR unknown subcommand or wrong number of arguments for 'stream'. Try XINFO HELP.} {r xinfo stream s full count}
    assert_error {ERR value is not an integer or out of range} {r xinfo stream s full count x}
    for {set i 3} {$i <= 13} {incr i} { r xadd s $i-0 f $i }
    assert_equal 10 [llength [dict get [r xinfo stream s full] entries]]
    assert_equal 10 [llength [dict get [r xinfo stream s full count -1] entries]]
    assert_equal 12 [llength [dict get [r xinfo stream s full count 0] entries]]
    assert_equal {{2-1 {b 2}} {3-0 {f 3}}} [dict get [r xinfo stream s full count 2] entries]
}

test "TYPE, OBJECT ENCODING, SCAN TYPE, MEMORY USAGE" {
    r flushall
    r xadd s 1-1 a 1
    r set k v
    assert_equal stream [r type s]
    assert_equal stream [r object encoding s]
    assert_equal {0 s} [r scan 0 type stream]
    set small [r memory usage s]
    for {set i 0} {$i < 500} {incr i} { r xadd s * field $i }
    set big [r memory usage s]
    assert {$small > 50 && $big > $small}
    # 500 small entries in 5 nodes: a few bytes per entry, as in Redis (about 12 there).
    assert {$big < 500 * 40}
}

test "DEL, UNLINK, RENAME, COPY, MOVE on streams" {
    r flushall
    r xadd s 1-1 a 1
    r xadd s 2-2 b 2
    r xdel s 1-1
    assert_equal OK [r rename s s2]
    assert_equal {{2-2 {b 2}}} [xr s2]
    assert_equal 1 [r copy s2 s3]
    r xadd s3 3-3 c 3
    assert_equal 1 [r xlen s2]
    assert_equal 2 [r xlen s3]
    assert_equal 1-1 [dict get [r xinfo stream s3] max-deleted-entry-id]
    assert_equal 1 [r move s3 9]
    r select 9
    assert_equal 2 [r xlen s3]
    assert_equal 1 [r unlink s3]
    r select 0
    assert_equal 1 [r del s2]
    assert_equal 0 [r dbsize]
}

test "Nodes follow stream-node-max-entries and stream-node-max-bytes" {
    r del s
    r config set stream-node-max-entries 5
    for {set i 0} {$i < 23} {incr i} { r xadd s * f $i }
    assert_equal 5 [dict get [r xinfo stream s] radix-tree-keys]
    r config set stream-node-max-entries 100
    r config set stream-node-max-bytes 100
    r del s
    for {set i 0} {$i < 6} {incr i} { r xadd s * f [string repeat x 30] }
    # 30-byte values: a node takes two entries before its bytes plus the next entry's reach 100.
    assert_equal 3 [dict get [r xinfo stream s] radix-tree-keys]
    r del s
    for {set i 0} {$i < 3} {incr i} { r xadd s * f [string repeat x 40] }
    assert_equal 3 [dict get [r xinfo stream s] radix-tree-keys]
    r config set stream-node-max-bytes 4096
}

test "XINFO STREAM radix-tree-keys / radix-tree-nodes count as Redis's rax does" {
    r del s t
    for {set i 1} {$i <= 1000} {incr i} { r xadd s $i-1 f $i }
    set info [r xinfo stream s]
    assert_equal {10 26} [list [dict get $info radix-tree-keys] [dict get $info radix-tree-nodes]]
    r xtrim s maxlen 333
    set info [r xinfo stream s]
    assert_equal {4 12} [list [dict get $info radix-tree-keys] [dict get $info radix-tree-nodes]]
    for {set i 1} {$i <= 300} {incr i} { r xadd t [expr {$i * 1000003}]-$i f $i }
    set info [r xinfo stream t]
    assert_equal {3 8} [list [dict get $info radix-tree-keys] [dict get $info radix-tree-nodes]]
}

test "Stream keyspace events" {
    set ev [events_of KEA {} {
        r xadd s 1-1 a 1
        r xadd s maxlen 1 2-1 a 1
        r xadd s nomkstream 3-1 a 1
        r xadd nokey nomkstream 1-1 a 1
        r xdel s 3-1
        r xdel s 9-9
        r xtrim s maxlen 0
        r xtrim s maxlen 0
        r xsetid s 5-5
        catch {r xadd s 1-1 a 1}
    }]
    assert_equal [ke 0 s {xadd xadd xtrim xadd xdel xtrim xsetid}] $ev
}

test "DEBUG DIGEST-VALUE of a stream is Redis's (live entries: ID, fields, values)" {
    r del s
    r xadd s 1-1 a 1 b 22
    r xadd s 2-1 a 1 b 22
    r xadd s 3-1 c 33
    r xdel s 2-1
    # The value redis-server 7.0.15 prints for the same stream; groups do not count.
    assert_equal 77ee31167e45fdb70be0b113f4a51a3f9d4f777a [r debug digest-value s]
    r xgroup create s g 0
    assert_equal 77ee31167e45fdb70be0b113f4a51a3f9d4f777a [r debug digest-value s]
}

tags {keel-only} {
test "INFO KEYSIZES counts stream entries (Keel; Redis 8 format)" {
    if {![is_keel]} { skip_test "keel only" }
    r flushall
    r xadd s 1-1 a 1
    assert_keysizes "db0_distrib_streams_items:1=1"
    r xadd s 2-1 a 1
    r xadd s 3-1 a 1
    assert_keysizes "db0_distrib_streams_items:2=1"
    r xadd s maxlen 0 4-1 a 1
    assert_keysizes "db0_distrib_streams_items:0=1"
    r xadd s 5-1 a 1
    r xdel s 5-1
    assert_keysizes "db0_distrib_streams_items:0=1"
    r xadd s2 1-1 a 1
    r rename s2 s3
    assert_keysizes "db0_distrib_streams_items:0=1,1=1"
    r del s s3
    assert_keysizes ""
}
}

}
