# Key specs: COMMAND INFO's key-spec element (9th), the legacy first/last/step fields and the
# movablekeys flag derived from the specs, COMMAND GETKEYS and COMMAND GETKEYSANDFLAGS (keys
# and flags from index, keynum and variable-flags specs, and the errors). Every expected reply
# was read from Debian's redis-server 7.0.15; this file also passes with
# `--server /usr/bin/redis-server`. The last block starts that server next to Keel and compares
# the key-spec part of COMMAND INFO for every command both have, and GETKEYS/GETKEYSANDFLAGS
# for a list of commands.

# The key specs of a command as COMMAND INFO gives them (a list of flat maps).
proc key_specs {name} {
    return [lindex [r command info $name] 0 8]
}

test "COMMAND INFO key spec: one key at index 1 (GET)" {
    assert_equal {{flags {RO access} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}}} \
        [key_specs get]
}

test "COMMAND INFO key spec: notes and variable_flags (SET, BITFIELD)" {
    assert_equal {{notes {RW and ACCESS due to the optional `GET` argument} flags {RW access update variable_flags} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}}} \
        [key_specs set]
    assert_equal {{notes {This command allows both access and modification of the key} flags {RW access update variable_flags} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}}} \
        [key_specs bitfield]
    assert_equal {{flags {RO access} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}}} \
        [key_specs bitfield_ro]
}

test "COMMAND INFO key specs: two keys with different flags (LMOVE, SMOVE, COPY)" {
    assert_equal {{flags {RW access delete} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}} {flags {RW insert} begin_search {type index spec {index 2}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}}} \
        [key_specs lmove]
    assert_equal {{flags {RW access delete} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}} {flags {RW insert} begin_search {type index spec {index 2}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}}} \
        [key_specs smove]
    assert_equal {{flags {RO access} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}} {flags {OW update} begin_search {type index spec {index 2}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}}} \
        [key_specs copy]
}

test "COMMAND INFO key specs: ranges to the end, with a step (MSET, DEL, BLPOP)" {
    assert_equal {{flags {OW update} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey -1 keystep 2 limit 0}}}} \
        [key_specs mset]
    assert_equal {{flags {RM delete} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey -1 keystep 1 limit 0}}}} \
        [key_specs del]
    assert_equal {{flags {RW access delete} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey -2 keystep 1 limit 0}}}} \
        [key_specs blpop]
}

test "COMMAND INFO key specs: keynum (ZUNIONSTORE, LMPOP, BLMPOP, EVAL, FCALL)" {
    assert_equal {{flags {OW update} begin_search {type index spec {index 1}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}} {flags {RO access} begin_search {type index spec {index 2}} find_keys {type keynum spec {keynumidx 0 firstkey 1 keystep 1}}}} \
        [key_specs zunionstore]
    assert_equal {{flags {RW access delete} begin_search {type index spec {index 1}} find_keys {type keynum spec {keynumidx 0 firstkey 1 keystep 1}}}} \
        [key_specs lmpop]
    assert_equal {{flags {RW access delete} begin_search {type index spec {index 2}} find_keys {type keynum spec {keynumidx 0 firstkey 1 keystep 1}}}} \
        [key_specs blmpop]
    assert_equal {{notes {We cannot tell how the keys will be used so we assume the worst, RW and UPDATE} flags {RW access update} begin_search {type index spec {index 2}} find_keys {type keynum spec {keynumidx 0 firstkey 1 keystep 1}}}} \
        [key_specs eval]
    assert_equal {{notes {We cannot tell how the keys will be used so we assume the worst, RO and ACCESS} flags {RO access} begin_search {type index spec {index 2}} find_keys {type keynum spec {keynumidx 0 firstkey 1 keystep 1}}}} \
        [key_specs eval_ro]
    assert_equal {{notes {We cannot tell how the keys will be used so we assume the worst, RW and UPDATE} flags {RW access update} begin_search {type index spec {index 2}} find_keys {type keynum spec {keynumidx 0 firstkey 1 keystep 1}}}} \
        [key_specs fcall]
}

