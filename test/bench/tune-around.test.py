import json

from coda.bench import tuning

coop = {"tile": [128, 256, 64], "cluster": [2, 1], "schedule": "cooperative", "raster": "heuristic"}
pingpong = dict(coop, tile=[128, 128, 64], schedule="pingpong")
text = "\n".join([
    "// coda-tuning-key: K1",
    f"// coda-candidate: {json.dumps(coop)} model 0.969 ms",
    f"// coda-candidate: {json.dumps(dict(coop, cluster=[2, 2]))} model 0.970 ms",
    f"// coda-candidate: {json.dumps(dict(coop, raster='along_m'))} model 0.969 ms",
    "// coda-tuning-key: K2",
    f"// coda-candidate: {json.dumps(pingpong)} model 0.500 ms",
    f"// coda-candidate: {json.dumps(coop)} model 0.600 ms",
    f"// coda-candidate: {json.dumps(dict(coop, cluster=[1, 1]))} model 0.700 ms",
    "// coda-tuning-key: K3",
    f"// coda-candidate: {json.dumps(pingpong)} model 0.500 ms",
    f"// coda-candidate: {json.dumps(coop)} model 0.600 ms",
    "// coda-tuning-key: K4",
    f"// coda-candidate: {json.dumps(pingpong)} model 0.500 ms",
    f"// coda-candidate: {json.dumps(dict(coop, division='full'))} model 0.550 ms",
])
group = []
for kernel in tuning.kernel_candidates(text):
    baseline, configs = tuning.variants_of(kernel, 2, {"K1": coop, "K3": pingpong, "K4": pingpong})
    for rank, (config, ms) in enumerate(configs):
        print(baseline, rank, json.dumps(config), ms)
        if kernel["key"] == "K1":
            group.append({"name": f"v{rank}", "rank": rank, "config": config, "model_ms": ms,
                          "baseline": baseline})
ms = {"v0": 0.99, "v0_queued": 0.99, "v3": 1.0, "v3_queued": 0.9,
      "cublas_gemm": 1.1, "cublas_gemm_queued": 0.95}
lines, best, entry = tuning.summarize("case", [v for v in group if v["name"] in ms], ms)
print("\n".join(lines))
print("best", json.dumps(best))
print("database_choice_ms", round(entry["database_choice_ms"], 3),
      "gain_over_database", round(entry["gain_over_database"], 3))
# Within MIN_GAIN of the fastest, the baseline stays.
ms.update({"v3_queued": 0.987})
lines, best, entry = tuning.summarize("case", [v for v in group if v["name"] in ms], ms)
print("\n".join(lines))
print("best", json.dumps(best), "best_ms", entry["best_ms"], "gain", entry["gain_over_database"])
