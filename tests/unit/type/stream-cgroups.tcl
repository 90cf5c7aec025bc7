# Stream consumer groups: XGROUP CREATE (MKSTREAM, ENTRIESREAD) / SETID / DESTROY /
# CREATECONSUMER / DELCONSUMER, XREADGROUP (`>`, history, NOACK, COUNT, BLOCK), XACK, XPENDING
# (summary, extended, IDLE, consumer), XCLAIM (IDLE, TIME, RETRYCOUNT, FORCE, JUSTID, LASTID),
# XAUTOCLAIM, XINFO GROUPS / CONSUMERS / STREAM FULL, entries-read and lag, the events, and what
# they propagate (DEBUG PROPAGATED, Keel only). Replies and errors were read from Debian's
# redis-server 7.0.15 (the file passes against it); what Redis 7.2+ changed is expected in its
# 7.4 form and marked (XINFO's `inactive` / `active-time`, the consumer XREADGROUP creates when
# nothing is served, XGROUP SETID propagated after XREADGROUP's XCLAIMs).

proc blocked_count {} { return [server_info blocked_clients] }

# The IDs of XRANGE-like replies.
proc ids_of {entries} { lmap e $entries {lindex $e 0} }

# A stream `s` with entries 1-1 2-1 3-1 and a group g at 0.
proc setup_s {} {
    r del s
    r xadd s 1-1 a 1
    r xadd s 2-1 b 2
    r xadd s 3-1 c 3
    r xgroup create s g 0
}

