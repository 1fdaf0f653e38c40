#!/usr/bin/env python3
"""Charts and ratio tables from perftest results.

    python3 perftest/plot.py [-o OUTDIR] RESULTS [RESULTS ...]

RESULTS are run_suite.sh or run_device.sh results folders (or single .jsonl files, or logs with "json: "
lines). Every
JSON point belongs to a run: the folder it came from (<library>-<launcher>-np<N>), prefixed with the
results folder's name when several are given, so two builds or two libraries overlay in one chart.

Writes into OUTDIR (default: <first RESULTS>/plots):
  <bench>.png   the figure (latency in us or bandwidth in GB/s, the median; whiskers: min..max) against
                size, one line per run and variant (op / type / scope); a bench measured at one size only
                (atomics, p/g, barrier) is drawn as bars per variant instead.
  ratios.md     for every program measured by gpushmem and by another library at the same PE count (the
                host programs against Open MPI, the device programs against NVSHMEM): per size and
                variant, both medians and gpushmem / other (latency: below 1 means gpushmem is faster;
                bandwidth: above 1 means gpushmem is faster).
Charts need matplotlib (Debian: python3-matplotlib; the Agg backend, no display); without it only
ratios.md is written.
"""
import argparse
import collections
import json
import math
import os
import sys

METRICS = ("bw_GBps", "lat_us", "rtt_us")
# The ratio table's benches first (the issue asks for these), then every other host program.
RATIO_FIRST = ("host_barrier_latency", "host_bcast_latency", "host_reduction_latency", "host_alltoall_latency",
               "host_fcollect_latency")


def metric_of(rec):
    """The main figure's key: "metric" when the program names it, else the first known one present."""
    m = rec.get("metric")
    if m and isinstance(rec.get(m), dict):
        return m
    for k in METRICS:
        if isinstance(rec.get(k), dict):
            return k
    for k, v in rec.items():
        if isinstance(v, dict) and "median" in v:
            return k
    return None


def variant_of(rec):
    parts = []
    for k in ("op", "type", "scope"):
        v = rec.get(k)
        if v not in (None, "", "host"):
            parts.append(str(v))
    if rec.get("bidir"):
        parts.append("bidir")
    return "/".join(parts) if parts else "-"


def read_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("json: "):
                line = line[6:]
            if not line.startswith("{"):
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as e:
                print(f"plot.py: {path}: skipping a line that is not JSON ({e})", file=sys.stderr)


def load(paths):
    """[(run label, record)] from every results folder or file."""
    points = []
    several = len(paths) > 1
    for p in paths:
        p = os.path.normpath(p)
        if os.path.isfile(p):
            label = os.path.basename(os.path.dirname(os.path.abspath(p))) or "run"
            for rec in read_lines(p):
                points.append((label, rec))
            continue
        if not os.path.isdir(p):
            sys.exit(f"plot.py: {p}: no such folder or file")
        top = os.path.basename(os.path.abspath(p))
        found = False
        for dirpath, _, files in sorted(os.walk(p)):
            # run_suite.sh folders hold .jsonl files; run_device.sh folders only .log files with json: lines
            ext = ".jsonl" if any(f.endswith(".jsonl") for f in files) else ".log"
            for name in sorted(files):
                if not name.endswith(ext):
                    continue
                found = True
                run = os.path.relpath(dirpath, p)
                run = top if run == "." else run
                label = f"{top}/{run}" if several and run != top else run
                for rec in read_lines(os.path.join(dirpath, name)):
                    points.append((label, rec))
        if not found:
            print(f"plot.py: {p}: no .jsonl files", file=sys.stderr)
    return points


def library_of(label, rec):
    lib = str(rec.get("library", ""))
    if lib.startswith("gpushmem") or "gpushmem" in label.split("/")[-1].split("-")[0]:
        return "gpushmem"
    if "open-mpi" in lib or "openmpi" in label:
        return "openmpi"
    return lib or label.split("/")[-1].split("-")[0]


