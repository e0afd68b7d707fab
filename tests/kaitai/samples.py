"""Small sample files for the formats of the gallery the tests check,
made here with Python's standard library or by hand from each format's
published layout. Usage: python3 samples.py OUTDIR; prints the names."""
import gzip
import io
import os
import sqlite3
import struct
import sys
import wave
import zipfile
import zlib

OUT = sys.argv[1]
made = []


def put(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    made.append(name)


def png():
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))

    w, h = 4, 3
    raw = b"".join(b"\0" + bytes(range(y * 12, y * 12 + 12)) for y in range(h))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"gAMA", struct.pack(">I", 45455))
        + chunk(b"tEXt", b"Comment\0made for a test")
        + chunk(b"pHYs", struct.pack(">IIB", 2835, 2835, 1))
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def bmp():
    w, h = 3, 2
    row = bytes([1, 2, 3] * w) + b"\0" * 3
    pixels = row * h
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(pixels), 2835, 2835, 0, 0)
    head = b"BM" + struct.pack("<IHHI", 14 + len(info) + len(pixels), 0, 0, 14 + len(info))
    return head + info + pixels


def gif():
    out = b"GIF89a" + struct.pack("<HHBBB", 2, 2, 0x80, 0, 0)
    out += bytes([0, 0, 0, 255, 255, 255])
    out += b"\x21\xf9\x04\x00\x0a\x00\x00\x00"
    out += b"\x21\xfe\x05hello\x00"
    out += b"\x2c" + struct.pack("<HHHHB", 0, 0, 2, 2, 0)
    out += b"\x02\x02\x44\x01\x00"
    return out + b"\x3b"


