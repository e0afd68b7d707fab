# Sourced by the benchmark scripts: makes the objects they time.

# million_symbols OBJ: assembles OBJ, an ELF object of 1,000,000 global
# symbols (sym_0000000 to sym_0999999, all in .text), unless it is there.
million_symbols() {
    [ -f "$1" ] && return
    mkdir -p "$(dirname "$1")"
    python3 -c '
import sys
w = sys.stdout.write
w(".text\n")
for n in range(1000000):
    w(".globl sym_%07d\nsym_%07d:\n" % (n, n))
' > "$1.s"
    as "$1.s" -o "$1"
    rm -f "$1.s"
}
