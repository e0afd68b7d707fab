"""Kaitai Struct's own reading of a file, as leaves: compiles a .ksy with
kaitai-struct-compiler (compile.js, debug mode) and parses the file with
the kaitaistruct Python runtime, then prints every leaf attribute (its
path of attribute ids and [index]es, absolute offset, size and value) as
one JSON document.

Usage: python3 reference.py FILE.ksy SEARCH_DIR DATA
"""
import enum
import importlib
import inspect
import io
import json
import os
import re
import subprocess
import sys
import tempfile

from kaitaistruct import KaitaiStruct


def compile_ksy(ksy, search, out):
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run(
        ["node", os.path.join(here, "compile.js"), ksy, search],
        capture_output=True,
        text=True,
        check=False,
    )
    if r.returncode != 0:
        sys.exit("compile: " + r.stderr)
    got = json.loads(r.stdout)
    for name, src in got["files"].items():
        with open(os.path.join(out, name), "w") as f:
            f.write(src)
    return got["id"]


def walk(obj, base, path, leaves, seen, bases, depth=0):
    """Leaves of `obj`, whose stream starts at absolute `base` (None: a
    stream of processed bytes). `bases` maps streams already met to their
    absolute start: a substream read for an attribute starts at that
    attribute's start; an instance read from another object's stream
    (`io:`) takes that stream's."""
    if depth > 200 or id(obj) in seen:
        return
    seen.add(id(obj))
    dbg = getattr(obj, "_debug", {})
    # Instances: read them so that they are in _debug.
    for name in dir(type(obj)):
        if name.startswith("_"):
            continue
        if isinstance(getattr(type(obj), name, None), property):
            try:
                getattr(obj, name)
            except Exception:
                pass
    # The sequence first: the substreams it reads are the ones instances
    # may read from.
    names = sorted(dbg.keys(), key=lambda n: n.startswith("_m_"))
    for key in names:
        d = dbg[key]
        if "start" not in d or "end" not in d:
            continue
        name = key[3:] if key.startswith("_m_") else key
        try:
            v = getattr(obj, key)
        except Exception:
            continue
        p = path + [name]
        processed = getattr(obj, "_raw__raw_" + key, None) is not None
        # An instance may read from another stream (`io:`): the one its
        # generated getter names.
        own = base
        if key.startswith("_m_"):
            other = instance_io(obj, name)
            if other is not None and other is not obj._io:
                own = bases.get(id(other), "unknown")
                if own == "unknown":
                    unplaced[0] += 1
                    continue
        items = [(v, d, p)]
        if isinstance(v, list):
            arr = d.get("arr", [])
            items = [
                (item, arr[i], p + ["[%d]" % i])
                for i, item in enumerate(v)
                if i < len(arr) and "start" in arr[i]
            ]
        for item, ad, ip in items:
            if isinstance(item, KaitaiStruct):
                io_ = item._io
                if io_ is obj._io:
                    ib = base
                elif own is not base and not processed:
                    ib = own if io_ is instance_io(obj, name) else (
                        None if own is None else own + ad["start"])
                    bases.setdefault(id(io_), ib)
                elif id(io_) in bases:
                    ib = bases[id(io_)]
                else:
                    ib = None if base is None or processed else base + ad["start"]
                    bases[id(io_)] = ib
                walk(item, ib, ip, leaves, seen, bases, depth + 1)
            elif not processed:
                leaf(item, own, ad, ip, leaves)


unplaced = [0]


def instance_io(obj, name):
    """The stream the getter of instance `name` reads from, if it names
    one (`io = ...` in the generated code)."""
    prop = getattr(type(obj), name, None)
    if not isinstance(prop, property):
        return None
    try:
        src = inspect.getsource(prop.fget)
    except (OSError, TypeError):
        return None
    m = re.search(r"^\s*io = (.+)$", src, re.M)
    if m is None:
        return None
    try:
        return eval(m.group(1), {"self": obj})
    except Exception:
        return None


def leaf(v, base, d, path, leaves):
    if base is None:
        return  # in processed bytes: not compared here
    rec = {
        "path": "/".join(path),
        "offset": base + d["start"],
        "size": d["end"] - d["start"],
    }
    if isinstance(v, bool):
        rec["kind"], rec["value"] = "int", int(v)
    elif isinstance(v, enum.Enum):
        rec["kind"], rec["value"], rec["name"] = "enum", int(v.value), v.name
    elif isinstance(v, int):
        rec["kind"], rec["value"] = "int", v
    elif isinstance(v, float):
        rec["kind"], rec["value"] = "float", v
    elif isinstance(v, str):
        rec["kind"], rec["value"] = "str", v
    elif isinstance(v, (bytes, bytearray)):
        rec["kind"], rec["value"] = "bytes", len(v)
    else:
        return
    leaves.append(rec)


def main():
    ksy, search, data = sys.argv[1:4]
    out = tempfile.mkdtemp()
    ident = compile_ksy(ksy, search, out)
    sys.path.insert(0, out)
    mod = importlib.import_module(ident)
    cls = getattr(mod, "".join(w[:1].upper() + w[1:] for w in ident.split("_")))
    from kaitaistruct import KaitaiStream

    with open(data, "rb") as f:
        buf = f.read()
    obj = cls(KaitaiStream(io.BytesIO(buf)))
    error = None
    try:
        obj._read()
    except Exception as e:  # what was read before the error still counts
        error = "%s: %s" % (type(e).__name__, e)
    # Twice: the first walk learns where every substream starts, so that
    # the second places instances that read from streams met later.
    bases = {id(obj._io): 0}
    walk(obj, 0, [], [], set(), bases)
    unplaced[0] = 0
    leaves = []
    walk(obj, 0, [], leaves, set(), bases)
    json.dump({"leaves": leaves, "error": error, "unplaced": unplaced[0]}, sys.stdout)


if __name__ == "__main__":
    main()
