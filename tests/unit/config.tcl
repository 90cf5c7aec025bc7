# CONFIG GET / SET / RESETSTAT / REWRITE / HELP: every kind of directive (bool, bounded integer,
# memory units, enum, string, multi-argument specials), the exact error texts, atomic multi-set,
# aliases, glob patterns, notify-keyspace-events canonical form and the rewrite of the file.
# Expected replies were checked against redis-server 7.0.15; Keel-only behaviour is guarded
# with is_keel.

proc cget {name} {
    return [lindex [r config get $name] 1]
}

# CONFIG GET reply as a dict sorted by name (Redis's order is its hash table order).
proc cgetd {args} {
    set out {}
    foreach {k v} [r config get {*}$args] {
        dict set out $k $v
    }
    return [lsort -stride 2 -index 0 $out]
}

start_server {tags {config}} {
    test "CONFIG GET returns name and value; literal names as given, unknown names nothing" {
        assert_equal {timeout 0} [r config get timeout]
        assert_equal {Hz 10} [r config get Hz]
        assert_equal {} [r config get no-such-directive]
        assert_equal {hz 10} [r config get hz HZ h?]
        set all [r config get *]
        assert_equal 0 [expr {[llength $all] % 2}]
        foreach name {bind port timeout tcp-keepalive hz maxclients requirepass dir loglevel
                      logfile databases maxmemory notify-keyspace-events proto-max-bulk-len
                      client-query-buffer-limit slowlog-log-slower-than slowlog-max-len save
                      appendonly client-output-buffer-limit maxmemory-policy list-max-listpack-size
                      list-max-ziplist-size hash-max-listpack-entries zset-max-ziplist-value} {
            assert {[dict exists $all $name]} "CONFIG GET * lacks $name"
        }
    }

    test "CONFIG GET glob patterns match names and aliases, case-insensitively" {
        assert_equal {hash-max-listpack-entries 512 hash-max-listpack-value 64 hash-max-ziplist-entries 512 hash-max-ziplist-value 64} [cgetd hash-max-*]
        assert_equal {hash-max-ziplist-entries 512 hash-max-ziplist-value 64} [cgetd hash-max-zip*]
        assert_equal {hash-max-ziplist-entries 512 hash-max-ziplist-value 64} [cgetd HASH-MAX-ZIP*]
        assert_equal {list-max-listpack-size -2 list-max-ziplist-size -2} [cgetd list-max-*-size]
        assert_equal {slowlog-log-slower-than 10000 slowlog-max-len 128} [cgetd slowlog-* slowlog-max-len]
        assert_equal {tcp-backlog 511 tcp-keepalive 300} [cgetd tcp-\[bk\]*]
        assert_equal {} [r config get zzz*]
    }

    test "CONFIG GET answers a map in RESP3" {
        set c [redis_client]
        $c hello 3
        $c readraw 1
        assert_equal {%1} [$c config get timeout]
        assert_equal {$7} [$c read]
        assert_equal timeout [$c read]
        assert_equal {$1} [$c read]
        assert_equal 0 [$c read]
        assert_equal {%0} [$c config get no-such*]
        $c close
    }

    test "CONFIG SET bool: yes/no in any case, anything else refused" {
        assert_equal OK [r config set protected-mode NO]
        assert_equal no [cget protected-mode]
        assert_equal OK [r config set protected-mode Yes]
        assert_equal yes [cget protected-mode]
        assert_error {ERR CONFIG SET failed (possibly related to argument 'protected-mode') - argument must be 'yes' or 'no'} {r config set protected-mode maybe}
        assert_error {*argument must be 'yes' or 'no'} {r config set lazyfree-lazy-eviction 1}
        assert_equal yes [cget protected-mode]
        assert_equal OK [r config set lazyfree-lazy-user-del yes]
        assert_equal yes [cget lazyfree-lazy-user-del]
        r config set lazyfree-lazy-user-del no
    }

    test "CONFIG SET integer: strict parsing and bounds" {
        assert_equal OK [r config set timeout 5]
        assert_equal 5 [cget timeout]
        foreach bad {abc +5 05 { 5} 5a 1.5 {}} {
            assert_error "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument couldn't be parsed into an integer" [list r config set timeout $bad]
        }
        assert_error {ERR CONFIG SET failed (possibly related to argument 'timeout') - argument must be between 0 and 2147483647 inclusive} {r config set timeout -1}
        assert_error {ERR CONFIG SET failed (possibly related to argument 'port') - argument must be between 0 and 65535 inclusive} {r config set port 99999}
        assert_error {ERR CONFIG SET failed (possibly related to argument 'port') - argument couldn't be parsed into an integer} {r config set port abc}
        assert_error {ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument must be between 1 and 4294967295 inclusive} {r config set maxclients 0}
        assert_error {ERR CONFIG SET failed (possibly related to argument 'slowlog-log-slower-than') - argument must be between -1 and 9223372036854775807 inclusive} {r config set slowlog-log-slower-than -2}
        assert_error {*argument must be between 0 and 9223372036854775807 inclusive} {r config set slowlog-max-len -1}
        assert_equal OK [r config set slowlog-log-slower-than -1]
        assert_equal -1 [cget slowlog-log-slower-than]
        assert_equal OK [r config set list-max-ziplist-size -5]
        assert_equal -5 [cget list-max-listpack-size]
        assert_equal 5 [cget timeout]
        r config set timeout 0 slowlog-log-slower-than 10000 list-max-listpack-size -2
    }

    test "CONFIG SET hz is clamped to 1..500" {
        assert_equal OK [r config set hz 1000]
        assert_equal 500 [cget hz]
        assert_equal OK [r config set hz 0]
        assert_equal 1 [cget hz]
        assert_error {*argument must be between 0 and 2147483647 inclusive} {r config set hz -1}
        assert_equal 1 [cget hz]
        r config set hz 10
        assert_equal 10 [cget hz]
    }

    test "CONFIG SET memory values: units, case, and refusals" {
        foreach {in out} {1mb 1048576 1MB 1048576 1kb 1024 1k 1000 1gb 1073741824 1g 1000000000
                          1m 1000000 7b 7 00 0 1Gb 1073741824 18446744073709551615 18446744073709551615} {
            assert_equal OK [r config set maxmemory $in]
            assert_equal $out [cget maxmemory]
        }
        foreach bad {1.5mb -1 1x mb1 1tb { 1}} {
            assert_error "ERR CONFIG SET failed (possibly related to argument 'maxmemory') - argument must be a memory value" [list r config set maxmemory $bad]
        }
        assert_equal OK [r config set maxmemory 0]
        assert_error {ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - argument must be between 1048576 and 9223372036854775807 inclusive} {r config set proto-max-bulk-len 1000}
        assert_equal OK [r config set proto-max-bulk-len 2mb]
        assert_equal 2097152 [cget proto-max-bulk-len]
        assert_error {*'client-query-buffer-limit') - argument must be between 1048576 and*} {r config set client-query-buffer-limit 1kb}
        assert_equal OK [r config set client-query-buffer-limit 1gb proto-max-bulk-len 512mb]
        assert_equal 1073741824 [cget client-query-buffer-limit]
        assert_equal 536870912 [cget proto-max-bulk-len]
        # 7.0 names the alias as typed; Keel (like the one-entry-per-directive table of 7.2+) the
        # canonical name.
        assert_error {*'hash-max-*-value') - argument must be a memory value} {r config set hash-max-ziplist-value -1}
    }

    test "CONFIG SET enum: case-insensitive, stored lowercase, exact error list" {
        assert_equal OK [r config set loglevel VERBOSE]
        assert_equal verbose [cget loglevel]
        assert_equal OK [r config set loglevel notice]
        assert_error {ERR CONFIG SET failed (possibly related to argument 'loglevel') - argument(s) must be one of the following: debug, verbose, notice, warning*} {r config set loglevel loud}
        assert_error {ERR CONFIG SET failed (possibly related to argument 'maxmemory-policy') - argument(s) must be one of the following: volatile-lru, volatile-lfu, volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, allkeys-random, noeviction} {r config set maxmemory-policy lru}
        assert_equal OK [r config set maxmemory-policy ALLKEYS-LRU]
        assert_equal allkeys-lru [cget maxmemory-policy]
        r config set maxmemory-policy noeviction
        assert_equal notice [cget loglevel]
    }

    test "CONFIG SET loglevel nothing (7.2+)" {
        if {![is_keel]} { skip_test "7.0 has no loglevel nothing" }
        assert_equal OK [r config set loglevel nothing]
        assert_equal nothing [cget loglevel]
        r config set loglevel notice
    }

    test "CONFIG SET client-output-buffer-limit: per class, memory units, errors" {
        assert_equal OK [r config set client-output-buffer-limit {normal 1mb 2mb 3}]
        assert_equal {normal 1048576 2097152 3 slave 268435456 67108864 60 pubsub 33554432 8388608 60} [cget client-output-buffer-limit]
        assert_equal OK [r config set client-output-buffer-limit {replica 1 2 3 pubsub 4 5 6}]
        assert_equal {normal 1048576 2097152 3 slave 1 2 3 pubsub 4 5 6} [cget client-output-buffer-limit]
        assert_error {*- Invalid client class specified in buffer limit configuration.} {r config set client-output-buffer-limit {master 1 2 3}}
        assert_error {*- Wrong number of arguments in buffer limit configuration.} {r config set client-output-buffer-limit {normal 1 2}}
        assert_error {*- Error in hard, soft or soft_seconds setting in buffer limit configuration.} {r config set client-output-buffer-limit {normal x 2 3}}
        assert_error {*- Error in hard, soft or soft_seconds setting in buffer limit configuration.} {r config set client-output-buffer-limit {normal 1 2 -3}}
        assert_equal {normal 1048576 2097152 3 slave 1 2 3 pubsub 4 5 6} [cget client-output-buffer-limit]
        r config set client-output-buffer-limit {normal 0 0 0 slave 256mb 64mb 60 pubsub 32mb 8mb 60}
        assert_equal {normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60} [cget client-output-buffer-limit]
    }

    test "CONFIG SET save and appendonly: off values, invalid save parameters" {
        assert_equal OK [r config set save {}]
        assert_equal {} [cget save]
        assert_equal OK [r config set appendonly no]
        assert_equal no [cget appendonly]
        assert_error {ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters} {r config set save 100}
        assert_error {ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters} {r config set save {100 x}}
        assert_error {*argument must be 'yes' or 'no'} {r config set appendonly maybe}
    }

    test "CONFIG SET save: any points replace the list; the checks on each number" {
        assert_equal OK [r config set save {100 10}]
        assert_equal {100 10} [cget save]
        assert_equal OK [r config set save {3600 1 300 100 60 10000}]
        assert_equal {3600 1 300 100 60 10000} [cget save]
        assert_equal OK [r config set save {1 0}]
        assert_equal {1 0} [cget save]
        foreach bad {{0 1} {1 -1} {100} {100 10 5}} {
            assert_error {ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters} [list r config set save $bad]
        }
        assert_equal {1 0} [cget save]
        assert_equal OK [r config set save {}]
        assert_equal {} [cget save]
    }

    test "CONFIG SET appendonly: yes or no only (the AOF itself: integration/aof.tcl)" {
        assert_error {ERR CONFIG SET failed (possibly related to argument 'appendonly') - argument must be 'yes' or 'no'} {r config set appendonly maybe}
        assert_equal no [cget appendonly]
    }

    test "Persistence directives: defaults, rdbchecksum immutable, sanitize-dump-payload values" {
        assert_equal {dbfilename dump.rdb} [r config get dbfilename]
        assert_equal {rdbcompression yes} [r config get rdbcompression]
        assert_equal {rdbchecksum yes} [r config get rdbchecksum]
        assert_equal {sanitize-dump-payload no} [r config get sanitize-dump-payload]
        assert_equal {rdb-del-sync-files no} [r config get rdb-del-sync-files]
        assert_equal {stop-writes-on-bgsave-error yes} [r config get stop-writes-on-bgsave-error]
        assert_error {ERR CONFIG SET failed (possibly related to argument 'rdbchecksum') - can't set immutable config} {r config set rdbchecksum no}
        assert_equal OK [r config set sanitize-dump-payload clients]
        assert_equal OK [r config set sanitize-dump-payload yes]
        assert_error {*argument(s) must be one of the following: no, yes, clients} {r config set sanitize-dump-payload maybe}
        assert_equal OK [r config set sanitize-dump-payload no]
        assert_equal OK [r config set rdbcompression no]
        assert_equal OK [r config set rdbcompression yes]
        assert_error {ERR CONFIG SET failed (possibly related to argument 'dbfilename') - can't set protected config} {r config set dbfilename x.rdb}
    }

    test "CONFIG SET immutable and protected directives" {
        foreach name {daemonize databases tcp-backlog pidfile logfile enable-debug-command} {
            assert_error "ERR CONFIG SET failed (possibly related to argument '$name') - can't set immutable config" [list r config set $name 1]
        }
        assert_error {ERR CONFIG SET failed (possibly related to argument 'DAEMONIZE') - can't set immutable config} {r config set DAEMONIZE yes}
        assert_error {ERR CONFIG SET failed (possibly related to argument 'dir') - can't set protected config} {r config set dir /tmp}
    }

    test "CONFIG SET unknown option, odd argument count, arity" {
        assert_error {ERR Unknown option or number of arguments for CONFIG SET - 'foo'} {r config set foo bar}
        assert_error {ERR syntax error} {r config set timeout 1 hz}
        assert_error {ERR wrong number of arguments for 'config|set' command} {r config set timeout}
        assert_error {ERR wrong number of arguments for 'config|set' command} {r config set}
        assert_error {ERR wrong number of arguments for 'config|get' command} {r config get}
        assert_error {ERR wrong number of arguments for 'config|resetstat' command} {r config resetstat x}
        assert_error {ERR wrong number of arguments for 'config|rewrite' command} {r config rewrite x}
        assert_error {ERR wrong number of arguments for 'config|help' command} {r config help x}
        assert_error {ERR wrong number of arguments for 'config' command} {r config}
        assert_error {ERR unknown subcommand 'foo'. Try CONFIG HELP.} {r config foo}
    }

    test "CONFIG HELP" {
        set help [r config help]
        assert_equal 11 [llength $help]
        assert_equal {CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} [lindex $help 0]
        assert_equal {    Rewrite the configuration file.} [lindex $help 8]
    }

    test "CONFIG SET several pairs applies all of them" {
        assert_equal OK [r config set timeout 7 hz 20 maxmemory 2mb loglevel warning]
        assert_equal {hz 20 loglevel warning maxmemory 2097152 timeout 7} [cgetd timeout hz maxmemory loglevel]
        r config set timeout 0 hz 10 maxmemory 0 loglevel notice
    }

    test "CONFIG SET is all or nothing: one bad value leaves every directive unchanged" {
        set before [cgetd timeout hz maxmemory tcp-keepalive]
        assert_error {ERR CONFIG SET failed (possibly related to argument 'hz') - argument couldn't be parsed into an integer} {r config set timeout 5 maxmemory 1mb hz abc tcp-keepalive 1}
        assert_equal $before [cgetd timeout hz maxmemory tcp-keepalive]
        assert_error {ERR Unknown option or number of arguments for CONFIG SET - 'foo'} {r config set timeout 5 foo 1 daemonize yes}
        assert_error {*'daemonize') - can't set immutable config} {r config set daemonize yes foo 1}
        assert_error {*'maxmemory') - argument must be a memory value} {r config set maxmemory-policy allkeys-lru maxmemory 1x}
        assert_equal noeviction [cget maxmemory-policy]
        assert_equal $before [cgetd timeout hz maxmemory tcp-keepalive]
    }

    test "CONFIG SET duplicate parameter, case-insensitively" {
        assert_error {ERR CONFIG SET failed (possibly related to argument 'timeout') - duplicate parameter} {r config set timeout 1 timeout 2}
        assert_error {ERR CONFIG SET failed (possibly related to argument 'hz') - duplicate parameter} {r config set HZ 5 hz 6}
        assert_error {*'timeout') - duplicate parameter} {r config set timeout 1 hz 2 timeout 2}
        assert_equal 0 [cget timeout]
        assert_equal 10 [cget hz]
    }

    test "Aliases: set through one name, read through both" {
        assert_equal OK [r config set hash-max-ziplist-entries 100]
        assert_equal {hash-max-listpack-entries 100 hash-max-ziplist-entries 100} [cgetd hash-max-*-entries]
        assert_equal OK [r config set zset-max-listpack-value 32]
        assert_equal 32 [cget zset-max-ziplist-value]
        assert_equal OK [r config set lua-time-limit 6000]
        assert_equal 6000 [cget busy-reply-threshold]
        assert_equal OK [r config set slave-read-only no]
        assert_equal no [cget replica-read-only]
        r config set hash-max-listpack-entries 512 zset-max-listpack-value 64 busy-reply-threshold 5000 replica-read-only yes
    }

    test "Encoding threshold defaults" {
        assert_equal {list-compress-depth 0 list-max-listpack-size -2} [cgetd list-compress-depth list-max-listpack-size]
        assert_equal {hash-max-listpack-entries 512 hash-max-listpack-value 64} [cgetd hash-max-listpack-*]
        assert_equal {zset-max-listpack-entries 128 zset-max-listpack-value 64} [cgetd zset-max-listpack-*]
        assert_equal 512 [cget set-max-intset-entries]
        assert_error {*'set-max-intset-entries') - argument must be between 0 and 9223372036854775807 inclusive} {r config set set-max-intset-entries -1}
        assert_error {*'list-compress-depth') - argument must be between 0 and 2147483647 inclusive} {r config set list-compress-depth -1}
        if {[is_keel]} {
            assert_equal {set-max-listpack-entries 128 set-max-listpack-value 64} [cgetd set-max-listpack-*]
        }
    }

    test "notify-keyspace-events: canonical output and invalid class error" {
        foreach {in out} {KA AK gKE gKE gl$ g\$l KEA AKE \$lshzxeKE \$lshzxeKE Ex xE AKEm AKEm g$lshzxetd A {} {}} {
            assert_equal OK [r config set notify-keyspace-events $in]
            assert_equal $out [cget notify-keyspace-events] "input '$in'"
        }
        r config set notify-keyspace-events KEg
        assert_error {ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid event class character. Use 'Ag$lshzxeKEtmdn'.} {r config set notify-keyspace-events KEQ}
        assert_equal gKE [cget notify-keyspace-events]
        r config set notify-keyspace-events {}
    }

    test "prefetch-batch-max-size (Keel)" {
        if {![is_keel]} { skip_test "Keel-only directive" }
        assert_equal 16 [cget prefetch-batch-max-size]
        assert_equal OK [r config set prefetch-batch-max-size 0]
        assert_equal 0 [cget prefetch-batch-max-size]
        r set k v
        assert_equal v [r get k]
        assert_error {*'prefetch-batch-max-size') - argument must be between 0 and 128 inclusive} {r config set prefetch-batch-max-size 129}
        assert_equal OK [r config set prefetch-batch-max-size 128]
        r config set prefetch-batch-max-size 16
        r del k
    }

    test "requirepass applies to new connections" {
        assert_equal OK [r config set requirepass s3cret]
        assert_equal s3cret [cget requirepass]
        set c [redis_client]
        assert_error {NOAUTH*} {$c get x}
        assert_error {WRONGPASS*} {$c auth nope}
        assert_equal OK [$c auth s3cret]
        assert_equal OK [$c config set requirepass {}]
        $c close
        set c [redis_client]
        assert_equal PONG [$c ping]
        $c close
    }

    test "maxclients applies to new connections" {
        set n [llength [split [string trim [r client list]] \n]]
        assert_equal OK [r config set maxclients $n]
        set c [redis_client]
        assert_error {ERR max number of clients reached} {$c ping}
        catch {$c close}
        r config set maxclients 10000
        set c [redis_client]
        assert_equal PONG [$c ping]
        $c close
    }

    test "timeout closes idle clients" {
        set c [redis_client]
        assert_equal PONG [$c ping]
        r config set timeout 1
        # The default client stays busy (CLIENT LIST every 100 ms); only $c goes idle.
        wait_for_condition 50 100 {[llength [split [string trim [r client list]] \n]] == 1} {
            r config set timeout 0
            fail "idle client was not closed"
        }
        r config set timeout 0
        assert_error {*} {$c ping}
        catch {$c close}
    }

    test "CONFIG SET port moves the listener; a bind that fails keeps the old one" {
        set old [srv port]
        set new [::keel::find_free_port]
        assert_equal OK [r config set port $new]
        assert_equal [list port $new] [r config get port]
        set c [redis_client -port $new]
        assert_equal PONG [$c ping]
        $c close
        assert_error {*} {redis_client -port $old}
        assert_equal OK [r config set port $old]
        set c [redis_client]
        assert_equal PONG [$c ping]
        $c close
        assert_error {ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses.} {r config set bind 192.0.2.1}
        assert_equal {bind 127.0.0.1} [r config get bind]
        set c [redis_client]
        assert_equal PONG [$c ping]
        $c close
    }

    test "CONFIG RESETSTAT resets the command counters" {
        for {set i 0} {$i < 5} {incr i} { r ping }
        assert_morethan [server_info total_commands_processed] 5
        assert_equal OK [r config resetstat]
        assert_lessthan [server_info total_commands_processed] 3
    }

    test "CONFIG REWRITE without a config file" {
        # The test server always has one; the reply when none exists is covered in
        # integration/startup.tcl.
        assert_match {*keel.conf} [srv config_file]
    }
}