test "COMMAND INFO key specs: not_key (sharded pub/sub), none (PING), subcommands" {
    assert_equal {{flags not_key begin_search {type index spec {index 1}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}}} \
        [key_specs spublish]
    assert_equal {{flags not_key begin_search {type index spec {index 1}} find_keys {type range spec {lastkey -1 keystep 1 limit 0}}}} \
        [key_specs ssubscribe]
    assert_equal {} [key_specs ping]
    assert_equal {} [key_specs publish]
    assert_equal {{flags RO begin_search {type index spec {index 2}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}}} \
        [key_specs object|encoding]
    assert_equal {{flags RO begin_search {type index spec {index 2}} find_keys {type range spec {lastkey 0 keystep 1 limit 0}}}} \
        [key_specs memory|usage]
    # The subcommands of COMMAND INFO object carry their specs too.
    set subs [lindex [r command info object] 0 9]
    set enc [lsearch -inline -index 0 $subs object|encoding]
    assert_equal [key_specs object|encoding] [lindex $enc 8]
}

test "COMMAND INFO legacy key positions and movablekeys are derived from the specs" {
    # info: name arity flags first last step ...
    set lmove [lindex [r command info lmove] 0]
    assert_equal {1 2 1} [lrange $lmove 3 5]
    assert_equal -1 [lsearch [lindex $lmove 2] movablekeys]
    # ZUNIONSTORE: the destination is the legacy range, the keynum spec makes it movable.
    set zu [lindex [r command info zunionstore] 0]
    assert_equal {1 1 1} [lrange $zu 3 5]
    assert {[lsearch [lindex $zu 2] movablekeys] >= 0}
    # LMPOP, EVAL: no range spec at all.
    foreach c {lmpop eval zunion sintercard} {
        set i [lindex [r command info $c] 0]
        assert_equal {0 0 0} [lrange $i 3 5] $c
        assert {[lsearch [lindex $i 2] movablekeys] >= 0}
    }
    # BITOP: two consecutive ranges (destination at 2, sources from 3) make one.
    set bitop [lindex [r command info bitop] 0]
    assert_equal {2 -1 1} [lrange $bitop 3 5]
    assert_equal -1 [lsearch [lindex $bitop 2] movablekeys]
    assert_equal {1 -1 2} [lrange [lindex [r command info mset] 0] 3 5]
    assert_equal {1 -2 1} [lrange [lindex [r command info brpop] 0] 3 5]
    assert_equal {0 0 0} [lrange [lindex [r command info ping] 0] 3 5]
    assert_equal {1 1 1} [lrange [lindex [r command info spublish] 0] 3 5]
}

test "COMMAND GETKEYSANDFLAGS: flags per key from the specs" {
    assert_equal {{k {OW update}}} [r command getkeysandflags set k v]
    assert_equal {{k {RO access}}} [r command getkeysandflags get k]
    assert_equal {{a {RW access delete}} {b {RW insert}}} [r command getkeysandflags lmove a b left right]
    assert_equal {{a {RW access delete}} {b {RW insert}}} [r command getkeysandflags blmove a b left right 0]
    assert_equal {{a {OW update}} {c {OW update}}} [r command getkeysandflags mset a 1 c 2]
    assert_equal {{a {RM delete}} {b {RM delete}}} [r command getkeysandflags del a b]
    assert_equal {{d {OW update}} {a {RO access}} {b {RO access}}} [r command getkeysandflags bitop and d a b]
    assert_equal {{a {RW access delete}} {b {RW access delete}}} [r command getkeysandflags blpop a b 0]
    assert_equal {{k RO}} [r command getkeysandflags object encoding k]
    assert_equal {{a {RO access}} {b {OW update}}} [r command getkeysandflags copy a b db 1 replace]
    assert_equal {a b} [r command getkeys lmove a b left right]
}

