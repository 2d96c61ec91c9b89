#!/usr/bin/env bash
# Second command: installs what is missing, builds everything and runs every test (lit +
# FileCheck, coda-run differential checks, GoogleTest unit tests through lit). Ends with the
# line "tests: N passed, N failed".
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${CODA_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh"
"$root/scripts/build.sh" coda-opt coda-run coda-translate CodaUnitTests mlir-doc

results="$build/test/results.json"
rm -f "$results"
status=0
/usr/lib/llvm-22/bin/lit -sv --output "$results" "$build/test" || status=$?
if [ ! -f "$results" ]; then
  echo "tests: lit wrote no results" >&2
  exit 1
fi
python3 - "$results" <<'PY'
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
passed = sum(t["code"] in ("PASS", "XFAIL") for t in tests)
skipped = sum(t["code"] == "UNSUPPORTED" for t in tests)
failed = len(tests) - passed - skipped
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
PY
exit "$status"
