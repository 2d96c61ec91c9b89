#!/usr/bin/env bash
# T3, on a machine with a Hopper GPU (H100/H200): emits the CUDA examples with coda-translate,
# compiles them with nvcc against the pinned CUTLASS headers, runs each against an independent
# fp32 reference on ragged shapes, then under compute-sanitizer memcheck and racecheck.
# Needs build/bin/coda-translate (./scripts/build.sh), nvcc and `pip install nvidia-cutlass==4.2.0.0`.
# Usage: test/gpu/run.sh [OUT_DIR]   (exit 0 when every check passes)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${CODA_BUILD_DIR:-$root/build}"
out="${1:-$build/gpu}"
mkdir -p "$out"
nvcc="${NVCC:-nvcc}"
cutlass="${CUTLASS_DIR:-$(python3 -c 'import cutlass_library, os; print(os.path.join(os.path.dirname(cutlass_library.__file__), "source"))')}"
# (CUTLASS_DIR: a folder with include/ and tools/util/include/ of CUTLASS 4.2.)
flags=(-std=c++17 -O3 -DNDEBUG --expt-relaxed-constexpr -arch=sm_90a
       -I"$cutlass/include" -I"$cutlass/tools/util/include")

# Each example with its check: emit (unless emitted elsewhere into OUT_DIR, for a GPU machine
# without LLVM/MLIR), compile, run, then under compute-sanitizer memcheck and racecheck.
for example in bias_gelu down_residual; do
  if [ -x "$build/bin/coda-translate" ]; then
    "$build/bin/coda-translate" --coda-to-cuda "$root/examples/cuda/$example.mlir" -o "$out/$example.cu"
  elif [ ! -f "$out/$example.cu" ]; then
    echo "run.sh: no $build/bin/coda-translate and no $out/$example.cu" >&2
    exit 2
  fi
  "$nvcc" "${flags[@]}" -c "$out/$example.cu" -o "$out/$example.o"
  "$nvcc" -std=c++17 -O3 -arch=sm_90a -c "$root/test/gpu/check_$example.cu" -o "$out/check_$example.o"
  "$nvcc" -arch=sm_90a "$out/check_$example.o" "$out/$example.o" -o "$out/check_$example"
  echo "== $example"
  "$out/check_$example"
  compute-sanitizer --tool memcheck --error-exitcode 1 "$out/check_$example" > "$out/$example.memcheck.log"
  tail -1 "$out/$example.memcheck.log"
  compute-sanitizer --tool racecheck --error-exitcode 1 "$out/check_$example" > "$out/$example.racecheck.log"
  tail -1 "$out/$example.racecheck.log"
done
