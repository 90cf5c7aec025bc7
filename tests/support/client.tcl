# Keel test framework: a small RESP2/RESP3 client written for this project.
#
# A client is a command created by ::keel::client::connect. Calling it with a
# Redis command sends the command and (unless the client is deferred) returns
# the decoded reply:
#
#     set c [::keel::client::connect 127.0.0.1 6379]
#     $c set foo bar          ;# -> OK
#     $c close
#
# Methods handled by the client itself (everything else is sent as a command):
#     read            read and decode one reply
#     readraw 0|1     raw mode: every read returns one protocol line (no CRLF)
#     deferred 0|1    deferred mode: commands only send, use `read` for replies
#     write bytes     send raw bytes (no framing), followed by a flush
#     flush           flush the output buffer
#     timeout ?sec?   get/set the read inactivity timeout in seconds
#     channel         the underlying Tcl channel
#     close           close the connection and delete the command
#
# Decoding rules:
#     +simple  :int  ,double  (bignum   -> the text after the type byte
#     $bulk  =verbatim (the 4-byte "txt:" style prefix is removed)
#     *array  ~set  >push                -> Tcl list
#     %map  (RESP3)                      -> flat list key value ... (a dict)
#     |attribute                         -> skipped, the following reply is returned
#     $-1  *-1  _                        -> empty string
#     #t / #f                            -> 1 / 0
#     -error  !bloberror (top level)     -> Tcl error, message = text without "-"
#     errors nested inside an aggregate  -> returned as the text without "-"

namespace eval ::keel::client {
    variable next_id 0
    variable default_timeout 20
    # Per-client state, all indexed by client id.
    variable fd
    variable host
    variable port
    variable buf
    variable pos
    variable raw
    variable deferred
    variable timeout
    variable ev
}

# Open a connection and return the command name of the new client.
proc ::keel::client::connect {host_ port_ {defer 0}} {
    variable next_id
    variable fd
    variable host
    variable port
    variable buf
    variable pos
    variable raw
    variable deferred
    variable timeout
    variable default_timeout

    if {[catch {socket $host_ $port_} chan]} {
        error "could not connect to $host_:$port_: $chan"
    }
    set id [incr next_id]
    chan configure $chan -translation binary -buffering full \
        -buffersize 1048576 -blocking 0
    set fd($id) $chan
    set host($id) $host_
    set port($id) $port_
    set buf($id) ""
    set pos($id) 0
    set raw($id) 0
    set deferred($id) $defer
    set timeout($id) $default_timeout
    set name ::keelclient$id
    interp alias {} $name {} ::keel::client::dispatch $id
    return $name
}

proc ::keel::client::dispatch {id args} {
    variable fd
    if {![info exists fd($id)]} {
        error "client $id is closed"
    }
    switch -exact -- [lindex $args 0] {
        read {
            if {[catch {read_reply $id 0} res opts]} {
                note_error $res
                return -options $opts $res
            }
            return $res
        }
        readraw {
            variable raw
            set raw($id) [expr {[lindex $args 1] ? 1 : 0}]
            return ""
        }
        deferred {
            variable deferred
            set deferred($id) [expr {[lindex $args 1] ? 1 : 0}]
            return ""
        }
        write {
            send_bytes $id [lindex $args 1]
            return ""
        }
        flush {
            send_bytes $id ""
            return ""
        }
        timeout {
            variable timeout
            if {[llength $args] > 1} {
                set timeout($id) [lindex $args 1]
            }
            return $timeout($id)
        }
        channel {
            return $fd($id)
        }
        close {
            close_client $id
            return ""
        }
        default {
            if {[llength $args] == 0} {
                error "no command given"
            }
            send_command $id $args
            variable deferred
            if {$deferred($id)} {
                return ""
            }
            if {[catch {read_reply $id 0} res opts]} {
                note_error $res
                return -options $opts $res
            }
            return $res
        }
    }
}

# Hook for the test framework: remember where an error reply was raised.
proc ::keel::client::note_error {msg} {
    if {[info commands ::keel::note_error_location] ne ""} {
        ::keel::note_error_location $msg
    }
}

proc ::keel::client::close_client {id} {
    variable fd
    variable host
    variable port
    variable buf
    variable pos
    variable raw
    variable deferred
    variable timeout
    catch {close $fd($id)}
    foreach v {fd host port buf pos raw deferred timeout} {
        unset -nocomplain ${v}($id)
    }
    catch {interp alias {} ::keelclient$id {}}
}

# Close every client that is connected to host:port (used when a server stops).
proc ::keel::client::close_all_for {h p} {
    variable fd
    variable host
    variable port
    foreach id [array names fd] {
        if {$host($id) eq $h && $port($id) == $p} {
            close_client $id
        }
    }
}

# Arguments are sent as bytes: characters up to U+00FF map to one byte each
# (so data read back from the server round-trips); strings holding larger
# characters are sent UTF-8 encoded. Arguments above 1 MB are not inspected.
proc ::keel::client::encode_arg {a} {
    if {[string length $a] < 1048576 && [regexp {[^\u0000-\u00ff]} $a]} {
        return [encoding convertto utf-8 $a]
    }
    return $a
}

# One command as multibulk request bytes (tests that need several commands in one write
# concatenate these and use `write`).
proc ::keel::client::encode_command {argv} {
    set out "*[llength $argv]\r\n"
    foreach a $argv {
        set a [encode_arg $a]
        append out "\$[string length $a]\r\n" $a "\r\n"
    }
    return $out
}

proc ::keel::client::send_command {id argv} {
    send_bytes $id [encode_command $argv]
}

