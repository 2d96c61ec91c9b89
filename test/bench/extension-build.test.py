"""coda.extension.build on the CPU, torch a stand-in: with a kernel object, the binding source
is written once and rewritten only when it changes (a new mtime alone makes ninja compile it
again). argv: a scratch folder."""
import os
import sys
import types

from coda import extension, kernels

tmp = sys.argv[1]
loads = []
cpp_extension = types.ModuleType("torch.utils.cpp_extension")
cpp_extension.load = lambda **kw: loads.append(kw) or types.SimpleNamespace(name=kw["name"])
sys.modules.update({"torch": types.ModuleType("torch"),
                    "torch.utils": types.ModuleType("torch.utils"),
                    "torch.utils.cpp_extension": cpp_extension})
os.environ["CODA_KERNEL_OBJECTS"] = os.path.join(tmp, "objects")

binding = ["// binding 1\n"]
kernels.object_for = lambda cu, objects: ("k.o", binding[0])
args = types.SimpleNamespace(out=tmp, builds=None)
source = os.path.join(tmp, "ex", "ex_binding.cpp")


def build():
    extension.build("ex", os.path.join(tmp, "ex.cu"), args)
    with open(source) as f:
        print(f"load {loads[-1]['name']} {loads[-1]['extra_ldflags']}: {f.read().strip()}, "
              f"mtime {os.stat(source).st_mtime_ns}")


build()
os.utime(source, ns=(1, 1))  # an old mtime, which a rewrite would replace
build()
binding[0] = "// binding 2\n"
build()
