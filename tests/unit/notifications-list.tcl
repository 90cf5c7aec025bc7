# Keyspace notifications of the list commands: exact event sequences (keyspace and keyevent
# channels, `new` included with KEA + n), and no event when nothing changes. Every sequence was
# checked against redis-server 7.0.15 with a PSUBSCRIBE __key*__:* reader (this file also passes
# with --server /usr/bin/redis-server).

tags {pubsub notifications} {

test "List events: LPUSH/RPUSH on new and existing keys, variadic is one event" {
    set ev [events_of KEAn {} {
        r lpush l a b c
        r rpush l d e
        r lpushx l f
        r rpushx l g
        r lpushx nokey a
        r rpushx nokey a
    }]
    assert_equal [concat [ke l {new lpush}] [ke l rpush] [ke l lpush] [ke l rpush]] $ev
}

test "List events: LPOP/RPOP with and without count, emptying, count 0, missing key" {
    set ev [events_of KEA {r rpush l a b c d e} {
        r lpop l
        r rpop l 2
        r lpop l 0
        r lpop nokey
        r rpop nokey 2
        r rpop l 5
    }]
    assert_equal [concat [ke l lpop] [ke l rpop] [ke l {rpop del}]] $ev
}

test "List events: LMPOP and BLPOP/BRPOP/BLMPOP served at once" {
    set ev [events_of KEA {r rpush a 1 2 3 4; r rpush b 1} {
        r lmpop 2 nokey a left count 2
        r blpop a 0
        r brpop a 0
        r blmpop 0 1 b right
    }]
    assert_equal [concat [ke a lpop] [ke a lpop] [ke a {rpop del}] [ke b {rpop del}]] $ev
}

test "List events: LINSERT (only when inserted), LSET" {
    set ev [events_of KEA {r rpush l a b} {
        r linsert l before b x
        r linsert l before nothere y
        r linsert nokey before a y
        r lset l 0 z
        catch {r lset l 10 z}
    }]
    assert_equal [concat [ke l linsert] [ke l lset]] $ev
}

test "List events: LREM (only when removed), LTRIM (always when the key exists)" {
    set ev [events_of KEA {r rpush l a b a c} {
        r lrem l 0 zz
        r lrem l 0 a
        r ltrim l 0 -1
        r ltrim nokey 0 1
        r lrem l 0 b
        r ltrim l 1 0
    }]
    assert_equal [concat [ke l lrem] [ke l ltrim] [ke l lrem] [ke l {ltrim del}]] $ev
}

test "List events: LMOVE / RPOPLPUSH: push on the destination first, then pop (+del)" {
    set ev [events_of KEAn {r rpush src a b; r rpush other x} {
        r lmove src dst left right
        r rpoplpush src other
        r lmove nokey dst left left
    }]
    assert_equal [concat [ke dst {new rpush}] [ke src lpop] [ke other lpush] [ke src {rpop del}]] $ev
}

test "List events: LMOVE onto the same key" {
    set ev [events_of KEA {r rpush l a b} {
        r lmove l l left right
    }]
    assert_equal [concat [ke l rpush] [ke l lpop]] $ev
}

test "List events: served BLMOVE" {
    r del src dst
    set rd [redis_deferring_client]
    set ev [events_of KEAn {} {
        $rd blmove src dst right left 0
        wait_for_blocked_clients 1
        r rpush src a
        assert_equal a [$rd read]
    }]
    $rd close
    assert_equal [concat [ke src {new rpush}] [ke dst {new lpush}] [ke src {rpop del}]] $ev
}

test "List events: none for reads and failed commands" {
    set ev [events_of KEA {r rpush l a b; r set s x} {
        r llen l
        r lrange l 0 -1
        r lindex l 0
        r lpos l a
        catch {r lpush s a}
        catch {r lpop l -1}
        catch {r lmove l s left left}
    }]
    assert_equal {} $ev
}

}
