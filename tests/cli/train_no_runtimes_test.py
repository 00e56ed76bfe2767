#!/usr/bin/env python3
"""`tpugraphs train --data` on a train split whose runtimes are all zero (test files copied into
train/) stops after its first epoch with one line, where it had spent its whole budget on steps with
nothing to learn and saved an untrained model.
Usage: train_no_runtimes_test.py TPUGRAPHS_BINARY TEST_SPLIT_FILE WORK_DIR"""
import os
import shutil
import subprocess
import sys

exe, test_file, work = sys.argv[1], sys.argv[2], sys.argv[3]
shutil.rmtree(work, ignore_errors=True)
train = os.path.join(work, "npz", "layout", "xla", "random", "train")
os.makedirs(train)
for name in ("a.npz", "b.npz"):
    shutil.copy(test_file, os.path.join(train, name))
p = subprocess.run([exe, "train", "--data", work, "--collection", "layout:xla:random", "--out",
                    os.path.join(work, "model.tpgm"), "--minutes", "0.3", "--threads", "1"],
                   capture_output=True, text=True, timeout=300)
lines = [l for l in p.stderr.splitlines() if l.strip()]
ok = (p.returncode == 1 and len(lines) == 1 and
      lines[0].startswith("tpugraphs: train: no training graph has configurations that differ in runtime"))
print("train on zeros: refused after one epoch" if ok else
      "exit %d\nstdout: %s\nstderr: %s" % (p.returncode, p.stdout[-2000:], p.stderr))
sys.exit(0 if ok else 1)
