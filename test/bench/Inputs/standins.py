"""bench/anchors.py imported on the CPU for the bench tests: torch and the modules that load it
are stand-ins."""
import os
import sys
import types


def anchors_on_cpu(argv):
    """argv: the script, the bench folder, a scratch folder (made here). Returns (anchors, scratch)."""
    bench, tmp = argv[1], argv[2]
    sys.path.insert(0, bench)
    os.makedirs(tmp, exist_ok=True)
    sys.modules.update(torch=types.ModuleType("torch"),
                       anchor_programs=types.SimpleNamespace(CASES={}),
                       check_examples=types.ModuleType("check_examples"))
    import anchors
    return anchors, tmp
