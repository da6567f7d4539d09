#!/usr/bin/env bash
# Determinism across byte order and word size. One CMake project (tests/bigendian/) builds the
# library's sources, as cmake/sources.cmake lists them, with two drivers for the host, for
# s390x (big-endian, static, run under qemu; cmake/toolchains/s390x-linux-gnu.cmake) and for
# i386 (gcc -m32: 32-bit size_t and long; cmake/toolchains/i386-linux-gnu.cmake). Each check
# requires every target's output to be the host's, line for line:
#   determinism  tests/bigendian/be_driver.c: hash rows, replay bytes, snapshot restores, fields
#   testdata     tests/bigendian/testdata_driver.c: every generated file's size and XXH3-64 (the
#                generator writes the same bytes everywhere), every committed replay verified
#   selftest     the way targets are run: with the host's native run of i386 refused, the
#                checks must run it under qemu-i386; with qemu refused too, they must fail
#                saying "could not run", never "differs"
# Usage: scripts/test_cross.sh [determinism|testdata|selftest]...  (no argument: the first two)
# Each target runs natively when this kernel can run it, else under qemu-user; the lines say
# which. ONESCOPE_CROSS_TARGETS (e.g. "i386") limits the foreign targets built and run.
# A target whose compiler (or qemu) is missing prints SKIPPED: install gcc-s390x-linux-gnu,
# libc6-dev-s390x-cross, qemu-user and gcc-12-multilib, as scripts/deps.sh does when run as
# root (the gcc-multilib metapackage would remove the s390x cross compiler; gcc-12-multilib
# does not).
set -euo pipefail
cd "$(dirname "$0")/.."
checks=("$@")
[ ${#checks[@]} -gt 0 ] || checks=(determinism testdata)
for c in "${checks[@]}"; do
    case $c in
    determinism | testdata | selftest) ;;
    *) echo "test_cross.sh: unknown check '$c'" >&2; exit 2 ;;
    esac
done
root=$PWD

# selftest: this script run twice more over i386, each time with a way of running refused.
if [ "${checks[*]}" = selftest ]; then
    log=build/cross-selftest.log
    mkdir -p build
    rc=0
    ONESCOPE_CROSS_TARGETS=i386 ONESCOPE_CROSS_DENY_NATIVE=i386 bash "$0" determinism \
        >"$log" 2>&1 || rc=$?
    if [ $rc -ne 0 ] || ! grep -q 'i386 (32-bit, ran under qemu-i386) output identical' "$log"; then
        echo "cross selftest: with native i386 refused, the check did not pass under qemu-i386:"
        cat "$log"
        exit 1
    fi
    echo "cross selftest: native i386 refused -> ran under qemu-i386, output identical"
    rc=0
    ONESCOPE_CROSS_TARGETS=i386 ONESCOPE_CROSS_DENY_NATIVE=i386 ONESCOPE_CROSS_DENY_QEMU=i386 \
        bash "$0" determinism >"$log" 2>&1 || rc=$?
    if [ $rc -ne 1 ] || ! grep -q 'i386 could not run here' "$log" || grep -q differs "$log"; then
        echo "cross selftest: with both ways refused, wanted exit 1 and 'could not run', got $rc:"
        cat "$log"
        exit 1
    fi
    echo "cross selftest: native and qemu refused -> exit 1, 'i386 could not run here'"
    exit 0
fi
case " ${checks[*]} " in *" selftest "*)
    echo "test_cross.sh: selftest runs alone" >&2; exit 2 ;; esac
wanted() { [ -z "${ONESCOPE_CROSS_TARGETS:-}" ] || denied "$ONESCOPE_CROSS_TARGETS" "$1"; }
denied() { case " $1 " in *" $2 "*) return 0 ;; esac; return 1; }

build() { # NAME [cmake args...]: configure and build build/cross-NAME quietly
    local name=$1
    shift
    cmake -S tests/bigendian -B "build/cross-$name" "$@" >"build/cross-$name.log" 2>&1 &&
        cmake --build "build/cross-$name" -j2 >>"build/cross-$name.log" 2>&1 ||
        { echo "cross build $name failed:"; tail -30 "build/cross-$name.log"; exit 1; }
}

mkdir -p build
targets=(native)
build native
if ! wanted s390x; then :
elif command -v s390x-linux-gnu-gcc >/dev/null; then
    build s390x -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/s390x-linux-gnu.cmake"
    targets+=(s390x)
else
    echo "SKIPPED: s390x-linux-gnu-gcc not installed (big-endian checks not run)"
