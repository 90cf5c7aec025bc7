# Transactions: MULTI EXEC DISCARD WATCH UNWATCH. Expected replies were checked against
# redis-server 7.0 (same semantics as 7.4 for everything here).

# A second connection for "another client" changes.
set other [redis_client]

proc exec_ping {} {
    # A transaction whose outcome only depends on the watched keys.
    r multi
    r ping
    r exec
}

test "MULTI / EXEC basics" {
    r del mylist
    r set foo bar
    assert_equal OK [r multi]
    assert_equal QUEUED [r set foo baz]
    assert_equal QUEUED [r get foo]
    assert_equal QUEUED [r ping]
    assert_equal {OK baz PONG} [r exec]
    assert_equal baz [r get foo]
}

test "Commands are not run before EXEC" {
    r set k 1
    r multi
    r incr k
    assert_equal 1 [$other get k]
    assert_equal 2 [r exec]
}

test "EXEC of an empty transaction" {
    r multi
    assert_equal {} [r exec]
}

test "Raw replies: QUEUED and the EXEC array" {
    set c [redis_client]
    $c readraw 1
    assert_equal +OK [$c multi]
    assert_equal +QUEUED [$c set raw 1]
    assert_equal +QUEUED [$c incr raw]
    assert_equal *2 [$c exec]
    assert_equal +OK [$c read]
    assert_equal :2 [$c read]
    $c close
}

test "DISCARD drops the queue" {
    r set foo bar
    r multi
    r set foo changed
    r set other x
    assert_equal OK [r discard]
    assert_equal bar [r get foo]
    assert_equal 0 [r exists other]
    # The session is out of MULTI again.
    assert_equal PONG [r ping]
}

test "EXEC / DISCARD without MULTI" {
    assert_error {ERR EXEC without MULTI} {r exec}
    assert_error {ERR DISCARD without MULTI} {r discard}
}

test "Nested MULTI is an error that does not abort the transaction" {
    r del x
    r multi
    assert_error {ERR MULTI calls can not be nested} {r multi}
    r set x 1
    assert_equal {OK} [r exec]
    assert_equal 1 [r get x]
}

test "WATCH inside MULTI is an error that does not abort the transaction" {
    r multi
    assert_error {ERR WATCH inside MULTI is not allowed} {r watch x}
    r ping
    assert_equal {PONG} [r exec]
}

test "EXECABORT after an unknown command" {
    r set x before
    r multi
    r set x after
    assert_error {ERR unknown command 'nosuchcmd', with args beginning with: 'a' } {r nosuchcmd a}
    assert_error {EXECABORT Transaction discarded because of previous errors.} {r exec}
    assert_equal before [r get x]
    # The transaction is over.
    assert_error {ERR EXEC without MULTI} {r exec}
}

test "EXECABORT after a wrong arity" {
    r set x before
    r multi
    r set x after
    assert_error {ERR wrong number of arguments for 'get' command} {r get a b}
    assert_error {EXECABORT*previous errors*} {r exec}
    assert_equal before [r get x]
}

test "EXECABORT after an unknown subcommand" {
    r multi
    assert_error {ERR unknown subcommand 'nosuch'. Try CONFIG HELP.} {r config nosuch}
    assert_error {EXECABORT*} {r exec}
}

test "EXEC with wrong arity inside MULTI discards at once" {
    r set x before
    r multi
    r set x after
    assert_error {EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command} {r exec extra}
    assert_error {ERR EXEC without MULTI} {r exec}
    assert_equal before [r get x]
}

test "DISCARD with wrong arity inside MULTI flags the transaction" {
    r multi
    assert_error {ERR wrong number of arguments for 'discard' command} {r discard extra}
    assert_error {EXECABORT*} {r exec}
}

test "MULTI with wrong arity inside MULTI flags the transaction" {
    r multi
    assert_error {ERR wrong number of arguments for 'multi' command} {r multi extra}
    assert_error {EXECABORT*} {r exec}
}

test "A no_multi command inside MULTI is rejected and aborts" {
    r multi
    assert_error {ERR Command not allowed inside a transaction} {r shutdown}
    assert_error {EXECABORT*} {r exec}
}

