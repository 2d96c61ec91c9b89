"""coda.gpus and the table coda.bench.anchors.write_reports writes with it, on the CPU, torch a
stand-in. argv: a scratch folder."""
import json
import os
import sys

from standins import anchors_on_cpu

from coda import gpus

anchors, tmp = anchors_on_cpu(sys.argv)

for device in ("NVIDIA H200", "NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H200 NVL"):
    files = [gpus.results_path(tmp, stem, device, "json") for stem in ("anchors", "block", "tuning")]
    files.append(gpus.performance_md(tmp, device))
    assert all(os.path.dirname(f) == tmp for f in files)
    print(f"{device}: " + " ".join(os.path.basename(f) for f in files))

# coda-translate's database on a GPU: its own once stage 2 has written one, else the H200's.
device = "NVIDIA H100 80GB HBM3"
print("database before:", os.path.basename(gpus.tuning_db(tmp, device)))
with open(gpus.results_path(tmp, "tuning", device, "json"), "w") as f:
    json.dump({"kernels": {}}, f)
print("database after:", os.path.basename(gpus.tuning_db(tmp, device)),
      os.path.basename(gpus.tuning_db(tmp, "NVIDIA H100 PCIe")))

row = {"coda_ms": 1.0, "cublas_gemm_ms": 1.0, "ratio_vs_gemm": 1.0, "eager_ms": 2.0, "max_rel_err": 1e-3}
results = {"device": device, "torch": "stand-in", "reps": 20, "cases": {"swiglu": row}}
md = gpus.performance_md(tmp, device)
json_path = gpus.results_path(tmp, "anchors", device, "json")
anchors.write_reports(results, json_path, gpus.results_path(tmp, "anchors", device, "png"), md)
with open(md) as f:
    print("title:", f.readline().strip())
with open(json_path) as f:
    print("device:", json.load(f)["device"])
