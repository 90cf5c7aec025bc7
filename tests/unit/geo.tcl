# Geo commands: GEOADD GEOPOS GEODIST GEOHASH GEOSEARCH GEOSEARCHSTORE GEORADIUS[_RO]
# GEORADIUSBYMEMBER[_RO]. Every expected reply and error was read from Debian's redis-server
# 7.0.15 (the file passes with `--server /usr/bin/redis-server`, except the tests it skips
# there: KEYSIZES and DEBUG PROPAGATED). The last block runs a deterministic sample of random
# queries on both servers and compares the replies.

proc sicily {} {
    r del Sicily
    r geoadd Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania 13.583333 37.316667 Agrigento \
        12.758489 38.788135 edge1 17.241510 38.788135 edge2
}

test "GEOADD: scores are 52-bit geohashes; NX XX CH; a sorted set" {
    r del g
    assert_equal 2 [r geoadd g 13.361389 38.115556 Palermo 15.087269 37.502669 Catania]
    assert_equal {Palermo 3479099956230698 Catania 3479447370796909} [r zrange g 0 -1 withscores]
    assert_equal 0 [r geoadd g 13.361389 38.115556 Palermo]
    assert_equal 1 [r geoadd g ch 13.361389 38.115556 Palermo 15 37 Catania]
    assert_equal 3476504601741708 [r zscore g Catania]
    assert_equal 1 [r geoadd g xx ch 13 38 Palermo 1 1 New]
    assert_equal {} [r zscore g New]
    assert_equal 1 [r geoadd g nx 13 38 Palermo 1 1 New]
    assert_equal 3377822707026402 [r zscore g New]
    assert_equal 0 [r geoadd nokey xx 1 1 a]
    assert_equal 0 [r exists nokey]
    assert_equal zset [r type g]
    assert_equal listpack [r object encoding g]
}

test "GEOADD errors" {
    r del g
    assert_error {ERR syntax error} {r geoadd g ch ch ch}
    assert_error {ERR syntax error} {r geoadd g nx xx 1 2 m}
    assert_error {ERR syntax error} {r geoadd g gt 1 2 m}
    assert_error {ERR syntax error} {r geoadd g 1 2 m 3}
    assert_error {ERR invalid longitude,latitude pair 200.000000,10.000000} {r geoadd g 200 10 m}
    assert_error {ERR invalid longitude,latitude pair 0.000000,85.051129} {r geoadd g 0 85.0511288 m}
    assert_error {ERR value is not a valid float} {r geoadd g abc 10 m}
    # nothing added when one pair is bad
    assert_error {ERR invalid*} {r geoadd g 1 1 a 1 100 b}
    assert_equal 0 [r exists g]
    r set s x
    assert_error {WRONGTYPE*} {r geoadd s 1 1 a}
    assert_equal 2 [r geoadd g -180 -85.05112878 sw 180 85.05112878 ne]
    assert_equal 1 [r geoadd g 0 0 zero]
}

test "GEOPOS, GEODIST and GEOHASH print Redis's digits" {
    sicily
    assert_equal {{13.36138933897018433 38.11555639549629859} {15.08726745843887329 37.50266842333162032} {}} \
        [r geopos Sicily Palermo Catania nope]
    assert_equal 166274.1516 [r geodist Sicily Palermo Catania]
    assert_equal 166.2742 [r geodist Sicily Palermo Catania km]
    assert_equal 103.3182 [r geodist Sicily Palermo Catania MI]
    assert_equal 545518.8700 [r geodist Sicily Palermo Catania ft]
    assert_equal 0.0000 [r geodist Sicily Palermo Palermo]
    assert_equal {} [r geodist Sicily Palermo nope]
    assert_equal {} [r geodist nokey a b]
    assert_error {ERR unsupported unit provided. please use M, KM, FT, MI} {r geodist Sicily Palermo Catania kmx}
    assert_error {ERR syntax error} {r geodist Sicily Palermo Catania km x}
    assert_equal {sqc8b49rny0 {} sqchdm4mq20} [r geohash Sicily Palermo nope edge1]
    assert_equal {{} {}} [r geopos nokey a b]
    assert_equal {{}} [r geohash nokey a]
    assert_equal {} [r geohash Sicily]
    r set s x
    assert_error {WRONGTYPE*} {r geopos s a}
    assert_error {WRONGTYPE*} {r geohash s a}
    assert_error {WRONGTYPE*} {r geodist s a b}
}

