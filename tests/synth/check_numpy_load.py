#!/usr/bin/env python3
"""Loads every file of a synthetic dataset with numpy, as a user of the real dataset would, and
checks keys, dtypes and shapes against the real files. Usage: check_numpy_load.py DATASET_DIR"""
import os
import sys

import numpy as np

root = sys.argv[1]
count = 0
for dirpath, _, names in os.walk(os.path.join(root, "npz")):
    for name in sorted(names):
        path = os.path.join(dirpath, name)
        assert name.endswith(".npz"), path
        parts = os.path.relpath(path, root).split(os.sep)
        split = parts[-2]
        with np.load(path) as z:
            n, width = z["node_feat"].shape
            assert z["node_feat"].dtype == np.float32 and width == 140, path
            assert z["node_opcode"].dtype == np.uint8 and z["node_opcode"].shape == (n,), path
            e = z["edge_index"]
            assert e.dtype == np.int64 and e.shape[1] == 2 and (e[:, 0] > e[:, 1]).all(), path
            feat = z["node_feat"]
            tuple_col = 18
            arrays = feat[:, tuple_col] == 0
            dims = feat[arrays, 21:27]
            assert np.allclose(np.where(dims > 0, dims, 1).prod(axis=1), feat[arrays, 28], rtol=1e-6), path
            runtime = z["config_runtime"]
            assert runtime.dtype == np.int64, path
            if split == "test":
                assert (runtime == 0).all(), path
                truth = os.path.join(root, "ground_truth", *parts[1:-1], name[:-4] + ".config_runtime.npy")
                assert np.load(truth).shape == runtime.shape, truth
            else:
                assert (runtime > 0).all(), path
            if parts[1] == "tile":
                c = z["config_feat"]
                assert c.dtype == np.float32 and c.shape == (len(runtime), 24), path
                assert z["config_runtime_normalizers"].shape == runtime.shape, path
            else:
                ids = z["node_config_ids"]
                cfg = z["node_config_feat"]
                assert ids.dtype == np.int64 and cfg.shape == (len(runtime), len(ids), 18), path
                assert cfg.min() >= -1 and cfg.max() <= 5, path
                ops = z["node_opcode"][ids]
                assert set(ops.tolist()) <= {26, 34, 75}, path  # convolution, dot, reshape
                splits = z["node_splits"]
                assert splits.ndim == 2 and splits.shape[0] == 1, path
        count += 1
assert count > 0, "no files found under " + root
print("numpy loaded %d files" % count)
