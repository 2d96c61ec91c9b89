"""bench/tune.py measure on the CPU, with stand-ins for torch and the modules of coda that load
it (coda.bench.anchors, coda.extension, coda.bench.blocks, coda.bench.sustained): the control
flow (builds that fail, results that are wrong, the block's relative bound, ranking, the
database written) without a GPU. argv: bench folder, scratch folder."""
import json
import os
import runpy
import sys
import types

bench, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)


class T:
    """A stand-in tensor: one number, and whether it was computed in fp32."""
    def __init__(self, v, fp32=False):
        self.v, self.fp32 = v, fp32

    def float(self):
        return T(self.v, True)

    def is_floating_point(self):
        return True

    def t(self):
        return self


def fn(*xs):  # a case's PyTorch function: exact in fp32, 2 % off in bf16
    return T(1.0 if xs[0].fp32 else 1.02)


OUT = {"a_0": 1.001, "a_2": 1.5, "a_3": 1.002, "b_4": 1.04, "b_5": 1.025}  # a_1 does not build
IDLE = {"a_0": 1.10, "a_3": 1.20, "b_4": 2.0, "b_5": 1.5, "cublas_gemm": 1.0}
QUEUED = {"a_0": 1.05, "a_3": 1.00, "b_4": 1.9, "b_5": 1.4, "cublas_gemm": 0.95}


def build(name, cu, args):
    if name == "a_1":
        raise RuntimeError("nvcc failed\nerror: too many resources")
    return types.SimpleNamespace(name=name), 0.0


fake_torch = types.ModuleType("torch")
fake_torch.manual_seed = lambda seed: None
fake_torch.matmul = lambda a, b: T(0.0)
fake_torch.cuda = types.SimpleNamespace(get_device_name=lambda: "a stand-in GPU")
fake_anchors = types.ModuleType("coda.bench.anchors")
fake_anchors.BOUND = 2e-2
fake_anchors.GEMM = {"a": (0, 1)}
fake_anchors.programs = types.SimpleNamespace(CASES={"a": fn})
fake_anchors.random_inputs = lambda case: [T(1.0), T(2.0)]
fake_anchors.time_interleaved = lambda calls, reps: {
    **{n: IDLE[n] for n in calls}, **{n + "_queued": QUEUED[n] for n in calls}}
fake_check = types.ModuleType("coda.extension")
fake_check.build = build
fake_check.prepared_call = lambda module, xs: (lambda *ys: T(OUT[module.name]))
fake_check.as_list = lambda x: list(x) if isinstance(x, (list, tuple)) else [x]
fake_check.fp32_reference = lambda fn, xs: [fn(*[x.float() for x in xs])]
fake_check.rel_err = lambda out, ref: abs(out.v - ref.v) / abs(ref.v)


def checked_call(module, xs, refs):  # coda.extension.checked_call on the stand-ins above
    call = lambda: fake_check.prepared_call(module, xs)(*xs)  # noqa: E731
    return call, max(fake_check.rel_err(o, r) for o, r in zip(fake_check.as_list(call()), refs))


fake_check.checked_call = checked_call
fake_blocks = types.ModuleType("coda.bench.blocks")
fake_blocks.half_setup = lambda half: ([T(1.0)], fn, lambda: T(0.0))
sys.modules.update({"torch": fake_torch, "coda.bench.anchors": fake_anchors,
                    "coda.extension": fake_check, "coda.bench.blocks": fake_blocks})


def tune(*argv):
    """bench/tune.py's command line, in this process (with the stand-ins above)."""
    sys.argv = ["tune.py", *argv]
    runpy.run_path(os.path.join(bench, "tune.py"), run_name="__main__")


coop = {"tile": [128, 256, 64], "cluster": [2, 1], "schedule": "cooperative", "raster": "heuristic"}
variants = [("a_0", "a", "KA", 0, coop), ("a_1", "a", "KA", 1, dict(coop, cluster=[2, 2])),
            ("a_2", "a", "KA", 2, dict(coop, cluster=[1, 2])), ("a_3", "a", "KA", 3, dict(coop, swizzle=1)),
            ("b_4", "block_post", "KB", 0, coop), ("b_5", "block_post", "KB", 1, dict(coop, cluster=[1, 1])),
            # KA again, in a block half: the anchor case "a" measures it (c_* are never timed).
            ("c_6", "block_pre", "KA", 0, coop), ("c_7", "block_pre", "KA", 1, dict(coop, swizzle=1))]
with open(os.path.join(tmp, "manifest.json"), "w") as f:
    json.dump({"variants": [{"name": n, "case": c, "key": k, "rank": r, "config": cfg,
                             "model_ms": 1.0 + r, "baseline": "model"}
                            for n, c, k, r, cfg in variants]}, f)
db = os.path.join(tmp, "db.json")
with open(db, "w") as f:  # an entry measure does not touch stays
    json.dump({"kernels": {"KOTHER": coop}, "measured": {}}, f)
tune("measure", tmp, "--db", db, "--reps", "3")
with open(db) as f:
    result = json.load(f)
print("device", result["device"])
for key in sorted(result["kernels"]):
    m = result["measured"].get(key, {})
    print(key, json.dumps(result["kernels"][key]), m.get("best_ms"), m.get("gain_over_model"))

# --sustained: back-to-back times (here a_0 is faster than a_3, unlike queued) and clocks.
SUSTAINED = {"a_0": 1.02, "a_3": 1.10, "b_4": 1.9, "b_5": 1.4, "cublas_gemm": 1.00}
fake_sustained = types.ModuleType("coda.bench.sustained")
fake_sustained.Sampler = lambda: None
fake_sustained.time_back_to_back = lambda calls, seconds, rounds, sampler: {
    n: {"ms": SUSTAINED[n], "sm_mhz": 1300.0 if n == "a_0" else 1450.0} for n in calls}
sys.modules["coda.bench.sustained"] = fake_sustained
db2 = os.path.join(tmp, "sustained.json")
tune("measure", tmp, "--db", db2, "--sustained", "--seconds", "1")
with open(db2) as f:
    m = json.load(f)["measured"]["KA"]
print("sustained", m["regime"], m["best_ms"], m["cublas_gemm_sm_mhz"], sorted(m["sm_mhz"].values()))
