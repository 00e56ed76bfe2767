#!/usr/bin/env python3
"""The installed tree as a package lays it out (`cmake --install BUILD --prefix P`): the executables,
the command line's hand-over from bin/ to libexec/, the sample, and the desktop file's icon and MIME
type, each installed where the desktop looks for them.
Usage: install_tree_test.py BUILD_DIR PREFIX"""
import configparser
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

build, prefix = sys.argv[1], sys.argv[2]
shutil.rmtree(prefix, ignore_errors=True)
subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True, capture_output=True)
failures = []
share = os.path.join(prefix, "share")

for exe in ["bin/tpugraphs", "bin/tpugraphs-explorer", "libexec/tpugraphs/tpugraphs-learn"]:
    if not os.access(os.path.join(prefix, exe), os.X_OK):
        failures.append("not installed: " + exe)

# The learning commands run from libexec/ (the build tree's layout is not there to fall back on).
sample = os.path.join(share, "tpugraphs-explorer", "sample")
p = subprocess.run([os.path.join(prefix, "bin/tpugraphs"), "eval", "--data", sample, "--collection",
                    "tile:xla", "--split", "valid"], capture_output=True, text=True, timeout=300)
if p.returncode != 0 or "mean (" not in p.stdout:
    failures.append("installed eval on the installed sample: %d\n%s%s" % (p.returncode, p.stdout, p.stderr))

desktop = configparser.ConfigParser(interpolation=None)
desktop.optionxform = str
desktop.read(os.path.join(share, "applications", "tpugraphs-explorer.desktop"))
entry = desktop["Desktop Entry"]
icon = os.path.join(share, "icons", "hicolor", "scalable", "apps", entry["Icon"] + ".svg")
if not os.path.isfile(icon):
    failures.append("the desktop file's icon is not installed: " + icon)
ns = {"m": "http://www.freedesktop.org/standards/shared-mime-info"}
defined = set()
mime_dir = os.path.join(share, "mime", "packages")
for name in os.listdir(mime_dir) if os.path.isdir(mime_dir) else []:
    root = ET.parse(os.path.join(mime_dir, name)).getroot()
    defined |= {t.get("type") for t in root.findall("m:mime-type", ns)
                if any(g.get("pattern") == "*.npz" for g in t.findall("m:glob", ns))}
for mime in filter(None, entry["MimeType"].split(";")):
    if mime not in defined:
        failures.append("the desktop file's MIME type %s is defined by no installed package with *.npz" % mime)

shutil.rmtree(prefix, ignore_errors=True)
print("\n".join(failures) if failures else "install tree: executables, hand-over, icon and MIME type ok")
sys.exit(1 if failures else 0)