def plot(points, outdir):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_bench = collections.defaultdict(list)
    for label, rec in points:
        m = metric_of(rec)
        if m is None or rec.get("bench") is None or not isinstance(rec.get(m), dict):
            continue
        by_bench[rec["bench"]].append((label, rec, m))
    written = []
    for bench, recs in sorted(by_bench.items()):
        metric = recs[0][2]
        recs = [r for r in recs if r[2] == metric]
        sizes = {r[1].get("size") for r in recs}
        fig, ax = plt.subplots(figsize=(9, 5.5))
        if len(sizes) > 1:
            series = collections.defaultdict(list)
            for label, rec, m in recs:
                if rec.get("size"):
                    series[(label, variant_of(rec))].append(rec)
            for (label, variant), rs in sorted(series.items()):
                rs.sort(key=lambda r: r["size"])
                x = [r["size"] for r in rs]
                y = [r[metric]["median"] for r in rs]
                lo = [max(r[metric]["median"] - r[metric]["min"], 0) for r in rs]
                hi = [max(r[metric]["max"] - r[metric]["median"], 0) for r in rs]
                name = label if variant == "-" else f"{label} {variant}"
                ax.errorbar(x, y, yerr=[lo, hi], marker="o", markersize=3, capsize=2, linewidth=1.2, label=name)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("size (bytes)")
            ax.set_yscale("log")
        else:
            variants = sorted({variant_of(r[1]) for r in recs})
            labels = sorted({r[0] for r in recs})
            width = 0.8 / max(len(labels), 1)
            for i, label in enumerate(labels):
                vals = []
                for v in variants:
                    match = [r[1][metric]["median"] for r in recs if r[0] == label and variant_of(r[1]) == v]
                    vals.append(match[0] if match else math.nan)
                ax.bar([k + i * width for k in range(len(variants))], vals, width=width, label=label)
            ax.set_xticks([k + 0.4 - width / 2 for k in range(len(variants))])
            ax.set_xticklabels(variants, rotation=30, ha="right", fontsize=8)
            if all(r[1][metric]["median"] > 0 for r in recs):
                ax.set_yscale("log")
        unit = {"bw_GBps": "bandwidth (GB/s)", "lat_us": "latency (us)", "rtt_us": "round trip (us)"}.get(metric, metric)
        ax.set_ylabel(unit + ", median")
        ax.set_title(bench)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="best")
        fig.tight_layout()
        path = os.path.join(outdir, f"{bench}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    return written


def ratios(points):
    """Markdown: gpushmem vs each other library, per bench, PE count, variant and size."""
    table = collections.defaultdict(dict)  # (bench, npes, variant, size) -> {library: (median, metric)}
    for label, rec in points:
        bench = rec.get("bench", "")
        m = metric_of(rec)
        if not bench or m is None or not isinstance(rec.get(m), dict):
            continue
        key = (bench, rec.get("npes", rec.get("pes")), variant_of(rec), rec.get("size", 0))
        table[key][library_of(label, rec)] = (rec[m]["median"], m)
    others = sorted({lib for v in table.values() for lib in v if lib != "gpushmem"})
    benches = sorted({k[0] for k in table}, key=lambda b: (RATIO_FIRST.index(b) if b in RATIO_FIRST else 99, b))
    out = ["# gpushmem vs baseline, medians", ""]
    if not others or not any("gpushmem" in v for v in table.values()):
        out.append("(no bench was measured by both gpushmem and another library)")
        return "\n".join(out) + "\n"
    out.append("ratio = gpushmem / baseline: for latency below 1 is better, for bandwidth above 1 is better.")
    for other in others:
        for bench in benches:
            rows = sorted((k, v) for k, v in table.items() if k[0] == bench and "gpushmem" in v and other in v)
            if not rows:
                continue
            metric = rows[0][1]["gpushmem"][1]
            out += ["", f"## {bench} ({metric}), gpushmem vs {other}", "",
                    "| PEs | variant | size (B) | gpushmem | " + other + " | ratio |", "| --- | --- | --- | --- | --- | --- |"]
            for (b, npes, variant, size), v in rows:
                ours, base = v["gpushmem"][0], v[other][0]
                r = f"{ours / base:.3f}" if base else "n/a"
                out.append(f"| {npes} | {variant} | {size} | {ours:.3f} | {base:.3f} | {r} |")
    return "\n".join(out) + "\n"


def have_matplotlib():
    """Imports matplotlib, or re-runs this script with the system Python that has Debian's package; False when
    neither has it (then only ratios.md is written)."""
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        system = "/usr/bin/python3"
        if os.path.realpath(sys.executable) != os.path.realpath(system) and os.access(system, os.X_OK) and \
                not os.environ.get("PERFTEST_PLOT_REEXEC"):
            os.environ["PERFTEST_PLOT_REEXEC"] = "1"
            os.execv(system, [system, os.path.abspath(__file__)] + sys.argv[1:])
        print(f"plot.py: {sys.executable} has no matplotlib (Debian: apt install python3-matplotlib): "
              "writing ratios.md only, no charts", file=sys.stderr)
        return False


def main():
    charts = have_matplotlib()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", nargs="+", help="results folders (run_suite.sh -o), .jsonl files or logs")
    ap.add_argument("-o", "--out", help="where the PNGs and ratios.md go (default: <first results>/plots)")
    args = ap.parse_args()
    points = load(args.results)
    failed = [p for p in points if p[1].get("check") == "FAIL"]
    if failed:
        print(f"plot.py: leaving out {len(failed)} points whose data check failed "
              f"(first: {failed[0][0]} {failed[0][1].get('bench')} {variant_of(failed[0][1])})", file=sys.stderr)
        points = [p for p in points if p[1].get("check") != "FAIL"]
    if not points:
        sys.exit("plot.py: no JSON points found")
    first = args.results[0]
    outdir = args.out or os.path.join(first if os.path.isdir(first) else os.path.dirname(first) or ".", "plots")
    os.makedirs(outdir, exist_ok=True)
    written = plot(points, outdir) if charts else []
    md = ratios(points)
    with open(os.path.join(outdir, "ratios.md"), "w", encoding="utf-8") as f:
        f.write(md)
    print(f"plot.py: {len(points)} points, {len(written)} charts and ratios.md in {outdir}")


if __name__ == "__main__":
    main()
