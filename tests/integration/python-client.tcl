# A real client library against the server: Debian's python3-redis (run by /usr/bin/python3, not
# the pyenv python on PATH) goes through connection set-up, strings, errors, pipelines, CLIENT,
# INFO parsing and HELLO. The scenario lives in tests/helpers/python_smoke.py.

tags {integration python} {

test "python3-redis smoke scenario" {
    if {![file executable /usr/bin/python3] || [catch {exec /usr/bin/python3 -c "import redis"}]} {
        skip_test "Debian's python3-redis is not installed"
    }
    set out [python_client_script python_smoke.py]
    assert_no_match *FAIL* $out
    assert_match "*ok ping*ok pipeline gets*ok info parsed*ok hello proto*" $out
}

test "python3-redis one-shot commands through pyclient.py" {
    r set pyk "hello world"
    assert_equal {hello world} [python_client_script pyclient.py GET pyk]
    assert_equal {ERROR: unknown command 'NOSUCH', with args beginning with: } [python_client_script pyclient.py NOSUCH]
    assert_equal 1 [python_client_script pyclient.py DEL pyk]
}

}
