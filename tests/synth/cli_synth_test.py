#!/usr/bin/env python3
"""`tpugraphs synth` from the outside: exit codes (0 ok, 1 bad input, 2 usage) and one-line
errors. Usage: cli_synth_test.py TPUGRAPHS_BINARY SCRATCH_DIR"""
import os
import shutil
import subprocess
import sys

exe, scratch = sys.argv[1], sys.argv[2]
shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
failures = []


def run(args, code, needle=None):
    p = subprocess.run([exe, "synth"] + args, capture_output=True, text=True, timeout=120)
    lines = [l for l in p.stderr.splitlines() if l.strip()]
    ok = p.returncode == code
    if code == 1:
        ok = ok and len(lines) == 1 and lines[0].startswith("tpugraphs: ")
    if needle:
        ok = ok and needle in (p.stderr + p.stdout)
    if not ok:
        failures.append("%s -> %d (want %d)\nstdout: %s\nstderr: %s" % (args, p.returncode, code, p.stdout, p.stderr))
    return p


out = os.path.join(scratch, "data")
tiny = ["--tile-graphs", "2", "--layout-graphs", "1", "--configs", "5", "--min-nodes", "50", "--max-nodes", "200"]
run(["--help"], 0, "--layout-graphs")
run([], 2, "--out")
run(["--out", out, "--configs", "0"], 2, "--configs")
run(["--out", out, "--configs", "abc"], 2)
run(["--out", out, "--min-nodes", "500", "--max-nodes", "100"], 2, "above --max-nodes")
run(["--out", out, "--collections", "layout:xla:bogus"], 2, "unknown collection")
run(["--out", out, "--bogus-flag"], 2)
afile = os.path.join(scratch, "a_file")
open(afile, "w").close()
run(["--out", afile] + tiny, 1, "not a directory")
run(["--out", os.path.join(afile, "sub")] + tiny, 1)
p = run(["--out", out, "--seed", "3"] + tiny, 0, "layout:xla:random")
assert os.path.isdir(os.path.join(out, "npz", "tile", "xla", "train")) or failures
run(["--out", out] + tiny, 1, "--overwrite")
run(["--out", out, "--overwrite", "--quiet"] + tiny, 0)
# Asking for no graph at all is refused before --overwrite removes the dataset there.
run(["--out", out, "--overwrite", "--tile-graphs", "0", "--layout-graphs", "0"], 2, "nothing to write")
run(["--out", out, "--overwrite", "--layout-graphs", "0", "--collections", "layout:nlp:default"], 2,
    "nothing to write")
# A table beyond memory ended in "tpugraphs: std::bad_alloc".
run(["--out", os.path.join(scratch, "huge"), "--tile-graphs", "0", "--layout-graphs", "1", "--configs", "1000000",
     "--min-nodes", "50000", "--max-nodes", "50000", "--collections", "layout:xla:random"], 1,
    "ask for fewer --configs or a smaller --max-nodes")
# Just over the limit it says by how much (a whole number read "8 billion values, above the 8
# billion").
run(["--out", os.path.join(scratch, "huge"), "--tile-graphs", "0", "--layout-graphs", "1", "--configs", "160000",
     "--min-nodes", "50000", "--max-nodes", "50000", "--collections", "layout:xla:random"], 1,
    "are 8.2 billion values, above the 8 billion a table may hold")
# Any allocation that fails is one line (it printed "tpugraphs: std::bad_alloc"): here a 1 GB
# address-space limit under a table of about 1 GB.
def limit_memory():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


p = subprocess.run([exe, "synth", "--out", os.path.join(scratch, "limited"), "--tile-graphs", "0", "--layout-graphs",
                    "1", "--configs", "200000", "--min-nodes", "5000", "--max-nodes", "5000", "--collections",
                    "layout:xla:random", "--quiet"], capture_output=True, text=True, timeout=120, preexec_fn=limit_memory)
if p.returncode != 1 or p.stderr.strip() != "tpugraphs: out of memory: the command asked for more than this machine has":
    failures.append("out of memory -> %d: %r" % (p.returncode, p.stderr))
if not os.path.isdir(os.path.join(out, "npz", "tile", "xla", "train")):
    failures.append("a refused synth removed the dataset it was asked to overwrite")
if failures:
    print("\n\n".join(failures))
    sys.exit(1)
print("cli synth: all cases behave")
