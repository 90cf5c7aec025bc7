# The struct and cmsgpack libraries of the Lua sandbox. Every expected value (bytes in hex,
# unpacked values, error texts) was taken from the reference redis-server 7.0, whose bundled
# libraries are unchanged in 7.4; this file also passes against it
# (tclsh tests/runtest --server /usr/bin/redis-server --single unit/scripting-libs).

# Lua helpers prepended to a script: show() renders any value (numbers as %.17g, strings
# quoted, tables with sorted keys), dump(...) renders every value returned, nils included.
set ::lua_show {
local function show(v)
  local t = type(v)
  if t == 'number' then return string.format('%.17g', v) end
  if t == 'string' then return "'" .. v .. "'" end
  if t ~= 'table' then return tostring(v) end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return show(a) < show(b) end)
  local out = {}
  for _, k in ipairs(keys) do out[#out + 1] = show(k) .. '=' .. show(v[k]) end
  return '{' .. table.concat(out, ',') .. '}'
end
local function dump(...)
  local out = {}
  for i = 1, select('#', ...) do out[i] = show((select(i, ...))) end
  return table.concat(out, ' ')
end
}

# Every value of the Lua expression list `exprs`, rendered by dump().
proc lua_dump {exprs} {
    r eval "$::lua_show return dump($exprs)" 0
}

# The string the Lua expression returns, as hex.
proc lua_hex {expr} {
    binary encode hex [r eval "return $expr" 0]
}

# ---- struct --------------------------------------------------------------------------------------

test "struct.pack integer formats, sizes and byte order" {
    assert_equal fffffefffffffdffffffffffffff04000000000000000500000000000000 \
        [lua_hex {struct.pack('bBhHlLT', -1, 255, -2, 65535, -3, 4, 5)}]
    assert_equal fffffffefffffffffffffffffffd00000000000000040000000000000005 \
        [lua_hex {struct.pack('>bBhHlLT', -1, 255, -2, 65535, -3, 4, 5)}]
    assert_equal 00000001 [lua_hex {struct.pack('>i', 1)}]
    assert_equal 01000000 [lua_hex {struct.pack('<i', 1)}]
    assert_equal feffffff [lua_hex {struct.pack('i', -2)}]
    # Endianness switches mid-format.
    assert_equal 00010100 [lua_hex {struct.pack('>h<h', 1, 1)}]
    assert_equal 010200030000040000000500000000060000000000070000000000000800000000000000 \
        [lua_hex {struct.pack('i1i2i3i4i5i6i7i8', 1, 2, 3, 4, 5, 6, 7, 8)}]
    assert_equal 00000000000000000000000000000001 [lua_hex {struct.pack('>I16', 1)}]
    assert_equal ffffffffffffffff0000000000000000 [lua_hex {struct.pack('<i16', -1)}]
    assert_equal [string repeat 00 31]01 [lua_hex {struct.pack('>i32', 1)}]
    assert_equal {} [lua_hex {struct.pack('i0', 1)}]
    assert_equal {} [lua_hex {struct.pack('')}]
    # Extra arguments are ignored; numeric strings are numbers.
    assert_equal 01 [lua_hex {struct.pack('b', 1, 2, 3)}]
    assert_equal 0c000000 [lua_hex {struct.pack('i', '12')}]
}

test "struct.pack truncates and wraps out-of-range numbers like the reference" {
    assert_equal 00000000 [lua_hex {struct.pack('I', 2^32)}]
    assert_equal ffffffff [lua_hex {struct.pack('I', -1)}]
    assert_equal 2c [lua_hex {struct.pack('b', 300)}]
    assert_equal ff [lua_hex {struct.pack('B', -1)}]
    assert_equal 01000000 [lua_hex {struct.pack('i', 1.9)}]
    assert_equal ffffffff [lua_hex {struct.pack('i', -1.9)}]
    assert_equal 0000000000000080 [lua_hex {struct.pack('l', 2^63)}]
    assert_equal 0000000000000000 [lua_hex {struct.pack('l', 2^64)}]
    assert_equal 0000000000000000 [lua_hex {struct.pack('L', 1e30)}]
    assert_equal 0000000000000080 [lua_hex {struct.pack('l', 0/0)}]
    assert_equal 0000000000000080 [lua_hex {struct.pack('l', -2^63)}]
    assert_equal 0000000000000080 [lua_hex {struct.pack('l', -1e30)}]
}

