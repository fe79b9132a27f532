#!/usr/bin/env python3
"""Remakes the measured table of docs/ENGINE.md from bench-pack's JSON output.

    build/benchmarks/bench-pack --benchmark_format=json > /tmp/bench.json
    python3 benchmarks/engine_table.py /tmp/bench.json
"""
import json
import sys

rows = {}
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    kind, name = b["name"].split("/", 1)
    rows.setdefault(name, {})[kind] = b
print("| file | buffers | max-live | baseline peak (over max-live) | gca peak (over max-live) "
      "| winning variant | gca time | baseline time |")
print("|---|---:|---:|---:|---:|---|---:|---:|")
for name, r in rows.items():
    g, bl = r["gca"], r["baseline"]
    ml = g["max_live"]
    pct = lambda x: 100 * (x / ml - 1)
    print(f"| {name} | {int(g['buffers'])} | {int(ml):,} | {int(bl['peak']):,} (+{pct(bl['peak']):.2f} %) "
          f"| {int(g['peak']):,} (+{pct(g['peak']):.2f} %) | {g.get('label', '')} "
          f"| {g['real_time']:.1f} ms | {bl['real_time']:.2f} ms |")