test "GEOPOS and WITHCOORD are RESP3 doubles, distances bulk strings" {
    sicily
    set c [redis_client -resp 3]
    $c readraw 1
    assert_equal {*1 *2 ,13.36138933897018433 ,38.11555639549629859} \
        [list [$c geopos Sicily Palermo] [$c read] [$c read] [$c read]]
    assert_equal {{$11} 166274.1516} [list [$c geodist Sicily Palermo Catania] [$c read]]
    $c close
}

test "GEOSEARCH: unsorted order is Redis's cell order; ASC DESC COUNT ANY" {
    sicily
    assert_equal {Agrigento Palermo Catania} [r geosearch Sicily fromlonlat 15 37 byradius 200 km]
    assert_equal {Catania 56.4413 Agrigento 130.4235 Palermo 190.4424} \
        [join [r geosearch Sicily fromlonlat 15 37 byradius 200 km asc withdist]]
    assert_equal {Palermo Agrigento} [r geosearch Sicily fromlonlat 15 37 byradius 200 km desc count 2]
    assert_equal {Agrigento Palermo} [r georadius Sicily 15 37 200 km count 2 any]
    assert_equal {Agrigento} [r georadiusbymember Sicily Agrigento 100 km count 1 any]
    assert_equal {{Catania {15.08726745843887329 37.50266842333162032}} {Agrigento {13.5833314061164856 37.31666804993816555}} {Palermo {13.36138933897018433 38.11555639549629859}} {edge2 {17.24151045083999634 38.78813451624225195}} {edge1 {12.7584877610206604 38.78813451624225195}}} \
        [r geosearch Sicily fromlonlat 15 37 bybox 400 400 km withcoord asc]
    assert_equal {{Agrigento 3479030013248308} {Palermo 3479099956230698} {edge1 3479273021651468}} \
        [r geosearch Sicily frommember Palermo byradius 100 mi withhash]
    assert_equal {{Catania 56.4413 3479447370796909 {15.08726745843887329 37.50266842333162032}}} \
        [r georadius Sicily 15 37 100 km withdist withcoord withhash]
    assert_equal {Catania} [r georadius_ro Sicily 15 37 100 km]
    assert_equal {Palermo} [r georadiusbymember_ro Sicily Palermo 10 km]
    assert_equal {} [r geosearch Sicily fromlonlat 0 0 byradius 1 km]
    assert_equal {} [r geosearch nokey fromlonlat 0 0 byradius 1 km]
}

test "GEOSEARCH and GEORADIUS errors, in Redis's order" {
    sicily
    assert_error {ERR could not decode requested zset member} {r geosearch Sicily frommember x byradius 1 km}
    assert_equal {} [r geosearch nokey frommember x byradius 1 km]
    assert_error {ERR radius cannot be negative} {r geosearch Sicily fromlonlat 15 37 byradius -1 km}
    assert_error {ERR need numeric radius} {r geosearch Sicily fromlonlat 15 37 byradius x km}
    assert_error {ERR need numeric height} {r geosearch Sicily fromlonlat 15 37 bybox 1 x km}
    assert_error {ERR need numeric width} {r geosearch Sicily fromlonlat 15 37 bybox x 1 km}
    assert_error {ERR height or width cannot be negative} {r geosearch Sicily fromlonlat 15 37 bybox 1 -1 km}
    assert_error {ERR unsupported unit provided. please use M, KM, FT, MI} {r geosearch Sicily fromlonlat 15 37 byradius 1 kmx}
    assert_error {ERR invalid longitude,latitude pair 200.000000,0.000000} {r geosearch Sicily fromlonlat 200 0 byradius 1 m}
    assert_error {ERR the ANY argument requires COUNT argument} {r geosearch Sicily fromlonlat 15 37 byradius 200 km any}
    assert_error {ERR COUNT must be > 0} {r geosearch Sicily fromlonlat 15 37 byradius 200 km count 0}
    assert_error {ERR value is not an integer or out of range} {r geosearch Sicily fromlonlat 15 37 byradius 200 km count x}
    assert_error {ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for geosearch} {r geosearch Sicily byradius 1 km asc desc}
    assert_error {ERR exactly one of BYRADIUS and BYBOX can be specified for GEOSEARCH} {r GEOSEARCH Sicily fromlonlat 1 1 asc desc}
    assert_error {ERR syntax error} {r geosearch Sicily frommember Palermo fromlonlat 15 37 byradius 200 km}
    # BYRADIUS twice is accepted, the last one counts
    assert_equal {} [r geosearch Sicily fromlonlat 0 0 byradius 1 km byradius 2 km]
    assert_error {ERR syntax error} {r geosearch Sicily fromlonlat 0 0 byradius 1 m store x}
    assert_error {ERR syntax error} {r georadius_ro Sicily 15 37 200 km store x}
    assert_error {ERR syntax error} {r georadius Sicily 15 37 200 km storedist}
    assert_error {ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options} \
        {r geosearchstore d Sicily fromlonlat 15 37 byradius 200 km withdist}
    assert_error {ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options} \
        {r georadius Sicily 15 37 200 km withdist store x}
    # a missing key skips the member's radius: no error for "abc"
    assert_equal {} [r georadiusbymember nokey m abc km]
    assert_error {ERR could not decode requested zset member} {r georadiusbymember Sicily m abc km}
    r set s x
    assert_error {WRONGTYPE*} {r geosearch s fromlonlat 0 0 byradius 1 m}
    assert_error {WRONGTYPE*} {r geosearchstore d s fromlonlat 0 0 byradius 1 m}
}

