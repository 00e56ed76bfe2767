#!/usr/bin/env python3
"""A dataset of trimmed, Fortran-ordered files, as community "cleaned" copies of TpuGraphs hold
them (node_feat cut to 70 columns, layout configs to 10, tile configs to 20), written by numpy and
taken end to end: inspect -> train (short) -> eval -> predict.
Usage: trimmed_dataset_test.py TPUGRAPHS_BINARY SCRATCH_DIR"""
import csv
import os
import shutil
import subprocess
import sys

import numpy as np

exe, scratch = sys.argv[1], sys.argv[2]
shutil.rmtree(scratch, ignore_errors=True)
data = os.path.join(scratch, "data")
rng = np.random.default_rng(11)
OPS = [i for i in range(1, 119) if i not in (97, 101)]


def fortran_savez(path, arrays):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.savez_compressed(path, **{k: np.asfortranarray(v) for k, v in arrays.items()})


def layout_graph(n, nc, c, test):
    feat = rng.integers(0, 6, size=(n, 70)).astype(np.float32)
    ops = rng.choice(OPS, size=n).astype(np.uint8)
    ids = np.sort(rng.choice(np.arange(1, n), size=nc, replace=False))
    ops[ids] = 26
    edges = np.array([[i, i - 1] for i in range(1, n)], dtype=np.int64)
    cfg = rng.integers(-1, 4, size=(c, nc, 10)).astype(np.float32)
    weights = rng.normal(size=(nc, 10))
    runtime = (1e6 * np.exp(0.2 * np.tanh((cfg * weights).sum(axis=(1, 2))))).astype(np.int64)
    return dict(node_feat=feat, node_opcode=ops, edge_index=edges, node_config_ids=ids.astype(np.int64),
                node_config_feat=cfg, config_runtime=np.zeros_like(runtime) if test else runtime,
                node_splits=np.array([[0, n // 2]], dtype=np.int64))


def tile_graph(n, c, test):
    cfg = rng.integers(1, 9, size=(c, 20)).astype(np.float32)
    runtime = (5e4 * (1 + cfg[:, 0] / (1 + cfg[:, 1]))).astype(np.int64)
    zeros = np.zeros_like(runtime)
    return dict(node_feat=rng.normal(size=(n, 70)).astype(np.float32),
                node_opcode=rng.choice(OPS, size=n).astype(np.uint8),
                edge_index=np.array([[i, i - 1] for i in range(1, n)], dtype=np.int64),
                config_feat=cfg, config_runtime=zeros if test else runtime,
                config_runtime_normalizers=zeros if test else np.full(c, 60000, dtype=np.int64))


for split, count in (("train", 4), ("valid", 2), ("test", 2)):
    for i in range(count):
        fortran_savez(os.path.join(data, "npz/layout/xla/random", split, "alexnet_%d.npz" % i),
                      layout_graph(60 + 10 * i, 6, 80, split == "test"))
        fortran_savez(os.path.join(data, "npz/tile/xla", split, "kernel_%d.npz" % i),
                      tile_graph(12 + i, 40, split == "test"))

failures = []


def run(args, needles=(), code=0):
    p = subprocess.run([exe] + args, capture_output=True, text=True, timeout=300)
    text = p.stdout + p.stderr
    missing = [n for n in needles if n not in text]
    if p.returncode != code or missing:
        failures.append("%s -> %d (want %d), missing %s\n%s" % (args, p.returncode, code, missing, text))
    return p


run(["inspect", os.path.join(data, "npz/layout/xla/random/train/alexnet_0.npz")],
    ["node features  70 columns", "deflated, Fortran order", "config feats   10 columns",
     "node_feat has 70 columns"])
models = {}
for collection, kind in (("layout:xla:random", "layout"), ("tile:xla", "tile")):
    models[kind] = os.path.join(scratch, kind + ".tpgm")
    run(["train", "--data", data, "--collection", collection, "--out", models[kind], "--epochs", "2",
         "--minutes", "1", "--hidden", "16", "--threads", "1"], ["valid", "has 70 columns"])
    run(["eval", "--model", models[kind], "--data", data, "--collection", collection],
        ["mean (2 graphs)"])
# One valid graph is counted in the singular ("(1 graphs)" was printed at every epoch).
one = os.path.join(scratch, "one")
for split, count in (("train", 2), ("valid", 1)):
    for i in range(count):
        src = os.path.join(data, "npz/layout/xla/random", split, "alexnet_%d.npz" % i)
        dst = os.path.join(one, "npz/layout/xla/random", split, "alexnet_%d.npz" % i)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy(src, dst)
run(["train", "--data", one, "--collection", "layout:xla:random", "--out", os.path.join(scratch, "one.tpgm"),
     "--epochs", "1", "--hidden", "16", "--threads", "1"], ["(1 graph)", "after 1 epoch, "])
run(["eval", "--model", models["layout"], "--data", one, "--collection", "layout:xla:random"], ["mean (1 graph)"])
run(["predict", "--model", models["layout"], "--data", dst, "--out", os.path.join(scratch, "one.csv")], ["1 row -> "])
csv_path = os.path.join(scratch, "submission.csv")
run(["predict", "--model", models["layout"], "--model", models["tile"], "--data", data, "--out", csv_path])
if os.path.exists(csv_path):
    rows = list(csv.reader(open(csv_path)))
    ids = sorted(r[0] for r in rows[1:])
    want = sorted(["layout:xla:random:alexnet_%d" % i for i in range(2)] + ["tile:xla:kernel_%d" % i for i in range(2)])
    if rows[0] != ["ID", "TopConfigs"] or ids != want:
        failures.append("predict wrote %s" % rows[:6])
    for r in rows[1:]:
        n = len(r[1].split(";"))
        if n != (80 if r[0].startswith("layout") else 5):
            failures.append("%s ranks %d configs" % (r[0], n))
else:
    failures.append("predict wrote no CSV")
# The built-in default models were trained on 140-column files: refused with one clear line.
run(["predict", "--data", data, "--out", os.path.join(scratch, "default.csv")], ["70"], code=1)

print("\n\n".join(failures) if failures else "trimmed Fortran dataset: inspect, train, eval, predict ok")
sys.exit(1 if failures else 0)
