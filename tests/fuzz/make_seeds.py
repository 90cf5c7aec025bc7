#!/usr/bin/env python3
"""Writes the binary seed files of the blob targets (listpack, intset, ziplist, quicklist,
hll) from the byte layouts below, so that the seeds can be read and regenerated:
python3 tests/fuzz/make_seeds.py.
Text-like seeds of the other targets are plain files in tests/fuzz/corpus/<target>/.
Each seed starts with the target's mode byte (see the target's header comment)."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


# ---- listpack: header u32 total bytes, u16 count, entries (encoding+data, backlen), 0xFF ----
def backlen(n):
    if n <= 127:
        return bytes([n])
    size = 2 if n < 16383 else 3 if n < 2097151 else 4 if n < 268435455 else 5
    out = []
    for i in range(size):
        g = (n >> (7 * (size - 1 - i))) & 127
        out.append(g if i == 0 else g | 128)
    return bytes(out)


def lp_entry(enc):
    return enc + backlen(len(enc))


def lp_str(s):
    n = len(s)
    if n < 64:
        return lp_entry(bytes([0x80 | n]) + s)
    if n < 4096:
        return lp_entry(bytes([0xE0 | (n >> 8), n & 0xFF]) + s)
    return lp_entry(b"\xF0" + struct.pack("<I", n) + s)


def lp_int(v):
    if 0 <= v <= 127:
        return lp_entry(bytes([v]))
    if -4096 <= v <= 4095:
        u = v & 0x1FFF
        return lp_entry(bytes([0xC0 | (u >> 8), u & 0xFF]))
    if -32768 <= v <= 32767:
        return lp_entry(b"\xF1" + struct.pack("<h", v))
    if -8388608 <= v <= 8388607:
        return lp_entry(b"\xF2" + struct.pack("<i", v)[:3])
    if -(2**31) <= v < 2**31:
        return lp_entry(b"\xF3" + struct.pack("<i", v))
    return lp_entry(b"\xF4" + struct.pack("<q", v))


def listpack(entries, count=None):
    body = b"".join(entries)
    total = 6 + len(body) + 1
    return struct.pack("<IH", total, len(entries) if count is None else count) + body + b"\xFF"


ints = [0, 5, 127, 128, -1, 4095, -4096, 4096, 32767, -32768, 32768, 8388607, -8388608,
        2**31 - 1, -(2**31), 2**31, 2**63 - 1, -(2**63)]
write("listpack", "empty", b"\x00" + listpack([]))
write("listpack", "ints_every_width", b"\x00" + listpack([lp_int(v) for v in ints]))
write("listpack", "strings", b"\x00" + listpack([lp_str(b""), lp_str(b"abc"), lp_str(b"x" * 63),
                                                 lp_str(b"y" * 64), lp_str(b"z" * 200)]))
write("listpack", "count_unknown", b"\x00" + listpack([lp_str(b"a"), lp_int(7)], count=65535))
write("listpack", "hash_pairs", b"\x00" + listpack([lp_str(b"field"), lp_str(b"value"),
                                                    lp_str(b"n"), lp_int(42)]))
write("listpack", "long_string_5byte_len", b"\x00" + listpack([lp_str(b"L" * 4100), lp_int(1)]))
write("listpack", "bad_count", b"\x00" + listpack([lp_str(b"a")], count=2))
write("listpack", "bad_backlen", b"\x00" + listpack([lp_str(b"a")[:-1] + b"\x03"]))
write("listpack", "fixup_garbage", b"\x01" + b"\x00" * 6 + b"\xF0\xFF\xFF\xFF\x7F" + b"\xFF")
# mode 2: n values (length byte, bytes), count-unknown flag, position u32, xor mask
write("listpack", "built_then_flipped",
      b"\x02\x04" + b"\x03abc" + b"\x0212" + b"\xC8z" + b"\x00" + b"\x00" + struct.pack("<I", 6) + b"\x80")

# ---- intset: u32 encoding (2/4/8), u32 length, values little-endian, strictly ascending ----
def intset(width, values, length=None):
    fmt = {2: "<h", 4: "<i", 8: "<q"}[width]
    n = len(values) if length is None else length
    return struct.pack("<II", width, n) + b"".join(struct.pack(fmt, v) for v in values)


write("intset", "int16", b"\x00" + intset(2, [-32768, -1, 0, 1, 32767]))
write("intset", "int32", b"\x00" + intset(4, [-(2**31), 0, 70000, 2**31 - 1]))
write("intset", "int64", b"\x00" + intset(8, [-(2**63), -1, 2**40, 2**63 - 1]))
write("intset", "wide_small_values", b"\x00" + intset(8, [1, 2, 3]))
write("intset", "unsorted", b"\x00" + intset(2, [3, 2]))
write("intset", "duplicate", b"\x00" + intset(4, [5, 5]))
write("intset", "bad_width", b"\x00" + struct.pack("<II", 3, 1) + b"\x01\x00\x00")
write("intset", "empty", b"\x00" + intset(2, []))
write("intset", "length_overflow", b"\x00" + struct.pack("<II", 8, 0x20000001) + b"\x00" * 8)

# ---- ziplist: u32 zlbytes, u32 zltail, u16 zllen, entries (prevlen, encoding, data), 0xFF ----
def zl_prevlen(n):
    return bytes([n]) if n < 254 else b"\xFE" + struct.pack("<I", n)


def zl_str_enc(s):
    n = len(s)
    if n <= 63:
        return bytes([n]) + s
    if n <= 16383:
        return bytes([0x40 | (n >> 8), n & 0xFF]) + s
    return b"\x80" + struct.pack(">I", n) + s


def zl_int_enc(v):
    if 0 <= v <= 12:
        return bytes([0xF1 + v])
    if -128 <= v <= 127:
        return b"\xFE" + struct.pack("<b", v)
    if -32768 <= v <= 32767:
        return b"\xC0" + struct.pack("<h", v)
    if -8388608 <= v <= 8388607:
        return b"\xF0" + struct.pack("<i", v)[:3]
    if -(2**31) <= v < 2**31:
        return b"\xD0" + struct.pack("<i", v)
    return b"\xE0" + struct.pack("<q", v)


def ziplist(encoded, count=None):
    body = b""
    prev = 0
    tail = 10
    for enc in encoded:
        e = zl_prevlen(prev) + enc
        tail = 10 + len(body)
        body += e
        prev = len(e)
    total = 10 + len(body) + 1
    n = len(encoded) if count is None else count
    return struct.pack("<IIH", total, tail, n) + body + b"\xFF"


write("ziplist", "empty", b"\x00" + ziplist([]))
write("ziplist", "ints_every_width", b"\x00" + ziplist([zl_int_enc(v) for v in
                                                        [0, 12, 13, -1, 127, -128, 300, -300, 70000,
                                                         -70000, 2**31 - 1, 2**40, -(2**63)]]))
write("ziplist", "strings", b"\x00" + ziplist([zl_str_enc(b""), zl_str_enc(b"abc"),
                                               zl_str_enc(b"x" * 63), zl_str_enc(b"y" * 64),
                                               zl_str_enc(b"z" * 300)]))
write("ziplist", "big_prevlen", b"\x00" + ziplist([zl_str_enc(b"p" * 260), zl_int_enc(5)]))
write("ziplist", "long_string_32bit_len", b"\x00" + ziplist([zl_str_enc(b"L" * 16400), zl_str_enc(b"s")]))
write("ziplist", "hash_pairs", b"\x00" + ziplist([zl_str_enc(b"f"), zl_str_enc(b"v"), zl_str_enc(b"n"),
                                                  zl_int_enc(1000)]))
write("ziplist", "count_unknown", b"\x00" + ziplist([zl_str_enc(b"a")], count=65535))
bad = bytearray(ziplist([zl_str_enc(b"a"), zl_str_enc(b"b")]))
bad[13] = 5  # the second entry's prevlen: 3 -> 5
write("ziplist", "bad_prevlen", b"\x00" + bytes(bad))
write("ziplist", "fixup_garbage", b"\x01" + b"\x00" * 10 + b"\xFE\x80\x00\x00\x00\x00" + b"\xFF")

# Header-fixed (mode 1) and built-then-flipped (mode 2) intsets.
write("intset", "fixup_width4", b"\x01\x01" + b"\x00" * 8 + struct.pack("<iii", -5, 9, 9))
write("intset", "built_then_flipped", b"\x02\x02\x03" + struct.pack("<qqq", 1, -(2**40), 7)
      + struct.pack("<I", 9) + b"\x40")

# A built-then-flipped ziplist (mode 2): 3 entries (6-bit string "ab", immediate 5, int64),
# count kept, then byte 12 XOR 0x01.
write("ziplist", "built_then_flipped", b"\x02\x03" + b"\x00\x02ab" + b"\x03\x05" + b"\x08"
      + struct.pack("<q", -(2**50)) + b"\x00" + struct.pack("<I", 12) + b"\x01")

# ---- quicklist: fill byte (value % 14 - 5), depth byte (% 4), then ops (see quicklist.cc) ----
def qv_str(s):  # a short string value: type byte (len << 3) | 2
    return bytes([(len(s) << 3) | 2]) + s


def qv_small(v):  # an integer value -128..127
    return b"\x00" + struct.pack("<b", v)


PUSH_HEAD, PUSH_TAIL, POP_HEAD, POP_TAIL, INDEX, INSERT, SET, TRIM, REM, RANGE, CONVERT, RDB_LP, RDB_PLAIN, LARGE = range(14)


def fill_byte(fill):
    return bytes([(fill + 5) % 14])


pushes = b"".join(bytes([PUSH_TAIL]) + qv_str(b"v%d" % i) for i in range(12))
write("quicklist", "fill2_depth1_pushes", fill_byte(2) + b"\x01" + pushes
      + bytes([INSERT | 0x80]) + struct.pack("<H", 9) + qv_str(b"mid")
      + bytes([SET]) + struct.pack("<H", 20) + qv_small(-7)
      + bytes([TRIM]) + struct.pack("<H", 15) + b"\x03"
      + bytes([RANGE]) + struct.pack("<H", 13) + b"\x20"
      + bytes([POP_HEAD, POP_TAIL]))
write("quicklist", "fill_minus1_large", fill_byte(-1) + b"\x02" + pushes
      + bytes([LARGE]) + struct.pack("<H", 500) + b"x"
      + bytes([INSERT | 0x40]) + struct.pack("<H", 7) + struct.pack("<H", 300) + b"y"
      + bytes([SET | 0x40]) + struct.pack("<H", 2) + struct.pack("<H", 100) + b"z")
write("quicklist", "lrem_and_convert", fill_byte(3) + b"\x00"
      + b"".join(bytes([PUSH_HEAD]) + qv_small(i % 3) for i in range(10))
      + bytes([REM | 0x80]) + struct.pack("<H", 11) + b"\x05" + qv_small(1)
      + bytes([REM]) + struct.pack("<H", 3) + b"\x07" + qv_small(2)
      + bytes([CONVERT | 0x80]) + bytes([CONVERT]))
write("quicklist", "rdb_nodes", fill_byte(1) + b"\x03"
      + bytes([RDB_LP, 3]) + qv_str(b"a") + qv_str(b"b") + qv_small(5)
      + bytes([RDB_PLAIN]) + qv_str(b"plain")
      + bytes([RDB_PLAIN | 0x40]) + struct.pack("<H", 2000) + b"P"
      + bytes([RDB_LP, 2]) + qv_str(b"c") + qv_str(b"d")
      + bytes([INDEX]) + struct.pack("<H", 4))


# ---- hll (tests/fuzz/hll.cc): mode byte, value, then (index u16, value u8) edits ----------
def u16(v):
    return struct.pack("<H", v)


HLL_SPARSE_HDR = b"HYLL\x01\x00\x00\x00" + b"\x00" * 7 + b"\x80"  # stale cache
# PFADD h a b c; PFCOUNT h; GET h on redis-server 7.0.15 (cache valid: 3)
HLL_REDIS_ABC = (b"HYLL\x01\x00\x00\x00\x03" + b"\x00" * 7
                 + bytes.fromhex("60f38050b1844bfb80425a"))
hll_edits = b"".join(u16(i * 977 % 16384) + bytes([i * 7 % 63 + 1]) for i in range(40))
write("hll", "raw_redis_abc", b"\x00" + u16(len(HLL_REDIS_ABC)) + HLL_REDIS_ABC + hll_edits)
write("hll", "raw_empty", b"\x00" + u16(18) + HLL_SPARSE_HDR + b"\x7f\xff" + hll_edits)
write("hll", "ops_short", b"\x01" + u16(2) + b"\x7f\xfe" + hll_edits)          # 16383 registers
write("hll", "ops_over", b"\x01" + u16(3) + b"\x7f\xff\x00" + hll_edits)       # 16385
write("hll", "ops_cut", b"\x01" + u16(1) + b"\x7f" + hll_edits)                # XZERO cut in half
write("hll", "ops_mixed", b"\x01" + u16(8) + b"\x00\x80\x85\x9f\x7f\xf0\x3f\x0a" + hll_edits)
write("hll", "built_flip", b"\x02" + bytes([60])
      + b"".join(u16(i * 331 % 16384) + bytes([i % 32]) for i in range(60))
      + u16(20) + b"\x40" + hll_edits)
write("hll", "built_ok", b"\x02" + bytes([30])
      + b"".join(u16(i * 1231 % 16384) + bytes([i % 32]) for i in range(30))
      + u16(0) + b"\x00" + u16(300) + hll_edits)
write("hll", "dense", b"\x03" + u16(64) + bytes(range(64)) + hll_edits)
