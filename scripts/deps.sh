#!/usr/bin/env bash
# Installs the Debian packages libonescope needs (when run as root and any is missing).
# Box3D is not a Debian package: see README.md ("Installing Box3D") for installing it by hand.
set -euo pipefail
packages=(build-essential cmake pkg-config libcmocka-dev libxxhash-dev
          python3 clang clang-format llvm libclang-rt-14-dev valgrind gcovr
          python3-numpy python3-pytest python3-setuptools python3-pip
          gcc-s390x-linux-gnu libc6-dev-s390x-cross qemu-user gcc-12-multilib
          libcairo2-dev librsvg2-bin locales chromium)
          # cairo: the CLI's plot only; rsvg-convert: its tests; locales: the ps_AF source
          # test_locale compiles; chromium: the headless browser that loads view's pages (cli_view)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "deps.sh: missing Debian packages: ${missing[*]}" >&2
    echo "deps.sh: run as root (or: sudo apt-get install ${missing[*]})" >&2
    exit 1
fi
echo "deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
