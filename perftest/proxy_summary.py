#!/usr/bin/env python3
"""proxy_summary.py RAW: the summary table of perftest/run_proxy.sh from its tagged json lines ("TAG {json}")."""
import json
import sys


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            tag, _, rest = line.partition(" ")
            try:
                rows.append((tag, json.loads(rest)))
            except json.JSONDecodeError:
                pass
    return rows


def median(d, key):
    v = d.get(key)
    return v.get("median") if isinstance(v, dict) else None


def main():
    rows = load(sys.argv[1])
    out = ["| figure | value | baseline (same run) | ratio / difference | check |", "| --- | --- | --- | --- | --- |"]
    dev = {r.get("op"): r for t, r in rows if t == "proxy-p"}
    host = [r for t, r in rows if t == "host-p-gpu"]
    d = dev.get("shmem_int_p")
    h = host[0] if host else None
    if d and h:
        dl, hl = median(d, "lat_us"), median(h, "lat_us")
        if dl is not None and hl is not None:
            out.append(f"| hand-off: device int_p + quiet through the proxy | {dl:.2f} us | host int_p + quiet to the "
                       f"remote GPU heap {hl:.2f} us | +{dl - hl:.2f} us (target <= 1.5) | {d.get('check')}/{h.get('check')} |")
    for t, r in rows:
        if t == "drain":
            m = median(r, "rate_Mslots")
            out.append(f"| drain rate, {r.get('size')} slots, {r.get('ctas')}x{r.get('warps')} warps, "
                       f"{r.get('batch', 32)} a poll | {m:.2f} M slots/s | "
                       f"target 20 | {m / 20:.2f}x; empty polls {100 * r.get('empty_polls', 0):.0f} % | {r.get('check')} |")
    for scope in ("thread", "warp", "block"):
        proxy = {r["size"]: r for t, r in rows if t == f"proxy-put_bw-{scope}" and "size" in r}
        p2p = {r["size"]: r for t, r in rows if t == f"p2p-put_bw-{scope}" and "size" in r}
        for size in sorted(proxy):
            pv = median(proxy[size], "bw_GBps")
            qv = median(p2p[size], "bw_GBps") if size in p2p else None
            ratio = f"{pv / qv:.3f}x" if pv is not None and qv else "n/a"
            qs = f"P2P {qv:.3f} GB/s" if qv is not None else "P2P n/a"
            out.append(f"| put_bw {scope} {size} B through the proxy | {pv:.3f} GB/s | {qs} | {ratio} | "
                       f"{proxy[size].get('check')} |")
    # A staged put against the slowest leg of its pipeline, size by size (block scope, the proxy's whole transfers).
    legs = {}
    for t, r in rows:
        if t == "legs" and "size" in r:
            legs.setdefault(r["size"], {})[r.get("leg")] = median(r, "bw_GBps")
        elif t == "net-leg" and "size" in r and r.get("op") == "putmem":
            legs.setdefault(r["size"], {})["ucx"] = median(r, "bw_GBps")
    staged = {r["size"]: r for t, r in rows if t == "proxy-put_bw-block" and "size" in r}
    for size in sorted(staged):
        have = {k: v for k, v in legs.get(size, {}).items() if v}
        pv = median(staged[size], "bw_GBps")
        if pv is None or len(have) < 3:
            continue
        slow = min(have, key=have.get)
        out.append(f"| staged put block {size} B vs its slowest leg | {pv:.3f} GB/s | {slow} {have[slow]:.3f} GB/s "
                   f"(d2h {have.get('d2h', 0):.2f}, ucx {have.get('ucx', 0):.2f}, h2d {have.get('h2d', 0):.2f}) | "
                   f"{pv / have[slow]:.3f}x (target >= 0.8) | {staged[size].get('check')} |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