test "GEOSEARCHSTORE and GEORADIUS STORE/STOREDIST: a new zset, or the destination deleted" {
    sicily
    r del dst
    assert_equal 5 [r geosearchstore dst Sicily fromlonlat 15 37 byradius 300 km storedist]
    # (7.0 prints scores with %.17g, 7.4 the shortest form: compared rounded)
    assert_equal {Catania 56.4412578702 Agrigento 130.4234870671 Palermo 190.4424298478 edge2 279.7403417843 edge1 279.7404521356} \
        [lmap x [r zrange dst 0 -1 withscores] {expr {[string is double -strict $x] ? [format %.10f $x] : $x}}]
    assert_equal listpack [r object encoding dst]
    assert_equal 2 [r geosearchstore dst Sicily fromlonlat 15 37 byradius 300 km desc count 2]
    assert_equal {edge1 3479273021651468 edge2 3481342659049484} [r zrange dst 0 -1 withscores]
    assert_equal 1 [r georadius Sicily 15 37 100 km store dst]
    assert_equal {Catania} [r zrange dst 0 -1]
    assert_equal 1 [r georadiusbymember Sicily Palermo 10 km storedist dst]
    assert_equal {Palermo 0} [r zrange dst 0 -1 withscores]
    assert_equal 0 [r geosearchstore dst Sicily fromlonlat 0 0 byradius 1 km]
    assert_equal 0 [r exists dst]
    r set dst x
    assert_equal 0 [r georadius nokey 0 0 1 km store dst]
    assert_equal 0 [r exists dst]
    r set dst x
    assert_equal 1 [r georadius Sicily 15 37 100 km store dst]
    assert_equal zset [r type dst]
}

test "Geo on any sorted set: scores outside the grid decode as Redis does" {
    r del z
    r zadd z -5 neg 1e300 huge inf pinf -inf ninf 4503599627370496 b52
    assert_equal {{180 85.0511287799999991} {-179.99999731779098511 -85.05112751263942528} {-179.99999731779098511 -85.05112751263942528} {180 -85.05112751263942528} {-179.99999731779098511 85.0511287799999991}} \
        [r geopos z neg huge pinf ninf b52]
}

test "Geo events: zadd, geosearchstore / georadiusstore, del" {
    sicily
    assert_equal [concat [ke g {zadd}] [ke g zadd]] [events_of KEA { r geoadd g 1 1 a } {
        r geoadd g 2 2 b
        r geoadd g 2 2 b
        r geoadd g ch 3 3 b
    }]
    assert_equal [concat [ke d geosearchstore] [ke d georadiusstore] [ke d del]] [events_of KEA {
        r geoadd g 1 1 a
    } {
        r geosearchstore d g fromlonlat 1 1 byradius 1 km
        r georadius g 1 1 1 km store d
        r georadius g 50 50 1 km store d
        r georadius g 50 50 1 km store d
    }]
}

test "KEYSIZES after GEOADD and the STORE forms" {
    if {![is_keel]} { skip_test "Keel only" }
    r flushall
    r geoadd g 1 1 a 2 2 b 3 3 c
    assert_keysizes "db0_distrib_zsets_items:2=1"
    r geosearchstore d g fromlonlat 1 1 byradius 1000 km
    assert_keysizes "db0_distrib_zsets_items:2=2"
    r georadius g 1 1 1 km store d
    assert_keysizes "db0_distrib_zsets_items:1=1,2=1"
    r georadius g 50 50 1 km store d
    assert_keysizes "db0_distrib_zsets_items:2=1"
    r flushall
}

