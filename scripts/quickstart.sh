#!/usr/bin/env bash
# First command for a newcomer: installs what is missing, builds coda, then runs the main job on
# the shipped examples: lists the kernels each program fuses and checks each program against its
# linalg version on random inputs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CODA_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" coda-opt coda-run coda-translate

cd "$root"
for program in examples/*.mlir; do
  case "$program" in *.linalg.mlir) continue ;; esac
  reference="${program%.mlir}.linalg.mlir"
  echo "== $program"
  "$build/bin/coda-opt" --coda-print-kernels "$program" -o /dev/null
  if [ -f "$reference" ]; then
    # Labels of the LM-head example index a 128-word vocabulary.
    "$build/bin/coda-run" "$program" --against "$reference" --int-max 128 --atol 1e-5
  fi
done
