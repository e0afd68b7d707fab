#!/bin/sh
# Fetches a real ROCm library with a large fat binary: librocsparse.so.0.1
# (1.3 GB, 111 clang offload bundles in .hip_fatbin, 777 code objects for
# 7 GPUs) from Debian's librocsparse0 5.3.0+dfsg-2 package (MIT licence),
# checks the package's hash and prints the library's path. Used by the
# end-to-end test in tests/it/gpu.rs and by `cargo bench --bench library`.
# Needs apt-get and dpkg-deb (Debian); exits 1 where they or the network
# are missing.
set -eu
cd "$(dirname "$0")/.."
DIR=${CARGO_TARGET_DIR:-target}/test-downloads/librocsparse0-5.3.0
SO=$DIR/x/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1
DEB=librocsparse0_5.3.0+dfsg-2_amd64.deb
SHA=688878bb8cb9ec7970e7b632828d91336a6819860fb0c306372eb6a7199b3b8e
if [ -f "$SO" ]; then
    echo "$SO"
    exit 0
fi
command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || exit 1
mkdir -p "$DIR"
if [ ! -f "$DIR/$DEB" ]; then
    (cd "$DIR" && timeout 300 apt-get download -q "librocsparse0=5.3.0+dfsg-2" >/dev/null 2>&1) || exit 1
fi
echo "$SHA  $DIR/$DEB" | sha256sum -c --status || { rm -f "$DIR/$DEB"; exit 1; }
dpkg-deb -x "$DIR/$DEB" "$DIR/x"
echo "$SO"
