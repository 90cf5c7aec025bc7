# Server-wide commands: DEBUG (the test hooks), FLUSHDB, FLUSHALL, SWAPDB, DBSIZE, TIME,
# LASTSAVE and SHUTDOWN. Expected replies were checked against redis-server 7.0.

tags {other} {

test "DEBUG POPULATE creates key:N with value:N" {
    r flushall
    assert_equal OK [r debug populate 5]
    assert_equal 5 [r dbsize]
    assert_equal value:0 [r get key:0]
    assert_equal value:4 [r get key:4]
    assert_equal {} [r get key:5]
}

test "DEBUG POPULATE with prefix and size pads with zero bytes or truncates" {
    r flushall
    r debug populate 2 foo 10
    assert_equal "value:0\x00\x00\x00" [r get foo:0]
    assert_equal 10 [r strlen foo:1]
    r debug populate 1 cut 3
    assert_equal val [r get cut:0]
    r debug populate 1 zero 0
    assert_equal value:0 [r get zero:0]
}

test "DEBUG POPULATE leaves existing keys untouched" {
    r flushall
    r set key:1 mine
    r debug populate 3
    assert_equal mine [r get key:1]
    assert_equal value:2 [r get key:2]
    assert_equal 3 [r dbsize]
    assert_equal OK [r debug populate 0]
    assert_equal 3 [r dbsize]
}

test "DEBUG POPULATE argument errors" {
    assert_error {ERR value is out of range, must be positive} {r debug populate x}
    assert_error {ERR value is out of range, must be positive} {r debug populate -1}
    assert_error {ERR value is out of range, must be positive} {r debug populate 1 a -1}
    assert_error {ERR value is out of range, must be positive} {r debug populate 1 a x}
    assert_error {ERR unknown subcommand or wrong number of arguments for 'populate'*} {r debug populate}
    assert_error {ERR unknown subcommand or wrong number of arguments for 'populate'*} {r debug populate 1 a 1 extra}
}

test "DEBUG OBJECT reports the encoding and serialized length" {
    r flushall
    r set s value:0
    r set n 12345
    r set neg -5
    assert_match {Value at:0x* refcount:1 encoding:embstr serializedlength:8 lru:* lru_seconds_idle:*} [r debug object s]
    assert_match {* encoding:int serializedlength:3 *} [r debug object n]
    assert_match {* encoding:int serializedlength:2 *} [r debug object neg]
    r set big [string repeat x 100]
    assert_match {* encoding:raw *} [r debug object big]
    assert_error {ERR no such key} {r debug object nokey}
    assert_error {ERR unknown subcommand or wrong number of arguments for 'object'*} {r debug object}
}

test "DEBUG SLEEP blocks for the given time, decimals allowed" {
    set t0 [clock milliseconds]
    assert_equal OK [r debug sleep 0.2]
    assert_morethan_equal [expr {[clock milliseconds] - $t0}] 190
    # Redis reads the delay with strtod: garbage sleeps zero seconds.
    assert_equal OK [r debug sleep 0]
    assert_equal OK [r debug sleep abc]
}

test "DEBUG SET-ACTIVE-EXPIRE 0 keeps expired keys until they are touched" {
    r flushall
    r debug set-active-expire 0
    r set k v px 50
    after 250
    # The key is still counted (no background expiry) but is gone when read.
    assert_equal 1 [r dbsize]
    assert_equal {} [r get k]
    assert_equal 0 [r dbsize]
    r debug set-active-expire 1
    r set k2 v px 50
    wait_for_condition 100 20 {[r dbsize] == 0} {
        fail "active expiry did not remove the key"
    }
}

test "DEBUG KEYSIZES-CHECK and KEYSIZES-HIST-ASSERT" {
    if {![is_keel]} { skip_test "Keel only" }
    r flushall
    r debug populate 100
    r set s [string repeat x 300]
    assert_equal OK [r debug keysizes-check]
    assert_equal OK [r debug keysizes-hist-assert 1]
    r append s more
    r del s key:1
    r flushdb
    assert_equal OK [r debug keysizes-hist-assert 0]
    assert_equal OK [r debug keysizes-check]
}

test "DEBUG RELOAD saves and loads back; its options are checked" {
    r set reload-key v
    assert_equal OK [r debug reload]
    assert_equal v [r get reload-key]
    assert_error {ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.} {r debug reload bogus}
}

test "DEBUG HELP, unknown subcommands and arity" {
    set help [r debug help]
    assert_match {DEBUG <subcommand>*} [lindex $help 0]
    assert_match *POPULATE* $help
    if {[is_keel]} { assert_match *KEYSIZES-CHECK* $help }
    assert_error {ERR unknown subcommand or wrong number of arguments for 'nosuch'. Try DEBUG HELP.} {r debug nosuch}
    assert_error {ERR unknown subcommand or wrong number of arguments for 'sleep'*} {r debug sleep}
    assert_error {ERR wrong number of arguments for 'debug' command} {r debug}
}

test "DBSIZE counts the keys of the selected db only" {
    r flushall
    r set a 1
    r set b 2
    assert_equal 2 [r dbsize]
    r select 9
    assert_equal 0 [r dbsize]
    r set c 3
    assert_equal 1 [r dbsize]
    r select 0
    assert_equal 2 [r dbsize]
    assert_error {*wrong number of arguments for 'dbsize' command} {r dbsize x}
}

test "FLUSHDB empties only the selected db" {
    r flushall
    r set a 1
    r select 9
    r set b 2
    assert_equal OK [r flushdb]
    assert_equal 0 [r dbsize]
    r select 0
    assert_equal 1 [r dbsize]
    assert_equal OK [r flushdb sync]
    assert_equal 0 [r dbsize]
    r set a 1
    assert_equal OK [r flushdb ASYNC]
    assert_equal 0 [r dbsize]
}

test "FLUSHALL empties every db" {
    r set a 1
    r select 9
    r set b 2
    assert_equal OK [r flushall]
    assert_equal 0 [r dbsize]
    r select 0
    assert_equal 0 [r dbsize]
    r set a 1
    assert_equal OK [r flushall async]
    assert_equal 0 [r dbsize]
    assert_equal {} [string trim [r info keyspace] "# Keyspace\r\n"]
}

test "FLUSHDB / FLUSHALL syntax errors" {
    r set a 1
    assert_error {ERR syntax error} {r flushall foo}
    assert_error {ERR syntax error} {r flushdb sync async}
    assert_error {ERR syntax error} {r flushdb foo}
    # Nothing was flushed by the failed calls.
    assert_equal 1 [r dbsize]
}

test "SWAPDB exchanges the contents of two dbs" {
    r flushall
    r set a 1
    r select 1
    r set b 2
    r set c 3
    assert_equal OK [r swapdb 0 1]
    assert_equal 1 [r dbsize]
    assert_equal 1 [r get a]
    r select 0
    assert_equal 2 [r dbsize]
    assert_equal 2 [r get b]
    assert_equal OK [r swapdb 0 0]
    assert_equal 2 [r dbsize]
    if {[is_keel]} { assert_equal OK [r debug keysizes-check] }
}

test "SWAPDB keeps TTLs with the keys" {
    r flushall
    r set t v ex 100
    r swapdb 0 5
    r select 5
    assert_range [r ttl t] 90 100
    r select 0
    assert_match {*db5:keys=1,expires=1*} [r info keyspace]
}

test "SWAPDB errors" {
    assert_error {ERR invalid first DB index} {r swapdb x 0}
    assert_error {ERR invalid second DB index} {r swapdb 0 x}
    assert_error {ERR DB index is out of range} {r swapdb 0 16}
    assert_error {ERR DB index is out of range} {r swapdb -1 0}
    assert_error {*wrong number of arguments for 'swapdb' command} {r swapdb 0}
}

test "TIME returns seconds and microseconds as strings" {
    set t [r time]
    assert_equal 2 [llength $t]
    lassign $t sec usec
    assert_range $sec [expr {[clock seconds] - 2}] [expr {[clock seconds] + 2}]
    assert_range $usec 0 999999
    assert_error {*wrong number of arguments for 'time' command} {r time x}
}

test "LASTSAVE returns a unix time" {
    assert_range [r lastsave] 1600000000 [expr {[clock seconds] + 1}]
    assert_error {*wrong number of arguments for 'lastsave' command} {r lastsave x}
}

test "SHUTDOWN argument errors do not stop the server" {
    assert_error {ERR syntax error} {r shutdown foo}
    assert_error {ERR syntax error} {r shutdown save nosave}
    assert_error {ERR syntax error} {r shutdown abort now}
    assert_error {ERR No shutdown in progress.} {r shutdown abort}
    assert_equal PONG [r ping]
}

}