fi
if ! wanted i386; then :
elif echo 'int main(void){return 0;}' | gcc -m32 -x c - -o build/m32probe 2>/dev/null; then
    build i386 -DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/i386-linux-gnu.cmake"
    targets+=(i386)
else
    echo "SKIPPED: gcc -m32 cannot link (gcc-12-multilib not installed; i386 checks not run)"
fi

# How this host runs each foreign target's programs, found by running its cross_probe:
# natively when the kernel executes them (i386 on most x86-64 kernels), else under qemu-user
# (qemu-s390x, qemu-i386), else not at all. A target that cannot run is "could not run", a
# failure of its own, never "differs". Two variables stand in for a host that lacks a way,
# so the fallback is tested on any host (the selftest check): ONESCOPE_CROSS_DENY_NATIVE and
# ONESCOPE_CROSS_DENY_QEMU, each a space-separated list of targets.
declare -A runner=() why_not=()
qemu_of() { case $1 in s390x) echo qemu-s390x ;; i386) echo qemu-i386 ;; esac; }
bits_of() { case $1 in s390x) echo 64 ;; i386) echo 32 ;; esac; }
find_runner() { # TARGET: sets runner[TARGET] to native, qemu-ARCH, or leaves it empty
    local t=$1 probe="build/cross-$1/cross_probe" want got qemu
    want="probe $(bits_of "$t")-bit"
    if denied "${ONESCOPE_CROSS_DENY_NATIVE:-}" "$t"; then
        why_not[$t]="natively: refused by ONESCOPE_CROSS_DENY_NATIVE"
    else
        got=$("$probe" 2>&1) || true
        if [ "$got" = "$want" ]; then runner[$t]=native; return; fi
        why_not[$t]="natively: ${got:-no output}"
    fi
    qemu=$(qemu_of "$t")
    if denied "${ONESCOPE_CROSS_DENY_QEMU:-}" "$t"; then
        why_not[$t]+="; under $qemu: refused by ONESCOPE_CROSS_DENY_QEMU"
    elif ! command -v "$qemu" >/dev/null; then
        why_not[$t]+="; under $qemu: not installed (Debian package qemu-user)"
    else
        got=$("$qemu" "$probe" 2>&1) || true
        if [ "$got" = "$want" ]; then runner[$t]=$qemu; return; fi
        why_not[$t]+="; under $qemu: ${got:-no output}"
    fi
}

run() { # TARGET DRIVER [args...]: the driver's output on stdout, the way find_runner found
    local t=$1 driver=$2
    shift 2
    case ${runner[$t]:-native} in
    native) "build/cross-$t/$driver" "$@" || true ;;
    *) "${runner[$t]}" "build/cross-$t/$driver" "$@" || true ;;
    esac
}

label() { # TARGET: its name and how it ran
    local how
    if [ "${runner[$1]}" = native ]; then how="ran natively"; else how="ran under ${runner[$1]}"; fi
    case $1 in s390x) echo "s390x (big-endian, $how)" ;; i386) echo "i386 (32-bit, $how)" ;; esac
}

status=0
runnable=()
for t in "${targets[@]:1}"; do
    find_runner "$t"
    if [ -n "${runner[$t]:-}" ]; then runnable+=("$t"); else
        echo "cross: $t could not run here (${why_not[$t]}); its checks did not run" >&2
        status=1
    fi
done
for check in "${checks[@]}"; do
    out=build/cross-results/$check
    mkdir -p "$out"
    if [ "$check" = determinism ]; then driver=be_driver args=(); else
        driver=testdata_driver args=(testdata/*.ostm); fi
    run native "$driver" "${args[@]}" >"$out/native.txt"
    if ! grep -q '^done$' "$out/native.txt"; then
        echo "$check check: the native driver failed:"; cat "$out/native.txt"; exit 1
    fi
    for t in "${runnable[@]}"; do
        run "$t" "$driver" "${args[@]}" >"$out/$t.txt"
        if ! diff -u "$out/native.txt" "$out/$t.txt"; then
            echo "$check check: $(label "$t") differs from the host"
            status=1
        elif [ "$check" = determinism ]; then
            echo "determinism check: $(label "$t") output identical to the host's" \
                "($(grep -c row "$out/$t.txt") hash rows)"
        else
            echo "testdata cross check: $(label "$t") makes the same" \
                "$(grep -c '^file' "$out/$t.txt") files and verifies" \
                "$(grep -c '^verify' "$out/$t.txt") replays"
        fi
    done
done
exit $status