test "struct.pack floats and doubles" {
    assert_equal 0000c03f [lua_hex {struct.pack('f', 1.5)}]
    assert_equal 3fc00000 [lua_hex {struct.pack('>f', 1.5)}]
    assert_equal 9a9999999999b93f [lua_hex {struct.pack('d', 0.1)}]
    assert_equal bfb999999999999a [lua_hex {struct.pack('>d', -0.1)}]
    assert_equal 0000807f [lua_hex {struct.pack('f', 1e300)}]
}

test "struct.pack strings s, c<n>, c0 and padding x" {
    assert_equal 61626300 [lua_hex {struct.pack('s', 'abc')}]
    assert_equal 61006200 [lua_hex {struct.pack('s', 'a\0b')}]
    assert_equal 313200 [lua_hex {struct.pack('s', 12)}]
    assert_equal 61 [lua_hex {struct.pack('c', 'abc')}]
    assert_equal 616263 [lua_hex {struct.pack('c3', 'abc')}]
    assert_equal 61626364 [lua_hex {struct.pack('c0', 'abcd')}]
    assert_equal {} [lua_hex {struct.pack('c0', '')}]
    assert_equal 00 [lua_hex {struct.pack('x')}]
    assert_equal 000001 [lua_hex {struct.pack('xxb', 1)}]
    assert_equal 0102 [lua_hex {struct.pack(' b b ', 1, 2)}]
}

test "struct alignment with !" {
    assert_equal 0100000002000000 [lua_hex {struct.pack('!bi', 1, 2)}]
    assert_equal 010000000000000000000040 [lua_hex {struct.pack('!4bd', 1, 2)}]
    assert_equal 010002000000 [lua_hex {struct.pack('!2bi', 1, 2)}]
    assert_equal 01000200 [lua_hex {struct.pack('!bh', 1, 2)}]
    assert_equal 01000000000000000000000000000040 [lua_hex {struct.pack('!16bd', 1, 2)}]
    # Strings are never aligned; 's' counts its terminator.
    assert_equal 0161620003000000 [lua_hex {struct.pack('!bc2i', 1, 'ab', 3)}]
    assert_equal 0161620003000000 [lua_hex {struct.pack('!bsi', 1, 'ab', 3)}]
    assert_equal 01000000000000400000000000000840 [lua_hex {struct.pack('!bfd', 1, 2, 3)}]
    assert_equal 0100000000000002 [lua_hex {struct.pack('>!4bi', 1, 2)}]
    # Odd integer sizes: the padding the reference computes.
    assert_equal 010000020000 [lua_hex {struct.pack('!4bi3', 1, 2)}]
    assert_equal 01000000020000000003 [lua_hex {struct.pack('!4bi5b', 1, 2, 3)}]
    assert_equal 01000200000000 [lua_hex {struct.pack('!2bi5', 1, 2)}]
    # '!1' turns alignment off again.
    assert_equal 01000200000300 [lua_hex {struct.pack('!bh!1bh', 1, 2, 0, 3)}]
}

