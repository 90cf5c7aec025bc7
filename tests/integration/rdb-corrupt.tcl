# Damaged input never crashes the server or the checker: DUMP payloads of every type and encoding
# (Keel's own and those of the fixtures in tests/assets/rdb, written by Redis 6.2 to 7.4 and
# Valkey) with bytes flipped, overwritten, inserted, deleted or cut, RESTOREd over a key
# (sanitize-dump-payload no and yes), and damaged dump files given to keel-check-rdb and to
# DEBUG RELOAD. Bounded by time (a few seconds each), so it runs in `make test` and in the ASan
# run; the loops are in tests/helpers/rdb_corrupt.py. The loader's own unit fuzz loop is
# tests/cpp/persistence/rdb_fuzz_test.cc, the coverage-guided one tests/fuzz/rdb_load.cc.

source [file join $::keel::tests_dir helpers rdb_util.tcl]

set ::rdb_corrupt_seed [expr {[info exists ::env(KEEL_RDB_CORRUPT_SEED)] ? $::env(KEEL_RDB_CORRUPT_SEED) : 20261201}]

test "Damaged DUMP payloads of every type and encoding: refused cleanly or usable, key untouched" {
    r select 9
    populate_types p:
    populate_types t: 5000000
    r config set rdb-version 10
    foreach {name enc} $::rdb_type_keys { r restore v10:$name 0 [r dump p:$name] }
    r config set rdb-version 11
    r select 0
    set out [python_client_script rdb_corrupt.py restore --db 9 --seconds 4 --seed $::rdb_corrupt_seed]
    ::keel::verbose "    $out"
    assert_match "ok: *" $out
    assert {[regexp {(\d+) restores: (\d+) accepted, (\d+) bad format, (\d+) checksum} $out -> runs acc bad crc]}
    assert_morethan $runs 100
    assert_morethan $bad 0
    assert_morethan $crc 0
    assert_equal PONG [r ping]
    r select 9
    r flushdb
    r select 0
}

test "Damaged dump files: keel-check-rdb reports, DEBUG RELOAD refuses, nothing crashes" {
    if {![is_keel]} { skip_test "keel-check-rdb is Keel's" }
    r flushall
    r select 1
    populate_types a: 6000000
    r select 0
    populate_types b:
    r save
    set dir [file join [srv dir] scratch]
    file mkdir $dir
    set tool [file join $dir keel-check-rdb]
    file link -symbolic $tool [file normalize $::keel::opt(server)]
    set out [python_client_script rdb_corrupt.py files --tool $tool --scratch $dir \
                 --dump [file join [srv dir] dump.rdb] --seconds 5 --seed $::rdb_corrupt_seed]
    ::keel::verbose "    $out"
    assert_match "ok: *" $out
    assert {[regexp {(\d+) damaged files: checker (\d+) ok, (\d+) errors; (\d+) loaded} $out -> n ok err reloads]}
    assert_morethan $n 10
    assert_morethan $err 0
    assert_morethan $reloads 0
    assert_equal PONG [r ping]
}
