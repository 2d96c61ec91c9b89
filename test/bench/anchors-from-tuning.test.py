"""coda.bench.anchors.tuned_variant on the CPU, torch a stand-in. argv: a scratch folder."""
import json
import os
import sys

from standins import anchors_on_cpu

anchors, tmp = anchors_on_cpu(sys.argv)

pp = {"tile": [128, 128, 64], "cluster": [2, 1], "schedule": "pingpong", "raster": "heuristic"}
wide = dict(pp, epilogue_n=64)
variants = [{"name": "swiglu_0", "case": "swiglu", "key": "KS", "rank": 0, "config": pp},
            {"name": "swiglu_1", "case": "swiglu", "key": "KS", "rank": 7, "config": wide},
            {"name": "qk_rope_2", "case": "qk_rope", "key": "KQ", "rank": 0, "config": pp}]
with open(os.path.join(tmp, "manifest.json"), "w") as f:
    json.dump({"variants": variants}, f)
for name, kernels in (("a.json", {"KS": wide}), ("b.json", {"KS": pp})):
    with open(os.path.join(tmp, name), "w") as f:
        json.dump({"kernels": kernels}, f)
for name in ("a.json", "b.json", "none.json"):  # none.json does not exist: the baseline
    v = anchors.tuned_variant("swiglu", tmp, os.path.join(tmp, name))
    print(f"database {name}: {v['name']} {json.dumps(v['config'])}")
print("qk_rope:", anchors.tuned_variant("qk_rope", tmp, os.path.join(tmp, "a.json"))["name"])