start_server {tags {config} overrides {hash-max-ziplist-entries 100 timeout 5 tcp-keepalive 60}} {
    test "CONFIG REWRITE updates lines in place and appends new directives" {
        set f [srv config_file]
        # Comments, unknown-to-CONFIG lines and order survive; extra lines for the same directive
        # are dropped.
        set fh [open $f a]
        puts $fh "# a user comment"
        puts $fh "timeout 6"
        close $fh
        r config set timeout 9 maxmemory 3mb requirepass {a b"c} hz 11 hash-max-listpack-entries 200
        assert_equal OK [r config rewrite]
        set fh [open $f]
        set text [read $fh]
        close $fh
        set lines [split $text \n]
        assert_equal {# Generated by the Keel test framework} [lindex $lines 0]
        assert {[lsearch -exact $lines {# a user comment}] >= 0}
        # In place: the alias line becomes the canonical name, the first timeout line is updated.
        set i_hash [lsearch -exact $lines {hash-max-listpack-entries 200}]
        set i_timeout [lsearch -exact $lines {timeout 9}]
        set i_sig [lsearch -exact $lines {# Generated by CONFIG REWRITE}]
        assert {$i_hash >= 0 && $i_timeout >= 0 && $i_sig > $i_timeout && $i_sig > $i_hash} $text
        assert_equal -1 [lsearch -exact $lines {timeout 6}]
        assert_equal -1 [lsearch -glob $lines {hash-max-ziplist-entries*}]
        assert_equal 1 [llength [lsearch -all -glob $lines {timeout *}]]
        # Unchanged directives already in the file stay, with their values.
        assert {[lsearch -exact $lines {tcp-keepalive 60}] >= 0} $text
        # New non-default values are appended after the signature, memory with units, strings quoted.
        foreach want {{maxmemory 3mb} {hz 11} {requirepass "a b\"c"}} {
            set i [lsearch -exact $lines $want]
            assert {$i > $i_sig} "missing or misplaced '$want' in:\n$text"
        }
        # Defaults that were never in the file are not written.
        assert_equal -1 [lsearch -glob $lines {list-max-listpack-size*}]
        assert_match "*\n" $text
        r config set requirepass {}
    }

    test "CONFIG REWRITE twice gives the same file" {
        set f [srv config_file]
        assert_equal OK [r config rewrite]
        set fh [open $f]; set a [read $fh]; close $fh
        assert_equal OK [r config rewrite]
        set fh [open $f]; set b [read $fh]; close $fh
        assert_equal $a $b
    }
}

# Found by tests/fuzz/cmdfuzz.py: Redis registers an alias as a table entry of its own.
test "CONFIG SET: an alias and its name are two parameters; errors name the alias given" {
    set old [lindex [r config get hash-max-listpack-entries] 1]
    assert_equal OK [r config set hash-max-ziplist-entries 4 hash-max-listpack-entries 5]
    assert_equal {hash-max-listpack-entries 5} [r config get hash-max-listpack-entries]
    assert_error {ERR CONFIG SET failed (possibly related to argument 'zset-max-ziplist-value') - argument must be a memory value} {r config set ZSET-MAX-ZIPLIST-VALUE abc}
    assert_error {ERR CONFIG SET failed (possibly related to argument 'zset-max-listpack-value') - argument must be a memory value} {r config set zset-max-listpack-value abc}
    assert_error {ERR CONFIG SET failed (possibly related to argument 'MAXMEMORY') - duplicate parameter} {r config set maxmemory 1 MAXMEMORY 2}
    r config set hash-max-listpack-entries $old
}

# Redis's immutable directives (the same set in 7.0.15 and 7.4; names Keel lacks do no harm):
# CONFIG SET refuses them whatever the value. dir and dbfilename are protected instead.
set ::immutable_configs {
    daemonize databases tcp-backlog pidfile logfile supervised syslog-enabled syslog-ident
    syslog-facility always-show-logo set-proc-title disable-thp io-threads io-threads-do-reads
    unixsocket unixsocketperm aclfile appendfilename appenddirname rdbchecksum cluster-enabled
    cluster-port cluster-config-file enable-debug-command enable-protected-configs
    enable-module-command replicaof slaveof socket-mark-id server_cpulist bio_cpulist
    aof_rewrite_cpulist bgsave_cpulist
}

start_server {tags {config}} {
    test "CONFIG SET of every directive CONFIG GET * lists, to its own value" {
        set all [cgetd *]
        foreach {name value} $all {
            if {$name in $::immutable_configs} {
                assert_error "ERR CONFIG SET failed (possibly related to argument '$name') - can't set immutable config" [list r config set $name $value]
            } elseif {$name in {dir dbfilename}} {
                assert_error "ERR CONFIG SET failed (possibly related to argument '$name') - can't set protected config" [list r config set $name $value]
            } else {
                if {[catch {r config set $name $value} e]} {
                    fail "CONFIG SET $name {$value}: $e"
                }
                assert_equal OK $e
            }
        }
        assert_equal $all [cgetd *]
    }

    test "Hidden directives: answered by name, never listed or matched by a pattern" {
        set all [cgetd *]
        foreach {name def} {key-load-delay 0 rdb-key-save-delay 0 use-exit-on-panic no
                            watchdog-period 0 loading-process-events-interval-bytes 2097152} {
            assert {![dict exists $all $name]} "CONFIG GET * lists $name"
            assert_equal [list $name $def] [r config get $name]
            assert_equal [list [string toupper $name] $def] [r config get [string toupper $name]]
        }
        assert_equal {} [r config get key-*]
        assert_equal {repl-disable-tcp-nodelay no repl-diskless-sync-delay 5} [cgetd *delay*]
        assert_equal {key-load-delay 0 timeout 0} [cgetd key-load-delay time*]
        assert_equal OK [r config set key-load-delay 5 rdb-key-save-delay -5]
        assert_equal {key-load-delay 5} [r config get key-load-delay]
        assert_equal {rdb-key-save-delay -5} [r config get rdb-key-save-delay]
        assert_error {*'rdb-key-save-delay') - argument must be between -2147483648 and 2147483647 inclusive} {r config set rdb-key-save-delay 99999999999}
        assert_error {*'watchdog-period') - argument must be between 0 and 2147483647 inclusive} {r config set watchdog-period -1}
        assert_error {*'loading-process-events-interval-bytes') - argument must be between 1024 and 2147483647 inclusive} {r config set loading-process-events-interval-bytes 100}
        assert_error {*'use-exit-on-panic') - argument must be 'yes' or 'no'} {r config set use-exit-on-panic maybe}
        r config set key-load-delay 0 rdb-key-save-delay 0
    }

    test "prefetch-batch-max-size is hidden, as in Redis 8" {
        if {![is_keel]} { skip_test "Redis 7.0 has no such directive" }
        assert {![dict exists [cgetd *] prefetch-batch-max-size]}
        assert_equal {} [r config get prefetch-*]
        assert_equal {prefetch-batch-max-size 16} [r config get prefetch-batch-max-size]
    }

    test "maxmemory-clients takes a memory value or a percentage" {
        foreach {in out} {10% 10% 100% 100% 0% 0 5mb 5242880 10K 10000 50 50 0 0} {
            assert_equal OK [r config set maxmemory-clients $in]
            assert_equal [list maxmemory-clients $out] [r config get maxmemory-clients]
        }
        foreach bad {-1 -5% 1.5% abc% 00% +5% % 5%% { 5%} 1kb%} {
            assert_error {ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - argument must be a memory or percent value} [list r config set maxmemory-clients $bad]
        }
        assert_error {ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') - percentage argument must be less or equal to 100} {r config set maxmemory-clients 101%}
        # A memory value past INT64_MAX reads as negative, i.e. a percentage (Redis's arithmetic).
        assert_error {*- percentage argument must be less or equal to 100} {r config set maxmemory-clients 9223372036854775808}
        assert_equal OK [r config set maxmemory-clients 18446744073709551615]
        assert_equal {maxmemory-clients 1%} [r config get maxmemory-clients]
        assert_error {*- argument must be a memory or percent value} {r config set maxmemory-clients x}
        assert_equal 1% [cget maxmemory-clients] "a failed set must not change the value"
        r config set maxmemory-clients 0
    }

    test "replicaof / slaveof exist (empty without a master) and are start-up only" {
        assert_equal {replicaof {}} [r config get replicaof]
        assert_equal {slaveof {}} [r config get slaveof]
        assert_error {ERR CONFIG SET failed (possibly related to argument 'replicaof') - can't set immutable config} {r config set replicaof {no one}}
        assert_error {ERR CONFIG SET failed (possibly related to argument 'slaveof') - can't set immutable config} {r config set slaveof {127.0.0.1 6379}}
    }

    test "repl-ping-replica-period and its alias repl-ping-slave-period" {
        assert_equal {repl-ping-replica-period 10 repl-ping-slave-period 10} [cgetd repl-ping-*]
        assert_error {ERR CONFIG SET failed (possibly related to argument 'repl-ping-slave-period') - argument must be between 1 and 2147483647 inclusive} {r config set repl-ping-slave-period 0}
        assert_equal OK [r config set repl-ping-slave-period 5]
        assert_equal {repl-ping-replica-period 5 repl-ping-slave-period 5} [cgetd repl-ping-*]
        r config set repl-ping-replica-period 10
    }

    test "TLS key passwords exist with empty defaults" {
        assert_equal {tls-client-key-file-pass {} tls-key-file-pass {}} [cgetd tls-*-pass]
        assert_equal OK [r config set tls-key-file-pass s3 tls-client-key-file-pass s4]
        assert_equal {tls-client-key-file-pass s4 tls-key-file-pass s3} [cgetd tls-*-pass]
        r config set tls-key-file-pass {} tls-client-key-file-pass {}
    }

    test "proc-title-template can be set; Redis's template check" {
        set good [list x "\{title\} \{listen-addr\}" "a\{title\}b" "\{port\}" "\{tls-port\}" \
                      "\{config-file\}" "title\}" "\{\{title\}\}"]
        foreach v $good {
            assert_equal OK [r config set proc-title-template $v] "template '$v'"
            assert_equal $v [cget proc-title-template]
        }
        set bad [list "\{title\}" "" "\{server-mode\}" "\{unixsocket\}" "\{title" "\{ title\}" \
                     "\{TITLE\} x" " " "   \{title\}  "]
        foreach v $bad {
            assert_error {ERR CONFIG SET failed (possibly related to argument 'proc-title-template') - template format is invalid or contains unknown variables} [list r config set proc-title-template $v]
        }
        assert_equal OK [r config set proc-title-template "\{title\} \{listen-addr\} \{server-mode\}"]
    }

    test "SLOWLOG shows CONFIG SET values of secrets as (redacted)" {
        r config set slowlog-log-slower-than 0
        r slowlog reset
        r config set masterauth m1 masteruser u1 tls-key-file-pass t1
        r config set requirepass {}
        r config set slowlog-log-slower-than 10000
        set logged {}
        foreach e [r slowlog get] { lappend logged [lindex $e 3] }
        assert_match {*{config set masterauth (redacted) masteruser (redacted) tls-key-file-pass t1}*} $logged
        assert_match {*{config set requirepass (redacted)}*} $logged
        r config set masterauth {} masteruser {} tls-key-file-pass {}
    }
}

start_server {tags {config} overrides {slaveof {127.0.0.1 1} repl-ping-slave-period 3}} {
    test "replicaof in the config file is remembered and makes the server a replica" {
        assert_equal {replicaof {127.0.0.1 1}} [r config get replicaof]
        assert_equal 3 [cget repl-ping-replica-period]
        # As redis-server 7.0.15: a replica whose master cannot be reached.
        assert_equal slave [server_info role]
        assert_equal down [server_info master_link_status]
    }
}

# Keel-only: what disable-thp and jemalloc-bg-thread do to the process, read from /proc.
proc anon_huge_kb {pid} {
    set f [open /proc/$pid/smaps_rollup]
    set text [read $f]
    close $f
    regexp {AnonHugePages:\s+(\d+) kB} $text -> kb
    return $kb
}
proc thread_count {pid} { llength [glob -nocomplain /proc/$pid/task/*] }
proc thp_mode {} {
    if {[catch {open /sys/kernel/mm/transparent_hugepage/enabled} f]} { return never }
    set text [read $f]
    close $f
    regexp {\[(\w+)\]} $text -> mode
    return $mode
}

start_server {tags {config}} {
    test "disable-thp yes (the default): a big key table asks for no huge pages" {
        if {![is_keel] || ![file readable /proc/[srv pid]/smaps_rollup]} { skip_test "Keel on Linux" }
        assert_equal {disable-thp yes} [r config get disable-thp]
        r debug populate 600000
        assert_equal 0 [anon_huge_kb [srv pid]]
        r flushall
    }

    test "jemalloc-bg-thread starts and stops jemalloc's background thread" {
        if {![is_keel] || ![string match jemalloc* [server_info mem_allocator]]} { skip_test "Keel with jemalloc" }
        assert_equal {jemalloc-bg-thread yes} [r config get jemalloc-bg-thread]
        set with [thread_count [srv pid]]
        assert_equal OK [r config set jemalloc-bg-thread no]
        wait_for_condition 50 20 {[thread_count [srv pid]] == $with - 1} {
            fail "the background thread did not stop ([thread_count [srv pid]] threads, $with before)"
        }
        assert_equal OK [r config set jemalloc-bg-thread yes]
        wait_for_condition 50 20 {[thread_count [srv pid]] == $with} {
            fail "the background thread did not start again"
        }
    }
}

start_server {tags {config} overrides {disable-thp no jemalloc-bg-thread no}} {
    test "disable-thp no: a key table of 4 MB or more asks for huge pages" {
        if {![is_keel] || ![file readable /proc/[srv pid]/smaps_rollup]} { skip_test "Keel on Linux" }
        if {[thp_mode] eq "never"} { skip_test "transparent huge pages are off in this kernel" }
        r debug populate 600000
        # The kernel may have no free huge page to give; then the test says nothing.
        if {[anon_huge_kb [srv pid]] == 0} { skip_test "the kernel handed out no huge page" }
        r flushall
    }

    test "jemalloc-bg-thread no at start-up: no background thread until it is set" {
        if {![is_keel] || ![string match jemalloc* [server_info mem_allocator]]} { skip_test "Keel with jemalloc" }
        set without [thread_count [srv pid]]
        assert_equal OK [r config set jemalloc-bg-thread yes]
        wait_for_condition 50 20 {[thread_count [srv pid]] == $without + 1} {
            fail "the background thread did not start"
        }
    }
}
