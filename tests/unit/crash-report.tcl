# Crash reports (base/crash.h, server/crash_report.cc): DEBUG SEGFAULT, DEBUG PANIC and DEBUG
# ASSERT make the server write Redis's bug report layout (KEEL in place of REDIS) to its log and
# die of the signal. Each test kills its own server and waits for it with wait_server_exit.
# What the log must hold was compared with redis-server 7.0.15 crashed the same way: the same
# section lines, the assertion and "Guru Meditation" lines, and with crash-log-enabled no no
# report for a signal but the START / assertion / END lines for an assertion or panic.

# The first command is start_server, so no implicit server is started; the helpers are defined
# inside it (procs are global wherever they are defined).
start_server {tags {crash external:skip}} {

# The server's log as one string.
proc server_log {} {
    set f [open [srv stdout] r]
    chan configure $f -translation binary
    set data [read $f]
    close $f
    return $data
}

# Literal-text checks (the report is full of glob characters).
proc assert_log_has {log text} {
    if {[string first $text $log] < 0} {
        fail "the log has no '$text':\n$log"
    }
}
proc assert_log_lacks {log text} {
    if {[string first $text $log] >= 0} {
        fail "the log should not have '$text':\n$log"
    }
}

# Sends a command that kills the server (the reply never comes) and returns how it ended.
proc crash_with {args} {
    catch {r {*}$args}
    return [wait_server_exit]
}

set report_start "=== KEEL BUG REPORT START: Cut & paste starting from here ==="
set report_end "=== KEEL BUG REPORT END. Make sure to include from START to END. ==="

    test "DEBUG SEGFAULT writes a crash report and dies of SIGSEGV" {
        r client setname crasher
        r select 3
        r set foo bar
        assert_equal "signal SIGSEGV" [crash_with debug segfault]
        set log [server_log]
        assert_log_has $log $report_start
        assert_log_has $log $report_end
        assert {[string first $report_start $log] < [string first $report_end $log]}
        assert_match "*# Keel * crashed by signal: 11 (SIGSEGV), si_code: *" $log
        assert_match "*# Accessing address: 0x*" $log
        assert_match "*# Crashed running the instruction at: 0x*" $log
        assert_log_has $log "------ STACK TRACE ------"
        assert_log_has $log "\nEIP:\n"
        assert_log_has $log "\nBacktrace:\n"
        # Keel's own functions are named (the server is linked with -rdynamic) and demangled,
        # those in anonymous namespaces too (from the executable's own symbol table).
        # A command that is not plain (DEBUG is protected) runs through the full admission.
        assert_match "*/keel-server*(keel::(anonymous namespace)::execute_command_slow(keel::Session&*)+0x*" $log
        assert_match "*EIP:\n*keel-server*(keel::(anonymous namespace)::debug_segfault()+0x*" $log
        assert_match "*(keel::(anonymous namespace)::cmd_debug(keel::CommandContext&)*" $log
        assert_log_has $log "------ REGISTERS ------"
        # The command and its client.
        assert_log_has $log "------ CURRENT CLIENT INFO ------"
        assert_match "*id=* addr=127.0.0.1:* laddr=127.0.0.1:* fd=* name=crasher db=3 cmd=debug argc=2\n*" $log
        assert_log_has $log "argv\[0\]: '\"debug\"'\nargv\[1\]: '\"segfault\"'\n"
        # INFO, every section, and CLIENT LIST.
        assert_log_has $log "------ INFO OUTPUT ------"
        foreach section {Server Clients Memory Stats CPU Commandstats Keyspace} {
            assert_log_has $log "# $section\n"
        }
        assert_log_has $log "db3:keys=1,expires=0"
        assert_log_has $log "------ CLIENT LIST OUTPUT ------"
        assert_match "*id=* name=crasher *cmd=debug*" $log
        # crash-memcheck-enabled yes (the default): the section says the test is not run.
        assert_log_has $log "------ FAST MEMORY TEST ------"
        assert_log_has $log "Fast memory test skipped"
    }
}

start_server {tags {crash external:skip}} {
    test "Crash report arguments are cut at 128 bytes and 8 arguments, quoted like Redis" {
        set long [string repeat x 300]
        assert_equal "signal SIGSEGV" [crash_with debug segfault "a\"b\n$long" 3 4 5 6 7 8 9 10 11]
        set log [server_log]
        assert_log_has $log "cmd=debug argc=12\n"
        # 128 bytes of the 304-byte argument: a " b \n and 124 x, then how much was left out.
        set shown "a\\\"b\\n[string repeat x 124]"
        assert_log_has $log "argv\[2\]: '\"$shown\" ... (176 more bytes)'\n"
        assert_log_has $log "argv\[7\]: '\"7\"'\n... and 4 more arguments\n"
        assert_log_lacks $log "argv\[8\]"
    }
}