test "COMMAND GETKEYSANDFLAGS: variable flags (SET with GET, BITFIELD reads or writes)" {
    assert_equal {{k {RW access update}}} [r command getkeysandflags set k v get]
    assert_equal {{k {RW access update}}} [r command getkeysandflags set k v ex 10 GeT]
    assert_equal {{k {OW update}}} [r command getkeysandflags set k v nx ex 10]
    assert_equal {{k {RO access}}} [r command getkeysandflags bitfield k get u8 0]
    assert_equal {{k {RO access}}} [r command getkeysandflags bitfield k overflow wrap get u8 0 GET i4 3]
    assert_equal {{k {RO access}}} [r command getkeysandflags bitfield k]
    assert_equal {{k {RW access update}}} [r command getkeysandflags bitfield k get u8 0 set u8 0 1]
    assert_equal {{k {RW access update}}} [r command getkeysandflags bitfield k incrby u8 0 1]
    # Incomplete or unknown operations are taken as writes.
    assert_equal {{k {RW access update}}} [r command getkeysandflags bitfield k get u8]
    assert_equal {{k {RW access update}}} [r command getkeysandflags bitfield k overflow]
    assert_equal {{k {RW access update}}} [r command getkeysandflags bitfield k foo]
    assert_equal {{k {RO access}}} [r command getkeysandflags bitfield_ro k get u8 0]
    assert_equal {k} [r command getkeys set k v get]
}

test "COMMAND GETKEYS: keynum specs (LMPOP, BLMPOP, ZMPOP, SINTERCARD, ZUNIONSTORE, EVAL, FCALL)" {
    assert_equal {a b} [r command getkeys lmpop 2 a b left]
    assert_equal {{a {RW access delete}} {b {RW access delete}}} [r command getkeysandflags lmpop 2 a b left]
    assert_equal {a b} [r command getkeys blmpop 0 2 a b left count 2]
    assert_equal {a} [r command getkeys zmpop 1 a min]
    assert_equal {a b} [r command getkeys bzmpop 0 2 a b max]
    assert_equal {a b} [r command getkeys sintercard 2 a b limit 1]
    assert_equal {a b} [r command getkeys zintercard 2 a b]
    assert_equal {a} [r command getkeys zdiff 1 a]
    assert_equal {a b} [r command getkeys zinter 2 a b withscores]
    # The destination comes first (its spec is first); flags per spec.
    assert_equal {{d {OW update}} {a {RO access}} {b {RO access}}} [r command getkeysandflags zunionstore d 2 a b weights 1 2]
    assert_equal {d a} [r command getkeys zinterstore d 1 a]
    assert_equal {{a {RW access update}} {b {RW access update}}} [r command getkeysandflags eval {return 1} 2 a b x]
    assert_equal {{a {RO access}}} [r command getkeysandflags eval_ro {return 1} 1 a]
    assert_equal {{a {RO access}} {b {RO access}}} [r command getkeysandflags fcall_ro f 2 a b]
    assert_equal {a} [r command getkeys evalsha 0123456789012345678901234567890123456789 1 a]
}

test "COMMAND GETKEYS: a count that is not a clean integer falls back to atoi, without flags" {
    # The specs reject "2x"; Redis then parses the count with atoi(), its keys carry no flags
    # and the destination follows the sources.
    assert_equal {{a {}} {b {}}} [r command getkeysandflags lmpop 2x a b left]
    assert_equal {{a {}} {b {}} {d {}}} [r command getkeysandflags zunionstore d 2x a b]
    assert_equal {a b d} [r command getkeys zunionstore d 2x a b]
    assert_equal {{a {}}} [r command getkeysandflags eval {return 1} 1x a]
    assert_equal {{a {}}} [r command getkeysandflags sintercard { 1} a b]
}

test "COMMAND GETKEYS: counts that do not fit" {
    # Optional keys (EVAL, FCALL: no_mandatory_keys): an empty list.
    assert_equal {} [r command getkeys eval {return 1} 0]
    assert_equal {} [r command getkeys eval {return 1} 0 x]
    assert_equal {} [r command getkeys eval {return 1} -1 a]
    assert_equal {} [r command getkeys eval {return 1} 5 a]
    assert_equal {} [r command getkeysandflags fcall f 0]
    # Mandatory keys: an error.
    assert_error {ERR Invalid arguments specified for command} {r command getkeys lmpop 0 a left}
    assert_error {ERR Invalid arguments specified for command} {r command getkeys lmpop 4 a b left}
    # A count that reaches past the keys takes what follows as keys, as Redis does.
    assert_equal {a b left} [r command getkeys lmpop 3 a b left]
    assert_error {ERR Invalid arguments specified for command} {r command getkeys lmpop -1 a left}
    assert_error {ERR Invalid arguments specified for command} {r command getkeysandflags zunionstore d 0 a}
    assert_error {ERR Invalid arguments specified for command} {r command getkeys zunionstore d 3 a b}
    assert_error {ERR Invalid arguments specified for command} {r command getkeys sintercard x a}
}

