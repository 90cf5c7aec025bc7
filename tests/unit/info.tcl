# INFO: section selection, field names, commandstats / errorstats counting and the keyspace line.
# Expected text was checked against redis-server 7.0 (KEYSIZES and 7.4 fields run on Keel only).

proc info_sections {text} {
    set s {}
    foreach line [split $text \n] {
        if {[string index $line 0] eq "#"} {
            lappend s [string trim [string range $line 2 end]]
        }
    }
    return $s
}

proc cmdstat {name} {
    set d [info_dict [r info commandstats]]
    if {[dict exists $d cmdstat_$name]} {
        return [dict get $d cmdstat_$name]
    }
    return ""
}

proc errorstat {code} {
    set d [info_dict [r info errorstats]]
    if {[dict exists $d errorstat_$code]} {
        return [dict get $d errorstat_$code]
    }
    return ""
}

tags {info} {

test "INFO with no argument prints the default sections" {
    set s [info_sections [r info]]
    foreach want {Server Clients Memory Persistence Stats Replication CPU Modules Errorstats Cluster Keyspace} {
        assert {[lsearch $s $want] >= 0} "section $want missing from $s"
    }
    assert {[lsearch $s Commandstats] < 0}
    assert_equal $s [info_sections [r info default]]
    if {[is_keel]} { assert_equal Keysizes [lindex $s end] }
}

test "INFO all and everything add commandstats" {
    set all [info_sections [r info all]]
    assert {[lsearch $all Commandstats] >= 0}
    assert {[lsearch $all Server] >= 0}
    set every [info_sections [r info everything]]
    assert {[lsearch $every Commandstats] >= 0}
}

test "INFO with one or several sections, case-insensitive" {
    assert_equal {Server} [info_sections [r info server]]
    assert_equal {Server} [info_sections [r info SERVER]]
    assert_equal {Server Clients} [info_sections [r info clients server]]
    assert_equal {Server Clients Keyspace} [info_sections [r info keyspace server clients]]
    assert_equal {} [r info nosuchsection]
}

test "INFO server fields" {
    set d [info_dict [r info server]]
    foreach f {redis_version redis_mode os arch_bits process_id run_id tcp_port server_time_usec
               uptime_in_seconds uptime_in_days hz configured_hz lru_clock executable config_file} {
        assert {[dict exists $d $f]} "field $f"
    }
    assert_equal [srv port] [dict get $d tcp_port]
    assert_equal [srv pid] [dict get $d process_id]
    assert_equal standalone [dict get $d redis_mode]
    assert_equal 40 [string length [dict get $d run_id]]
    assert_match {7.*} [dict get $d redis_version]
}

test "INFO clients counts connections" {
    set before [dict get [info_dict [r info clients]] connected_clients]
    set c [redis_client]
    $c ping  ;# the server has accepted it (a connect alone may still be in the listen backlog)
    assert_equal [expr {$before + 1}] [dict get [info_dict [r info clients]] connected_clients]
    $c close
    wait_for_condition 50 10 {[dict get [info_dict [r info clients]] connected_clients] == $before}
    set d [info_dict [r info clients]]
    foreach f {maxclients blocked_clients client_recent_max_input_buffer client_recent_max_output_buffer} {
        assert {[dict exists $d $f]} "field $f"
    }
}

test "INFO memory fields" {
    set d [info_dict [r info memory]]
    foreach f {used_memory used_memory_human used_memory_rss used_memory_peak maxmemory
               maxmemory_policy mem_fragmentation_ratio mem_allocator} {
        assert {[dict exists $d $f]} "field $f"
    }
    assert_morethan [dict get $d used_memory] 0
    assert_match {*[BKMG]} [dict get $d used_memory_human]
    # With its version, as Redis ("libc" in the sanitizer build, which has no jemalloc).
    assert {[regexp {^(jemalloc-[0-9]+\.[0-9]+\.[0-9]+|libc)$} [dict get $d mem_allocator]]}
}

# The names and order of redis-server 7.0.15's INFO memory fields; in INFO stats its fields come
# in its order, with Keel's 7.2/7.4 additions between them.
test "INFO memory and stats: redis-server 7.0.15's fields, in its order" {
    set mem {used_memory used_memory_human used_memory_rss used_memory_rss_human used_memory_peak
        used_memory_peak_human used_memory_peak_perc used_memory_overhead used_memory_startup
        used_memory_dataset used_memory_dataset_perc allocator_allocated allocator_active
        allocator_resident total_system_memory total_system_memory_human used_memory_lua
        used_memory_vm_eval used_memory_lua_human used_memory_scripts_eval number_of_cached_scripts
        number_of_functions number_of_libraries used_memory_vm_functions used_memory_vm_total
        used_memory_vm_total_human used_memory_functions used_memory_scripts used_memory_scripts_human
        maxmemory maxmemory_human maxmemory_policy allocator_frag_ratio allocator_frag_bytes
        allocator_rss_ratio allocator_rss_bytes rss_overhead_ratio rss_overhead_bytes
        mem_fragmentation_ratio mem_fragmentation_bytes mem_not_counted_for_evict
        mem_replication_backlog mem_total_replication_buffers mem_clients_slaves mem_clients_normal
        mem_cluster_links mem_aof_buffer mem_allocator active_defrag_running lazyfree_pending_objects
        lazyfreed_objects}
    assert_equal [list {*}$mem] [dict keys [info_dict [r info memory]]]
    set stats {total_connections_received total_commands_processed instantaneous_ops_per_sec
        total_net_input_bytes total_net_output_bytes total_net_repl_input_bytes
        total_net_repl_output_bytes instantaneous_input_kbps instantaneous_output_kbps
        instantaneous_input_repl_kbps instantaneous_output_repl_kbps rejected_connections sync_full
        sync_partial_ok sync_partial_err expired_keys expired_stale_perc
        expired_time_cap_reached_count expire_cycle_cpu_milliseconds evicted_keys evicted_clients
        total_eviction_exceeded_time current_eviction_exceeded_time keyspace_hits keyspace_misses
        pubsub_channels pubsub_patterns pubsubshard_channels latest_fork_usec total_forks
        migrate_cached_sockets slave_expires_tracked_keys active_defrag_hits active_defrag_misses
        active_defrag_key_hits active_defrag_key_misses total_active_defrag_time
        current_active_defrag_time tracking_total_keys tracking_total_items tracking_total_prefixes
        unexpected_error_replies total_error_replies dump_payload_sanitizations total_reads_processed
        total_writes_processed io_threaded_reads_processed io_threaded_writes_processed
        reply_buffer_shrinks reply_buffer_expands}
    set have [dict keys [info_dict [r info stats]]]
    set at -1
    foreach f $stats {
        set i [lsearch -exact $have $f]
        assert_morethan $i $at
        set at $i
    }
}

test "INFO stats: reads and writes processed, the byte rates" {
    set d [info_dict [r info stats]]
    set reads [dict get $d total_reads_processed]
    set writes [dict get $d total_writes_processed]
    r ping
    set d [info_dict [r info stats]]
    assert_morethan [dict get $d total_reads_processed] $reads
    assert_morethan [dict get $d total_writes_processed] $writes
    # A second of steady input shows in the rate (16 samples of 100 ms).
    set v [string repeat x 100000]
    for {set i 0} {$i < 20} {incr i} { r set big $v; after 50 }
    assert_morethan [dict get [info_dict [r info stats]] instantaneous_input_kbps] 100
    assert_equal 0.00 [dict get [info_dict [r info stats]] instantaneous_input_repl_kbps]
    r del big
}

test "INFO stats counts commands and connections" {
    r config resetstat
    set before [dict get [info_dict [r info stats]] total_commands_processed]
    r ping
    r ping
    set after [dict get [info_dict [r info stats]] total_commands_processed]
    # Two PINGs plus the first INFO (a runner connection may add one more command).
    assert_range $after [expr {$before + 3}] [expr {$before + 4}]
    set c [redis_client]
    $c ping  ;# the server has accepted it once it answers
    $c close
    assert_morethan [dict get [info_dict [r info stats]] total_connections_received] 0
}

test "INFO commandstats counts calls, rejected and failed calls" {
    r config resetstat
    r set a b
    catch {r incr a}
    catch {r get}
    catch {r get a b}
    assert_match {calls=1,usec=*,usec_per_call=*,rejected_calls=0,failed_calls=0} [cmdstat set]
    assert_match {calls=1,*,rejected_calls=0,failed_calls=1} [cmdstat incr]
    assert_match {calls=0,usec=0,usec_per_call=0.00,rejected_calls=2,failed_calls=0} [cmdstat get]
    assert_equal {} [cmdstat ping]
}

test "INFO commandstats names subcommands container|sub" {
    r config resetstat
    r client id
    catch {r client nosuch}
    assert_match {calls=1,*} [cmdstat client|id]
    # An unknown subcommand is counted in no commandstats line (errorstats only).
    assert_equal {} [cmdstat client]
}

test "INFO errorstats counts error replies by code" {
    r config resetstat
    catch {r nosuchcommand}
    catch {r incr}
    catch {r hello 4}
    assert_equal {count=2} [errorstat ERR]
    assert_equal {count=1} [errorstat NOPROTO]
    assert_equal 3 [dict get [info_dict [r info stats]] total_error_replies]
    r config resetstat
    assert_equal {} [errorstat ERR]
    assert_equal 0 [dict get [info_dict [r info stats]] total_error_replies]
}

# Replies read from redis-server 7.0.15: the code is the first word when a space comes within
# the first 32 bytes of "-CODE message" (so at most 30 bytes), else ERR; lines in byte order.
test "INFO errorstats: which word is the code, and the order of the lines" {
    r config resetstat
    catch {r eval "return {err='lower case'}" 0}
    catch {r eval "return {err='nospace'}" 0}
    catch {r eval "return {err=''}" 0}
    catch {r eval "return {err=' lead'}" 0}
    catch {r eval "return {err='-X y'}" 0}
    catch {r eval "return {err='[string repeat A 30] x'}" 0}
    catch {r eval "return {err='[string repeat B 31] x'}" 0}
    set lines [lrange [split [string trim [r info errorstats]] "\r\n"] 1 end]
    set lines [lsearch -all -inline -not $lines {}]
    assert_equal [list errorstat_:count=1 errorstat_-X:count=1 errorstat_[string repeat A 30]:count=1 errorstat_ERR:count=3 errorstat_lower:count=1] $lines
    r config resetstat
}

test "INFO keyspace line per non-empty db" {
    r flushall
    assert_equal {# Keyspace} [string trim [r info keyspace]]
    r set a 1
    r set b 2 ex 100
    r select 3
    r set c 3
    r select 0
    set ks [r info keyspace]
    assert_match "*db0:keys=2,expires=1,avg_ttl=*" $ks
    assert_match "*db3:keys=1,expires=0,avg_ttl=0*" $ks
    assert {![string match *db1:* $ks]}
    r flushall
}

test "INFO persistence and replication basics" {
    set d [info_dict [r info persistence]]
    assert_equal 0 [dict get $d loading]
    assert_equal 0 [dict get $d aof_enabled]
    assert {[dict exists $d rdb_changes_since_last_save]}
    set d [info_dict [r info replication]]
    assert_equal master [dict get $d role]
    assert_equal 0 [dict get $d connected_slaves]
}

test "INFO keysizes section" {
    if {![is_keel]} { skip_test "KEYSIZES is Redis 8" }
    r flushall
    r set s abc
    assert_match "*db0_distrib_strings_sizes:2=1*" [r info keysizes]
    r flushall
    assert_equal {# Keysizes} [string trim [r info keysizes]]
}

test "INFO in RESP3 is a verbatim string" {
    set c [redis_client]
    $c hello 3
    $c readraw 1
    $c deferred 1
    $c info server
    assert_match {=*} [$c read]
    assert_equal {txt:# Server} [$c read]
    $c close
}

}
