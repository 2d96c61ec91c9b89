"""coda.bench.anchors.variants_asked on the CPU, torch a stand-in. argv: a scratch folder."""
import sys

from standins import anchors_on_cpu

anchors, tmp = anchors_on_cpu(sys.argv)
for name in anchors.variants_asked(True, ["direct-launch,tma-halves", "overlap-rows"]):
    _, fuse, flags = anchors.VARIANTS[name]
    print(name, fuse, *flags)
try:
    anchors.variants_asked(False, ["tiles"])
except ValueError as e:
    print("refused:", e)