tags {stream cgroups} {

test "XGROUP CREATE: MKSTREAM, \$, BUSYGROUP, ENTRIESREAD and errors" {
    r del s
    assert_error {ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.} {r xgroup create s g $}
    assert_equal OK [r xgroup create s g $ MKSTREAM]
    assert_equal 0 [r xlen s]
    assert_error {BUSYGROUP Consumer Group name already exists} {r xgroup create s g $ MKSTREAM}
    assert_error {ERR value for ENTRIESREAD must be positive or -1} {r xgroup create s g2 0 ENTRIESREAD -2}
    assert_error {ERR value is not an integer or out of range} {r xgroup create s g2 0 ENTRIESREAD x}
    assert_error {ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP.} {r xgroup CREATE s g2 0 FOO}
    assert_error {ERR Invalid stream ID specified as stream command argument} {r xgroup create s g2 x}
    assert_equal OK [r xgroup create s g2 0-0 ENTRIESREAD 5]
    assert_error {ERR unknown subcommand 'FOO'. Try XGROUP HELP.} {r xgroup FOO s g}
    assert_error {ERR wrong number of arguments for 'xgroup|create' command} {r xgroup create s g}
    r set str x
    assert_error {WRONGTYPE*} {r xgroup create str g $ MKSTREAM}
    assert_equal 17 [llength [r xgroup help]]
}

test "XREADGROUP delivers new entries once per group, COUNT, and the history of a consumer" {
    setup_s
    assert_equal {{s {{1-1 {a 1}}}}} [r xreadgroup group g c1 count 1 streams s >]
    assert_equal {{s {{2-1 {b 2}} {3-1 {c 3}}}}} [r xreadgroup group g c2 streams s >]
    assert_equal {} [r xreadgroup group g c1 streams s >]
    # History: the consumer's own pending entries after the ID.
    assert_equal {{s {{1-1 {a 1}}}}} [r xreadgroup group g c1 streams s 0]
    assert_equal {{s {}}} [r xreadgroup group g c1 streams s 1-1]
    assert_equal {2-1 3-1} [ids_of [lindex [r xreadgroup group g c2 streams s 0] 0 1]]
    assert_equal {{s {{3-1 {c 3}}}}} [r xreadgroup group g c2 count 1 streams s 2-1]
    # A deleted pending entry comes back as [id, nil].
    r xdel s 2-1
    assert_equal {{s {{2-1 {}} {3-1 {c 3}}}}} [r xreadgroup group g c2 streams s 0]
    # History counts as another delivery.
    assert_equal 4 [lindex [r xpending s g - + 10 c2] 1 3]
}

test "XREADGROUP errors" {
    setup_s
    assert_error {ERR The $ ID is meaningless in the context of XREADGROUP*} {r xreadgroup group g c1 streams s $}
    assert_error {NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP option} {r xreadgroup group nog c1 streams s >}
    assert_error {NOGROUP No such key 'nokey' or consumer group 'g' in XREADGROUP with GROUP option} {r xreadgroup group g c1 streams nokey >}
    assert_error {ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.} {r xread streams s >}
    assert_error {ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.} {r xread noack streams s 0}
    assert_error {ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.} {r xread group g c streams s 0}
    assert_error {ERR wrong number of arguments for 'xreadgroup' command} {r xreadgroup group g streams s 0}
    assert_error {ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.} {r xreadgroup group g c streams s nokey >}
    assert_error {ERR Invalid stream ID specified as stream command argument} {r xreadgroup group g c streams s x}
    r set str x
    assert_error {WRONGTYPE*} {r xreadgroup group g c streams str >}
}

test "XREADGROUP NOACK moves the group on without pending entries" {
    setup_s
    assert_equal {1-1 2-1 3-1} [ids_of [lindex [r xreadgroup group g c1 noack streams s >] 0 1]]
    assert_equal {0 {} {} {}} [r xpending s g]
    assert_equal 3-1 [dict get [lindex [r xinfo groups s] 0] last-delivered-id]
}

test "XACK" {
    setup_s
    r xreadgroup group g c1 streams s >
    assert_equal 1 [r xack s g 1-1 9-9]
    assert_equal 0 [r xack s g 1-1]
    assert_equal 2 [r xack s g 2-1 3-1]
    assert_equal 0 [r xack s nog 1-1]
    assert_equal 0 [r xack nokey g 1-1]
    assert_error {ERR Invalid stream ID specified as stream command argument} {r xack s g x}
    assert_equal {0 {} {} {}} [r xpending s g]
}

test "XPENDING summary, extended form, IDLE, consumer, errors" {
    setup_s
    r xreadgroup group g c1 count 1 streams s >
    r xreadgroup group g c2 streams s >
    assert_equal {3 1-1 3-1 {{c1 1} {c2 2}}} [r xpending s g]
    set ext [r xpending s g - + 10]
    assert_equal {1-1 2-1 3-1} [ids_of $ext]
    assert_equal {c1 c2 c2} [lmap e $ext {lindex $e 1}]
    assert_equal {1 1 1} [lmap e $ext {lindex $e 3}]
    assert_equal {2-1 3-1} [ids_of [r xpending s g (1-1 + 10]]
    assert_equal {1-1 2-1} [ids_of [r xpending s g - (3-1 10]]
    assert_equal {2-1} [ids_of [r xpending s g - + 1 c2]]
    assert_equal {} [r xpending s g - + 10 nocons]
    assert_equal {} [r xpending s g - + 0]
    assert_equal {} [r xpending s g - + -1]
    assert_equal {} [r xpending s g IDLE 100000 - + 10]
    assert_equal {1-1 2-1 3-1} [ids_of [r xpending s g IDLE 0 - + 10]]
    after 20
    assert_equal {1-1} [ids_of [r xpending s g IDLE 10 - + 10 c1]]
    assert_error {ERR syntax error} {r xpending s g - +}
    assert_error {ERR syntax error} {r xpending s g IDLE 10}
    assert_error {ERR value is not an integer or out of range} {r xpending s g IDLE x - + 10}
    assert_error {ERR value is not an integer or out of range} {r xpending s g - + x}
    assert_error {ERR Invalid stream ID specified as stream command argument} {r xpending s g x + 10}
    assert_error {NOGROUP No such key 's' or consumer group 'nog'} {r xpending s nog}
    assert_error {NOGROUP No such key 'nokey' or consumer group 'g'} {r xpending nokey g}
}

test "XCLAIM: min-idle-time, IDLE, TIME, RETRYCOUNT, JUSTID, FORCE, LASTID" {
    setup_s
    r xreadgroup group g c1 streams s >
    # Not idle long enough: nothing moves.
    assert_equal {} [r xclaim s g c2 100000 1-1]
    assert_equal {{1-1 {a 1}}} [r xclaim s g c2 0 1-1]
    set e [lindex [r xpending s g - + 10 c2] 0]
    assert_equal {1-1 c2 2} [list [lindex $e 0] [lindex $e 1] [lindex $e 3]]
    # JUSTID does not count a delivery; RETRYCOUNT sets it.
    assert_equal {1-1} [r xclaim s g c2 0 1-1 JUSTID]
    assert_equal 2 [lindex [r xpending s g - + 10 c2] 0 3]
    assert_equal {1-1} [r xclaim s g c2 0 1-1 RETRYCOUNT 7 JUSTID]
    assert_equal 7 [lindex [r xpending s g - + 10 c2] 0 3]
    # IDLE / TIME set the delivery time.
    r xclaim s g c2 0 1-1 IDLE 500000 JUSTID
    assert {[lindex [r xpending s g - + 10 c2] 0 2] >= 500000}
    r xclaim s g c2 0 1-1 TIME 1000 JUSTID
    assert {[lindex [r xpending s g - + 10 c2] 0 2] > 1000000000}
    # An entry that is not pending needs FORCE, and must exist.
    r xack s g 2-1
    assert_equal {} [r xclaim s g c3 0 2-1]
    assert_equal {2-1} [r xclaim s g c3 0 2-1 FORCE JUSTID]
    assert_equal {} [r xclaim s g c3 0 9-9 FORCE JUSTID]
    # LASTID moves the group's last delivered ID forward only.
    r xclaim s g c3 0 2-1 LASTID 9-0 JUSTID
    assert_equal 9-0 [dict get [lindex [r xinfo groups s] 0] last-delivered-id]
    r xclaim s g c3 0 2-1 LASTID 5-0 JUSTID
    assert_equal 9-0 [dict get [lindex [r xinfo groups s] 0] last-delivered-id]
    # A deleted entry leaves the PEL whatever its idle time.
    r xdel s 3-1
    assert_equal {} [r xclaim s g c2 100000 3-1]
    assert_equal {1-1 2-1} [ids_of [r xpending s g - + 10]]
}

test "XCLAIM errors" {
    setup_s
    assert_error {ERR Invalid min-idle-time argument for XCLAIM} {r xclaim s g c2 x 1-1}
    assert_error {ERR Unrecognized XCLAIM option 'FOO'} {r xclaim s g c2 0 1-1 FOO}
    assert_error {ERR Invalid IDLE option argument for XCLAIM} {r xclaim s g c2 0 1-1 IDLE x}
    assert_error {NOGROUP No such key 's' or consumer group 'nog'} {r xclaim s nog c 0 1-1}
    assert_error {NOGROUP No such key 'nokey' or consumer group 'g'} {r xclaim nokey g c 0 1-1}
}

test "XAUTOCLAIM: cursor, COUNT, JUSTID, deleted entries" {
    setup_s
    r xreadgroup group g c1 streams s >
    set r1 [r xautoclaim s g c2 0 0 COUNT 1]
    assert_equal {2-1} [lrange $r1 0 0]
    assert_equal {1-1} [ids_of [lindex $r1 1]]
    assert_equal {} [lindex $r1 2]
    r xdel s 2-1
    set r2 [r xautoclaim s g c2 0 [lindex $r1 0] JUSTID]
    assert_equal {0-0 3-1 2-1} [list [lindex $r2 0] [lindex $r2 1] [lindex $r2 2]]
    assert_equal {1-1 3-1} [ids_of [r xpending s g - + 10 c2]]
    assert_equal {0-0 {{3-1 {c 3}}} {}} [r xautoclaim s g c3 0 (1-1]
    assert_equal {0-0 {} {}} [r xautoclaim s g c3 100000 0]
    assert_error {ERR COUNT must be > 0} {r xautoclaim s g c4 0 0 COUNT 0}
    assert_error {ERR COUNT must be > 0} {r xautoclaim s g c4 0 0 COUNT x}
    assert_error {ERR Invalid min-idle-time argument for XAUTOCLAIM} {r xautoclaim s g c4 x 0}
    assert_error {ERR Invalid stream ID specified as stream command argument} {r xautoclaim s g c4 0 x}
    assert_error {ERR syntax error} {r xautoclaim s g c4 0 0 FOO}
    assert_error {NOGROUP No such key 's' or consumer group 'nog'} {r xautoclaim s nog c4 0 0}
}

test "XGROUP CREATECONSUMER / DELCONSUMER / SETID / DESTROY" {
    setup_s
    r xreadgroup group g c2 streams s >
    assert_equal 1 [r xgroup createconsumer s g c3]
    assert_equal 0 [r xgroup createconsumer s g c3]
    assert_error {NOGROUP No such consumer group 'nog' for key name 's'} {r xgroup createconsumer s nog c3}
    assert_equal 3 [r xgroup delconsumer s g c2]
    assert_equal 0 [r xgroup delconsumer s g c9]
    assert_equal {0 {} {} {}} [r xpending s g]
    assert_equal OK [r xgroup setid s g 0]
    assert_equal {1-1 2-1 3-1} [ids_of [lindex [r xreadgroup group g c1 streams s >] 0 1]]
    assert_equal OK [r xgroup setid s g $ ENTRIESREAD 3]
    assert_error {ERR unknown subcommand or wrong number of arguments for 'SETID'. Try XGROUP HELP.} {r xgroup SETID s g $ FOO 3}
    assert_error {NOGROUP No such consumer group 'nog' for key name 's'} {r xgroup setid s nog 0}
    assert_error {ERR The XGROUP subcommand requires the key to exist*} {r xgroup setid nokey g 0}
    assert_equal 1 [r xgroup destroy s g]
    assert_equal 0 [r xgroup destroy s g]
    assert_equal {} [r xinfo groups s]
}

test "XINFO GROUPS: entries-read and lag" {
    r del s
    r xadd s 1-1 a 1
    r xadd s 2-1 a 1
    r xgroup create s g $
    r xgroup create s g2 1-1
    r xgroup create s g3 0
    r xgroup create s g4 0 ENTRIESREAD 5
    set info [r xinfo groups s]
    assert_equal {g g2 g3 g4} [lmap d $info {dict get $d name}]
    assert_equal {{} {} {} 5} [lmap d $info {dict get $d entries-read}]
    assert_equal {0 1 2 -3} [lmap d $info {dict get $d lag}]
    r xreadgroup group g3 c count 1 streams s >
    set g3 [lindex [r xinfo groups s] 2]
    assert_equal {1 1} [list [dict get $g3 entries-read] [dict get $g3 lag]]
    # A deletion after the group's position makes the lag unknown until it is read past.
    r xadd s 3-1 a 1
    r xdel s 2-1
    set g3 [lindex [r xinfo groups s] 2]
    assert_equal {1 {}} [list [dict get $g3 entries-read] [dict get $g3 lag]]
    r xreadgroup group g3 c streams s >
    # Read past the tombstone: the counter is Redis's estimate again (entries added - length).
    set g3 [lindex [r xinfo groups s] 2]
    assert_equal {2 1} [list [dict get $g3 entries-read] [dict get $g3 lag]]
    assert_equal {name g3 consumers 1 pending 2 last-delivered-id 3-1 entries-read 2 lag 1} $g3
    assert_error {ERR no such key} {r xinfo groups nokey}
}

test "XINFO CONSUMERS and XINFO STREAM FULL with groups" {
    setup_s
    r xreadgroup group g c1 count 1 streams s >
    r xgroup createconsumer s g c2
    set cons [r xinfo consumers s g]
    assert_equal {c1 c2} [lmap d $cons {dict get $d name}]
    assert_equal {1 0} [lmap d $cons {dict get $d pending}]
    assert_error {NOGROUP No such consumer group 'nog' for key name 's'} {r xinfo consumers s nog}
    assert_error {ERR no such key} {r xinfo consumers nokey g}
    set full [r xinfo stream s full]
    set g [lindex [dict get $full groups] 0]
    assert_equal g [dict get $g name]
    assert_equal 1-1 [dict get $g last-delivered-id]
    assert_equal 1 [dict get $g pel-count]
    assert_equal {1-1 c1} [lrange [lindex [dict get $g pending] 0] 0 1]
    assert_equal {c1 c2} [lmap d [dict get $g consumers] {dict get $d name}]
    if {[is_keel]} {
        # Redis 7.2+: `inactive` (-1 for a consumer that never read) and `active-time`.
        assert_equal -1 [dict get [lindex $cons 1] inactive]
        assert {[dict get [lindex $cons 0] inactive] >= 0}
        assert_equal -1 [dict get [lindex [dict get $g consumers] 1] active-time]
    }
}

test "Consumer group events" {
    set ev [events_of KEA {} {
        r xgroup create s g $ MKSTREAM
        catch {r xgroup create s g $}
        r xgroup createconsumer s g c1
        r xgroup createconsumer s g c1
        r xadd s 1-1 a 1
        r xreadgroup group g c2 streams s >
        r xgroup setid s g 0
        r xgroup delconsumer s g c1
        r xgroup delconsumer s g nobody
        r xack s g 1-1
        r xclaim s g c3 0 1-1 FORCE
        r xgroup destroy s g
        r xgroup destroy s g
    }]
    assert_equal [ke 0 s {xgroup-create xgroup-createconsumer xadd xgroup-createconsumer xgroup-setid xgroup-delconsumer xgroup-createconsumer xgroup-destroy}] $ev
}

test "XREADGROUP BLOCK is woken by XADD and served after EXEC" {
    setup_s
    r xreadgroup group g c0 streams s >
    set rd [redis_deferring_client]
    $rd xreadgroup group g c1 block 0 streams s >
    wait_for_blocked_clients 1
    r multi
    r xadd s 4-1 d 4
    r xadd s 5-1 e 5
    r exec
    assert_equal {{s {{4-1 {d 4}} {5-1 {e 5}}}}} [$rd read]
    assert_equal {4-1 5-1} [ids_of [r xpending s g - + 10 c1]]
    $rd close
}

test "XREADGROUP BLOCK: two consumers get different entries, in arrival order" {
    setup_s
    r xreadgroup group g c0 streams s >
    set r1 [redis_deferring_client]
    set r2 [redis_deferring_client]
    $r1 xreadgroup group g c1 count 1 block 0 streams s >
    wait_for_blocked_clients 1
    $r2 xreadgroup group g c2 count 1 block 0 streams s >
    wait_for_blocked_clients 2
    r multi
    r xadd s 4-1 d 4
    r xadd s 5-1 e 5
    r exec
    assert_equal {{s {{4-1 {d 4}}}}} [$r1 read]
    assert_equal {{s {{5-1 {e 5}}}}} [$r2 read]
    $r1 close
    $r2 close
}

test "XREADGROUP BLOCK times out; a history read never blocks" {
    setup_s
    r xreadgroup group g c0 streams s >
    assert_equal {} [r xreadgroup group g c1 block 20 streams s >]
    assert_equal {{s {}}} [r xreadgroup group g c1 block 0 streams s 0]
}

test "A destroyed group wakes its blocked readers with NOGROUP" {
    setup_s
    r xreadgroup group g c0 streams s >
    set rd [redis_deferring_client]
    $rd xreadgroup group g c1 block 0 streams s >
    wait_for_blocked_clients 1
    r xgroup destroy s g
    assert_error {NOGROUP*} {$rd read}
    $rd close
}

# DEBUG PROPAGATED without the SELECTs.
proc prop {} {
    set out {}
    foreach c [r debug propagated] {
        if {[lindex $c 0] ne "SELECT"} { lappend out $c }
    }
    return $out
}

test "A deleted or retyped stream unblocks XREADGROUP with UNBLOCKED; DEL + re-create in one EXEC serves it" {
    foreach how {del set rename flushall swapdb expire} {
        r del s s2
        r xgroup create s g $ MKSTREAM
        set rd [redis_deferring_client]
        $rd xreadgroup group g c block 0 streams s >
        wait_for_blocked_clients 1
        switch $how {
            del { r del s }
            set { r multi; r del s; r set s x; r exec }
            rename { r rename s s2 }
            flushall { r flushall }
            swapdb { r swapdb 0 1; r swapdb 0 1 }
            expire { r pexpire s 1; after 20; r exists s }
        }
        assert_error {UNBLOCKED the stream key no longer exists} {$rd read}
        $rd close
    }
    r del s
    r xgroup create s g $ MKSTREAM
    set rd [redis_deferring_client]
    $rd xreadgroup group g c block 0 streams s >
    wait_for_blocked_clients 1
    r multi
    r del s
    r xgroup create s g $ MKSTREAM
    r xadd s 1-1 a 1
    r exec
    assert_equal {{s {{1-1 {a 1}}}}} [$rd read]
    $rd close
}

tags {keel-only} {
test "XREADGROUP, XCLAIM and XAUTOCLAIM propagate as XCLAIM and XGROUP SETID (7.4 forms)" {
    if {![is_keel]} { skip_test "DEBUG PROPAGATED is Keel's" }
    setup_s
    r debug propagated on
    r debug propagated
    r xreadgroup group g c1 count 1 streams s >
    set p [prop]
    # 7.2.4+: XGROUP SETID after the XCLAIMs (Redis 7.0 sends the XCLAIM alone).
    assert_equal MULTI [lindex $p 0 0]
    set claim [lindex $p 1]
    assert_equal {XCLAIM s g c1 0 1-1 TIME} [lrange $claim 0 6]
    assert_equal {RETRYCOUNT 1 FORCE JUSTID LASTID 1-1} [lrange $claim 8 end]
    assert_equal {XGROUP SETID s g 1-1 ENTRIESREAD 1} [lindex $p 2]
    r xreadgroup group g c2 noack streams s >
    set p [prop]
    assert_equal {XGROUP CREATECONSUMER s g c2} [lindex $p 1]
    assert_equal {XGROUP SETID s g 3-1 ENTRIESREAD 3} [lindex $p 2]
    r xclaim s g c3 0 1-1 JUSTID
    set p [prop]
    assert_equal {XCLAIM s g c3 0 1-1 TIME} [lrange [lindex $p 0] 0 6]
    assert_equal {RETRYCOUNT 1 FORCE JUSTID LASTID 3-1} [lrange [lindex $p 0] 8 end]
    r xclaim s g c3 0 9-9 LASTID 7-0
    assert_equal {{XGROUP SETID s g 7-0 ENTRIESREAD 3}} [prop]
    # XADD's ID and an approximate trim go out in their exact form.
    r xadd s maxlen ~ 0 8-* z 1
    # (the whole node goes, the new entry with it, as in Redis)
    assert_equal {{xadd s maxlen = 0 8-0 z 1}} [prop]
    r xtrim s minid ~ 9
    assert_equal {} [prop]
    set id [r xadd s * z 1]
    assert_equal [list [list xadd s $id z 1]] [prop]
    r xadd s 9999999999999-1 z 1
    r xadd s 9999999999999-2 z 1
    prop
    r xtrim s maxlen 1
    assert_equal {{xtrim s maxlen 1}} [prop]
    r debug propagated off
}
}

}
