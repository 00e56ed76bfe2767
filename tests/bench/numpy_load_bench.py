#!/usr/bin/env python3
"""The numpy baseline: dict(np.load(f)) time and peak RSS. Usage: numpy_load_bench.py FILE"""
import resource
import sys
import time

import numpy as np

t = time.time()
d = dict(np.load(sys.argv[1]))
print("numpy dict(np.load)  %.2f s  peak RSS %.0f MiB" % (time.time() - t,
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