def wav():
    b = io.BytesIO()
    with wave.open(b, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(struct.pack("<8h", *range(-4, 4)))
    return b.getvalue()


def zip_():
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr(zipfile.ZipInfo("a.txt", (2024, 1, 2, 3, 4, 6)), b"hello\n" * 3)
        z.writestr(
            zipfile.ZipInfo("dir/b.bin", (2020, 5, 6, 7, 8, 10)),
            bytes(range(64)) * 4,
            compress_type=zipfile.ZIP_DEFLATED,
        )
        z.comment = b"a comment"
    return b.getvalue()


def gzip_():
    b = io.BytesIO()
    with gzip.GzipFile("x.txt", "wb", fileobj=b, mtime=1700000000) as g:
        g.write(b"some text\n" * 10)
    return b.getvalue()


def cpio():
    def entry(name, data, mode):
        n = name + b"\0"
        # mtime and filesize are two 16-bit halves, high first.
        hdr = struct.pack("<HHHHHHHH", 0o70707, 1, 2, mode, 0, 0, 1, 0) + struct.pack("<HH", 0x6000, 0x1234) + struct.pack("<H", len(n)) + struct.pack("<HH", len(data) >> 16, len(data) & 0xFFFF)
        body = hdr + n + (b"\0" if len(n) % 2 else b"") + data + (b"\0" if len(data) % 2 else b"")
        return body

    return entry(b"hello.txt", b"hi there\n", 0o100644) + entry(b"TRAILER!!!", b"", 0)


def uimage():
    data = b"\x00" * 16 + b"payload"
    name = b"test image".ljust(32, b"\0")
    hdr = struct.pack(">IIIIIIIBBBB", 0x27051956, 0, 1700000000, len(data), 0x80008000, 0x80008000, zlib.crc32(data), 5, 2, 2, 0) + name
    hcrc = zlib.crc32(hdr)
    hdr = hdr[:4] + struct.pack(">I", hcrc) + hdr[8:]
    return hdr + data


def dtb():
    strings = b"compatible\0#address-cells\0"
    s = b""

    def tok(t):
        return struct.pack(">I", t)

    def prop(val, nameoff):
        v = tok(3) + struct.pack(">II", len(val), nameoff) + val
        return v + b"\0" * (-len(v) % 4)

    s += tok(1) + b"\0\0\0\0"
    s += prop(b"test,board\0", 0)
    s += prop(struct.pack(">I", 2), 11)
    s += tok(1) + b"cpus\0" + b"\0\0\0"
    s += tok(2) + tok(2) + tok(9)
    rsv = struct.pack(">QQ", 0x1000, 0x2000) + struct.pack(">QQ", 0, 0)
    off_rsv = 40
    off_struct = off_rsv + len(rsv)
    off_strings = off_struct + len(s)
    total = off_strings + len(strings)
    hdr = struct.pack(">IIIIIIIIII", 0xD00DFEED, total, off_struct, off_strings, off_rsv, 17, 16, 0, len(strings), len(s))
    return hdr + rsv + s + strings


def sqlite():
    path = os.path.join(OUT, "tmp.sqlite3")
    if os.path.exists(path):
        os.remove(path)
    c = sqlite3.connect(path)
    c.execute("create table t (a integer, b text)")
    c.executemany("insert into t values (?, ?)", [(i, "row %d" % i) for i in range(5)])
    c.commit()
    c.close()
    with open(path, "rb") as f:
        d = f.read()
    os.remove(path)
    return d


def mo():
    msgs = [(b"", b"Content-Type: text/plain; charset=UTF-8\n"), (b"hello", b"bonjour"), (b"yes", b"oui")]
    n = len(msgs)
    o_orig = 28
    o_tr = o_orig + 8 * n
    strings = b""
    base = o_tr + 8 * n
    orig, tr = [], []
    for k, _ in msgs:
        orig.append((len(k), base + len(strings)))
        strings += k + b"\0"
    for _, v in msgs:
        tr.append((len(v), base + len(strings)))
        strings += v + b"\0"
    hdr = struct.pack("<IIIIIII", 0x950412DE, 0, n, o_orig, o_tr, 0, 0)
    return hdr + b"".join(struct.pack("<II", *x) for x in orig) + b"".join(struct.pack("<II", *x) for x in tr) + strings


def tga():
    w, h = 2, 2
    hdr = struct.pack("<BBBHHBHHHHBB", 4, 0, 2, 0, 0, 0, 0, 0, w, h, 24, 0) + b"abcd"
    pixels = bytes(range(12))
    footer = struct.pack("<II", 0, 0) + b"TRUEVISION-XFILE.\0"
    return hdr + pixels + footer


def pcx():
    hdr = struct.pack("<BBBBHHHHHH", 10, 5, 1, 8, 0, 0, 3, 1, 72, 72) + bytes(48) + struct.pack("<BBHHHH", 0, 1, 4, 1, 4, 2) + bytes(54)
    return hdr + b"\xc4\x07\x01\x02\x03\x04" + b"\x0c" + bytes(range(256)) * 3


def mbr():
    d = bytearray(512)
    d[0:3] = b"\xeb\x3c\x90"
    parts = [(0x80, 0x83, 2048, 4096), (0, 0x0C, 6144, 2048)]
    for i, (st, t, lba, n) in enumerate(parts):
        d[446 + 16 * i : 446 + 16 * i + 16] = struct.pack("<B3sB3sII", st, b"\x01\x02\x03", t, b"\x04\x05\x06", lba, n)
    d[510:512] = b"\x55\xaa"
    return bytes(d)


def midi():
    track = b"\x00\xff\x03\x04name" + b"\x00\x90\x3c\x40" + b"\x81\x00\x80\x3c\x00" + b"\x00\xff\x2f\x00"
    return b"MThd" + struct.pack(">IHHH", 6, 0, 1, 96) + b"MTrk" + struct.pack(">I", len(track)) + track


def id3():
    return bytes(100) + b"TAG" + b"Title".ljust(30, b"\0") + b"Artist".ljust(30, b"\0") + b"Album".ljust(30, b"\0") + b"1999" + b"comment".ljust(28, b"\0") + b"\0\x05" + b"\x11"


def der():
    def tlv(t, v):
        n = len(v)
        ln = bytes([n]) if n < 128 else bytes([0x81, n])
        return bytes([t]) + ln + v

    return tlv(0x30, tlv(0x02, b"\x05") + tlv(0x0C, b"name") + tlv(0x06, b"\x2a\x86\x48") + tlv(0x30, tlv(0x01, b"\xff") + tlv(0x05, b"")))


def ico():
    img = b"\x89PNG\r\n\x1a\n" + bytes(24)
    return struct.pack("<HHH", 0, 1, 1) + struct.pack("<BBBBHHII", 16, 16, 0, 0, 1, 32, len(img), 22) + img


def dos_mz():
    hdr = struct.pack("<2sHHHHHHHHHHHHH", b"MZ", 0x90, 1, 1, 4, 0, 0xFFFF, 0, 0xB8, 0, 0, 0, 0x40, 0)
    body = hdr + struct.pack("<HH", 0x10, 0x20) + bytes(64 - len(hdr) - 4)
    # The load module: 512 bytes a page, the last one 0x90 long, less the
    # 64-byte header.
    return body + b"\xb4\x4c\xcd\x21" + bytes(76)


def au():
    data = bytes(range(16))
    return b".snd" + struct.pack(">IIIII", 28, len(data), 2, 8000, 1) + b"abcd" + data


def bson():
    def doc(elems):
        b = b"".join(elems) + b"\0"
        return struct.pack("<i", len(b) + 4) + b

    def cstr(s):
        return s + b"\0"

    def string(s):
        return struct.pack("<i", len(s) + 1) + s + b"\0"

    inner = doc([b"\x10" + cstr(b"0") + struct.pack("<i", 7), b"\x10" + cstr(b"1") + struct.pack("<i", 8)])
    return doc([
        b"\x02" + cstr(b"name") + string(b"value"),
        b"\x10" + cstr(b"i32") + struct.pack("<i", -5),
        b"\x12" + cstr(b"i64") + struct.pack("<q", 1 << 40),
        b"\x01" + cstr(b"f") + struct.pack("<d", 1.5),
        b"\x08" + cstr(b"yes") + b"\x01",
        b"\x04" + cstr(b"arr") + inner,
    ])


def ines():
    hdr = b"NES\x1a" + bytes([1, 1, 0x01, 0x00]) + bytes(8)
    return hdr + bytes(16384) + bytes(8192)


def android_img():
    page = 2048
    kernel, ramdisk = b"K" * 100, b"R" * 50
    hdr = b"ANDROID!" + struct.pack("<IIIIIIIIII", len(kernel), 0x10008000, len(ramdisk), 0x11000000, 0, 0x10F00000, 0x10000100, page, 0, (1 << 11) | 42)
    hdr += b"boot".ljust(16, b"\0") + b"console=ttyS0".ljust(512, b"\0") + bytes(32) + bytes(1024)
    def pad(b):
        return b + bytes(-len(b) % page)
    return pad(hdr) + pad(kernel) + pad(ramdisk)


def pcap():
    eth = bytes.fromhex("ffffffffffff001122334455") + b"\x08\x00"
    payload = b"hello"
    udp = struct.pack(">HHHH", 1234, 5678, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) + udp
    frame = eth + ip
    rec = struct.pack("<IIII", 1700000000, 5, len(frame), len(frame)) + frame
    return struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1) + rec + rec


for name, f in [
    ("png", png), ("bmp", bmp), ("gif", gif), ("wav", wav), ("zip", zip_),
    ("gz", gzip_), ("cpio", cpio), ("uimage", uimage), ("dtb", dtb),
    ("sqlite3", sqlite), ("mo", mo), ("tga", tga), ("pcx", pcx), ("mbr", mbr),
    ("mid", midi), ("id3", id3), ("der", der), ("ico", ico), ("mz", dos_mz),
    ("au", au), ("bson", bson), ("nes", ines), ("androidimg", android_img),
    ("pcap", pcap),
]:
    put("sample." + name, f())
print("\n".join(made))
