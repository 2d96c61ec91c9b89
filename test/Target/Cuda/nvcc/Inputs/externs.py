#!/usr/bin/env python3
"""Checks that an object defines every extern "C" function its emitted source promises.

Usage: externs.py SOURCE.cu OBJECT.o

Prints `defined NAME` for each extern "C" function SOURCE.cu defines or declares (a PyTorch
binding half declares what it calls in the kernel half) that OBJECT.o defines as a global text
symbol (nm), `MISSING NAME` for the others, and exits 1 if any is missing.
"""
import re
import subprocess
import sys

EXTERN_C = re.compile(r'^extern "C" (?:__attribute__\(\(\w+\)\) )?[^(]*?\b(\w+)\(')


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    with open(sys.argv[1]) as f:
        names = [m.group(1) for m in map(EXTERN_C.match, f) if m]
    if not names:
        sys.exit(f"externs: no extern \"C\" function in {sys.argv[1]}")
    nm = subprocess.run(["nm", "-g", "--defined-only", sys.argv[2]], capture_output=True,
                        text=True, check=True).stdout
    # Text symbols; coda_status_string is weak (W).
    defined = {parts[2] for parts in map(str.split, nm.splitlines())
               if len(parts) == 3 and parts[1] in ("T", "W")}
    missing = 0
    for name in names:
        ok = name in defined
        missing += not ok
        print(("defined " if ok else "MISSING ") + name)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
