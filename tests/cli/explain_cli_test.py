#!/usr/bin/env python3
"""`tpugraphs explain` from the outside, on the embedded sample: the breakdown's parts sum to the
total (layout and tile), best against worst is explained by copies and layouts, a what-if session's
configuration explains like the file's own row, counts read as English ("1 tile", "1 copy"), and bad
input gets one line and exit 1.
Usage: explain_cli_test.py TPUGRAPHS_BINARY SAMPLE_DIR WORK_DIR"""
import glob
import json
import os
import shutil
import subprocess
import sys

import numpy as np

exe, sample, work = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
failures = []


def run(args, code=0):
    p = subprocess.run([exe, "explain"] + args, capture_output=True, text=True, timeout=300)
    if p.returncode != code:
        failures.append("%s -> %d (want %d)\n%s%s" % (args, p.returncode, code, p.stdout, p.stderr))
    if code == 1:
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        if len(lines) != 1 or not lines[0].startswith("tpugraphs: "):
            failures.append("%s: expected one error line, got %r" % (args, p.stderr))
    return p


def sums_to_total(j, what):
    parts = sum(j["categories"].values())
    if abs(parts - j["total_ns"]) > 1e-6 * max(1.0, abs(j["total_ns"])):
        failures.append("%s: categories sum to %r, total %r" % (what, parts, j["total_ns"]))


layout = os.path.join(sample, "npz/layout/xla/random/train/resnet_001.npz")
tile = sorted(glob.glob(os.path.join(sample, "npz/tile/xla/train/*.npz")))[0]
test_split = sorted(glob.glob(os.path.join(sample, "npz/layout/xla/random/test/*.npz")))[0]

j = json.loads(run([layout, "--config", "best", "--compare", "worst", "--json"]).stdout)
sums_to_total(j["a"], "layout best")
sums_to_total(j["b"], "layout worst")
c = j["comparison"]
if not c["sentence"].startswith("B is") or "slower" not in c["sentence"] or c["copy_delta"] <= 0:
    failures.append("best vs worst: %r" % c)
if not c["differing_nodes"]:
    failures.append("best vs worst: no differing nodes")
if not j["b"]["violation_ratio"] > j["a"]["violation_ratio"]:
    failures.append("worst should violate more: %r vs %r" % (j["b"]["violation_ratio"], j["a"]["violation_ratio"]))
if "ground truth" not in j["synthetic_tpu"]:
    failures.append("a synthetic file is ground truth: %r" % j["synthetic_tpu"])
if abs(sum(c["category_deltas"].values()) - (j["b"]["total_ns"] - j["a"]["total_ns"])) > 1e-3:
    failures.append("category deltas do not add up to the difference")

t = json.loads(run([tile, "--config", "3", "--json"]).stdout)
sums_to_total(t["a"], "tile")
if "tile" not in t["a"] or t["a"]["tile"]["tiles"] <= 0:
    failures.append("tile terms missing: %r" % t["a"].get("tile"))

# The tensors the bounds tile, and their tiles as the synthetic TPU reads config 3's bounds (0 and
# sizes beyond a dimension: all of it); the output's tiles multiply to the tile count.
tensors = {x["role"]: x for x in t["a"]["tile"].get("tensors", [])}
bounds = np.load(tile)["config_feat"][3]
group = {"kernel": 0, "output": 8, "input": 16}
if "output" not in tensors:
    failures.append("tile tensors lack the output: %r" % t["a"]["tile"])
for role, x in tensors.items():
    want = [min(int(b), d) if b >= 1 else d for b, d in zip(bounds[group[role]:group[role] + 6], x["dims"])]
    if x["tile"] != want:
        failures.append("%s tile %r, config 3's bounds read %r" % (role, x["tile"], want))
