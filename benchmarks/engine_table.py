#!/usr/bin/env python3
"""Remakes the measured DSA table of docs/ENGINE.md and docs/PERFORMANCE.md from bench-pack's JSON output.

    build/examples/gca-gen --trace 62000 > /tmp/trace62k.csv
    build/benchmarks/bench-pack --trace /tmp/trace62k.csv --benchmark_repetitions=3 \
        --benchmark_report_aggregates_only=true --benchmark_format=json > /tmp/bench.json
    python3 benchmarks/engine_table.py /tmp/bench.json

With repetitions, the medians are used; without, the single run.
"""
import json
import sys

rows = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    name = b["name"]
    if b.get("run_type") == "aggregate":
        if b.get("aggregate_name") != "median":
            continue
        name = name[: -len("_median")]
    kind, file = name.split("/", 1)
    rows.setdefault(file, {})[kind] = b
print("| file | buffers | max-live | baseline peak (over max-live) | gca peak (over max-live) "
      "| winning variant | gca time | baseline time | time ratio | lsa peak (over max-live) | lsa time |")
print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|")
for file, r in rows.items():
    g, bl = r["gca"], r["baseline"]
    ml = g["max_live"]
    pct = lambda x: 100 * (x / ml - 1)
    ratio = g["real_time"] / bl["real_time"] if bl["real_time"] > 0 else float("inf")
    print(f"| {file} | {int(g['buffers'])} | {int(ml):,} | {int(bl['peak']):,} (+{pct(bl['peak']):.2f} %) "
          f"| {int(g['peak']):,} (+{pct(g['peak']):.2f} %) | {g.get('label', '')} "
          f"| {g['real_time']:.1f} ms | {bl['real_time']:.1f} ms | {ratio:.2f} ", end="")
    ls = r.get("lsa")
    print(f"| {int(ls['peak']):,} (+{pct(ls['peak']):.2f} %) | {ls['real_time']:.1f} ms |" if ls else "| | |")