test "Runtime errors inside EXEC do not roll back" {
    r del a b
    r set n notanumber
    r multi
    r set a 1
    r incr n
    r set c 1 ex 0
    r set b 2
    set res [r exec]
    assert_equal 4 [llength $res]
    assert_equal OK [lindex $res 0]
    assert_match {ERR value is not an integer or out of range} [lindex $res 1]
    assert_equal {ERR invalid expire time in 'set' command} [lindex $res 2]
    assert_equal OK [lindex $res 3]
    assert_equal {1 2 notanumber {}} [r mget a b n c]
}

test "Queued commands are validated for arity but not for type" {
    r set s str
    r multi
    assert_equal QUEUED [r incr s]
    set res [r exec]
    assert_match {ERR value is not an integer*} [lindex $res 0]
}

test "Queued arguments are copied (pipelined with binary and large values)" {
    set big [string repeat x 100000]
    set bin "a\x00b\r\nc"
    set c [redis_deferring_client]
    # One write holding the whole transaction, so the query buffer is reused under the queue.
    $c write "*1\r\n\$5\r\nMULTI\r\n*3\r\n\$3\r\nSET\r\n\$3\r\nbig\r\n\$[string length $big]\r\n$big\r\n*3\r\n\$3\r\nSET\r\n\$3\r\nbin\r\n\$[string length $bin]\r\n$bin\r\n*2\r\n\$3\r\nGET\r\n\$3\r\nbin\r\n*1\r\n\$4\r\nEXEC\r\n"
    assert_equal OK [$c read]
    assert_equal QUEUED [$c read]
    assert_equal QUEUED [$c read]
    assert_equal QUEUED [$c read]
    assert_equal [list OK OK $bin] [$c read]
    $c close
    assert_equal $big [r get big]
    assert_equal $bin [r get bin]
}

test "Pipelined MULTI ... EXEC in one write" {
    r del cnt
    set c [redis_deferring_client]
    set payload "MULTI\r\n"
    for {set i 0} {$i < 100} {incr i} { append payload "INCR cnt\r\n" }
    append payload "EXEC\r\nGET cnt\r\n"
    $c write $payload
    assert_equal OK [$c read]
    for {set i 0} {$i < 100} {incr i} { assert_equal QUEUED [$c read] }
    set res [$c read]
    assert_equal 100 [llength $res]
    assert_equal 1 [lindex $res 0]
    assert_equal 100 [lindex $res end]
    assert_equal 100 [$c read]
    $c close
}

test "A very large transaction (10000 queued commands)" {
    r del biglist cnt
    set c [redis_deferring_client]
    set payload "MULTI\r\n"
    for {set i 0} {$i < 10000} {incr i} { append payload "SET k:$i v$i\r\n" }
    append payload "EXEC\r\n"
    $c write $payload
    assert_equal OK [$c read]
    for {set i 0} {$i < 10000} {incr i} { $c read }
    set res [$c read]
    assert_equal 10000 [llength $res]
    assert_equal OK [lindex $res 9999]
    $c close
    assert_equal v0 [r get k:0]
    assert_equal v9999 [r get k:9999]
    assert_equal 10000 [llength [r keys k:*]]
}

test "MULTI with SELECT inside" {
    r select 9
    r del x
    r select 0
    r set x db0
    r multi
    r select 9
    r set x db9
    r get x
    assert_equal {OK OK db9} [r exec]
    # SELECT inside EXEC sticks for the connection.
    assert_equal db9 [r get x]
    r select 0
    assert_equal db0 [r get x]
}

test "EXEC reply in RESP3, including the null reply of a failed WATCH" {
    set c [redis_client -resp 3]
    $c readraw 1
    $c set r3 1
    $c multi
    $c incr r3
    $c exists r3
    assert_equal *2 [$c exec]
    assert_equal :2 [$c read]
    assert_equal :1 [$c read]
    $c watch r3
    r set r3 changed
    $c multi
    $c ping
    assert_equal _ [$c exec]
    $c close
}

test "Null array reply in RESP2 for a failed WATCH" {
    set c [redis_client]
    $c readraw 1
    $c set w2 1
    $c watch w2
    r set w2 2
    $c multi
    $c ping
    assert_equal *-1 [$c exec]
    $c close
}