start_server {tags {crash external:skip}} {
    test "DEBUG PANIC logs a Guru Meditation, a crash report, and aborts" {
        assert_equal "signal SIGABRT" [crash_with debug panic]
        set log [server_log]
        assert_log_has $log $report_start
        assert_log_has $log "# ------------------------------------------------\n"
        assert_log_has $log "# !!! Software Failure. Press left mouse button to continue\n"
        assert_match "*# Guru Meditation: DEBUG PANIC called at Unix time * #*cmd_server.cc:*" $log
        assert_log_has $log "------ STACK TRACE ------"
        assert_match "*(keel::(anonymous namespace)::execute_command_slow(*" $log
        assert_log_has $log "argv\[1\]: '\"panic\"'"
        assert_log_has $log "------ INFO OUTPUT ------"
        assert_log_has $log $report_end
    }
}

start_server {tags {crash external:skip}} {
    test "DEBUG ASSERT: a failing KEEL_ASSERT writes the report and aborts" {
        assert_equal "signal SIGABRT" [crash_with debug assert]
        set log [server_log]
        assert_log_has $log $report_start
        assert_log_has $log "# === ASSERTION FAILED ===\n"
        assert_match "*# ==> *cmd_server.cc:* 'one == 2' is not true\n*" $log
        assert_match "*(keel::assert_failed(*" $log
        assert_log_has $log "argv\[1\]: '\"assert\"'"
        assert_log_has $log "------ INFO OUTPUT ------"
        assert_log_has $log $report_end
    }
}

start_server {overrides {crash-log-enabled no crash-memcheck-enabled no} tags {crash external:skip}} {
    test "crash-log-enabled no: no report for a signal, same exit status" {
        assert_equal {crash-log-enabled no} [r config get crash-log-enabled]
        assert_equal "signal SIGSEGV" [crash_with debug segfault]
        set log [server_log]
        assert_log_lacks $log "BUG REPORT"
        assert_log_lacks $log "STACK TRACE"
    }
}

start_server {overrides {crash-log-enabled no} tags {crash external:skip}} {
    test "crash-log-enabled no: an assertion logs only its lines between START and END (as Redis)" {
        assert_equal "signal SIGABRT" [crash_with debug assert]
        set log [server_log]
        assert_log_has $log $report_start
        assert_log_has $log "# === ASSERTION FAILED ===\n"
        assert_log_has $log $report_end
        assert_log_lacks $log "STACK TRACE"
        assert_log_lacks $log "INFO OUTPUT"
        assert_log_lacks $log "CURRENT CLIENT INFO"
    }
}

start_server {tags {crash external:skip}} {
    test "CONFIG SET crash-log-enabled no removes the handlers" {
        r config set crash-log-enabled no
        assert_equal "signal SIGSEGV" [crash_with debug segfault]
        assert_log_lacks [server_log] "BUG REPORT"
    }
}

start_server {overrides {crash-log-enabled no} tags {crash external:skip}} {
    test "CONFIG SET crash-log-enabled yes installs them again" {
        r config set crash-log-enabled yes
        assert_equal "signal SIGSEGV" [crash_with debug segfault]
        assert_log_has [server_log] $report_start
    }
}

start_server {overrides {crash-memcheck-enabled no} tags {crash external:skip}} {
    test "crash-memcheck-enabled no: no memory test section" {
        assert_equal "signal SIGSEGV" [crash_with debug segfault]
        set log [server_log]
        assert_log_has $log $report_end
        assert_log_lacks $log "FAST MEMORY TEST"
    }
}

start_server {tags {crash external:skip}} {
    test "A fault while writing the report still ends it and the process" {
        assert_equal "signal SIGSEGV" [crash_with debug segfault-in-report]
        set log [server_log]
        assert_log_has $log $report_start
        assert_log_has $log "Crashed running the crash report (signal 11 (SIGSEGV))"
        # The first crash's stack, raw (mangled names), after the second fault.
        set reduced [string range $log [string first "Crashed running the crash report" $log] end]
        # (backtrace_symbols names only exported functions: call() is one, the admission is not)
        assert_match "*Backtrace:*_ZN4keel4call*" $reduced
        assert_log_has $reduced $report_end
    }
}
