"""coda.bench.anchors imported on the CPU for the bench tests: torch is a stand-in."""
import os
import sys
import types


def anchors_on_cpu(argv):
    """argv: the script, a scratch folder (made here). Returns (coda.bench.anchors, scratch)."""
    tmp = argv[1]
    os.makedirs(tmp, exist_ok=True)
    sys.modules.update({name: types.ModuleType(name)
                        for name in ("torch", "torch.nn", "torch.nn.functional")})
    from coda.bench import anchors
    return anchors, tmp