test "RESET inside MULTI discards the queue and the watches" {
    set c [redis_client]
    $c set rk 1
    $c watch rk
    $c multi
    $c set rk 2
    assert_equal RESET [$c reset]
    assert_equal 1 [$c get rk]
    assert_error {ERR EXEC without MULTI} {$c exec}
    # The watch is gone too: a change to rk no longer fails a transaction.
    r set rk 3
    $c multi
    $c ping
    assert_equal PONG [$c exec]
    $c close
}

test "QUIT inside MULTI is not queued" {
    set c [redis_client]
    $c multi
    assert_equal OK [$c quit]
    $c close
}

test "UNWATCH is queued inside MULTI" {
    r multi
    assert_equal QUEUED [r unwatch]
    assert_equal OK [r exec]
}

# ---- WATCH ------------------------------------------------------------------------------------

test "EXEC after WATCH with no change succeeds" {
    r set x 30
    r watch x
    r multi
    r ping
    assert_equal PONG [r exec]
}

test "EXEC fails when a watched key is modified by another client" {
    r set x 30
    r watch x
    $other set x 40
    assert_equal {} [exec_ping]
}

foreach {name setup change} {
    SET       {r set x 1}              {$other set x 2}
    SET-same  {r set x 1}              {$other set x 1}
    DEL       {r set x 1}              {$other del x}
    EXPIRE    {r set x 1}              {$other expire x 100}
    PEXPIRE-past {r set x 1}           {$other pexpire x -1}
    RENAME-onto {r set x 1; r set y 2} {$other rename y x}
    RENAME-away {r set x 1}            {$other rename x z}
    INCR      {r set x 1}              {$other incr x}
    APPEND    {r set x 1}              {$other append x 2}
    FLUSHDB   {r set x 1}              {$other flushdb}
    FLUSHALL  {r set x 1}              {$other flushall}
    SWAPDB    {r set x 1}              {$other swapdb 0 1}
    create    {r del x}                {$other set x 1}
    MOVE-in   {r del x; r select 1; r set x 5; r select 0} {$other select 1; $other move x 0; $other select 0}
} {
    test "WATCH is invalidated by $name" {
        r flushall
        eval $setup
        r watch x
        eval $change
        assert_equal {} [exec_ping]
    }
}

foreach {name setup change} {
    GET              {r set x 1}  {$other get x}
    EXISTS           {r set x 1}  {$other exists x}
    PERSIST-no-ttl   {r set x 1}  {$other persist x}
    DEL-missing      {r del x}    {$other del x}
    other-key        {r set x 1}  {$other set y 1}
    FLUSHDB-missing  {r del x}    {$other flushdb}
    FLUSHDB-otherdb  {r set x 1}  {$other select 1; $other flushdb; $other select 0}
    SWAPDB-both-missing {r del x} {$other select 1; $other set y 1; $other select 0; $other swapdb 0 1}
    SWAPDB-same-db   {r set x 1}  {$other swapdb 0 0}
    same-name-otherdb {r set x 1} {$other select 1; $other set x 2; $other select 0}
} {
    test "WATCH is not invalidated by $name" {
        r flushall
        eval $setup
        r watch x
        eval $change
        assert_equal PONG [exec_ping]
    }
}

test "WATCH of a missing key is invalidated by SWAPDB bringing it in" {
    r flushall
    r select 1
    r set x 1
    r select 0
    r watch x
    $other swapdb 0 1
    assert_equal {} [exec_ping]
}

test "WATCH is invalidated by a change between MULTI and EXEC" {
    r set x 1
    r watch x
    r multi
    r ping
    $other set x 2
    assert_equal {} [r exec]
}

test "The session's own write to a watched key invalidates it" {
    r set x 1
    r watch x
    r set x 2
    assert_equal {} [exec_ping]
}

test "Writes queued inside the transaction do not invalidate it" {
    r set x 1
    r watch x
    r multi
    r set x 2
    assert_equal OK [r exec]
    assert_equal 2 [r get x]
}

test "WATCH of several keys, one changes" {
    r mset a 1 b 2 c 3
    r watch a b
    r watch c
    $other set c 4
    assert_equal {} [exec_ping]
}

test "WATCH the same key twice" {
    r set x 1
    r watch x x
    r watch x
    $other set x 2
    assert_equal {} [exec_ping]
    # Everything is unwatched after EXEC.
    $other set x 3
    assert_equal PONG [exec_ping]
}

