#!/usr/bin/env python3
"""A tuning database that gives chosen kernels of an emitted file a configuration of their own.

Usage: tuning_db.py EMITTED.cu KERNEL=JSON... > db.json

Each KERNEL (`nodes_k0`) is looked up in EMITTED.cu (written with the analytic model): the
`// coda-tuning-key:` line under its `// KERNEL: ...` line is the key its JSON configuration is
stored under. A kernel that is not in the file, or has no key, is an error: a test that meant to
compile a configuration must not silently compile the model's instead.
"""
import json
import re
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    keys = {}
    kernel = None
    with open(sys.argv[1]) as f:
        for line in f:
            m = re.match(r"// (\w+_k\d+): ", line)
            if m:
                kernel = m.group(1)
                continue
            m = re.match(r"// coda-tuning-key: (\S+)$", line)
            if m and kernel:
                keys[kernel] = m.group(1)
                kernel = None
    db = {}
    for arg in sys.argv[2:]:
        name, _, config = arg.partition("=")
        if name not in keys:
            sys.exit(f"tuning_db: no kernel {name} with a tuning key in {sys.argv[1]} "
                     f"(kernels: {', '.join(sorted(keys)) or 'none'})")
        if keys[name] in db:
            sys.exit(f"tuning_db: {name} shares its key with another kernel named here")
        db[keys[name]] = json.loads(config)
    json.dump({"kernels": db}, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
