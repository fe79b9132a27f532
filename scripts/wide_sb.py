#!/usr/bin/env python3
"""wide_sb.py N SEED RATIO > kernel.gca — a trn2 kernel of N SB tensors loaded one after the other and
then stored one after the other, so that all N are live together at the last load: random partition
counts (16/32/64/128) and byte sizes (multiples of 64), scaled so that their area is RATIO x SB's usable
area (128 x 212,984 bytes; RATIO > 1 must spill). docs/PERFORMANCE.md section 10, "Busiest points": where
hundreds of tensors are live together the search's cost per node must not grow with their pairs."""
import random, sys
n, seed, ratio = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
random.seed(seed)
usable = 128 * 212984
shapes = [(random.choice([16, 32, 64, 128]), random.choice([64, 128, 256, 512]) * random.randint(1, 4)) for _ in range(n)]
scale = ratio * usable / sum(p * b for p, b in shapes)
shapes = [(p, max(64, int(b * scale) // 64 * 64)) for p, b in shapes]
out = ["# %d SB tensors live together, area %.3f x SB (scripts/wide_sb.py %d %d %s)" % (n, sum(p * b for p, b in shapes) / usable, n, seed, sys.argv[3]),
       "module wide target=trn2", "", "function main core=0 {", "  tensor %x : dram 64 input", "  tensor %y : dram 64 output"]
out += ["  tensor %%t%d : sb %dx%d" % (i, p, b) for i, (p, b) in enumerate(shapes)]
out += ["  %%t%d = load %%x" % i for i in range(n)]
out += ["  %%y = store %%t%d" % i for i in range(n)]
out.append("}")
print("\n".join(out))