test "COMMAND GETKEYS / GETKEYSANDFLAGS errors" {
    foreach sub {getkeys getkeysandflags} {
        assert_error {ERR Invalid command specified} {r command $sub nosuch a}
        assert_error {ERR Invalid command specified} {r command $sub object nosuch k}
        assert_error {ERR Invalid command specified} {r command $sub memory nosuch k}
        # The keyless check comes before the arity.
        assert_error {ERR The command has no key arguments} {r command $sub ping a b c}
        assert_error {ERR The command has no key arguments} {r command $sub publish ch}
        assert_error {ERR The command has no key arguments} {r command $sub spublish ch m}
        assert_error {ERR The command has no key arguments} {r command $sub ssubscribe a b}
        assert_error {ERR The command has no key arguments} {r command $sub object help}
        assert_error {ERR Invalid number of arguments specified for command} {r command $sub set k}
        assert_error {ERR Invalid number of arguments specified for command} {r command $sub get a b}
        assert_error {ERR Invalid number of arguments specified for command} {r command $sub lmove a b left}
        assert_error {ERR Invalid number of arguments specified for command} {r command $sub object encoding}
        # GETKEYS takes at least the command and one argument: a container alone is refused
        # by the arity of GETKEYS itself; a container and an unknown name is no command.
        assert_error "*wrong number of arguments for 'command|$sub' command" {r command $sub object}
        assert_error {ERR Invalid command specified} {r command $sub object x}
        assert_error {ERR Invalid number of arguments specified for command} {r command $sub lmpop 1 a}
        assert_error "*wrong number of arguments for 'command|$sub' command" {r command $sub}
    }
    assert_equal {k} [r command getkeys object encoding k]
    assert_equal {k} [r command getkeys memory usage k samples 5]
}

test "COMMAND GETKEYSANDFLAGS in RESP3: flags are a set" {
    set c [redis_client -resp 3]
    $c readraw 1
    assert_equal {*2} [$c command getkeysandflags lmove a b left right]
    assert_equal {*2} [$c read]
    assert_equal {$1} [$c read]
    assert_equal {a} [$c read]
    assert_equal {~3} [$c read]
    $c close
}

# One RESP frame read in raw mode, as {type children} for aggregates (maps: keys and values
# in turn) and {type text} for the others.
proc read_raw_frame {c} {
    set line [$c read]
    set t [string index $line 0]
    set rest [string range $line 1 end]
    switch -- $t {
        * - ~ - > { set n $rest }
        % { set n [expr {$rest * 2}] }
        $ - = - ! {
            if {$rest < 0} { return [list $t {}] }
            return [list $t [$c read]]
        }
        default { return [list $t $rest] }
    }
    set children {}
    for {set i 0} {$i < $n} {incr i} { lappend children [read_raw_frame $c] }
    return [list $t $children]
}

test "COMMAND INFO in RESP3: the key specs are a set of maps" {
    set c [redis_client -resp 3]
    $c readraw 1
    $c write "*3\r\n\$7\r\ncommand\r\n\$4\r\ninfo\r\n\$5\r\nlmove\r\n"
    set info [lindex [read_raw_frame $c] 1 0 1]
    set specs [lindex $info 8]
    assert_equal ~ [lindex $specs 0]
    assert_equal 2 [llength [lindex $specs 1]]
    assert_equal % [lindex $specs 1 0 0]
    # flags: a set of simple strings
    assert_equal {~ {{+ RW} {+ access} {+ delete}}} [lindex $specs 1 0 1 1]
    $c write "*3\r\n\$7\r\ncommand\r\n\$4\r\ninfo\r\n\$4\r\nping\r\n"
    assert_equal {~ {}} [lindex [read_raw_frame $c] 1 0 1 8]
    $c close
}

