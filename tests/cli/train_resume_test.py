#!/usr/bin/env python3
"""`tpugraphs train` survives kill -9: a run killed mid-epoch (twice, once while it checkpoints after
every step) resumes with --resume and ends with exactly the optimiser steps of an uninterrupted run,
its --log holding every step and epoch once, and a model `predict` can load. With ALLOCATOR
(tcmalloc or glibc, what the build linked) the log's start record must name that malloc.
Usage: train_resume_test.py TPUGRAPHS_BINARY SAMPLE_DATA_DIR WORK_DIR [ALLOCATOR]"""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time

exe, data, work = sys.argv[1], sys.argv[2], sys.argv[3]
allocator = sys.argv[4] if len(sys.argv) > 4 else None
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
failures = []
EPOCHS = 3
BASE = [exe, "train", "--data", data, "--collection", "layout:xla:random", "--epochs", str(EPOCHS),
        "--minutes", "0", "--threads", "1", "--hidden", "32", "--configs-per-step", "32",
        "--valid-configs", "200", "--seed", "5"]


def read_log(path):
    records = []
    with open(path) as f:
        for line in f:
            try:
                records.append(json.loads(line))
            except ValueError:
                pass  # a line torn by the kill
    return records


def train(name, extra=(), check=True):
    out = os.path.join(work, name + ".tpgm")
    p = subprocess.run(BASE + ["--out", out, "--log", os.path.join(work, name + ".jsonl")] + list(extra),
                       capture_output=True, text=True, timeout=600)
    if check and p.returncode != 0:
        failures.append("%s: exit %d\n%s%s" % (name, p.returncode, p.stdout, p.stderr))
    return p


def kill_mid_run(name, extra, after_steps):
    """Starts a run and kills it with SIGKILL once its log holds `after_steps` new step records."""
    log = os.path.join(work, name + ".jsonl")
    before = sum(r["type"] == "step" for r in read_log(log)) if os.path.exists(log) else 0
    p = subprocess.Popen(BASE + ["--out", os.path.join(work, name + ".tpgm"), "--log", log] + list(extra),
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline and p.poll() is None:
        if os.path.exists(log) and sum(r["type"] == "step" for r in read_log(log)) >= before + after_steps:
            break
        time.sleep(0.02)
    if p.poll() is not None:
        failures.append("%s ended (exit %d) before it could be killed" % (name, p.returncode))
    p.send_signal(signal.SIGKILL)
    p.wait()


def steps_of(name):
    ends = [r for r in read_log(os.path.join(work, name + ".jsonl")) if r["type"] == "end"]
    return ends[-1]["steps"] if ends else None


train("straight")
total = steps_of("straight")
starts = [r for r in read_log(os.path.join(work, "straight.jsonl")) if r["type"] == "start"]
named = starts[0].get("allocator") if starts else None
if allocator and (named or "").split(" ")[0] != allocator:
    failures.append("the log's start record names allocator %r, the build linked %s" % (named, allocator))
if not total or total < 3 * EPOCHS:
    failures.append("uninterrupted run logged %r steps" % total)
else:
    # Mid-epoch 2 with a checkpoint every 0.2 s; then in epoch 3 with one after every step (the
    # kill then likely lands inside a checkpoint write: the state must still be whole).
    kill_mid_run("killed", ["--checkpoint-seconds", "0.2"], total // EPOCHS + total // (2 * EPOCHS))
    kill_mid_run("killed", ["--resume", "--checkpoint-seconds", "0"], total // (2 * EPOCHS))
    p = train("killed", ["--resume"])
    if "resuming after" not in p.stdout:
        failures.append("the final run did not resume:\n" + p.stdout)
    if steps_of("killed") != total:
        failures.append("resumed run ended after %r steps, uninterrupted after %d" % (steps_of("killed"), total))
    records = read_log(os.path.join(work, "killed.jsonl"))
    steps = [r["step"] for r in records if r["type"] == "step"]
    if steps != list(range(1, total + 1)):
        failures.append("the log's steps are not 1..%d once each: %s" % (total, steps))
    epochs = [r["epoch"] for r in records if r["type"] == "epoch"]
    if epochs != list(range(1, EPOCHS + 1)):
        failures.append("the log's epochs are %s" % epochs)
    if sum(r["type"] == "start" for r in records) != 3:
        failures.append("expected a start record per session (3)")
    predicted = subprocess.run([exe, "predict", "--data", data, "--collection", "layout:xla:random", "--model",
                                os.path.join(work, "killed.tpgm"), "--out", os.path.join(work, "p.csv")],
                               capture_output=True, text=True, timeout=300)
    if predicted.returncode != 0:
        failures.append("the resumed run's model does not load:\n" + predicted.stderr)
    if glob.glob(os.path.join(work, "*.tmp*")):
        failures.append("temporary files left: %s" % glob.glob(os.path.join(work, "*.tmp*")))

for f in failures:
    print("FAIL:", f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
