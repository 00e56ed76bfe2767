#!/usr/bin/env python3
"""`tpugraphs whatif` from the outside, on a synthetic dataset: a valid edit is placed among the
file's configs (text and JSON), bad edits get one line and exit 1.
Usage: whatif_cli_test.py TPUGRAPHS_BINARY SYNTH_DATA_DIR"""
import glob
import json
import os
import subprocess
import sys

import numpy as np

exe, data = sys.argv[1], sys.argv[2]
failures = []


def run(args, code=0, needles=()):
    p = subprocess.run([exe, "whatif"] + args, capture_output=True, text=True, timeout=300)
    text = p.stdout + p.stderr
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    ok = p.returncode == code and all(n in text for n in needles)
    if code == 1:
        ok = ok and len(lines) == 1 and lines[0].startswith("tpugraphs: ")
    if not ok:
        failures.append("%s -> %d (want %d, needles %s)\n%s" % (args, p.returncode, code, needles, text))
    return p


layout = sorted(glob.glob(os.path.join(data, "npz/layout/xla/random/train/*.npz")))[0]
test_split = sorted(glob.glob(os.path.join(data, "npz/layout/xla/random/test/*.npz")))[0]
tile = sorted(glob.glob(os.path.join(data, "npz/tile/xla/train/*.npz")))[0]
z = np.load(layout)
ops, ids, feat = z["node_opcode"], z["node_config_ids"], z["node_feat"]
node = int(next(i for i in ids if ops[i] in (26, 34)))  # a convolution or dot
rank = int(max(d + 1 for d in range(6) if feat[node, 21 + d] > 0))
perm = ",".join(str(d) for d in reversed(range(rank)))

run([layout, "--set", "%d.output=%s" % (node, perm)], 0,
    ["would rank", "synthetic TPU", "ground truth: this file is synthetic", "edited: %d.output=%s" % (node, perm)])
p = run([layout, "--from", "best", "--set", "%d.output=%s" % (node, perm), "--json"])
try:
    j = json.loads(p.stdout)
    e = j["edited"]
    assert j["synthetic_tpu_is_ground_truth"] is True
    assert 1 <= e["rank"] <= e["configs"] + 1 and e["predicted_ns"] > 0 and e["synthetic_tpu_ns"] > 0
    assert j["start"]["matching_config"] is not None and j["start"]["nearest_distance"] == 0
    assert len(j["config"]) == len(ids) * 18
except Exception as ex:  # noqa: BLE001 - any failure is reported with the output
    failures.append("--json: %r\n%s" % (ex, p.stdout[:2000]))
# Row 0 with a default output layout spelled out (rank-1 .. 0, the layout node_feat gives these
# synthetic nodes) is another spelling of row 0's program: the same executable, so the same score
# and rank, and the row is named.
row0 = z["node_config_feat"][0]


def output_rank(n):
    return int(max([d + 1 for d in range(6) if feat[n, 21 + d] > 0] or [0]))


k = next(k for k, n in enumerate(ids) if (row0[k, :6] == -1).all() and output_rank(int(n)) >= 2)
spelled = ",".join(str(d) for d in reversed(range(output_rank(int(ids[k])))))
p = run([layout, "--from", "0", "--set", "%d.output=%s" % (ids[k], spelled), "--json"])
try:
    j = json.loads(p.stdout)
    e, s0 = j["edited"], j["start"]
    assert e["matching_config"] is None and e["same_program_config"] == 0, (e["matching_config"], e["same_program_config"])
    assert e["score"] == s0["score"] and e["rank"] == s0["rank"], (e["score"], s0["score"])
    assert e["same_program_runtime_ns"] == s0["matching_runtime_ns"]
except Exception as ex:  # noqa: BLE001
    failures.append("same program: %r\n%s" % (ex, p.stdout[:2000]))
p = run([layout, "--from", "0", "--set", "%d.output=%s" % (ids[k], spelled)], 0, ["same program", "config 0 compiles"])
run([layout, "--set", "%d.output=0" % node], 1, ["expected a permutation of 0..%d" % (rank - 1)])
run([layout, "--set", "%d.output=%s" % (node, ",".join(["0"] * rank))], 1, ["expected a permutation"])
run([layout, "--set", "0.output=0"], 1, ["is not configurable"])
run([layout, "--set", "%d.sideways=0" % node], 1, ["output, input or kernel"])
run([layout, "--from", "fastest"], 1, ["--from: expected"])
run([layout, "--tile", "output_bounds_0=8"], 1, ["need a tile file"])
run([tile, "--tile", "output_bounds_0=8"], 0, ["would rank", "edited: output_bounds_0=8"])
run([tile, "--tile", "output_bounds_sum=8"], 1, ["derived"])
run([tile, "--set", "3.output=0,1"], 1, ["tile file"])
run([os.path.join(data, "missing.npz")], 1, ["missing.npz"])
# A test-split file has no runtimes: ranks still, says what it cannot know.
run([test_split], 0, ["best measured    unknown", "would rank", "predicted      unknown"])
run([test_split, "--from", "best"], 1, ["runtimes unknown"])

print("\n\n".join(failures) if failures else "whatif: edits, ranks, JSON and errors ok")
sys.exit(1 if failures else 0)