test "struct.unpack returns the values then the next position" {
    assert_equal {1 5} [lua_dump {struct.unpack('>i', '\0\0\0\1')}]
    assert_equal {1 5} [lua_dump {struct.unpack('<i', '\1\0\0\0')}]
    assert_equal {-1 255 -2 65535 -3 4 5 31} \
        [lua_dump {struct.unpack('bBhHlLT', struct.pack('bBhHlLT', -1, 255, -2, 65535, -3, 4, 5))}]
    assert_equal {-1 4} [lua_dump {struct.unpack('i3', '\255\255\255')}]
    assert_equal {16777215 4} [lua_dump {struct.unpack('I3', '\255\255\255')}]
    assert_equal {-128 2} [lua_dump {struct.unpack('i1', '\128')}]
    assert_equal {1.8446744073709552e+19 9} [lua_dump {struct.unpack('L', string.rep('\255', 8))}]
    assert_equal {-9.2233720368547758e+18 9} [lua_dump {struct.unpack('>l', '\128\0\0\0\0\0\0\0')}]
    # Only the 64 low bits of wide integers survive; the sign bit tested wraps modulo 64.
    assert_equal {-1 17} [lua_dump {struct.unpack('>i16', string.rep('\255', 16))}]
    assert_equal {0 17} [lua_dump {struct.unpack('>I16', '\1' .. string.rep('\0', 15))}]
    assert_equal {-2147483648 13} [lua_dump {struct.unpack('<i12', '\0\0\0\0\0\0\0\128\0\0\0\0')}]
    assert_equal {0 0 97 2} [lua_dump {struct.unpack('i0', ''), struct.unpack('I0b', 'a')}]
    assert_equal {0.10000000149011612 5} [lua_dump {struct.unpack('f', struct.pack('f', 0.1))}]
    assert_equal {-2.5 9} [lua_dump {struct.unpack('>d', struct.pack('>d', -2.5))}]
    assert_equal {'abc' 'def' 9} [lua_dump {struct.unpack('ss', 'abc\0def\0')}]
    assert_equal {'ab' 'c' 4} [lua_dump {struct.unpack('c2c1', 'abc')}]
    assert_equal {98 3} [lua_dump {struct.unpack('xb', 'ab')}]
    assert_equal {1} [lua_dump {struct.unpack('', '')}]
    # Only the last call of an expression list keeps all its values.
    assert_equal {1 1 2 9} [lua_dump {struct.unpack('!bi', struct.pack('!bi', 1, 2)), struct.unpack('!bi', '\1\0\0\0\2\0\0\0')}]
    # The data may be a number (converted to its text).
    assert_equal {875770417 5} [lua_dump {struct.unpack('i', 1234)}]
}