test "UNWATCH forgets the keys" {
    r set x 1
    r watch x
    assert_equal OK [r unwatch]
    $other set x 2
    assert_equal PONG [exec_ping]
}

test "UNWATCH clears an already failed WATCH" {
    r set x 1
    r watch x
    $other set x 2
    r unwatch
    assert_equal PONG [exec_ping]
}

test "A queued UNWATCH does not save a failed WATCH" {
    r set x 1
    r watch x
    $other set x 2
    r multi
    r unwatch
    assert_equal {} [r exec]
}

test "A failed WATCH stays failed when more keys are watched" {
    r set x 1
    r watch x
    $other set x 2
    r watch y
    assert_equal {} [exec_ping]
}

test "DISCARD unwatches" {
    r set x 1
    r watch x
    r multi
    r ping
    r discard
    $other set x 2
    assert_equal PONG [exec_ping]
}

test "EXECABORT unwatches" {
    r set x 1
    r watch x
    r multi
    catch {r nosuchcommand}
    catch {r exec}
    $other set x 2
    assert_equal PONG [exec_ping]
}

test "EXECABORT wins over a failed WATCH" {
    r set x 1
    r watch x
    $other set x 2
    r multi
    catch {r nosuchcommand}
    assert_error {EXECABORT*} {r exec}
}

test "WATCH across databases" {
    r select 3
    r set x db3
    r watch x
    r select 0
    # The same name in another db is another key.
    $other set x other
    r multi
    r ping
    assert_equal PONG [r exec]
    r select 3
    r watch x
    r select 0
    $other select 3
    $other set x changed
    $other select 0
    assert_equal {} [exec_ping]
}

test "WATCH is invalidated by the expiry of the watched key" {
    r flushall
    r set x 1 px 30
    r watch x
    after 60
    # Nobody touched the key: EXEC itself finds it expired.
    assert_equal {} [exec_ping]
}

test "WATCH is invalidated when the expired watched key is deleted by an access" {
    r set x 1 px 30
    r watch x
    after 60
    assert_equal {} [$other get x]
    assert_equal {} [exec_ping]
}

test "WATCH of an already expired key" {
    r debug set-active-expire 0
    r set x 1 px 1
    after 10
    r watch x
    assert_equal PONG [exec_ping]
    # Its deletion by an access is no logical change ...
    r set x 1 px 1
    after 10
    r watch x
    assert_equal {} [$other get x]
    assert_equal PONG [exec_ping]
    # ... nor is its deletion by FLUSHDB ...
    r set x 1 px 1
    after 10
    r watch x
    $other flushdb
    assert_equal PONG [exec_ping]
    # ... but writing it is.
    r set x 1 px 1
    after 10
    r watch x
    $other set x 2
    assert_equal {} [exec_ping]
    r debug set-active-expire 1
}

test "WATCH of a missing key, SWAPDB brings in an expired one" {
    r flushall
    r debug set-active-expire 0
    r select 1
    r set x 1 px 1
    r select 0
    after 10
    r watch x
    $other swapdb 0 1
    assert_equal PONG [exec_ping]
    r debug set-active-expire 1
    r flushall
}

test "WATCH race between two clients" {
    r set counter 0
    set c1 [redis_deferring_client]
    set c2 [redis_deferring_client]
    foreach c [list $c1 $c2] { $c watch counter; $c read }
    foreach c [list $c1 $c2] { $c get counter; $c read }
    foreach c [list $c1 $c2] { $c multi; $c read }
    foreach c [list $c1 $c2] { $c set counter 1; $c read }
    # One EXEC after the other: two connections' writes in one loop iteration may run in
    # either order, and the test is about the second one seeing the first one's change.
    $c1 exec
    assert_equal {OK} [$c1 read]
    $c2 exec
    assert_equal {} [$c2 read]
    $c1 close
    $c2 close
    assert_equal 1 [r get counter]
}

test "Optimistic increment loop with WATCH converges" {
    r set cas 0
    set c1 [redis_client]
    set c2 [redis_client]
    set done 0
    for {set i 0} {$i < 20} {incr i} {
        foreach c [list $c1 $c2] {
            while 1 {
                $c watch cas
                set v [$c get cas]
                $c multi
                $c set cas [expr {$v + 1}]
                if {[$c exec] ne {}} break
            }
        }
    }
    $c1 close
    $c2 close
    assert_equal 40 [r get cas]
}

