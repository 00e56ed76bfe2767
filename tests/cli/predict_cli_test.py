#!/usr/bin/env python3
"""`tpugraphs predict` from the outside, on a synthetic dataset: the CSV ranks every config of a
file once; --program-ties reaches the model (configs of one program share a score by default, so
they keep their file order; off ranks them by the network's own scores); a bad value gets one line;
each file gets its collection's built-in model, a file outside the dataset tree the layout model of
all four collections (or, when it records its search as a What-if export does, that collection's),
and a file whose kind is not its folder's one line, leaving nothing beside --out; --out naming a
folder is a usage error before any scoring. On a terminal the progress bar moves while
one big file is scored (it sat at 0% until the file was done) and estimates the time left from the
first progress on, as `eval`'s does (it had none); the program keys come first on it, as on
`tune`'s, after a Fortran-ordered table's decompression, which it shows.
Usage: predict_cli_test.py TPUGRAPHS_BINARY SYNTH_DATA_DIR WORK_DIR"""
import glob
import os
import pty
import re
import shutil
import subprocess
import sys

import numpy as np

exe, data, work = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(work, exist_ok=True)
failures = []
# A default search: its configs lie a few nodes from the compiler's default, so many of them
# compile to one program.
layout = sorted(glob.glob(os.path.join(data, "npz/layout/nlp/default/train/*.npz")))[0]
configs = len(np.load(layout)["config_runtime"])


