#!/usr/bin/env python3
"""red_table.py DIR: the sum reduction's latency from callA.sh's red/<variant>-<scope>-<round>.jsonl, as a markdown
table: per scope and size the median over rounds of each variant's median, and the ratios new/base and new/nvshmem
(below 1: this commit is faster)."""
import collections, glob, json, os, statistics, sys

d = sys.argv[1]
lat = collections.defaultdict(list)  # (variant, scope, size) -> [median lat per round]
for f in glob.glob(os.path.join(d, "*.jsonl")):
    variant = os.path.basename(f).split("-")[0]
    for line in open(f):
        r = json.loads(line)
        if r.get("check") != "ok":
            print(f"# {f}: size {r['size']} check {r.get('check')}", file=sys.stderr)
        lat[(variant, r["scope"], r["size"])].append(r["lat_us"]["median"])
print("| scope | size (B) | this commit (µs) | previous commit (µs) | NVSHMEM 3.4.5 (µs) | new/prev | new/NVSHMEM |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for scope in ("thread", "warp", "block"):
    for size in sorted({k[2] for k in lat if k[1] == scope}):
        m = {v: statistics.median(lat[(v, scope, size)]) for v in ("new", "base", "nvshmem") if (v, scope, size) in lat}
        fmt = lambda v: f"{m[v]:.2f}" if v in m else "–"
        ratio = lambda a, b: f"{m[a] / m[b]:.2f}" if a in m and b in m else "–"
        print(f"| {scope} | {size} | {fmt('new')} | {fmt('base')} | {fmt('nvshmem')} | {ratio('new', 'base')} | {ratio('new', 'nvshmem')} |")