test "struct.unpack c0 takes its length from the previous value" {
    assert_equal {'ab' 4} [lua_dump {struct.unpack('bc0', '\2abc')}]
    assert_equal {'ab' 5} [lua_dump {struct.unpack('bxc0', '\2\0ab')}]
    assert_equal 0061 [lua_hex {(struct.unpack('!bc0', '\2\0ab'))}]
    assert_equal {'a' 10} [lua_dump {struct.unpack('dc0', struct.pack('d', 1.5) .. 'ab')}]
    # A numeric string counts as a size.
    assert_equal {'ab' 5} [lua_dump {struct.unpack('sc0', '2\0ab')}]
    assert_error {*format 'c0' needs a previous size*} {r eval {return struct.unpack('c0', 'abc')} 0}
    assert_error {*format 'c0' needs a previous size*} {r eval {return struct.unpack('sc0', 'a\0bc')} 0}
    assert_error {*bad argument #2 to 'unpack' (data string too short)*} {r eval {return struct.unpack('bc0', '\5ab')} 0}
    assert_error {*bad argument #2 to 'unpack' (data string too short)*} {r eval {return struct.unpack('bc0', '\255ab')} 0}
}

test "struct.unpack start position" {
    assert_equal {100 5} [lua_dump {struct.unpack('b', 'abcd', 4)}]
    assert_equal {98 3} [lua_dump {struct.unpack('b', 'abcd', 2)}]
    assert_equal {97 2} [lua_dump {struct.unpack('b', 'abcd', 1.9)}]
    assert_equal {99 4} [lua_dump {struct.unpack('b', 'abcd', '3')}]
    assert_equal {2 9} [lua_dump {struct.unpack('!i', '\1\0\0\0\2\0\0\0', 5)}]
    assert_error {*bad argument #2 to 'unpack' (data string too short)*} {r eval {return struct.unpack('b', 'abcd', 5)} 0}
    assert_error {*bad argument #3 to 'unpack' (offset must be 1 or greater)*} {r eval {return struct.unpack('b', 'abcd', 0)} 0}
    assert_error {*bad argument #2 to 'unpack' (data string too short)*} {r eval {return struct.unpack('b', 'abcd', -1)} 0}
    assert_error {*bad argument #3 to 'unpack' (number expected, got string)*} {r eval {return struct.unpack('b', 'abcd', 'x')} 0}
}

test "struct.size" {
    assert_equal {4 43 8 10 7 0 16 0 6 10} [lua_dump {struct.size('i'), struct.size('bBhHlLTfdx'), struct.size('!bi'), struct.size('c10'), struct.size('i7'), struct.size(''), struct.size('!8bd'), struct.size('<>!'), struct.size('!4bi3'), struct.size('xi9 ')}]
    # Unknown letters and digits count as nothing; unknown punctuation is an error.
    assert_equal {0 0 4} [lua_dump {struct.size('q'), struct.size('1'), struct.size('qi')}]
    assert_error {*bad argument #1 to 'size' (invalid format option '#')*} {r eval {return struct.size('#')} 0}
    assert_error {*bad argument #1 to 'size' (invalid format option '=')*} {r eval {return struct.size('=')} 0}
    assert_error {*bad argument #1 to 'size' (option 's' has no fixed size)*} {r eval {return struct.size('!bs')} 0}
    assert_error {*bad argument #1 to 'size' (option 'c0' has no fixed size)*} {r eval {return struct.size('c0')} 0}
    assert_error {*alignment 5 is not a power of 2*} {r eval {return struct.size('!5')} 0}
    assert_error {*integral size 40 is larger than limit of 32*} {r eval {return struct.size('i40')} 0}
    assert_error {*bad argument #1 to 'size' (string expected, got no value)*} {r eval {return struct.size()} 0}
}

test "struct round trip of a record" {
    set script {
        local fmt = '>!4 b I2 s d c0 l'
        local s = struct.pack(fmt, -7, 513, 'name', 2.25, 'xyz', -123456789012)
        return dump(#s, struct.size('>!4 b I2') , struct.unpack('>!4 b I2 s d', s))
    }
    assert_equal {32 4 -7 513 'name' 2.25 21} [r eval "$::lua_show $script" 0]
    assert_equal {'xyz' -123456789012 12} \
        [r eval "$::lua_show local s = struct.pack('c0l', 'xyz', -123456789012) return dump(struct.unpack('c3l', s))" 0]
}

test "struct errors" {
    foreach {expr err} {
        {struct.pack('=i', 1)}        {*bad argument #1 to 'pack' (invalid format option '=')*}
        {struct.pack('q', 1)}         {*bad argument #1 to 'pack' (invalid format option 'q')*}
        {struct.pack(1)}              {*bad argument #1 to 'pack' (invalid format option '1')*}
        {struct.pack()}               {*bad argument #1 to 'pack' (string expected, got no value)*}
        {struct.pack('i33', 1)}       {*integral size 33 is larger than limit of 32*}
        {struct.pack('i99999999999', 1)} {*integral size overflow*}
        {struct.pack('c2147483648', 'a')} {*integral size overflow*}
        {struct.pack('!3i', 1)}       {*alignment 3 is not a power of 2*}
        {struct.pack('!0i', 1)}       {*alignment 0 is not a power of 2*}
        {struct.pack('i')}            {*bad argument #2 to 'pack' (number expected, got nil)*}
        {struct.pack('ii', 1)}        {*bad argument #3 to 'pack' (number expected, got nil)*}
        {struct.pack('i', 'x')}       {*bad argument #2 to 'pack' (number expected, got string)*}
        {struct.pack('s', {})}        {*bad argument #2 to 'pack' (string expected, got table)*}
        {struct.pack('c4', 'ab')}     {*bad argument #3 to 'pack' (string too short)*}
        {struct.pack('bc4', 1, 'ab')} {*bad argument #4 to 'pack' (string too short)*}
        {struct.pack('c', '')}        {*bad argument #3 to 'pack' (string too short)*}
        {struct.unpack('i')}          {*bad argument #2 to 'unpack' (string expected, got no value)*}
        {struct.unpack('i', 'abc')}   {*bad argument #2 to 'unpack' (data string too short)*}
        {struct.unpack('c', '')}      {*bad argument #2 to 'unpack' (data string too short)*}
        {struct.unpack('s', 'abc')}   {*unfinished string in data*}
        {struct.unpack('q', 'abcd')}  {*bad argument #1 to 'unpack' (invalid format option 'q')*}
        {struct.unpack('!3i', 'abcd')} {*alignment 3 is not a power of 2*}
        {struct.unpack('i33', 'a')}   {*integral size 33 is larger than limit of 32*}
    } {
        assert_error $err [list r eval "return $expr" 0]
    }
    # Errors carry the script position like any Lua error.
    assert_error {ERR user_script:1: bad argument #1 to 'pack' (invalid format option 'q') script: *} \
        {r eval {return struct.pack('q')} 0}
}

test "struct.unpack result limit (Lua C stack)" {
    assert_equal 7998 [r eval {return #{struct.unpack(string.rep('b', 7997), string.rep('a', 7997))}} 0]
    assert_error {*stack overflow (too many results)*} \
        {r eval {return #{struct.unpack(string.rep('b', 7998), string.rep('a', 7998))}} 0}
}

test "struct is a readonly library" {
    assert_equal {function function function} [r eval {return {type(struct.pack), type(struct.unpack), type(struct.size)}} 0]
    assert_error {*Attempt to modify a readonly table*} {r eval {struct.pack = nil} 0}
    assert_error {*Attempt to modify a readonly table*} {r eval {struct = 1} 0}
}

# ---- cmsgpack ------------------------------------------------------------------------------------

test "cmsgpack.pack integers take the smallest form" {
    foreach {n hex} {
        0 00  127 7f  128 cc80  255 ccff  256 cd0100  65535 cdffff  65536 ce00010000
        4294967295 ceffffffff  4294967296 cf0000000100000000
        -1 ff  -32 e0  -33 d0df  -128 d080  -129 d1ff7f  -32768 d18000  -32769 d2ffff7fff
        -2147483648 d280000000  -2147483649 d3ffffffff7fffffff
        2^53 cf0020000000000000  -2^63 d38000000000000000  2^63-1024 cf7ffffffffffffc00
        -0.0 00
    } {
        assert_equal $hex [lua_hex "cmsgpack.pack($n)"] "cmsgpack.pack($n)"
    }
}

test "cmsgpack.pack non-integers: float32 when exact, else float64" {
    foreach {n hex} {
        1.5 ca3fc00000  -0.5 cabf000000  3.25 ca40500000  0.1 cb3fb999999999999a
        1e300 cb7e37e43c8800759c  1/0 ca7f800000  -1/0 caff800000  0/0 cbfff8000000000000
        2^63 ca5f000000  2^64 ca5f800000  -2^63-4096 cbc3e0000000000002
        16777217.5 cb4170000018000000  3.4028234663852886e38 ca7f7fffff
        3.4028235677973366e38 cb47effffff0000000  1e39 cb48078287f49c4a1d
        1e-45 cb3696d601ad376ab9
    } {
        assert_equal $hex [lua_hex "cmsgpack.pack($n)"] "cmsgpack.pack($n)"
    }
}

test "cmsgpack.pack strings are str (fixstr, str8, str16, str32)" {
    assert_equal a0 [lua_hex {cmsgpack.pack('')}]
    assert_equal a3610062 [lua_hex {cmsgpack.pack('a\0b')}]
    assert_equal bf[string repeat 78 31] [lua_hex {cmsgpack.pack(string.rep('x', 31))}]
    assert_equal d920[string repeat 78 32] [lua_hex {cmsgpack.pack(string.rep('x', 32))}]
    assert_equal d9ff [lua_hex {string.sub(cmsgpack.pack(string.rep('x', 255)), 1, 2)}]
    assert_equal da0100 [lua_hex {string.sub(cmsgpack.pack(string.rep('x', 256)), 1, 3)}]
    assert_equal daffff [lua_hex {string.sub(cmsgpack.pack(string.rep('x', 65535)), 1, 3)}]
    assert_equal db00010000 [lua_hex {string.sub(cmsgpack.pack(string.rep('x', 65536)), 1, 5)}]
    assert_equal 65541 [r eval {return #cmsgpack.pack(string.rep('x', 65536))} 0]
}

test "cmsgpack.pack tables: arrays for keys 1..n, maps otherwise" {
    assert_equal 93010203 [lua_hex {cmsgpack.pack({1,2,3})}]
    assert_equal 90 [lua_hex {cmsgpack.pack({})}]
    assert_equal 81a16101 [lua_hex {cmsgpack.pack({a=1})}]
    assert_equal 83010102020404 [lua_hex {cmsgpack.pack({1,2,nil,4})}]
    assert_equal 810201 [lua_hex {cmsgpack.pack({[2]=1})}]
    assert_equal 810001 [lua_hex {cmsgpack.pack({[0]=1})}]
    assert_equal 81ca3fc0000001 [lua_hex {cmsgpack.pack({[1.5]=1})}]
    assert_equal 8301010202a17803 [lua_hex {cmsgpack.pack({1,2,x=3})}]
    assert_equal 81c301 [lua_hex {cmsgpack.pack({[true]=1})}]
    assert_equal 819001 [lua_hex {cmsgpack.pack({[{}]=1})}]
    assert_equal 93019202910381a16181a162a163 [lua_hex {cmsgpack.pack({1, {2, {3}}, {a={b='c'}}})}]
    assert_equal dc0010 [lua_hex {string.sub(cmsgpack.pack((function() local t = {} for i=1,16 do t[i]=i end return t end)()), 1, 3)}]
    assert_equal dd00010000 [lua_hex {string.sub(cmsgpack.pack((function() local t = {} for i=1,65536 do t[i]=i end return t end)()), 1, 5)}]
    assert_equal de0010 [lua_hex {string.sub(cmsgpack.pack((function() local t = {} for i=1,16 do t['k'..i]=i end return t end)()), 1, 3)}]
}

test "cmsgpack.pack writes tables nested 16 deep as nil" {
    # 20 nested tables: 16 array headers, then nil.
    assert_equal [string repeat 91 16]c0 \
        [lua_hex {cmsgpack.pack((function() local t = {} local c = t for i=1,20 do c[1] = {} c = c[1] end return t end)())}]
    assert_equal [string repeat 91 15]90 \
        [lua_hex {cmsgpack.pack((function() local t = {} local c = t for i=1,15 do c[1] = {} c = c[1] end return t end)())}]
}

test "cmsgpack.pack other values and several arguments" {
    assert_equal 01ca40200000ffa161c3c2c0 [lua_hex {cmsgpack.pack(1, 2.5, -1, 'a', true, false, nil)}]
    assert_equal c0 [lua_hex {cmsgpack.pack(function() end)}]
    assert_equal c0c0 [lua_hex {cmsgpack.pack(nil, coroutine.create(function() end))}]
    assert_error {*bad argument #0 to 'pack' (MessagePack pack needs input.)*} {r eval {return cmsgpack.pack()} 0}
    # Readonly library tables are packed with their contents (functions become nil).
    assert_equal {99 cmsgpack 4} [r eval {
        local t = cmsgpack.unpack(cmsgpack.pack(cmsgpack))
        local n = 0
        for k in pairs(t) do n = n + 1 end
        return {#cmsgpack.pack(string), t._NAME, n}
    } 0]
    assert_equal 11618 [r eval {return #cmsgpack.pack(unpack((function() local t = {} for i=1,4000 do t[i]=i end return t end)()))} 0]
    assert_error {*bad argument #0 to 'pack' (Too many arguments for MessagePack pack.)*} \
        {r eval {return cmsgpack.pack(unpack((function() local t = {} for i=1,4001 do t[i]=i end return t end)()))} 0}
}

test "cmsgpack.unpack decodes every value" {
    assert_equal {{1=1,2=2,3=3}} [lua_dump {cmsgpack.unpack(cmsgpack.pack({1,2,3}))}]
    assert_equal {1 'a' {'x'={1=1,2=2}} true false nil 1.5 0.10000000000000001} \
        [lua_dump {cmsgpack.unpack(cmsgpack.pack(1,'a',{x={1,2}},true,false,nil,1.5,0.1))}]
    assert_equal {} [lua_dump {cmsgpack.unpack('')}]
    assert_equal {1.5 1.5} [lua_dump {cmsgpack.unpack('\202\63\192\0\0\203\63\248\0\0\0\0\0\0')}]
    # uint64 is read as a signed 64-bit value, as the reference does.
    assert_equal {-1 -9.2233720368547758e+18 4294967295 -2147483648} \
        [lua_dump {cmsgpack.unpack('\207\255\255\255\255\255\255\255\255\211\128\0\0\0\0\0\0\0\206\255\255\255\255\210\128\0\0\0')}]
    assert_equal {1 4.9406564584124654e-324} [lua_dump {cmsgpack.unpack('\207\0\0\0\0\0\0\0\1\203\0\0\0\0\0\0\0\1')}]
    assert_equal {'ab' 'ab' 'ab'} [lua_dump {cmsgpack.unpack('\217\2ab\218\0\2ab\219\0\0\0\2ab')}]
    assert_equal {{1=1,2=2} {1=3} {1=2} {3=4}} \
        [lua_dump {cmsgpack.unpack('\220\0\2\1\2\221\0\0\0\1\3\222\0\1\1\2\223\0\0\0\1\3\4')}]
    assert_equal {-1 -32} [lua_dump {cmsgpack.unpack('\255\224')}]
    assert_equal {{} {} nil} [lua_dump {cmsgpack.unpack('\222\0\0\220\0\0\192')}]
    assert_equal {nan -inf} [lua_dump {cmsgpack.unpack('\202\127\192\0\0'), cmsgpack.unpack('\202\255\128\0\0')}]
    # nil elements leave holes in arrays.
    assert_equal {{2=1} {1=1,3=3}} [lua_dump {cmsgpack.unpack('\146\192\1'), cmsgpack.unpack('\147\1\192\3')}]
    # A number argument is its text.
    assert_equal 49 [lua_dump {cmsgpack.unpack(1)}]
}

test "cmsgpack round trips" {
    assert_equal 9401a374776f81a5746872656503c2 \
        [lua_hex {cmsgpack.pack(cmsgpack.unpack(cmsgpack.pack({1,'two',{three=3},false})))}]
    assert_equal {{'a'={'b'={'c'={'d'={1=1,2=2}}}}}} [lua_dump {cmsgpack.unpack(cmsgpack.pack({a={b={c={d={1,2}}}}}))}]
    foreach hex {
        93010203 81a16101 cb3fb999999999999a d3ffffffff7fffffff ceffffffff ca7f800000
        dc0010000102030405060708090a0b0c0d0e0f c3c2c0a0 9291930102c3a178
    } {
        set blob [binary decode hex $hex]
        assert_equal $hex [binary encode hex [r eval {return cmsgpack.pack(cmsgpack.unpack(ARGV[1]))} 0 $blob]]
    }
}

test "cmsgpack.unpack_one and unpack_limit return the next offset first" {
    assert_equal {1 1} [lua_dump {cmsgpack.unpack_one(cmsgpack.pack(1,2,3))}]
    assert_equal {2 2} [lua_dump {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 1)}]
    assert_equal {-1 3} [lua_dump {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 2)}]
    assert_equal {-1} [lua_dump {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 3)}]
    assert_equal {-1} [lua_dump {cmsgpack.unpack_one('', 0)}]
    assert_equal {-1 2} [lua_dump {cmsgpack.unpack_one('\1\2', 1.9)}]
    assert_equal {-1 2} [lua_dump {cmsgpack.unpack_one('\1\2', '1')}]
    assert_equal {2 1 2} [lua_dump {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 2)}]
    assert_equal {-1 2 3} [lua_dump {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 2, 1)}]
    assert_equal {-1 2 3} [lua_dump {cmsgpack.unpack_limit('\1\2\3', 5, 1)}]
    # limit 0 and offset 0 decode everything and return no offset; limit 0 elsewhere decodes nothing.
    assert_equal {1 2 3} [lua_dump {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 0)}]
    assert_equal {1} [lua_dump {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 0, 1)}]
    assert_equal {-1} [lua_dump {cmsgpack.unpack_limit('\1\2\3', 1, 3)}]
    # Offsets and limits are 64-bit.
    assert_equal {-1 1 2} [lua_dump {cmsgpack.unpack_limit('\1\2', 4294967295)}]
    # Walking a stream.
    set script {
        local s = cmsgpack.pack({1}, 'two', 3)
        local out, off = {}, 0
        while off ~= -1 do
            local next_off, v = cmsgpack.unpack_one(s, off)
            out[#out + 1] = show(v)
            off = next_off
        end
        return table.concat(out, ' ')
    }
    assert_equal {{1=1} 'two' 3} [r eval "$::lua_show $script" 0]
}

test "cmsgpack errors" {
    foreach {expr err} {
        {cmsgpack.unpack('\196\1a')}   {*Bad data format in input.*}
        {cmsgpack.unpack('\193')}      {*Bad data format in input.*}
        {cmsgpack.unpack('\205\1')}    {*Missing bytes in input.*}
        {cmsgpack.unpack('\146\1')}    {*Missing bytes in input.*}
        {cmsgpack.unpack('\129\1')}    {*Missing bytes in input.*}
        {cmsgpack.unpack('\221\255\255\255\255')} {*Missing bytes in input.*}
        {cmsgpack.unpack('\219\255\255\255\255a')} {*Missing bytes in input.*}
        {cmsgpack.unpack_one('\1\205\1', 1)} {*Missing bytes in input.*}
        {cmsgpack.unpack('\129\192\1')} {*table index is nil*}
        {cmsgpack.unpack('\129\203\127\248\0\0\0\0\0\0\1')} {*table index is NaN*}
        {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), 4)}  {*Start offset 4 greater than input length 3.*}
        {cmsgpack.unpack_one('', 1)}   {*Start offset 1 greater than input length 0.*}
        {cmsgpack.unpack_one('\1\2', 4294967296)} {*Start offset 0 greater than input length 2.*}
        {cmsgpack.unpack_one(cmsgpack.pack(1,2,3), -1)} {*Invalid request to unpack with offset of -1 and limit of 3.*}
        {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), -1)} {*Invalid request to unpack with offset of 0 and limit of 3.*}
        {cmsgpack.unpack_limit('\1\2\3', 1, 4)} {*Start offset 4 greater than input length 3.*}
        {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3))} {*bad argument #2 to 'unpack_limit' (number expected, got no value)*}
        {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 'x')} {*bad argument #2 to 'unpack_limit' (number expected, got string)*}
        {cmsgpack.unpack_one('\1\2', 'x')} {*bad argument #2 to 'unpack_one' (number expected, got string)*}
        {cmsgpack.unpack()}            {*bad argument #1 to 'unpack' (string expected, got no value)*}
        {cmsgpack.unpack({})}          {*bad argument #1 to 'unpack' (string expected, got table)*}
        {cmsgpack.unpack_one()}        {*bad argument #1 to 'unpack_one' (string expected, got no value)*}
    } {
        assert_error $err [list r eval "return $expr" 0]
    }
    assert_error {ERR user_script:1: Bad data format in input. script: *} {r eval {return cmsgpack.unpack('\193')} 0}
}

test "cmsgpack.unpack limits: results and nesting depth (Lua C stack)" {
    assert_equal 7999 [r eval {return #{cmsgpack.unpack(string.rep('\1', 7999))}} 0]
    assert_error {*stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)*} \
        {r eval {return #{cmsgpack.unpack(string.rep('\1', 8000))}} 0}
    assert_error {*stack overflow (in function mp_unpack_full)*} \
        {r eval {return #{cmsgpack.unpack_limit(string.rep('\1', 7999), 100000, 0)}} 0}
    assert_equal table [r eval {return type(cmsgpack.unpack(string.rep('\145', 3999) .. '\1'))} 0]
    assert_error {*stack overflow (in function mp_decode_to_lua_array)*} \
        {r eval {return type(cmsgpack.unpack(string.rep('\145', 4000) .. '\1'))} 0}
    assert_error {*stack overflow (in function mp_decode_to_lua_array)*} \
        {r eval {return type(cmsgpack.unpack(string.rep('\145', 100000) .. '\1'))} 0}
    assert_equal table [r eval {return type(cmsgpack.unpack(string.rep('\129\1', 3999) .. '\1'))} 0]
    assert_error {*stack overflow (too many return values at once*} \
        {r eval {return type(cmsgpack.unpack(string.rep('\129\1', 4000) .. '\1'))} 0}
}

test "cmsgpack is a readonly library with its identification fields" {
    assert_equal {cmsgpack {lua-cmsgpack 0.4.0}} [r eval {return {cmsgpack._NAME, cmsgpack._VERSION}} 0]
    assert_equal {function function function function} \
        [r eval {return {type(cmsgpack.pack), type(cmsgpack.unpack), type(cmsgpack.unpack_one), type(cmsgpack.unpack_limit)}} 0]
    assert_error {*Attempt to modify a readonly table*} {r eval {cmsgpack.pack = nil} 0}
    assert_error {*Attempt to modify a readonly table*} {r eval {cmsgpack = 1} 0}
}

test "struct and cmsgpack are available to FUNCTION libraries at run time" {
    r function flush
    r function load {#!lua name=libs
redis.register_function('packit', function(keys, args)
  return cmsgpack.pack(struct.unpack('>I2', args[1]))
end)}
    # '\1\2' -> 258 and next position 3 -> cd0102 03
    assert_equal cd010203 [binary encode hex [r fcall packit 0 "\x01\x02"]]
    r function flush
}

test "Scripts can store packed values in keys" {
    r del packed
    r eval {redis.call('set', KEYS[1], cmsgpack.pack({ARGV[1], tonumber(ARGV[2])})) return 1} 1 packed hello 300
    assert_equal 92a568656c6c6fcd012c [binary encode hex [r get packed]]
    assert_equal {hello 300} [r eval {return cmsgpack.unpack(redis.call('get', KEYS[1]))} 1 packed]
    r del packed
}
