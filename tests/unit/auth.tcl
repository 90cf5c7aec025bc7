# AUTH, HELLO AUTH and requirepass: which commands an unauthenticated client may run, the error
# texts, RESET de-authenticating. The server starts without a password (so the runner's own
# clients work) and each test sets requirepass through CONFIG SET; connections that existed
# before stay authenticated, as in Redis. Replies were checked against redis-server 7.0.

tags {auth} {

test "AUTH without a configured password" {
    assert_error {ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?} {r auth foo}
    # The default user has no password: AUTH default <anything> succeeds.
    assert_equal OK [r auth default whatever]
    assert_error {WRONGPASS invalid username-password pair or user is disabled.} {r auth nosuchuser foo}
    assert_error {ERR syntax error} {r auth a b c}
    assert_error {*wrong number of arguments for 'auth' command} {r auth}
}

r config set requirepass foobar

test "Commands need AUTH when requirepass is set" {
    set c [redis_client]
    assert_error {NOAUTH Authentication required.} {$c ping}
    assert_error {NOAUTH Authentication required.} {$c set a b}
    assert_error {NOAUTH Authentication required.} {$c client id}
    # Unknown commands and wrong arity are reported before authentication, as Redis does.
    assert_error {ERR unknown command*} {$c nosuchcommand}
    assert_error {*wrong number of arguments for 'get' command} {$c get}
    $c close
}

test "AUTH fails with a wrong password and succeeds with the right one" {
    set c [redis_client]
    assert_error {WRONGPASS invalid username-password pair or user is disabled.} {$c auth wrong}
    assert_error {NOAUTH Authentication required.} {$c ping}
    assert_equal OK [$c auth foobar]
    assert_equal PONG [$c ping]
    # A failed AUTH later does not log the client out.
    assert_error {WRONGPASS*} {$c auth wrong}
    assert_equal PONG [$c ping]
    $c close
}

test "AUTH with the default user name" {
    set c [redis_client]
    assert_error {WRONGPASS*} {$c auth default wrong}
    assert_error {WRONGPASS*} {$c auth otheruser foobar}
    assert_equal OK [$c auth default foobar]
    assert_equal PONG [$c ping]
    $c close
}

test "HELLO needs authentication unless it carries AUTH" {
    set c [redis_client]
    assert_error {NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO*AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time} {$c hello 3}
    assert_error {WRONGPASS*} {$c hello 2 auth default wrong}
    set h [$c hello 2 auth default foobar setname authed]
    assert_equal 2 [dict get $h proto]
    assert_equal authed [$c client getname]
    assert_equal PONG [$c ping]
    $c close
}

test "QUIT, RESET and AUTH work before authentication; RESET logs the client out" {
    set c [redis_client]
    assert_equal RESET [$c reset]
    assert_equal OK [$c auth foobar]
    assert_equal PONG [$c ping]
    assert_equal RESET [$c reset]
    assert_error {NOAUTH Authentication required.} {$c ping}
    assert_equal OK [$c quit]
    $c close
}

test "Unauthenticated errors are counted in errorstats" {
    r config resetstat
    set c [redis_client]
    catch {$c ping}
    catch {$c auth wrong}
    $c close
    set d [info_dict [r info errorstats]]
    assert_equal count=1 [dict get $d errorstat_NOAUTH]
    assert_equal count=1 [dict get $d errorstat_WRONGPASS]
}

test "Clients authenticated before requirepass changes stay authenticated" {
    set c [redis_client]
    $c auth foobar
    r config set requirepass newpass
    assert_equal PONG [$c ping]
    set c2 [redis_client]
    assert_error {WRONGPASS*} {$c2 auth foobar}
    assert_equal OK [$c2 auth newpass]
    $c close
    $c2 close
    r config set requirepass foobar
}

r config set requirepass ""

test "Clearing requirepass lets new clients in without AUTH" {
    set c [redis_client]
    assert_equal PONG [$c ping]
    $c close
}

}
