#!/usr/bin/env python3
"""Writes the reader benchmark's layout files: 5,000 nodes, 500 configurable, 60,000 configs
(node_config_feat is 2.16 GB of float32), as np.savez (stored) and np.savez_compressed, and a
stored copy with every array in Fortran order (as community "cleaned" copies store them).
Each configurable node picks among a few layouts, as real search spaces do, so the compressed
file is small like the real ones. Usage: make_reader_bench_files.py OUT_DIR"""
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(11)
n, nc, c = 5000, 500, 60000
node_feat = rng.integers(0, 8, size=(n, 140)).astype(np.float32)
node_opcode = rng.choice([26, 34, 95, 2, 63, 47, 73], size=n).astype(np.uint8)
edges = np.stack([np.arange(1, n), rng.integers(0, np.arange(1, n))], axis=1).astype(np.int64)
ids = np.sort(rng.choice(n, size=nc, replace=False)).astype(np.int64)
perms = np.array([[0, 1, 2, 3], [1, 0, 2, 3], [3, 2, 1, 0], [2, 3, 0, 1]])
patterns = np.full((nc, 4, 18), -1, dtype=np.int8)
for k in range(nc):
    for p in range(1, 4):
        for slot in range(3):
            patterns[k, p, slot * 6:slot * 6 + 4] = perms[rng.integers(0, 4)]
choice = rng.integers(0, 4, size=(c, nc))
cfg = np.empty((c, nc, 18), dtype=np.float32)
for start in range(0, c, 5000):  # in blocks, to keep numpy's temporaries small
    blk = choice[start:start + 5000]
    cfg[start:start + 5000] = patterns[np.arange(nc)[None, :], blk]
runtime = rng.integers(1_000_000, 5_000_000, size=c).astype(np.int64)
arrays = dict(node_feat=node_feat, node_opcode=node_opcode, edge_index=edges, node_config_ids=ids,
              node_config_feat=cfg, config_runtime=runtime, node_splits=np.array([[0, 2500]], np.int64))
np.savez(os.path.join(out, "layout_2gb_stored.npz"), **arrays)
np.savez_compressed(os.path.join(out, "layout_2gb_compressed.npz"), **arrays)
fortran = {k: np.asfortranarray(v) for k, v in arrays.items()}
del cfg, arrays
np.savez(os.path.join(out, "layout_2gb_fortran_stored.npz"), **fortran)
print("written", out)