# ---- Side by side with Debian's redis-server ---------------------------------------------------

set ::keyspecs_ref_ok [expr {![external_server] && [file executable [reference_server_binary]] && [is_keel]}]

if {$::keyspecs_ref_ok} {
    start_server [list binary [reference_server_binary] tags {reference}] {
        # Level 0 is redis-server, level -1 Keel.
        test "COMMAND INFO key specs, legacy positions and movablekeys match redis-server for every command" {
            set compared 0
            set diffs {}
            foreach name [r -1 command list] {
                set ref [lindex [r command info $name] 0]
                if {$ref eq ""} continue  ;# newer than 7.0 (CLIENT SETINFO, ...)
                set ours [lindex [r -1 command info $name] 0]
                foreach {what i} {legacy 3 specs 8} {
                    if {$what eq "legacy"} {
                        set a [lrange $ref 3 5]; set b [lrange $ours 3 5]
                    } else {
                        set a [lindex $ref 8]; set b [lindex $ours 8]
                    }
                    if {$a ne $b} { lappend diffs "$name $what: redis {$a} keel {$b}" }
                }
                set ma [expr {[lsearch [lindex $ref 2] movablekeys] >= 0}]
                set mb [expr {[lsearch [lindex $ours 2] movablekeys] >= 0}]
                if {$ma != $mb} { lappend diffs "$name movablekeys: redis $ma keel $mb" }
                incr compared
            }
            assert_equal {} $diffs
            assert_morethan $compared 250
        }

        test "COMMAND GETKEYS / GETKEYSANDFLAGS match redis-server" {
            set cases {
                {set k v} {set k v get} {set k v px 5 get nx} {get k} {getex k persist}
                {mset a 1 b 2} {mset a 1 b} {msetnx a 1 b 2} {mget a b c} {del a b c}
                {lmove a b left right} {rpoplpush a b} {brpoplpush a b 0} {brpop a b 0}
                {lmpop 2 a b left} {lmpop 0 a left} {lmpop 2x a b left} {lmpop 3 a b left}
                {blmpop 0 2 a b left} {zmpop 1 a min} {bzmpop 0 2 a b max}
                {sintercard 2 a b} {sintercard 1x a b} {zintercard 2 a b}
                {zunionstore d 2 a b} {zunionstore d 0 a} {zunionstore d 2x a b}
                {zdiffstore d 2 a b} {zrangestore d s 0 -1} {zunion 2 a b}
                {eval x 2 a b} {eval x 0} {eval x 1x a} {eval x -1 a} {evalsha_ro x 2 a b}
                {fcall f 1 a} {fcall f 0} {fcall_ro f 2 a b}
                {bitfield k get u8 0} {bitfield k set u8 0 1} {bitfield k get u8} {bitfield k}
                {bitfield_ro k get u8 0} {bitop not d a} {copy a b} {rename a b} {smove a b m}
                {sinterstore d a b} {sunion a b} {spublish ch m} {ssubscribe a b} {publish ch m}
                {object encoding k} {object freq k} {object help} {object} {object foo k}
                {memory usage k} {memory doctor} {nosuch a} {set a} {get a b}
                {hset h f v} {zadd z nx ch 1 a} {restore k 0 p replace} {lcs a b} {watch a b}
                {exists a b} {touch a b} {unlink a b} {getrange k 0 1} {lset l 0 v}
                {hrandfield h} {zincrby z 1 m} {setbit k 1 1} {move k 1} {expire k 10}
               
            }
            set diffs {}
            foreach c $cases {
                foreach sub {getkeys getkeysandflags} {
                    catch {r command $sub {*}$c} a
                    catch {r -1 command $sub {*}$c} b
                    if {$a ne $b} { lappend diffs "$sub $c: redis {$a} keel {$b}" }
                }
            }
            assert_equal {} $diffs
        }
    }
}
