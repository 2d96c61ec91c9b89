#!/usr/bin/env bash
# T3, on a machine with a Hopper GPU (H100/H200), PyTorch and nvcc: every example of
# examples/cuda emitted with its PyTorch binding, built with torch.utils.cpp_extension, run
# against a PyTorch reference on ragged shapes and refusing unaligned ones
# (test/gpu/check_examples.py, one process per example), then one small case of each under
# compute-sanitizer memcheck and racecheck (again one process per example); the coda.attention
# cases of test/gpu/check_attention.py, four of them (both kernels) under both sanitizers; the
# decode steps of test/gpu/check_decode.py, five of them under both sanitizers.
# Needs build/bin/coda-translate (./scripts/build.sh) and `pip install nvidia-cutlass==4.2.0.0`
# (or CUTLASS_DIR). On a GPU machine without LLVM, emit elsewhere into OUT_DIR first.
# Usage: test/gpu/run.sh [OUT_DIR]   (exit 0 when every check passes)
set -uo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
# check_examples.py imports the coda package of python/ (no install needed on the GPU machine).
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
build="${CODA_BUILD_DIR:-$root/build}"
out="${1:-$build/gpu}"
check=(python3 -u -X faulthandler "$root/test/gpu/check_examples.py" --build "$build" --emitted "$out")
status=0
# Builds every example (in parallel) and runs one small case of each.
"${check[@]}" --small || status=1
names=$("${check[@]}" --list)  # a Python start with torch: once
for name in $names; do
  "${check[@]}" --only "$name" || { echo "FAILED: $name"; status=1; }
done
# coda.attention: every case of check_attention.py (emitted here, or taken from OUT_DIR/attention).
attention=(python3 -u "$root/test/gpu/check_attention.py" --emitted "$out/attention")
if [ -x "$build/bin/coda-translate" ]; then
  python3 "$root/test/gpu/check_attention.py" --emit "$out/attention" --build "$build" || status=1
fi
"${attention[@]}" || status=1
# Decode steps over KV caches: every case of check_decode.py, five under both sanitizers (the
# split-KV merge at B 1, L 32k, and the exported QKV half that appends K and V).
decode=(python3 -u "$root/test/gpu/check_decode.py" --emitted "$out/decode")
if [ -x "$build/bin/coda-translate" ]; then
  python3 "$root/test/gpu/check_decode.py" --emit "$out/decode" --build "$build" || status=1
fi
"${decode[@]}" || status=1
# One process per example: memcheck over all of them in one process (22 extensions loading on
# as many threads) ends in a segmentation fault before any check runs on the H100 and H200,
# where groups of up to six pass.
# racecheck skips the reference's cuDNN attention kernels: their wgmma pipeline reports hazards
# that are not coda's (the HF layers' references call F.scaled_dot_product_attention).
for tool in memcheck racecheck; do
  echo "== compute-sanitizer $tool (one small case per example)"
  skip=(); [ "$tool" = racecheck ] && skip=(--kernel-name-exclude kns=cudnn)
  for name in $names; do
    if compute-sanitizer --tool "$tool" "${skip[@]}" --error-exitcode 1 "${check[@]}" --small --only "$name" \
        > "$out/$tool-$name.log" 2>&1; then
      echo "$name: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/$tool-$name.log")"
    else
      tail -30 "$out/$tool-$name.log"
      echo "FAILED: $tool $name"
      status=1
    fi
  done
  if compute-sanitizer --tool "$tool" "${skip[@]}" --error-exitcode 1 "${decode[@]}" \
      --only gqa8_speculative,mqa_d64_f16_bshd,paged16_gqa4_bshd,b1_l32k,qkv_append > "$out/$tool-decode.log" 2>&1; then
    echo "decode: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/$tool-decode.log")"
  else
    tail -30 "$out/$tool-decode.log"
    echo "FAILED: $tool decode"
    status=1
  fi
  for name in causal_gqa4_d128_bshd sinks varlen causal_d96; do
    if compute-sanitizer --tool "$tool" "${skip[@]}" --error-exitcode 1 "${attention[@]}" --only "$name" \
        > "$out/$tool-attention-$name.log" 2>&1; then
      echo "attention $name: $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/$tool-attention-$name.log")"
    else
      tail -30 "$out/$tool-attention-$name.log"
      echo "FAILED: $tool attention $name"
      status=1
    fi
  done
done
exit $status