test "Propagation: GEOADD as ZADD with its scores, the STORE forms as received" {
    if {![is_keel]} { skip_test "Keel only" }
    r select 0
    r flushall
    r debug propagated on
    r debug propagated
    r geoadd g xx ch 13 38 Palermo
    r geoadd g ch 13.361389 38.115556 Palermo 15 37 Catania
    r geoadd g 13.361389 38.115556 Palermo
    r geosearch g fromlonlat 15 37 byradius 200 km
    r geosearchstore d g fromlonlat 15 37 byradius 200 km
    r georadius g 15 37 200 km storedist d
    r georadius g 0 0 1 km store nokey
    r georadius g 0 0 1 km store d
    assert_equal {{SELECT 0} {zadd g ch 3479099956230698 Palermo 3476504601741708 Catania} {geosearchstore d g fromlonlat 15 37 byradius 200 km} {georadius g 15 37 200 km storedist d} {georadius g 0 0 1 km store d}} \
        [r debug propagated]
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
        }
        proc rnd {min max} { expr {$min + rand() * ($max - $min)} }

        test "Random GEOADD / GEOPOS / GEODIST / GEOHASH / GEOSEARCH agree with redis-server" {
            expr {srand(7)}
            r flushall
            r -1 flushall
            set cx [rnd -170 170]
            set cy [rnd -80 80]
            set members {}
            for {set i 0} {$i < 600} {incr i} {
                if {$i % 3 == 0} {
                    set lon [rnd -180 180]
                    set lat [rnd -85.05 85.05]
                } else {
                    set lon [expr {max(-180, min(180, $cx + [rnd -4 4]))}]
                    set lat [expr {max(-85.05, min(85.05, $cy + [rnd -4 4]))}]
                }
                both geoadd g [format %.6f $lon] [format %.6f $lat] m$i
                lappend members m$i
            }
            set units {m km mi ft}
            set scale {m 1 km 1000 mi 1609.34 ft 0.3048}
            for {set t 0} {$t < 150} {incr t} {
                set m1 [lindex $members [expr {int(rand() * 600)}]]
                set m2 [lindex $members [expr {int(rand() * 600)}]]
                set unit [lindex $units [expr {int(rand() * 4)}]]
                both geodist g $m1 $m2 $unit
                both geopos g $m1 $m2 nope
                both geohash g $m1 $m2 nope
                set dist [expr {[lindex {1e3 1e4 5e4 2e5 1e6 5e6} [expr {int(rand() * 6)}]] * rand() / [dict get $scale $unit]}]
                if {rand() < 0.6} {
                    set from [list fromlonlat [format %.5f [expr {max(-180, min(180, $cx + [rnd -5 5]))}]] \
                                  [format %.5f [expr {max(-85, min(85, $cy + [rnd -5 5]))}]]]
                } else {
                    set from [list frommember $m1]
                }
                if {rand() < 0.5} {
                    set by [list byradius [format %.3f $dist] $unit]
                } else {
                    set by [list bybox [format %.3f [expr {$dist * [rnd 0.5 2]}]] [format %.3f [expr {$dist * [rnd 0.5 2]}]] $unit]
                }
                set opts {}
                foreach o {withdist withcoord withhash} p {0.5 0.3 0.3} { if {rand() < $p} { lappend opts $o } }
                set s [expr {rand()}]
                if {$s < 0.3} { lappend opts asc } elseif {$s < 0.5} { lappend opts desc }
                if {rand() < 0.3} {
                    lappend opts count [expr {1 + int(rand() * 20)}]
                    if {rand() < 0.5} { lappend opts any }
                }
                both geosearch g {*}$from {*}$by {*}$opts
                if {[lindex $by 0] eq "byradius" && [lindex $from 0] eq "fromlonlat"} {
                    both georadius_ro g [lindex $from 1] [lindex $from 2] [lindex $by 1] $unit {*}$opts
                }
                set nopts [lmap o $opts {expr {$o in {withdist withcoord withhash} ? [continue] : $o}}]
                both geosearchstore dst g {*}$from {*}$by {*}$nopts {*}[expr {rand() < 0.5 ? "storedist" : ""}]
                # compare stored scores as numbers (7.0 prints %.17g, Keel the shortest form)
                set a [lmap x [r zrange dst 0 -1 withscores] {expr {[string is double -strict $x] ? double($x) : $x}}]
                set b [lmap x [r -1 zrange dst 0 -1 withscores] {expr {[string is double -strict $x] ? double($x) : $x}}]
                assert_equal $a $b
            }
        }
    }
}
