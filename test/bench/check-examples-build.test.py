"""test/gpu/check_examples.build on the CPU, torch a stand-in: with a kernel object, the binding
source is written once and rewritten only when it changes (a new mtime alone makes ninja compile
it again). argv: the test/gpu folder, a scratch folder."""
import os
import sys
import types

gpu, tmp = sys.argv[1], sys.argv[2]
sys.path.insert(0, gpu)
loads = []
torch = types.ModuleType("torch")
torch.float32 = torch.bfloat16 = None
extension = types.ModuleType("torch.utils.cpp_extension")
extension.load = lambda **kw: loads.append(kw) or types.SimpleNamespace(name=kw["name"])
sys.modules.update({"torch": torch, "torch.nn": types.ModuleType("torch.nn"),
                    "torch.nn.functional": types.ModuleType("torch.nn.functional"),
                    "torch.utils": types.ModuleType("torch.utils"),
                    "torch.utils.cpp_extension": extension})
os.environ["CODA_KERNEL_OBJECTS"] = os.path.join(tmp, "objects")
import check_examples  # noqa: E402

binding = ["// binding 1\n"]
check_examples.kernel_objects.object_for = lambda cu, objects: ("k.o", binding[0])
args = types.SimpleNamespace(out=tmp, builds=None)
source = os.path.join(tmp, "ex", "ex_binding.cpp")


def build():
    check_examples.build("ex", os.path.join(tmp, "ex.cu"), args)
    with open(source) as f:
        print(f"load {loads[-1]['name']} {loads[-1]['extra_ldflags']}: {f.read().strip()}, "
              f"mtime {os.stat(source).st_mtime_ns}")


build()
os.utime(source, ns=(1, 1))  # an old mtime, which a rewrite would replace
build()
binding[0] = "// binding 2\n"
build()
