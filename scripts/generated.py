"""The last step of the scripts that write generated Rust files
(elf-relocs.py, dwarf-regs.py): write the text, or with --check only say
whether the file already holds it."""

import sys


def write_or_check(name, out, text, check):
    """Writes `text` to `out`; with `check`, writes nothing and returns 0
    when `out` holds `text` already, 1 (saying so, as `name`) when not."""
    if check:
        try:
            with open(out, encoding="utf-8") as f:
                current = f.read()
        except OSError:
            current = ""
        if current != text:
            print(f"{name}: {out} is not current", file=sys.stderr)
            return 1
        return 0
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    return 0
