#!/usr/bin/env python3
"""tests/bench/synth-fingerprint.sh from the outside: the same build prints the same fingerprint
(a zip entry's time is not part of it), a folder stamped by it passes --check, one stamped by a
synth that wrote other data fails with one line naming it, one without a stamp passes with a
warning, and a wrong flag is a usage error.
Usage: test_synth_fingerprint.py TPUGRAPHS_BINARY"""
import os
import subprocess
import sys
import tempfile
import time

exe = sys.argv[1]
script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "synth-fingerprint.sh")
failures = []


def run(*args):
    p = subprocess.run(["bash", script, exe] + list(args), capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout.strip(), [l for l in p.stderr.splitlines() if l.strip()]


rc, first, _ = run()
time.sleep(2.1)  # a zip entry's time has a 2-second grain: the next probe's files differ in bytes
rc2, second, _ = run()
if rc or rc2 or len(first) != 64 or first != second:
    failures.append("fingerprints %r (rc %d) and %r (rc %d) differ" % (first, rc, second, rc2))
with tempfile.TemporaryDirectory() as d:
    rc, _, err = run("--check", d)
    if rc != 0 or len(err) != 1 or "has no fingerprint" not in err[0]:
        failures.append("unstamped folder: rc %d, %s" % (rc, err))
    rc, _, err = run("--stamp", d)
    rc2, _, err2 = run("--check", d)
    if rc or rc2 or err or err2:
        failures.append("stamped folder: rc %d / %d, %s %s" % (rc, rc2, err, err2))
    with open(os.path.join(d, "synth-fingerprint"), "w") as f:
        f.write("0" * 64 + "\n")
    rc, _, err = run("--check", d)
    if rc != 1 or len(err) != 1 or "writes other data" not in err[0] or d not in err[0]:
        failures.append("another synth's folder: rc %d, %s" % (rc, err))
    rc, _, err = run("--stamps", d)
    if rc != 2 or len(err) != 1:
        failures.append("a wrong flag: rc %d, %s" % (rc, err))
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