start_server {tags {other}} {
    test "SHUTDOWN SAVE fails when the snapshot cannot be written, and the server stays up" {
        # A directory where the temporary file would go: the save cannot open it.
        set blocker [file join [srv dir] temp-[srv pid].rdb]
        file mkdir $blocker
        assert_error {ERR Errors trying to SHUTDOWN. Check logs.} {r shutdown save}
        assert_equal PONG [r ping]
        file delete $blocker
    }

    test "SHUTDOWN NOSAVE stops the server" {
        set pid [srv pid]
        catch {r shutdown nosave}
        wait_for_condition 100 20 {![::keel::process_alive $pid]} {
            fail "server still running after SHUTDOWN NOSAVE"
        }
    }
}

start_server {overrides {enable-debug-command no} tags {other}} {
    test "DEBUG is refused when enable-debug-command is no" {
        assert_error {ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.} {r debug populate 1}
        assert_equal PONG [r ping]
    }
    test "DEBUG inside MULTI is refused at admission when enable-debug-command is no" {
        # Redis 7.0.15: never queued, EXEC answers EXECABORT.
        r multi
        assert_error {ERR DEBUG command not allowed.*} {r debug sleep 0}
        assert_error {EXECABORT Transaction discarded because of previous errors.} {r exec}
    }
    # The runner's closing DEBUG KEYSIZES-CHECK would be refused here as well.
    kill_server -kill
}

start_server {overrides {enable-debug-command local} tags {other}} {
    test "DEBUG is allowed from a local connection with enable-debug-command local" {
        assert_equal OK [r debug populate 1]
    }
}

# Found by tests/fuzz/cmdfuzz.py: Redis prints the name and each argument with printf "%.*s",
# so each stops at a NUL byte; the 128-byte budget is counted before the opening quote.
test "Unknown command error: NUL bytes end the name and the arguments" {
    assert_error "ERR unknown command 'foo', with args beginning with: 'a' 'b' " {r "foo\x00bar" "a\x00x" b}
    set long [string repeat x 200]
    assert_error "ERR unknown command 'foo', with args beginning with: '[string repeat x 128]' " {r foo $long z}
    assert_error "ERR unknown command 'foo', with args beginning with: 'ab' '[string repeat x 123]' " {r foo ab $long}
}
