# ROLE, CLUSTER and MODULE answer as a standalone Redis (no replication link, cluster-enabled
# no, no module loaded, enable-module-command no) does, so that client libraries and tools that
# probe them work. Every expected reply was checked against redis-server 7.0.15; parts that are
# Redis 7.2+ run on Keel only.

tags {standalone} {

test "ROLE is a master with offset 0 and no replicas" {
    assert_equal {master 0 {}} [r role]
    assert_error {ERR wrong number of arguments for 'role' command} {r role x}
    assert_error {*This Redis command is not allowed from script*} {r eval {return redis.call('role')} 0}
    r multi
    r role
    assert_equal {{master 0 {}}} [r exec]
}

test "CLUSTER subcommands answer that cluster support is disabled" {
    foreach cmd {
        {info} {nodes} {slots} {shards} {myid} {links} {help} {bumpepoch} {flushslots}
        {saveconfig} {keyslot foo} {countkeysinslot 1} {getkeysinslot 1 10} {addslots 1 2}
        {addslotsrange 1 2} {delslots 1} {delslotsrange 1 2} {failover} {failover force}
        {forget abc} {meet 127.0.0.1 7000} {replicate abc} {replicas abc} {slaves abc}
        {reset} {reset hard} {set-config-epoch 1} {setslot 1 stable}
        {count-failure-reports abc}
    } {
        assert_error {ERR This instance has cluster support disabled} {r cluster {*}$cmd} "cluster $cmd"
    }
    if {[is_keel]} {
        # CLUSTER MYSHARDID is Redis 7.2+ (7.0 answers "unknown subcommand").
        assert_error {ERR This instance has cluster support disabled} {r cluster myshardid}
    }
    assert_match {*cluster_enabled:0*} [r info cluster]
}

test "CLUSTER arity and unknown subcommands are checked first" {
    assert_error {ERR wrong number of arguments for 'cluster' command} {r cluster}
    assert_error {ERR wrong number of arguments for 'cluster|keyslot' command} {r cluster keyslot}
    assert_error {ERR wrong number of arguments for 'cluster|info' command} {r cluster info x}
    assert_error {ERR wrong number of arguments for 'cluster|getkeysinslot' command} {r cluster getkeysinslot 1}
    assert_error {ERR unknown subcommand 'foo'. Try CLUSTER HELP.} {r cluster foo}
    # From a script the command runs and gives the same error.
    assert_error {ERR This instance has cluster support disabled*} {r eval {return redis.call('cluster','info')} 0}
    # An unknown subcommand called from a script is an unknown command there (any container).
    assert_error {ERR Unknown Redis command called from script*} {r eval {return redis.call('cluster','foo')} 0}
    assert_error {ERR Unknown Redis command called from script*} {r eval {return redis.call('config','foo')} 0}
    assert_error {ERR Wrong number of args calling Redis command from script*} {r eval {return redis.call('cluster')} 0}
}

test "MODULE LIST is empty" {
    assert_equal {} [r module list]
    assert_equal "# Modules\r\n" [r info modules]
}

test "MODULE LOAD / LOADEX / UNLOAD are refused (enable-module-command no)" {
    set err {ERR MODULE command not allowed. If the enable-module-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.}
    assert_error $err {r module load /nonexistent.so}
    assert_error $err {r module load /nonexistent.so arg1 arg2}
    assert_error $err {r module loadex /nonexistent.so CONFIG a b ARGS x}
    assert_error $err {r module unload mymod}
}

# Redis refuses its protected commands at admission, right after the arity check: inside MULTI
# they are never queued (the transaction is flagged, EXEC answers EXECABORT), and an
# unauthenticated client gets this error rather than NOAUTH. Replies read from redis-server 7.0.15.
test "MODULE LOAD / LOADEX / UNLOAD inside MULTI are refused at admission" {
    set err {ERR MODULE command not allowed. If the enable-module-command option is set to "local", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.}
    r set k 1
    r multi
    assert_error $err {r module load /nonexistent.so}
    assert_equal QUEUED [r module list]
    assert_error $err {r module unload foo}
    assert_error $err {r module loadex /x.so}
    assert_equal QUEUED [r module help]
    assert_equal QUEUED [r incr k]
    assert_error {EXECABORT Transaction discarded because of previous errors.} {r exec}
    assert_equal 1 [r get k]
    # Arity is checked first.
    r multi
    assert_error {ERR wrong number of arguments for 'module|load' command} {r module load}
    assert_error {EXECABORT Transaction discarded because of previous errors.} {r exec}
    # MODULE LIST and HELP run in a transaction.
    r multi
    r module list
    r module help
    set res [r exec]
    assert_equal {} [lindex $res 0]
    assert_equal {MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} [lindex $res 1 0]
    r del k
}

test "MODULE LOAD is refused before the AUTH check" {
    r config set requirepass secret
    set c [redis_client]
    catch {$c module load /nonexistent.so} e1
    catch {$c module list} e2
    $c close
    r auth secret
    r config set requirepass ""
    assert_match {ERR MODULE command not allowed. If the enable-module-command option is set to "local"*} $e1
    assert_equal {NOAUTH Authentication required.} $e2
}

test "MODULE errors and HELP" {
    assert_error {ERR wrong number of arguments for 'module' command} {r module}
    assert_error {ERR wrong number of arguments for 'module|list' command} {r module list x}
    assert_error {ERR wrong number of arguments for 'module|load' command} {r module load}
    assert_error {ERR wrong number of arguments for 'module|unload' command} {r module unload}
    assert_error {ERR wrong number of arguments for 'module|unload' command} {r module unload a b}
    assert_error {ERR unknown subcommand 'foo'. Try MODULE HELP.} {r module foo}
    assert_error {*This Redis command is not allowed from script*} {r eval {return redis.call('module','list')} 0}
    set help [r module help]
    assert_equal {MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:} [lindex $help 0]
    assert_equal {LIST} [lindex $help 1]
    assert_equal {UNLOAD <name>} [lindex $help end-3]
    assert_equal {HELP} [lindex $help end-1]
}

test "COMMAND INFO describes ROLE, CLUSTER and MODULE" {
    set role [lindex [r command info role] 0]
    assert_equal {role 1} [lrange $role 0 1]
    assert_equal {noscript loading stale fast} [lindex $role 2]
    set cluster [lindex [r command info cluster] 0]
    assert_equal {cluster -2} [lrange $cluster 0 1]
    set subs {}
    foreach s [lindex $cluster 9] { lappend subs [lindex $s 0] [lindex $s 1] }
    assert_equal -3 [dict get $subs cluster|addslots]
    assert_equal 3 [dict get $subs cluster|keyslot]
    assert_equal 4 [dict get $subs cluster|getkeysinslot]
    assert_equal -2 [dict get $subs cluster|failover]
    set module [lindex [r command info module] 0]
    set subs {}
    foreach s [lindex $module 9] { lappend subs [lindex $s 0] [lindex $s 1] }
    assert_equal {module|help 2 module|list 2 module|load -3 module|loadex -3 module|unload 3} \
        [lsort -stride 2 $subs]
}

}