if "output" in tensors:
    o = tensors["output"]
    count = 1
    for d, b in zip(o["dims"], o["tile"]):
        count *= -(-d // b)
    if count != t["a"]["tile"]["tiles"]:
        failures.append("output tiles multiply to %d, tile count %d" % (count, t["a"]["tile"]["tiles"]))
    line = "  output #%d: [%s] in tiles of [%s]" % (o["node"], ",".join(map(str, o["dims"])), ",".join(map(str, o["tile"])))
    if line not in run([tile, "--config", "3"]).stdout:
        failures.append("text lacks %r" % line)

# A comparison names the tiles that differ, with the tile counts.
t0 = json.loads(run([tile, "--config", "0", "--json"]).stdout)["a"]["tile"]
out0 = {x["role"]: x for x in t0["tensors"]}
if out0["output"]["tile"] != tensors["output"]["tile"]:
    want = "  tiles: output [%s] -> [%s]" % (",".join(map(str, tensors["output"]["tile"])), ",".join(map(str, out0["output"]["tile"])))
    compared = run([tile, "--config", "3", "--compare", "0"]).stdout
    if want not in compared:
        failures.append("comparison lacks %r:\n%s" % (want, compared))
else:
    failures.append("configs 3 and 0 of %s share an output tile: pick another pair" % tile)

# The text counts in English: a configuration of one tile, or with one copy, had printed "1 tiles"
# and "1 copies". The sample's first such configurations are found through the JSON.
def first_config(path, configs, has_one):
    for c in range(configs):
        k = json.loads(run([path, "--config", str(c), "--json"]).stdout)
        if has_one(k["a"]):
            return c
    return None


def counted_in_text(path, has_one, want, configs=200):
    c = first_config(path, configs, has_one)
    if c is None:
        failures.append("%s: no configuration among the first %d to test %r with" % (path, configs, want))
    elif want not in run([path, "--config", str(c)]).stdout:
        failures.append("%s config %d: text lacks %r" % (path, c, want))


one_tile = sorted(glob.glob(os.path.join(sample, "npz/tile/xla/*/dot_fusion_*.npz")))[0]
counted_in_text(one_tile, lambda a: a["tile"]["tiles"] == 1, "tile: 1 tile,")
counted_in_text(one_tile, lambda a: a["tile"]["tiles"] == 1, "note: 1 output tile,")  # "1 output tiles"
few_copies = os.path.join(sample, "npz/layout/xla/default/train/resnet_001.npz")  # a default search
counted_in_text(few_copies, lambda a: len(a["copies"]) == 1, "(1 copy,")

text = run([layout, "--config", "7", "--top", "3"]).stdout
for needle in ["config 7: synthetic TPU", "compute", "padding", "layout preference", "copies", "total",
               "violation ratio", "top nodes:", "ground truth: this file is synthetic"]:
    if needle not in text:
        failures.append("text lacks %r:\n%s" % (needle, text))

# A what-if session holding config 5's row explains exactly like config 5.
row = np.load(layout)["node_config_feat"][5].ravel().tolist()
session = os.path.join(work, "session.json")
with open(session, "w") as f:
    json.dump({"format": "tpugraphs-whatif", "version": 1, "configurations": [{"label": "edited", "config": row}]}, f)
w = json.loads(run([layout, "--from-json", session, "--json"]).stdout)
direct = json.loads(run([layout, "--config", "5", "--json"]).stdout)
if abs(w["a"]["total_ns"] - direct["a"]["total_ns"]) > 1e-6 * direct["a"]["total_ns"] or w["a"]["label"] != "edited":
    failures.append("what-if row: %r vs config 5: %r" % (w["a"]["total_ns"], direct["a"]["total_ns"]))

with open(os.path.join(work, "short.json"), "w") as f:
    json.dump({"format": "tpugraphs-whatif", "configurations": [{"config": row[:5]}]}, f)
run([layout, "--from-json", os.path.join(work, "short.json")], 1)
run([layout, "--config", "100000"], 1)
# --top 0 is the breakdown alone (it printed an empty "top nodes:"); a negative count is a usage
# error (it was taken as 0).
text = run([layout, "--config", "7", "--top", "0"]).stdout
if "top nodes:" in text or "total" not in text:
    failures.append("--top 0:\n%s" % text)
p = run([layout, "--top", "-3"], 2)
if "--top" not in p.stderr:
    failures.append("--top -3: %r" % p.stderr)
# A configuration against itself takes the same time (it read "B is 0.0% slower").
text = run([layout, "--config", "5", "--compare", "5"]).stdout
if "A = config 5, B = config 5: B takes the same time" not in text:
    failures.append("--compare itself:\n%s" % text[-400:])
# Away from its dataset a test-split file has no runtimes: still explained, as an estimate.
loose_test = os.path.join(work, "loose_test.npz")
shutil.copy(test_split, loose_test)
run([loose_test, "--config", "best"], 1)
if "is an estimate" not in run([loose_test, "--config", "0"]).stdout:
    failures.append("a loose test-split file: not called an estimate")
# In its dataset, the ground truth shipped beside it gives its runtimes, as in the explorer.
p = run([test_split, "--config", "best"])
if "(best measured)" not in p.stdout or "is ground truth" not in p.stdout:
    failures.append("a test-split file with its ground truth:\n" + p.stdout[:500])

for f in failures:
    print("FAIL:", f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