def predict(ties):
    out = os.path.join(work, "predict-%s.csv" % ties)
    p = subprocess.run([exe, "predict", "--data", layout, "--out", out, "--program-ties", ties],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        failures.append("--program-ties %s -> %d\n%s" % (ties, p.returncode, p.stderr))
        return []
    rows = open(out).read().splitlines()
    order = [int(c) for c in rows[1].split(",")[1].split(";")]
    if rows[0] != "ID,TopConfigs" or len(rows) != 2 or sorted(order) != list(range(configs)):
        failures.append("--program-ties %s: not a ranking of the file's %d configs\n%s" % (ties, configs, rows[:3]))
    return order


tied, own = predict("on"), predict("off")
if tied and own and tied == own:
    failures.append("--program-ties on and off ranked the configs alike: the option did not reach the model")
if predict("on") != tied:
    failures.append("--program-ties on: two runs ranked differently")
p = subprocess.run([exe, "predict", "--data", layout, "--out", os.path.join(work, "bad.csv"), "--program-ties", "yes"],
                   capture_output=True, text=True, timeout=300)
lines = [l for l in p.stderr.splitlines() if l.strip()]
if p.returncode != 1 or len(lines) != 1 or "--program-ties: expected 'on' or 'off', got 'yes'" not in lines[0]:
    failures.append("--program-ties yes -> %d\n%s" % (p.returncode, p.stderr))

# The test split holds one file per collection: five built-in models, each named once.
p = subprocess.run([exe, "predict", "--data", data, "--out", os.path.join(work, "all.csv")],
                   capture_output=True, text=True, timeout=300)
notes = sorted(l for l in p.stderr.splitlines() if l.startswith("note:"))
wanted = sorted("note: no %s model given, using the built-in %s model" % (c.split(":")[0], c)
                for c in ["layout:nlp:default", "layout:nlp:random", "layout:xla:default", "layout:xla:random", "tile:xla"])
rows = open(os.path.join(work, "all.csv")).read().splitlines() if p.returncode == 0 else []
if p.returncode != 0 or notes != wanted or len(rows) != 6:
    failures.append("the test split -> %d, %d rows\n%s" % (p.returncode, len(rows), p.stderr))
loose = os.path.join(work, "loose.npz")
shutil.copy(layout, loose)
p = subprocess.run([exe, "predict", "--data", loose, "--out", os.path.join(work, "loose.csv")],
                   capture_output=True, text=True, timeout=300)
if p.returncode != 0 or "using the built-in layout model" not in p.stderr:
    failures.append("a loose layout file -> %d\n%s" % (p.returncode, p.stderr))
# Unless it records its search, as the explorer's What-if export does (numpy writes the key here,
# as a user's script could): that collection's model scores it, as it scored the configurations
# in the explorer (the general model had).
arrays = dict(np.load(layout))
arrays["collection_name"] = np.frombuffer(b"layout:nlp:default", dtype=np.uint8)
recorded = os.path.join(work, "mine-whatif.npz")
np.savez_compressed(recorded, **arrays)
p = subprocess.run([exe, "predict", "--data", recorded, "--out", os.path.join(work, "recorded.csv")],
                   capture_output=True, text=True, timeout=300)
if p.returncode != 0 or "using the built-in layout:nlp:default model" not in p.stderr:
    failures.append("a loose file recording layout:nlp:default -> %d\n%s" % (p.returncode, p.stderr))
# A tile kernel in a layout folder: the folder's model cannot score it.
misplaced = os.path.join(work, "mixed/npz/layout/xla/random/test/kernel.npz")
os.makedirs(os.path.dirname(misplaced), exist_ok=True)
shutil.copy(glob.glob(os.path.join(data, "npz/tile/xla/test/*.npz"))[0], misplaced)
mixed_csv = os.path.join(work, "mixed.csv")
for stale in (mixed_csv, mixed_csv + ".tmp"):
    if os.path.exists(stale):
        os.remove(stale)
p = subprocess.run([exe, "predict", "--data", os.path.join(work, "mixed"), "--out", mixed_csv],
                   capture_output=True, text=True, timeout=300)
errors = [l for l in p.stderr.splitlines() if not l.startswith("note:") and l.strip()]
if p.returncode != 1 or len(errors) != 1 or "holds a tile graph, but its folder is layout:xla:random's" not in errors[0]:
    failures.append("a tile file in a layout folder -> %d\n%s" % (p.returncode, p.stderr))
# --out naming a folder is a usage error, said before any scoring (it had failed at the rename, after it).
p = subprocess.run([exe, "predict", "--data", layout, "--out", work], capture_output=True, text=True, timeout=300)
lines = [l for l in p.stderr.splitlines() if l.strip()]
if p.returncode != 2 or len(lines) != 2 or \
        lines[0] != "tpugraphs: predict: --out: '%s' is a folder; expected the path of the file to write" % work:
    failures.append("--out FOLDER -> %d\n%s" % (p.returncode, p.stderr))
# A failed run leaves nothing beside --out (it had left the partial CSV, mixed.csv.tmp).
left = [f for f in os.listdir(work) if f.startswith("mixed.csv")]
if left:
    failures.append("a failed predict left %s in %s" % (left, work))


def on_terminal(args):
    """stderr of a run on a pseudo-terminal, as a user's shell gives it."""
    master, slave = pty.openpty()
    p = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(timeout=300), out.decode(errors="replace")


# One file of a few seconds' scoring (4,000 nodes, a random search: no rows shared).
slow = os.path.join(work, "slow")
subprocess.run([exe, "synth", "--out", slow, "--seed", "11", "--layout-graphs", "1", "--tile-graphs", "0",
                "--configs", "1200", "--min-nodes", "4000", "--max-nodes", "4000",
                "--collections", "layout:xla:random", "--overwrite"], check=True, capture_output=True, timeout=300)


def check_bar_moves(label, args):
    """The bar of a one-file run moves within the file and, past a second, says the time left."""
    rc, err = on_terminal(args)
    bars = [m.groupdict() for m in re.finditer(
        label + r" \[[#.]+\] +(?P<pct>\d+)% (?P<done>\d+)/1 (?P<secs>[\d.]+)s(?P<eta> ETA \d+:\d\d)?", err)]
    partway = [b for b in bars if 0 < int(b["pct"]) < 100 and b["done"] == "0"]
    # The time left counts from the first progress (a wait before it says nothing of the rate);
    # shown to 0.1 s, so 1.0 after it may be 0.96.
    moving = [float(b["secs"]) for b in bars if float(b["pct"]) > 0 or b["done"] != "0"]
    late = [b for b in partway if moving and float(b["secs"]) >= moving[0] + 1.2]
    if rc != 0 or not partway or any(not b["eta"] for b in late):
        failures.append("%s on a terminal -> %d: the bar did not move within the file, or gave no time left\n%s"
                        % (args[1], rc, err.replace("\r", "\n")[-2000:]))
    # The program keys come first, within the file's first tenth (they had come after the scores,
    # with the bar at 100%: minutes on a big file).
    phases = re.findall(label + r" \[[#.]+\] +(\d+)% \S+ \S+(?: ETA \S+)? \S+ (programs )?\d+/\d+", err)
    keys = [int(pct) for pct, programs in phases if programs]
    scores = [i for i, (pct, programs) in enumerate(phases) if not programs]
    if not keys or max(keys) > 10 or (scores and any(programs for _, programs in phases[scores[0]:])):
        failures.append("%s on a terminal: the program keys were not the first tenth of the file\n%s"
                        % (args[1], err.replace("\r", "\n")[-2000:]))


check_bar_moves("predicting", [exe, "predict", "--data", glob.glob(os.path.join(slow, "npz/**/*.npz"), recursive=True)[0],
                               "--out", os.path.join(work, "slow.csv")])

# A file whose configurations numpy wrote in Fortran order and deflated, as the community's copies
# are: no row is readable before the whole table is decoded. The bar says so first (it sat at 0%
# with nothing said: 20 s on a 3.7 GB table), then moves on to the program keys and the scores.
arrays = dict(np.load(glob.glob(os.path.join(slow, "npz/**/*.npz"), recursive=True)[0]))
arrays["node_config_feat"] = np.concatenate([arrays["node_config_feat"]] * 2)  # a longer decode
arrays["config_runtime"] = np.concatenate([arrays["config_runtime"]] * 2)
fortran = os.path.join(work, "fortran.npz")
np.savez_compressed(fortran, **{k: np.asfortranarray(v) for k, v in arrays.items()})
rc, err = on_terminal([exe, "predict", "--data", fortran, "--out", os.path.join(work, "fortran.csv")])
details = re.findall(r"predicting \[[#.]+\] +\d+% \S+ \S+(?: ETA \S+)? fortran (\S+ \S+)", err)
waits = [i for i, d in enumerate(details) if d == "decompressing 2,400"]
keys = [i for i, d in enumerate(details) if d.startswith("programs")]
if rc != 0 or not waits or waits[0] != 0 or not keys or keys[0] < waits[-1]:
    failures.append("predict of a Fortran-ordered file on a terminal -> %d: no decompressing first\n%s"
                    % (rc, err.replace("\r", "\n")[-2000:]))
check_bar_moves("evaluating", [exe, "eval", "--data", slow, "--collection", "layout:xla:random", "--split", "train"])
# tune scores the file before it searches: the program index, then the scores, on one bar.
rc, err = on_terminal([exe, "tune", glob.glob(os.path.join(slow, "npz/**/*.npz"), recursive=True)[0],
                       "--budget-seconds", "1", "--out", os.path.join(work, "slow-tune.json")])
phases = re.findall(r"scoring the file's configs \[[#.]+\] +(\d+)% \S+ \S+(?: ETA \S+)? (programs )?\d+/\d+", err)
keys = [int(pct) for pct, programs in phases if programs]
if rc != 0 or not keys or max(keys) > 10 or not any(not programs for _, programs in phases):
    failures.append("tune on a terminal -> %d: no program index on the scoring bar's first tenth\n%s"
                    % (rc, err.replace("\r", "\n")[-2000:]))

print("\n\n".join(failures) if failures else "predict: rankings, --program-ties and errors ok")
sys.exit(1 if failures else 0)
