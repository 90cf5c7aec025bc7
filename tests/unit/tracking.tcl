# Client-side caching: CLIENT TRACKING / CACHING / GETREDIR / TRACKINGINFO, invalidation pushes
# (RESP3) and redirection (RESP2 __redis__:invalidate), BCAST prefixes, NOLOOP, OPTIN / OPTOUT,
# FLUSH*, expiry, the broken redirect, INFO and CLIENT LIST fields, tracking-table-max-keys.
# Expected replies were checked against redis-server 7.0.15 (the file also passes with
# --server /usr/bin/redis-server).

tags {tracking} {

# A RESP3 client (not deferred) with tracking turned on with `opts`.
proc tk_client {args} {
    set c [redis_client -resp 3]
    assert_equal OK [$c client tracking on {*}$args]
    return $c
}

# Reads one push from c (deferred for the read).
proc tk_read {c} {
    $c deferred 1
    set r [$c read]
    $c deferred 0
    return $r
}

# Reads n raw protocol lines from a client in readraw + deferred mode, joined by spaces.
proc tk_raw {c n} {
    set lines {}
    for {set i 0} {$i < $n} {incr i} { lappend lines [$c read] }
    return [join $lines " "]
}

# Asserts nothing more arrives on c: a PING's reply must come next.
proc tk_nothing_pending {c} {
    assert_equal PONG [$c ping]
}

test "CLIENT TRACKING argument errors" {
    assert_error {ERR The client ID you want redirect to does not exist} {r client tracking on redirect 9999}
    assert_error {ERR The client ID you want redirect to does not exist} {r client tracking on redirect 0}
    assert_error {ERR value is not an integer or out of range} {r client tracking on redirect abc}
    set id [r client id]
    assert_error {ERR A client can only redirect to a single other client} \
        {r client tracking on redirect $id redirect $id}
    assert_error {ERR PREFIX option requires BCAST mode to be enabled} {r client tracking on prefix a}
    assert_error {ERR OPTIN and OPTOUT are not compatible with BCAST} {r client tracking on bcast optin}
    assert_error {ERR You can't specify both OPTIN mode and OPTOUT mode} {r client tracking on optin optout}
    assert_error {ERR syntax error} {r client tracking on foo}
    assert_error {ERR syntax error} {r client tracking on bcast prefix}
    assert_error {ERR syntax error} {r client tracking maybe}
    assert_error {ERR wrong number of arguments for 'client|tracking' command} {r client tracking}
    assert_error {ERR Prefix 'a' overlaps with another provided prefix 'ab'. Prefixes for a single client must not overlap.} \
        {r client tracking on bcast prefix a prefix ab}
    assert_error {ERR Prefix 'x' overlaps with another provided prefix 'x'. Prefixes for a single client must not overlap.} \
        {r client tracking on bcast prefix x prefix x}
    # OFF takes (and ignores) the same options.
    assert_equal OK [r client tracking off bcast optin optout]
    assert_equal {flags off redirect -1 prefixes {}} [r client trackinginfo]
}

test "CLIENT TRACKING mode switches need tracking off first" {
    set c [redis_client]
    assert_equal OK [$c client tracking on optin]
    assert_error {ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.} \
        {$c client tracking on optout}
    assert_error {ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.} \
        {$c client tracking on bcast}
    assert_equal OK [$c client tracking off]
    assert_equal OK [$c client tracking on bcast prefix a]
    assert_error {ERR Prefix 'ab' overlaps with an existing prefix 'a'. Prefixes for a single client must not overlap.} \
        {$c client tracking on bcast prefix ab}
    assert_error {ERR Prefix 'a' overlaps with an existing prefix 'a'. Prefixes for a single client must not overlap.} \
        {$c client tracking on bcast prefix a}
    assert_error {ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.} \
        {$c client tracking on}
    assert_equal OK [$c client tracking on bcast prefix b prefix c]
    assert_equal {flags {on bcast} redirect 0 prefixes {a b c}} [$c client trackinginfo]
    $c close
}

test "CLIENT CACHING errors" {
    set c [redis_client]
    assert_error {ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled} \
        {$c client caching yes}
    assert_error {ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled} \
        {$c client caching maybe}
    assert_error {ERR wrong number of arguments for 'client|caching' command} {$c client caching}
    assert_equal OK [$c client tracking on]
    assert_error {ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.} {$c client caching yes}
    assert_error {ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.} {$c client caching no}
    assert_error {ERR syntax error} {$c client caching maybe}
    assert_equal OK [$c client tracking off]
    assert_equal OK [$c client tracking on optin]
    assert_error {ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.} {$c client caching no}
    assert_equal OK [$c client caching yes]
    $c close
}

test "GETREDIR and TRACKINGINFO (RESP2 and RESP3)" {
    set c [redis_client]
    assert_equal -1 [$c client getredir]
    set target [redis_client]
    set tid [$target client id]
    assert_equal OK [$c client tracking on redirect $tid optout noloop]
    assert_equal $tid [$c client getredir]
    assert_equal OK [$c client caching no]
    assert_equal [list flags {on optout caching-no noloop} redirect $tid prefixes {}] [$c client trackinginfo]
    # CLIENT CACHING lasts one command (CLIENT subcommands do not count).
    $c get x
    assert_equal [list flags {on optout noloop} redirect $tid prefixes {}] [$c client trackinginfo]
    assert_equal OK [$c client tracking on]
    assert_equal {flags on redirect 0 prefixes {}} [$c client trackinginfo]
    assert_equal 0 [$c client getredir]
    $c deferred 1
    $c readraw 1
    $c client trackinginfo
    assert_equal {*6 $5 flags *1 $2 on $8 redirect :0 $8 prefixes *0} [tk_raw $c 12]
    $c close
    set c3 [redis_client -resp 3]
    $c3 client tracking on bcast prefix p
    $c3 deferred 1
    $c3 readraw 1
    $c3 client trackinginfo
    assert_equal {%3 $5 flags ~2 $2 on $5 bcast $8 redirect :0 $8 prefixes *1 $1 p} [tk_raw $c3 16]
    $c3 close
    $target close
}

test "RESP3: a read key is invalidated once by another client's write" {
    r flushall
    set c [tk_client]
    assert_equal {} [$c get k]
    r set k v
    assert_equal {invalidate k} [tk_read $c]
    # Forgotten after the invalidation: another write sends nothing.
    r set k v2
    tk_nothing_pending $c
    assert_equal v2 [$c get k]
    r del k
    assert_equal {invalidate k} [tk_read $c]
    $c close
}

test "RESP3: the client's own write is invalidated after its reply" {
    r flushall
    set c [tk_client]
    $c get k
    $c deferred 1
    $c readraw 1
    $c set k v
    assert_equal {+OK >2 $10 invalidate *1 $1 k} [tk_raw $c 7]
    $c readraw 0
    $c deferred 0
    $c close
}

test "MSET invalidates each key in its own message; EXEC's come after its reply" {
    r flushall
    set c [tk_client]
    $c mget k1 k2 k3
    $c deferred 1
    $c mset k1 1 k2 2 k3 3
    assert_equal OK [$c read]
    assert_equal {invalidate k1} [$c read]
    assert_equal {invalidate k2} [$c read]
    assert_equal {invalidate k3} [$c read]
    $c deferred 0
    $c mget k1 k2
    $c multi
    $c set k1 a
    $c incr k2
    $c deferred 1
    $c exec
    assert_equal {OK 3} [$c read]
    assert_equal {invalidate k1} [$c read]
    assert_equal {invalidate k2} [$c read]
    $c deferred 0
    $c close
}

test "Keys read inside MULTI and scripts are tracked; EVAL_RO's own keys are not" {
    r flushall
    set c [tk_client]
    $c multi
    $c get m1
    $c exec
    $c eval {return redis.call('get', KEYS[1])} 1 s1
    $c eval_ro {return 1} 1 s2
    $c eval_ro {return redis.call('get', KEYS[1])} 1 s3
    r mset m1 1 s1 1 s2 1 s3 1
    assert_equal {invalidate m1} [tk_read $c]
    assert_equal {invalidate s1} [tk_read $c]
    assert_equal {invalidate s3} [tk_read $c]
    tk_nothing_pending $c
    $c close
}

test "A script's writes are invalidated after its reply" {
    r flushall
    set c [tk_client]
    $c mget a b
    $c deferred 1
    $c eval {redis.call('set', KEYS[1], 1) redis.call('set', KEYS[2], 2) return 'done'} 2 a b
    assert_equal done [$c read]
    assert_equal {invalidate a} [$c read]
    assert_equal {invalidate b} [$c read]
    $c deferred 0
    $c close
}

test "Every write path invalidates: RENAME both keys, a served blocked BLMOVE's destination" {
    r flushall
    set c [tk_client]
    r set src v
    $c mget src dst dest2
    r rename src dst
    assert_equal {invalidate src} [tk_read $c]
    assert_equal {invalidate dst} [tk_read $c]
    set rd [redis_deferring_client]
    $rd blmove q dest2 left right 0
    wait_for_blocked_clients 1
    r rpush q x
    assert_equal x [$rd read]
    assert_equal {invalidate dest2} [tk_read $c]
    tk_nothing_pending $c
    $rd close
    $c close
}

test "Keys are tracked by name whatever the db" {
    r flushall
    set c [tk_client]
    $c get k
    r select 9
    r set k x
    r select 0
    assert_equal {invalidate k} [tk_read $c]
    $c close
}

test "FLUSHALL and FLUSHDB invalidate everything with a null" {
    r flushall
    set c [tk_client]
    set b [tk_client bcast]
    $c get k
    r flushdb
    assert_equal {invalidate {}} [tk_read $c]
    assert_equal {invalidate {}} [tk_read $b]
    # Even with nothing tracked, and for the flushing client itself after its reply.
    $c deferred 1
    $c readraw 1
    $c flushall
    assert_equal {+OK >2 $10 invalidate _} [tk_raw $c 5]
    $c readraw 0
    $c deferred 0
    assert_equal {invalidate {}} [tk_read $b]
    assert_equal 0 [server_info tracking_total_keys]
    $c close
    $b close
}

test "Expired keys are invalidated (active and lazy expiry)" {
    r flushall
    r debug set-active-expire 1
    set c [tk_client]
    r set k1 v px 50
    $c get k1
    # The active cycle deletes it.
    assert_equal {invalidate k1} [tk_read $c]
    r debug set-active-expire 0
    r set k2 v px 50
    $c get k2
    after 100
    # The client's own lookup deletes it: reply first, then the invalidation.
    $c deferred 1
    $c get k2
    assert_equal {} [$c read]
    assert_equal {invalidate k2} [$c read]
    $c deferred 0
    r debug set-active-expire 1
    $c close
} {needs:debug}

test "NOLOOP: no invalidation for the client's own writes" {
    r flushall
    set c [tk_client noloop]
    $c get k
    $c set k 1
    tk_nothing_pending $c
    $c get k
    r set k 2
    assert_equal {invalidate k} [tk_read $c]
    $c close
}

test "CLIENT CACHING is used up by a command that admission rejects (arity, unknown command)" {
    # Redis 7.0.15: the flag is cleared after every command but CLIENT ones, run or rejected.
    set c [redis_client]
    assert_equal OK [$c client tracking on optout]
    foreach bad {{get} {nosuchcmd}} {
        assert_equal OK [$c client caching no]
        catch {$c {*}$bad}
        assert_equal {flags {on optout} redirect 0 prefixes {}} [$c client trackinginfo]
    }
    $c close
}

test "OPTIN: only the command after CLIENT CACHING YES is tracked (a transaction counts as one)" {
    r flushall
    set c [tk_client optin]
    $c get k1
    assert_equal OK [$c client caching yes]
    $c get k2
    $c get k3
    r mset k1 1 k2 2 k3 3
    assert_equal {invalidate k2} [tk_read $c]
    tk_nothing_pending $c
    assert_equal OK [$c client caching yes]
    $c multi
    $c get k1
    $c get k3
    $c exec
    r mset k1 1 k2 2 k3 3
    assert_equal {invalidate k1} [tk_read $c]
    assert_equal {invalidate k3} [tk_read $c]
    tk_nothing_pending $c
    $c close
}

test "OPTOUT: every read is tracked but the one after CLIENT CACHING NO" {
    r flushall
    set c [tk_client optout]
    assert_equal OK [$c client caching no]
    $c get k1
    $c get k2
    r mset k1 1 k2 2
    assert_equal {invalidate k2} [tk_read $c]
    tk_nothing_pending $c
    $c close
}

test "BCAST: keys under the prefixes, sorted, one message per prefix per event loop round" {
    r flushall
    set c [tk_client bcast prefix a prefix b noloop]
    r mset a2 1 a1 2 b3 3 a0 4 c1 5
    assert_equal {invalidate {a0 a1 a2}} [tk_read $c]
    assert_equal {invalidate b3} [tk_read $c]
    # NOLOOP: its own changes are left out.
    $c mset a5 1 b5 1
    tk_nothing_pending $c
    r set a6 1
    assert_equal {invalidate a6} [tk_read $c]
    # BCAST without a prefix: every key.
    set all [tk_client bcast]
    r set zz 1
    assert_equal {invalidate zz} [tk_read $all]
    # BCAST clients track nothing they read.
    assert_equal 0 [server_info tracking_total_keys]
    $c close
    $all close
}

test "REDIRECT to a RESP2 subscriber of __redis__:invalidate" {
    r flushall
    set sub [redis_deferring_client]
    $sub client id
    set sid [$sub read]
    $sub subscribe __redis__:invalidate
    assert_equal {subscribe __redis__:invalidate 1} [$sub read]
    set c [redis_client]
    assert_equal OK [$c client tracking on redirect $sid]
    $c get k
    $c get k2
    $c set k 1
    assert_equal {message __redis__:invalidate k} [$sub read]
    $c flushdb
    $sub readraw 1
    assert_equal {*3 $7 message $20 __redis__:invalidate $-1} [tk_raw $sub 6]
    $sub close
    $c close
}

test "REDIRECT to a client that went away: tracking-redir-broken and flag R" {
    r flushall
    set t [redis_client]
    set tid [$t client id]
    set c [tk_client redirect $tid]
    set cid [$c client id]
    assert_match "*flags=t *redir=$tid *" [r client list id $cid]
    $c get k
    $t close
    wait_for_condition 100 10 {![string match "*id=$tid *" [r client list]]} {
        fail "redirect client still connected"
    }
    $c deferred 1
    $c set k 1
    assert_equal OK [$c read]
    assert_equal [list tracking-redir-broken $tid] [$c read]
    $c deferred 0
    assert_equal [list flags {on broken_redirect} redirect $tid prefixes {}] [$c client trackinginfo]
    assert_match "*flags=tR *redir=$tid *" [r client list id $cid]
    # Turning tracking on again clears it.
    assert_equal OK [$c client tracking on]
    assert_match "*flags=t *redir=0 *" [r client list id $cid]
    $c close
}

test "INFO tracking fields and CLIENT LIST flags" {
    r flushall
    # The clients of the tests before are gone (a closed connection is noticed asynchronously).
    wait_for_condition 100 10 {[server_info tracking_clients] == 0} {
        fail "tracking clients left over"
    }
    set base 0
    set c [tk_client]
    set b [tk_client bcast prefix x prefix y]
    set d [tk_client]
    assert_equal [expr {$base + 3}] [server_info tracking_clients]
    $c mget k1 k2
    $d get k1
    assert_equal 2 [server_info tracking_total_keys]
    assert_equal 3 [server_info tracking_total_items]
    assert_equal 2 [server_info tracking_total_prefixes]
    set bid [$b client id]
    assert_match "*flags=tB *redir=0 *" [r client list id $bid]
    r set k1 x
    assert_equal 1 [server_info tracking_total_keys]
    assert_equal 1 [server_info tracking_total_items]
    assert_equal OK [$b client tracking off]
    assert_equal 0 [server_info tracking_total_prefixes]
    assert_match "*flags=N *redir=-1 *" [r client list id $bid]
    $c close
    $b close
    $d close
    wait_for_condition 100 10 {[server_info tracking_clients] == $base} {
        fail "tracking_clients not back to $base"
    }
}

test "RESET turns tracking off" {
    set c [tk_client bcast]
    assert_equal RESET [$c reset]
    assert_equal {flags off redirect -1 prefixes {}} [$c client trackinginfo]
    $c close
}

test "tracking-table-max-keys evicts keys from the table, invalidating them" {
    r flushall
    set old [lindex [r config get tracking-table-max-keys] 1]
    assert_equal 1000000 $old
    set c [tk_client]
    $c mget a b c d e
    assert_equal 5 [server_info tracking_total_keys]
    r config set tracking-table-max-keys 2
    # The next event loop round evicts three of them.
    set got {}
    for {set i 0} {$i < 3} {incr i} { lappend got [lindex [tk_read $c] 1] }
    assert_equal 3 [llength [lsort -unique $got]]
    assert_equal 2 [server_info tracking_total_keys]
    r config set tracking-table-max-keys $old
    $c close
}

}
