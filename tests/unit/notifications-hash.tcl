# Keyspace notifications of the hash commands: exact event sequences (class h, plus new, del and
# keymiss), checked against redis-server 7.0.15 with a PSUBSCRIBE __key*__:* reader (7.0 and 7.4
# give the same streams for these commands).

tags {pubsub notifications hash} {

foreach {enc entries} {listpack 512 hashtable 0} {
    test "HSET / HMSET / HSETNX events ($enc)" {
        r config set hash-max-listpack-entries $entries
        set ev [events_of KEAn {} {
            r hset h a 1 b 2
            r hset h a 3
            r hmset h c 4
            r hsetnx h a 9
            r hsetnx h z 9
            r hsetnx h2 f v
        }]
        assert_equal [concat [ke 0 h {new hset hset hset hset}] [ke 0 h2 {new hset}]] $ev
        r config set hash-max-listpack-entries 512
    }

    test "HDEL events, del when emptied, none when nothing removed ($enc)" {
        r config set hash-max-listpack-entries $entries
        set ev [events_of KEA {} {
            r hset h a 1 b 2 c 3
            r hdel h nope
            r hdel nokey a
            r hdel h a b
            r hdel h c z
        }]
        assert_equal [ke 0 h {hset hdel hdel del}] $ev
        r config set hash-max-listpack-entries 512
    }

    test "HINCRBY / HINCRBYFLOAT events, none on errors ($enc)" {
        r config set hash-max-listpack-entries $entries
        set ev [events_of KEAn {} {
            r hincrby h n 5
            r hincrbyfloat h f 1.5
            r hset h s abc
            catch {r hincrby h s 1}
            catch {r hincrbyfloat h s 1}
            catch {r hincrby h n x}
            r hincrby h n -5
        }]
        assert_equal [ke 0 h {new hincrby hincrbyfloat hset hincrby}] $ev
        r config set hash-max-listpack-entries 512
    }
}

test "Class h only: hash events without generic del or new" {
    set ev [events_of Kh {} {
        r hset h a 1
        r hdel h a
        r set s x
    }]
    assert_equal [list [list __keyspace@0__:h hset] [list __keyspace@0__:h hdel]] $ev
}

test "Class g only: the del of an emptied hash" {
    set ev [events_of Eg {} {
        r hset h a 1
        r hdel h a
    }]
    assert_equal [list [list __keyevent@0__:del h]] $ev
}

test "Wrong type writes emit nothing" {
    set ev [events_of KEAn {} {
        r set str x
        catch {r hset str a 1}
        catch {r hincrby str a 1}
        catch {r hdel str a}
    }]
    assert_equal [ke 0 str {new set}] $ev
}

test "Hash reads of a missing key emit keymiss; a missing field does not" {
    set ev [events_of KEm {} {
        r hset h a 1
        r hget h nofield
        r hmget h nofield
        r hget nokey f
        r hmget nokey a
        r hgetall nokey
        r hlen nokey
        r hexists nokey a
        r hstrlen nokey a
        r hrandfield nokey
        r hscan nokey 0
        r hkeys nokey
        r hvals nokey
    }]
    set exp {}
    for {set i 0} {$i < 10} {incr i} { lappend exp {*}[ke 0 nokey keymiss] }
    assert_equal $exp $ev
}

test "Events in another db carry its number" {
    set ev [events_of KEA {} {
        r select 3
        r hset h a 1
        r hdel h a
        r select 0
    }]
    assert_equal [ke 3 h {hset hdel del}] $ev
}

}
