#!/usr/bin/env python3
"""`tpugraphs train --data` on a train split whose runtimes are all zero (test files copied into
train/) stops after its first epoch with one line, where it had spent its whole budget on steps with
nothing to learn and saved an untrained model; with --world-size too.
Usage: train_no_runtimes_test.py TPUGRAPHS_BINARY TEST_SPLIT_FILE WORK_DIR"""
import os
import shutil
import subprocess
import sys

exe, test_file, work = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(work, ignore_errors=True)
train_dir = os.path.join(work, "npz", "layout", "xla", "random", "train")
os.makedirs(train_dir)
for name in ("a.npz", "b.npz"):
    shutil.copy(test_file, os.path.join(train_dir, name))


def train(*extra):
    return subprocess.run([exe, "train", "--data", work, "--collection", "layout:xla:random", "--out",
                           os.path.join(work, "model.tpgm"), "--minutes", "0.3", *extra],
                          capture_output=True, text=True, timeout=300)


MESSAGE = "tpugraphs: train: no training graph has configurations that differ in runtime"
p = train("--threads", "1")
lines = [l for l in p.stderr.splitlines() if l.strip()]
ok = p.returncode == 1 and len(lines) == 1 and lines[0].startswith(MESSAGE)
print("train on zeros: refused after one epoch" if ok else
      "exit %d\nstdout: %s\nstderr: %s" % (p.returncode, p.stdout[-2000:], p.stderr))

# Two data-parallel workers stop alike (the count is all-reduced), and rank 0 alone says why: before,
# they ran 5,137 empty epochs of the budget and saved a model validated at "kendall nan".
p = train("--world-size", "2")
if "--world-size:" in p.stderr:
    print("data-parallel: not in this build (%s)" % p.stderr.strip())
else:
    said = [l for l in p.stderr.splitlines() if "differ in runtime" in l]
    dp_ok = p.returncode == 1 and said == [l for l in said if l.startswith(MESSAGE)] and len(said) == 1
    print("data-parallel train on zeros: refused after one epoch, said once" if dp_ok else
          "--world-size 2: exit %d\nstdout: %s\nstderr: %s" % (p.returncode, p.stdout[-2000:], p.stderr))
    ok = ok and dp_ok
sys.exit(0 if ok else 1)
