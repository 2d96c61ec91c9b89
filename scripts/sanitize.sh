#!/usr/bin/env bash
# Builds coda's tools with AddressSanitizer and UndefinedBehaviorSanitizer into build-sanitize/
# (or $CODA_SANITIZE_BUILD_DIR) and runs the whole lit suite with them. Any sanitizer report
# fails the test that triggered it. Extra arguments go to lit (e.g. --filter coda-run).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CODA_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
"$root/scripts/setup.sh"
# vptr needs RTTI, which LLVM is built without. -O1 keeps the instrumented build quick to run.
flags="-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=undefined -fno-omit-frame-pointer -O1 -g1"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS_RELEASE="$flags -DNDEBUG" -DCMAKE_C_FLAGS_RELEASE="$flags -DNDEBUG" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
fi
ninja -C "$build" coda-opt coda-run coda-translate CodaUnitTests mlir-doc

# Leaks are not checked: the tools exit without freeing MLIR's context, and coda-run's JIT
# keeps what the program allocates. LLVM's libraries are not instrumented, so neither the
# container annotations of their STL objects nor the poisoning of their allocators' slabs (done
# by LLVM's headers inlined into coda's instrumented code, undone by nothing in libMLIR) can be
# trusted. Segfaults go to LLVM's handler, which prints the tools' crash banner, then abort.
export ASAN_OPTIONS="detect_leaks=0:detect_container_overflow=0:allow_user_poisoning=0:abort_on_error=1:handle_segv=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
exec /usr/lib/llvm-22/bin/lit -sv "$build/test" "$@"
