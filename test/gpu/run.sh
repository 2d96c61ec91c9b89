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

# A machine without LLVM/MLIR can run the checks on files emitted elsewhere into OUT_DIR.
if [ -x "$build/bin/coda-translate" ]; then
  "$build/bin/coda-translate" --coda-to-cuda "$root/examples/cuda/bias_gelu.mlir" -o "$out/bias_gelu.cu"
elif [ ! -f "$out/bias_gelu.cu" ]; then
  echo "run.sh: no $build/bin/coda-translate and no $out/bias_gelu.cu" >&2
  exit 2
fi
"$nvcc" "${flags[@]}" -c "$out/bias_gelu.cu" -o "$out/bias_gelu.o"
"$nvcc" -std=c++17 -O3 -arch=sm_90a -c "$root/test/gpu/check_bias_gelu.cu" -o "$out/check_bias_gelu.o"
"$nvcc" -arch=sm_90a "$out/check_bias_gelu.o" "$out/bias_gelu.o" -o "$out/check_bias_gelu"

"$out/check_bias_gelu"
compute-sanitizer --tool memcheck --error-exitcode 1 "$out/check_bias_gelu" > "$out/memcheck.log"
tail -1 "$out/memcheck.log"
compute-sanitizer --tool racecheck --error-exitcode 1 "$out/check_bias_gelu" > "$out/racecheck.log"
tail -1 "$out/racecheck.log"
