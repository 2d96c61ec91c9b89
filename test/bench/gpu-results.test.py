"""bench/gpu_results.py and the table anchors.write_reports writes with it, on the CPU: torch
and the modules that load it are stand-ins. argv: bench folder, scratch folder."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from standins import anchors_on_cpu  # noqa: E402

anchors, tmp = anchors_on_cpu(sys.argv)
import gpu_results  # noqa: E402

for device in ("NVIDIA H200", "NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H200 NVL"):
    files = [gpu_results.results_path(tmp, stem, device, "json") for stem in ("anchors", "block", "tuning")]
    files.append(gpu_results.performance_md(tmp, device))
    assert all(os.path.dirname(f) == tmp for f in files)
    print(f"{device}: " + " ".join(os.path.basename(f) for f in files))

# coda-translate's database on a GPU: its own once stage 2 has written one, else the H200's.
device = "NVIDIA H100 80GB HBM3"
print("database before:", os.path.basename(gpu_results.tuning_db(tmp, device)))
with open(gpu_results.results_path(tmp, "tuning", device, "json"), "w") as f:
    json.dump({"kernels": {}}, f)
print("database after:", os.path.basename(gpu_results.tuning_db(tmp, device)),
      os.path.basename(gpu_results.tuning_db(tmp, "NVIDIA H100 PCIe")))

row = {"coda_ms": 1.0, "cublas_gemm_ms": 1.0, "ratio_vs_gemm": 1.0, "eager_ms": 2.0, "max_rel_err": 1e-3}
results = {"device": device, "torch": "stand-in", "reps": 20, "cases": {"swiglu": row}}
md = gpu_results.performance_md(tmp, device)
json_path = gpu_results.results_path(tmp, "anchors", device, "json")
anchors.write_reports(results, json_path, gpu_results.results_path(tmp, "anchors", device, "png"), md)
with open(md) as f:
    print("title:", f.readline().strip())
with open(json_path) as f:
    print("device:", json.load(f)["device"])