test "Disconnect of a watching client forgets its watches" {
    set c [redis_client]
    $c set dk 1
    $c watch dk a1 a2
    # watch= is a Redis 7.4 CLIENT LIST field (absent from the 7.0 reference).
    assert_match {*watch=3*} [$c client info]
    $c close
    # The server stays healthy and other transactions are unaffected.
    r set dk 2
    assert_equal PONG [exec_ping]
}

test "CLIENT LIST shows multi= and the x flag" {
    set c [redis_client]
    set id [$c client id]
    assert_match {*flags=N*multi=-1*} [$c client info]
    $c multi
    $c ping
    $c ping
    assert_match {*flags=x*multi=2*} [r client list id $id]
    assert_equal {PONG PONG} [$c exec]
    assert_match {*flags=N*multi=-1*} [r client list id $id]
    $c close
}

test "Wrong arity of WATCH" {
    assert_error {ERR wrong number of arguments for 'watch' command} {r watch}
    assert_error {ERR wrong number of arguments for 'unwatch' command} {r unwatch x}
}

test "Commandstats: EXEC and each executed command count, queued ones only when run" {
    r config resetstat
    r set n str
    r multi
    r incr n
    r set a 1
    r exec
    r multi
    catch {r get}
    catch {r exec}
    catch {r exec}
    set info [r info commandstats]
    assert_match {*cmdstat_exec:calls=3,*rejected_calls=0,failed_calls=2*} $info
    assert_match {*cmdstat_incr:calls=1,*rejected_calls=0,failed_calls=1*} $info
    assert_match {*cmdstat_set:calls=2,*rejected_calls=0,failed_calls=0*} $info
    assert_match {*cmdstat_get:calls=0,*rejected_calls=1,failed_calls=0*} $info
    assert_match {*cmdstat_multi:calls=2,*} $info
}

test "Keyspace events inside EXEC are the same as outside" {
    r config set notify-keyspace-events KEA
    set sub [redis_deferring_client]
    $sub psubscribe __keyevent@0__:*
    $sub read
    r del ev
    r multi
    r set ev 1
    r incr ev
    r del ev
    r exec
    assert_equal {pmessage __keyevent@0__:* __keyevent@0__:set ev} [$sub read]
    assert_equal {pmessage __keyevent@0__:* __keyevent@0__:incrby ev} [$sub read]
    assert_equal {pmessage __keyevent@0__:* __keyevent@0__:del ev} [$sub read]
    $sub close
    r config set notify-keyspace-events ""
}

$other close

# Found by tests/fuzz/cmdfuzz.py: Redis answers every rejected EXEC (arity, NOAUTH, subscribed
# context...) with EXECABORT and discards the transaction state, even outside MULTI.
test "A rejected EXEC answers EXECABORT even outside MULTI, and forgets the watched keys" {
    set c [redis_client]
    assert_error {EXECABORT Transaction discarded because of: wrong number of arguments for 'exec' command} {$c exec x}
    $c del wk
    $c watch wk
    assert_error {EXECABORT*} {$c exec x}
    r set wk changed
    $c multi
    $c ping
    # The watch was dropped by the rejected EXEC: the transaction runs.
    assert_equal {PONG} [$c exec]
    $c close
}

test "EXEC in the RESP2 subscribed context answers EXECABORT" {
    set c [redis_client]
    $c subscribe ch
    catch {$c exec} e
    assert_match {EXECABORT Transaction discarded because of: Can't execute 'exec': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context} $e
    catch {$c multi} e
    assert_match {ERR Can't execute 'multi'*} $e
    $c close
}

# Found by tests/fuzz/cmdfuzz.py: Redis checks the RESP2 subscribed context when a command
# arrives, not when EXEC runs the queue.
test "Commands queued after SUBSCRIBE still run in EXEC" {
    set c [redis_client]
    r del ql
    $c multi
    $c subscribe ch1
    $c publish ch2 x
    $c lpush ql a
    assert_equal {{subscribe ch1 1} 0 1} [$c exec]
    assert_equal 1 [r llen ql]
    $c close
}