proc ::keel::client::send_bytes {id bytes} {
    variable fd
    set chan $fd($id)
    chan configure $chan -blocking 1
    set code [catch {
        puts -nonewline $chan $bytes
        flush $chan
    } err]
    catch {chan configure $chan -blocking 0}
    if {$code} {
        variable host
        variable port
        error "I/O error writing to $host($id):$port($id): $err"
    }
}

# Wait until the channel is readable, or raise after the inactivity timeout.
proc ::keel::client::wait_readable {id} {
    variable fd
    variable ev
    variable timeout
    variable host
    variable port
    set chan $fd($id)
    set ev($id) ""
    set ms [expr {int($timeout($id) * 1000)}]
    chan event $chan readable [list set ::keel::client::ev($id) readable]
    set tid [after $ms [list set ::keel::client::ev($id) timeout]]
    vwait ::keel::client::ev($id)
    after cancel $tid
    catch {chan event $chan readable {}}
    if {$ev($id) eq "timeout"} {
        error "I/O error reading reply from $host($id):$port($id): timeout, no data for $timeout($id) s"
    }
}

# Append more input to the buffer (at least one byte) or raise.
proc ::keel::client::fill {id} {
    variable fd
    variable buf
    variable pos
    variable host
    variable port
    # Everything before pos has been consumed: drop it.
    if {$pos($id) > 0} {
        if {$pos($id) >= [string length $buf($id)]} {
            set buf($id) ""
        } else {
            set buf($id) [string range $buf($id) $pos($id) end]
        }
        set pos($id) 0
    }
    set chan $fd($id)
    while 1 {
        if {[catch {read $chan 65536} data]} {
            error "I/O error reading reply from $host($id):$port($id): $data"
        }
        if {[string length $data]} {
            append buf($id) $data
            return
        }
        if {[eof $chan]} {
            error "I/O error reading reply from $host($id):$port($id): connection closed by server"
        }
        wait_readable $id
    }
}

proc ::keel::client::read_line {id} {
    variable buf
    variable pos
    while {[set e [string first "\r\n" $buf($id) $pos($id)]] < 0} {
        fill $id
    }
    set line [string range $buf($id) $pos($id) [expr {$e - 1}]]
    set pos($id) [expr {$e + 2}]
    return $line
}

# Read n bytes of payload plus the trailing CRLF.
proc ::keel::client::read_payload {id n} {
    variable buf
    variable pos
    variable fd
    variable host
    variable port
    set need [expr {$n + 2}]
    set avail [expr {[string length $buf($id)] - $pos($id)}]
    if {$avail >= $need} {
        set data [string range $buf($id) $pos($id) [expr {$pos($id) + $n - 1}]]
        incr pos($id) $need
        return $data
    }
    # Large or incomplete payload: read it straight from the channel so
    # that it stays a byte array and the buffer is not rescanned.
    if {$avail > 0} {
        set data [string range $buf($id) $pos($id) end]
    } else {
        set data ""
    }
    set buf($id) ""
    set pos($id) 0
    if {[string length $data] > $n} {
        # Payload complete, part of the CRLF is still to come.
        set data [string range $data 0 [expr {$n - 1}]]
        set tail [expr {$avail - $n}]
    } else {
        read_exactly $id data $n
        set tail 0
    }
    set crlf ""
    read_exactly $id crlf [expr {2 - $tail}]
    return $data
}

# Append bytes from the channel to the variable until it holds n bytes.
proc ::keel::client::read_exactly {id varname n} {
    variable fd
    variable host
    variable port
    upvar 1 $varname data
    set chan $fd($id)
    while {[set have [string length $data]] < $n} {
        if {[catch {read $chan [expr {min(1048576, $n - $have)}]} chunk]} {
            error "I/O error reading reply from $host($id):$port($id): $chunk"
        }
        if {[string length $chunk]} {
            append data $chunk
            continue
        }
        if {[eof $chan]} {
            error "I/O error reading reply from $host($id):$port($id): connection closed by server"
        }
        wait_readable $id
    }
}

proc ::keel::client::read_reply {id depth} {
    variable raw
    if {$raw($id)} {
        return [read_line $id]
    }
    set line [read_line $id]
    set type [string index $line 0]
    set rest [string range $line 1 end]
    switch -exact -- $type {
        + - : - , - ( {
            return $rest
        }
        - {
            if {$depth > 0} {
                return $rest
            }
            return -code error -errorcode [list KEEL REPLY] $rest
        }
        $ {
            if {$rest < 0} {
                return ""
            }
            return [read_payload $id $rest]
        }
        * - ~ - > {
            if {$rest < 0} {
                return ""
            }
            set l {}
            for {set i 0} {$i < $rest} {incr i} {
                lappend l [read_reply $id [expr {$depth + 1}]]
            }
            return $l
        }
        % {
            set l {}
            for {set i 0} {$i < 2 * $rest} {incr i} {
                lappend l [read_reply $id [expr {$depth + 1}]]
            }
            return $l
        }
        _ {
            return ""
        }
        # {
            return [expr {$rest eq "t" ? 1 : 0}]
        }
        = {
            set data [read_payload $id $rest]
            # Verbatim strings carry a 3-letter format and a colon first.
            if {[string index $data 3] eq ":"} {
                set data [string range $data 4 end]
            }
            return $data
        }
        ! {
            set data [read_payload $id $rest]
            if {$depth > 0} {
                return $data
            }
            return -code error -errorcode [list KEEL REPLY] $data
        }
        | {
            # Attribute: consume and ignore, then return the real reply.
            for {set i 0} {$i < 2 * $rest} {incr i} {
                read_reply $id [expr {$depth + 1}]
            }
            return [read_reply $id $depth]
        }
        default {
            variable host
            variable port
            error "protocol error from $host($id):$port($id): unexpected reply line '[string range $line 0 60]'"
        }
    }
}
