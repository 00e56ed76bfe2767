#!/usr/bin/env python3
"""`tpugraphs whatif` from the outside, on a synthetic dataset: a valid edit is placed among the
file's configs (text and JSON), bad edits get one line and exit 1.
Usage: whatif_cli_test.py TPUGRAPHS_BINARY SYNTH_DATA_DIR"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

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
# A bound beyond its dimension was accepted: the synthetic TPU clamped it, the model read it as given.
run([tile, "--tile", "output_bounds_0=100000000"], 1, ["dimension 0 of the kernel's output [", ": expected 1.."])
run([tile, "--tile", "output_bounds_5=8"], 1, ["has no dimension 5: expected 0"])
run([tile, "--set", "3.output=0,1"], 1, ["tile file"])
# A size outside the values the file's configurations give a bound is named: the model never saw
# this kernel with such a tile, though the edit is one bound from a measured row.
names = ["%s_bounds_%s" % (g, i) for g in ("kernel", "output", "input") for i in list(range(6)) + ["sum", "product"]]
tile_feat = np.load(tile)["config_feat"]
column = next(c for c in range(24) if c % 8 < 6 and tile_feat[:, c].min() > 1)
low, high = int(tile_feat[:, column].min()), int(tile_feat[:, column].max())
held = ("every configuration of this file holds %s" % format(low, ",") if low == high else
        "this file's configurations hold %s-%s" % (format(low, ","), format(high, ",")))
run([tile, "--tile", "%s=1" % names[column]], 0,
    ["outside file   %s = 1 (%s): tiles this kernel was not measured with" % (names[column], held)])
p = run([tile, "--tile", "%s=1" % names[column], "--json"])
try:
    j = json.loads(p.stdout)
    assert j["start"]["bounds_outside_file"] == [], j["start"]
    assert j["edited"]["bounds_outside_file"] == [
        {"bound": names[column], "value": 1, "file_low": low, "file_high": high}], j["edited"]
except Exception as ex:  # noqa: BLE001 - any failure is reported with the output
    failures.append("bounds outside the file, --json: %r\n%s" % (ex, p.stdout[:2000]))
# --alike: each --set also sets the configurable nodes of its node's opcode and output shape (the
# explorer's Select Alike), as one edit; two edits reaching one node's slot are a slip.
def alike_of(n):
    return [int(m) for m in ids if ops[m] == ops[n] and (feat[m, 21:27] == feat[n, 21:27]).all()]


wide = next(int(n) for n in ids if ops[n] in (26, 34) and len(alike_of(int(n))) > 1)
alike = alike_of(wide)
wide_rank = output_rank(wide)
wide_perm = list(reversed(range(wide_rank)))
wide_set = "%d.output=%s" % (wide, ",".join(map(str, wide_perm)))
run([layout, "--set", wide_set, "--alike"], 0, ["edited: " + wide_set, "and %d nodes alike" % (len(alike) - 1)])
p = run([layout, "--set", wide_set, "--alike", "--json"])
try:
    j = json.loads(p.stdout)
    assert sorted(j["edited_nodes"][0]) == sorted(alike), (j["edited_nodes"], alike)
    rows = np.array(j["config"]).reshape(len(ids), 18)
    for k, m in enumerate(ids):
        if int(m) in alike:
            assert list(rows[k, :wide_rank]) == wide_perm, (int(m), rows[k, :6])
except Exception as ex:  # noqa: BLE001 - any failure is reported with the output
    failures.append("--alike --json: %r\n%s" % (ex, p.stdout[:2000]))
run([layout, "--alike"], 1, ["--alike widens --set edits"])
other_set = "%d.output=%s" % (alike[1], ",".join(str(d) for d in range(wide_rank)))
run([layout, "--set", wide_set, "--set", other_set, "--alike"], 1,
    ["'%s' and '%s' both set node %d's output layout (with --alike)" % (wide_set, other_set, alike[1])])
run([os.path.join(data, "missing.npz")], 1, ["missing.npz"])
# One slot or bound set twice is a slip (the second edit silently won before): both are named.
twice = "%d.output=%s" % (node, ",".join(str(d) for d in range(rank)))
run([layout, "--set", "%d.output=%s" % (node, perm), "--set", twice], 1,
    ["'%d.output=%s' and '%s' both set node %d's output layout" % (node, perm, twice, node)])
run([tile, "--tile", "output_bounds_0=8", "--tile", "output_bounds_0=16"], 1,
    ["'output_bounds_0=8' and 'output_bounds_0=16' both set output_bounds_0"])
# Session files (--from-json) hold what a file may hold, or get one line naming the entry and the
# value: before, a value of 1e30 printed "predicted -9,223,372,036,854,775,808 ns (score nan)",
# 99 ranked as if valid, and a label or format of the wrong JSON type ended in a raw
# "[json.exception.type_error.302]".
work = tempfile.mkdtemp(prefix="whatif_sessions_")


def session(name, configurations, fmt="tpugraphs-whatif", saved_for=None):
    path = os.path.join(work, name)
    doc = {"format": fmt, "configurations": configurations}
    if saved_for:
        doc["file"] = saved_for
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


good = [float(v) for v in row0.ravel()]
run([layout, "--from-json", session("ok.json", [{"config": good, "label": "row 0"}])], 0, ["row 0", "would rank"])
for value, shown in ((99, "holds 99"), (1e30, "holds 1.00000002e+30"), (0.5, "holds 0.5"), (-2, "holds -2")):
    bad_row = list(good)
    bad_row[3] = value
    run([layout, "--from-json", session("bad.json", [{"config": bad_row}])], 1,
        ["configurations[0].config", "value 3 (node %d, output_layout_3) %s" % (ids[0], shown),
         "expected a layout value: a whole number from -1 to 5"])
run([layout, "--from-json", session("far.json", [{"config": [1e300] + good[1:]}])], 1,
    ["value 0 is 1e+300 (expected a number within float range)"])
run([layout, "--from-json", session("text.json", [{"config": ["x"] + good[1:]}])], 1, ['value 0 is "x"'])
run([layout, "--from-json", session("label.json", [{"config": good, "label": 7}])], 0, ["entry 0"])
run([layout, "--from-json", session("format.json", [{"config": good}], fmt=3)], 1, ["key 'format': expected a what-if"])
run([layout, "--from-json", session("noconfig.json", [{"label": "x"}])], 1, ["configurations[0].config", "expected a list"])
# A session saved for another file is applied with a note (a tile session's rows fit any kernel);
# one saved for this file, from another folder, without.
p = run([layout, "--from-json", session("other.json", [{"config": good}], saved_for="/x/other_program.npz")], 0,
        ["would rank"])
if "note: %s was saved for other_program.npz; its configurations are applied to %s" % (
        os.path.join(work, "other.json"), os.path.basename(layout)) not in p.stderr:
    failures.append("no note for a session of another file:\n" + p.stderr)
p = run([layout, "--from-json", session("same.json", [{"config": good}], saved_for="/x/" + os.path.basename(layout))], 0)
if "note:" in p.stderr:
    failures.append("a note for a session of this file:\n" + p.stderr)
tile_row = [float(v) for v in np.load(tile)["config_feat"][0]]
tile_row[9] = -8
run([tile, "--from-json", session("tile.json", [{"config": tile_row}])], 1,
    ["value 9 (output_bounds_1) holds -8 (expected a tile size, sum or product: from 0 to 1e15)"])
# A file holding a value no layout can hold is refused on reading, naming the configuration.
z_bad = dict(np.load(layout))
z_bad["node_config_feat"] = z_bad["node_config_feat"].copy()
z_bad["node_config_feat"][2, 1, 4] = 1e30
bad_file = os.path.join(work, "bad_values.npz")
np.savez_compressed(bad_file, **z_bad)
run([bad_file], 1, ["key 'node_config_feat': configuration 2, configurable node 1, feature 4 holds 1.00000002e+30"])

# A test-split file away from its dataset has no runtimes: ranks still, says what it cannot know.
loose_test = os.path.join(work, "loose_test.npz")
shutil.copy(test_split, loose_test)
run([loose_test], 0, ["best measured    unknown", "would rank", "predicted      unknown"])
run([loose_test, "--from", "best"], 1, ["runtimes unknown"])
# In its dataset, the ground truth shipped beside it gives its runtimes, as in the explorer.
truth = np.load(test_split.replace("/npz/", "/ground_truth/")[:-4] + ".config_runtime.npy")
run([test_split, "--from", "best"], 0,
    ["best measured    {:,} ns".format(int(truth.min())), "matches        config %d" % int(truth.argmin())])

shutil.rmtree(work, ignore_errors=True)
print("\n\n".join(failures) if failures else "whatif: edits, ranks, JSON and errors ok")
sys.exit(1 if failures else 0)
