#!/bin/sh
# Fetches a real package tree of GPU libraries, about 3 GB unpacked, for
# measuring folder scans (scripts/folder-speed.sh): Debian 12's ROCm
# libraries and NVIDIA's CUDA library wheels from PyPI, each pinned by
# version and sha256 below, unpacked one folder a package. Nothing of it is
# committed; the archives are kept beside the tree so a second run only
# unpacks what is missing. Prints the tree's path.
#
#   Debian (deb.debian.org, bookworm main; the ROCm libraries are MIT
#   licensed): librocsparse0 5.3.0+dfsg-2 (1.2 GiB .hip_fatbin, 777 code
#   objects), librocrand1 5.3.3-4, libhipsparse0 5.3.3+dfsg-2~deb12u1.
#   PyPI (NVIDIA's CUDA redistributables, under the NVIDIA software
#   licence): nvidia-cublas-cu12 12.9.3.13, nvidia-cusparse-cu12
#   12.5.10.65, nvidia-cufft-cu12 11.4.1.4, nvidia-curand-cu12 10.3.10.19,
#   nvidia-cuda-runtime-cu12 12.9.79, nvidia-cuda-runtime 13.5.37,
#   nvidia-nvjpeg-cu12 12.4.0.76.
#
# usage: scripts/gpu-tree.sh [DIR]   (default: $CARGO_TARGET_DIR/gpu-tree,
#                                     or target/gpu-tree)
# Needs apt-get, dpkg-deb (Debian), python3 with pip, and the network.
set -eu
cd "$(dirname "$0")/.."
DIR=${1:-${CARGO_TARGET_DIR:-target}/gpu-tree}
DL=$DIR.downloads
mkdir -p "$DIR" "$DL"

debs="
librocsparse0 5.3.0+dfsg-2 688878bb8cb9ec7970e7b632828d91336a6819860fb0c306372eb6a7199b3b8e
librocrand1 5.3.3-4 b145d4e47a26ce14da5f8550a092db8d3c7e2d84174c68885336de40f51b7b81
libhipsparse0 5.3.3+dfsg-2~deb12u1 33a8ecf0b425eae1a88c47441b6abbaea7f70ddd17fc0c6dc9c103914e87d265
"
wheels="
nvidia-cublas-cu12 12.9.3.13 d7d51055f161b317c7105ddaae90e71eda059026074ffef93cf7cde2886bfe72
nvidia-cusparse-cu12 12.5.10.65 73060ce019ac064a057267c585bf1fd5a353734151f87472ff02b2c5c9984e78
nvidia-cufft-cu12 11.4.1.4 c67884f2a7d276b4b80eb56a79322a95df592ae5e765cf1243693365ccab4e28
nvidia-curand-cu12 10.3.10.19 49b274db4780d421bd2ccd362e1415c13887c53c214f0d4b761752b8f9f6aa1e
nvidia-cuda-runtime-cu12 12.9.79 25bba2dfb01d48a9b59ca474a1ac43c6ebf7011f1b0b8cc44f54eb6ac48a96c3
nvidia-cuda-runtime 13.5.37 df2b79a8852f10d1fef8c848489c49eebb5754051bf870202a862831412b179d
nvidia-nvjpeg-cu12 12.4.0.76 3888f10b32fbd58e80166c48e01073732d752fa5f167b7cb5b9615f1c6375a20
"

echo "$debs" | while read -r name version sha; do
    [ -n "$name" ] || continue
    out="$DIR/$name-$version"
    [ -d "$out" ] && continue
    deb=$(ls "$DL/${name}_"*.deb 2>/dev/null | head -n 1 || true)
    if [ -z "$deb" ] || ! echo "$sha  $deb" | sha256sum -c --status; then
        rm -f "$DL/${name}_"*.deb
        (cd "$DL" && timeout 600 apt-get download -q "$name=$version" >/dev/null 2>&1) ||
            { echo "apt-get download $name=$version failed" >&2; exit 1; }
        deb=$(ls "$DL/${name}_"*.deb | head -n 1)
        echo "$sha  $deb" | sha256sum -c --status ||
            { echo "$deb: sha256 differs from the pin" >&2; exit 1; }
    fi
    dpkg-deb -x "$deb" "$out.part" && mv "$out.part" "$out"
done

echo "$wheels" | while read -r name version sha; do
    [ -n "$name" ] || continue
    out="$DIR/$name-$version"
    [ -d "$out" ] && continue
    req="$DL/$name.txt"
    echo "$name==$version --hash=sha256:$sha" > "$req"
    timeout 600 python3 -m pip download -q --no-deps --require-hashes -r "$req" -d "$DL" >/dev/null ||
        { echo "pip download $name==$version failed" >&2; exit 1; }
    whl=$(ls "$DL/$(echo "$name" | tr - _)-$version-"*.whl | head -n 1)
    python3 -m zipfile -e "$whl" "$out.part" && mv "$out.part" "$out"
done

echo "$DIR"
