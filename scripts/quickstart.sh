#!/usr/bin/env bash
# First command for a newcomer: installs what is missing, builds coda, then runs the main job on
# the shipped examples: fuses the torch-mlir blocks (printing which chains went into which
# kernel, what stayed outside and the traffic saved), lists the kernels of the hand-written coda
# programs, checks every program against its reference on random inputs, and writes the CUDA
# of examples/cuda/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CODA_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" coda-opt coda-run coda-translate

cd "$root"
out="$build/examples"
mkdir -p "$out"
for program in examples/torch/*.mlir; do
  fused="$out/$(basename "$program" .mlir).fused.mlir"
  echo "== $program -> $fused"
  "$build/bin/coda-opt" --coda-fuse "$program" -o "$fused"
  "$build/bin/coda-opt" --coda-fuse-report --coda-report-traffic "$fused" -o /dev/null
  # fp32 sums reassociated by the rewrites differ by ~1e-4 on values ~1e2; labels index a
  # 128-word vocabulary.
  "$build/bin/coda-run" "$fused" --against "$program" --atol 1e-3 --int-max 128
done
for program in examples/*.mlir; do
  case "$program" in *.linalg.mlir) continue ;; esac
  echo "== $program"
  "$build/bin/coda-opt" --coda-print-kernels "$program" -o /dev/null
  "$build/bin/coda-run" "$program" --against "${program%.mlir}.linalg.mlir" --int-max 128 --atol 1e-5
done
for program in examples/cuda/*.mlir; do
  cu="$out/$(basename "$program" .mlir).cu"
  "$build/bin/coda-translate" --coda-to-cuda "$program" -o "$cu"
  echo "== $program -> $cu ($(grep -c '^extern "C"' "$cu") launchers)"
done
