# SLOWLOG GET / LEN / RESET / HELP, the thresholds (slowlog-log-slower-than, slowlog-max-len) and
# the entry format. Expected replies were checked against redis-server 7.0.

tags {slowlog} {

test "SLOWLOG - nothing is logged below the threshold" {
    r config set slowlog-log-slower-than 100000
    r slowlog reset
    r ping
    r set a b
    assert_equal 0 [r slowlog len]
    assert_equal {} [r slowlog get]
}

test "SLOWLOG - a slow command is logged" {
    r config set slowlog-log-slower-than 100000
    r slowlog reset
    r debug sleep 0.2
    assert_equal 1 [r slowlog len]
    set e [lindex [r slowlog get] 0]
    assert_equal 6 [llength $e]
    assert_equal {debug sleep 0.2} [lindex $e 3]
    assert_morethan_equal [lindex $e 2] 190000
}

test "SLOWLOG - entry fields: id, time, duration, args, addr, name" {
    r config set slowlog-log-slower-than 0
    r slowlog reset
    r client setname slowname
    r set foo bar
    r config set slowlog-log-slower-than 100000
    set entries [r slowlog get]
    # Newest first: SET, then CLIENT SETNAME. The CONFIG SET that raised the threshold is
    # judged against the new value and not logged.
    set e [lindex $entries 0]
    lassign $e id time duration args addr name
    assert_equal {set foo bar} $args
    assert_range $time [expr {[clock seconds] - 5}] [expr {[clock seconds] + 1}]
    assert_morethan_equal $duration 0
    assert_match {127.0.0.1:*} $addr
    assert_equal slowname $name
    assert_equal [expr {[lindex [lindex $entries 1] 0] + 1}] $id
    assert_equal {client setname slowname} [lindex [lindex $entries 1] 3]
    r client setname ""
}

test "SLOWLOG - slowlog-log-slower-than 0 logs everything, negative disables" {
    r config set slowlog-log-slower-than 0
    r slowlog reset
    r ping
    r ping
    assert_morethan_equal [r slowlog len] 2
    r config set slowlog-log-slower-than -1
    r slowlog reset
    r ping
    r debug sleep 0.05
    assert_equal 0 [r slowlog len]
}

test "SLOWLOG - slowlog-max-len keeps the newest entries" {
    r config set slowlog-log-slower-than 0
    r config set slowlog-max-len 10
    r slowlog reset
    for {set i 0} {$i < 20} {incr i} { r set k$i v }
    assert_equal 10 [r slowlog len]
    set newest [lindex [r slowlog get 1] 0]
    assert_equal {slowlog len} [lindex $newest 3]
    r config set slowlog-max-len 128
    r config set slowlog-log-slower-than 10000
}

test "SLOWLOG GET count: default 10, -1 for all, 0 for none" {
    r config set slowlog-log-slower-than 0
    r slowlog reset
    for {set i 0} {$i < 15} {incr i} { r ping }
    r config set slowlog-log-slower-than 100000
    assert_equal 10 [llength [r slowlog get]]
    assert_equal 3 [llength [r slowlog get 3]]
    assert_equal 0 [llength [r slowlog get 0]]
    assert_morethan_equal [llength [r slowlog get -1]] 16
}

test "SLOWLOG - long argument lists and long arguments are truncated" {
    r config set slowlog-log-slower-than 0
    r slowlog reset
    set keys {}
    for {set i 1} {$i <= 33} {incr i} { lappend keys k$i }
    r del {*}$keys
    r set big [string repeat A 200]
    r config set slowlog-log-slower-than 100000
    set entries [r slowlog get]
    set bigentry [lindex [lindex $entries 0] 3]
    assert_equal [list set big "[string repeat A 128]... (72 more bytes)"] $bigentry
    set delentry [lindex [lindex $entries 1] 3]
    # 34 arguments: the first 31 are kept and the 32nd says how many more there were.
    assert_equal 32 [llength $delentry]
    assert_equal {... (3 more arguments)} [lindex $delentry end]
    assert_equal {del k1 k2} [lrange $delentry 0 2]
    assert_equal k30 [lindex $delentry 30]
}

test "SLOWLOG - AUTH arguments are not logged" {
    r config set slowlog-log-slower-than 0
    r slowlog reset
    catch {r auth secretpassword}
    r config set slowlog-log-slower-than 100000
    foreach e [r slowlog get -1] {
        assert_no_match *secretpassword* [lindex $e 3]
    }
}

test "SLOWLOG RESET empties the log" {
    r config set slowlog-log-slower-than 0
    r ping
    r config set slowlog-log-slower-than 100000
    assert_morethan [r slowlog len] 0
    assert_equal OK [r slowlog reset]
    assert_equal 0 [r slowlog len]
}

test "SLOWLOG errors and HELP" {
    assert_error {ERR count should be greater than or equal to -1} {r slowlog get -2}
    assert_error {ERR count should be greater than or equal to -1} {r slowlog get x}
    assert_error {*wrong number of arguments for 'slowlog|len' command} {r slowlog len x}
    assert_error {*wrong number of arguments for 'slowlog|reset' command} {r slowlog reset x}
    assert_error {ERR unknown subcommand 'nosuch'. Try SLOWLOG HELP.} {r slowlog nosuch}
    assert_error {*wrong number of arguments for 'slowlog' command} {r slowlog}
    set help [r slowlog help]
    assert_match {SLOWLOG <subcommand>*} [lindex $help 0]
    assert_match *RESET* $help
}

}
