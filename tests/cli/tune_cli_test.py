#!/usr/bin/env python3
"""`tpugraphs tune` from the outside, on the embedded sample: it writes the top configurations
best first as a what-if session that `whatif --from-json` and `explain --from-json` read (their
first entry), prints its progress table, and bad input gets one line and exit 1.
Usage: tune_cli_test.py TPUGRAPHS_BINARY SAMPLE_DIR WORK_DIR"""
import json
import os
import subprocess
import sys

exe, sample, work = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
failures = []


def run(args, code=0, needles=()):
    p = subprocess.run([exe] + args, capture_output=True, text=True, timeout=600)
    text = p.stdout + p.stderr
    lines = [l for l in p.stderr.splitlines() if l.strip() and not l.startswith("scoring")]
    ok = p.returncode == code and all(n in text for n in needles)
    if code == 1:
        ok = ok and len(lines) == 1 and lines[0].startswith("tpugraphs: ")
    if not ok:
        failures.append("%s -> %d (want %d, needles %s)\n%s" % (args, p.returncode, code, needles, text))
    return p


layout = os.path.join(sample, "npz/layout/xla/random/train/resnet_001.npz")
tile = os.path.join(sample, "npz/tile/xla/train/conv_fusion_002.npz")
out = os.path.join(work, "tuned.json")
# A round limit, not the clock: the same work on any machine.
run(["tune", layout, "--rounds", "30", "--budget-seconds", "300", "--top", "5", "--seed", "3", "--out", out], 0,
    ["round", "candidates", "best measured", "ground truth (this file is synthetic)", "wrote"])
doc = json.load(open(out))
configs = doc["configurations"]
if doc["format"] != "tpugraphs-whatif" or not 1 <= len(configs) <= 5:
    failures.append("not a what-if session of at most 5 configurations: %r" % {k: doc[k] for k in doc if k != "configurations"})
ns = [c["synthetic_tpu_ns"] for c in configs]
if ns != sorted(ns) or not all(c["measured"] for c in configs):
    failures.append("not best first by measured synthetic-TPU runtime: %r" % ns)
if len(set(ns)) != len(ns):
    failures.append("the same program listed twice: %r" % ns)
if not ns[0] < doc["tune"]["best_measured_in_file_ns"]:
    failures.append("found %r, not faster than the file's best measured %r" % (ns[0], doc["tune"]["best_measured_in_file_ns"]))

# whatif and explain read its first configuration.
w = json.loads(run(["whatif", layout, "--from-json", out, "--json"]).stdout)
if abs(w["start"]["synthetic_tpu_ns"] - ns[0]) > 1e-6 * ns[0]:
    failures.append("whatif --from-json: %r vs the file's first %r" % (w["start"]["synthetic_tpu_ns"], ns[0]))
e = json.loads(run(["explain", layout, "--from-json", out, "--json"]).stdout)
if abs(e["a"]["total_ns"] - ns[0]) > 1e-6 * ns[0] or e["a"]["label"] != configs[0]["label"]:
    failures.append("explain --from-json: %r (%s) vs %r" % (e["a"]["total_ns"], e["a"]["label"], ns[0]))

# Same seed and rounds, same configurations.
again = os.path.join(work, "again.json")
run(["tune", layout, "--rounds", "30", "--budget-seconds", "300", "--top", "5", "--seed", "3", "--out", again])
if [c["config"] for c in json.load(open(again))["configurations"]] != [c["config"] for c in configs]:
    failures.append("two runs with seed 3 and 30 rounds differ")

# One round, one configuration: its row once, counts in the singular ("1 rounds", "(1
# configurations", and the round's row printed twice).
one = run(["tune", tile, "--rounds", "1", "--top", "1", "--out", os.path.join(work, "one.json")], 0,
          ["1 round, ", "(1 configuration, best first)"])
rows = [l for l in one.stdout.splitlines() if l.split()[:1] == ["1"] and "candidates" not in l and "tuned" not in l]
if len(rows) != 1:
    failures.append("the one round's row %d times:\n%s" % (len(rows), one.stdout))

# A tile file tunes its bounds.
run(["tune", tile, "--rounds", "10", "--out", os.path.join(work, "tile.json")], 0, ["wrote"])
# A test-split file starts from its best by the ground truth shipped beside it, as in the explorer.
test_split = os.path.join(sample, "npz/layout/xla/random/test/transformer_003.npz")
run(["tune", test_split, "--rounds", "1", "--top", "1", "--out", os.path.join(work, "test.json")], 0,
    ["start: the best measured config", "ground truth (this file is synthetic)"])

# Bad input: one line each, exit 1 (or 2 for usage).
run(["tune", layout, "--budget-seconds", "0", "--out", out], 1, ["--budget-seconds", "above 0"])
run(["tune", layout, "--budget-seconds", "-1.5", "--out", out], 1, ["got -1.5\n"])  # was "-1.500000"
run(["tune", layout, "--start", "fastest", "--out", out], 1, ["--start: expected a configuration index"])  # said --from
run(["tune", layout, "--measure", "-1", "--out", out], 1, ["--measure"])
tile_model = os.path.join(work, "no-such-model.tpgm")
run(["tune", layout, "--model", tile_model, "--out", out], 1, ["no-such-model.tpgm"])
run(["tune", layout, "--start", "99999", "--out", out], 1, ["99999"])
run(["tune", layout], 2, ["--out is required"])
# No folder for --out: said as the arguments are read (it had been said after the search).
run(["tune", layout, "--out", os.path.join(work, "no/such/dir/x.json"), "--rounds", "1"], 2,
    ["--out: the folder '%s' does not exist (it is not created)" % os.path.join(work, "no/such/dir")])

for f in failures:
    print("FAIL:", f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
