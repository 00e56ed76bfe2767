#!/usr/bin/env python3
"""The quality benchmark's report (tests/bench/quality.sh): one run's tables, or a summary over seeds.

  quality-report.py table RUN BASE MINUTES LABEL ARGS PROGRAMS COLLECTION...
  quality-report.py summary BASE LABEL SEEDS COLLECTIONS RUN...  (a run folder per seed, in order)
"""
import os, re, statistics, sys

# Issue 14's targets, judged on the fresh-seed graphs, and on seen graphs' held-out configurations.
LAYOUT_MARGIN = 0.15    # layout: GNN Kendall at least the graph-blind baseline's + this
TILE_TOP5 = 0.015       # tile: top-5 slowdown at most this
EPS = 1e-9              # float rounding of differences of four-decimal figures


def mean(path):
    """The number of graphs and the figures of the mean line of an `eval` output."""
    if not os.path.exists(path):
        raise SystemExit("quality.sh: no evaluation %s (has that run been made?)" % path)
    for line in open(path):
        if line.startswith("mean ("):
            m = re.match(r"mean \(([\d,]+) graphs?\)\s+([\d,]+)\s+(.*)", line)
            return int(m.group(1).replace(",", "")), [float(v) for v in m.group(3).split()]
    raise SystemExit("quality.sh: no mean line in " + path)


SPLITS = (("valid", "held-out graphs (valid)", "graph-blind"),
          ("fresh", "fresh-seed graphs (test)", "graph-blind"),
          ("heldout", "seen graphs, held-out configs", "per-graph linear"))


def rows(run, base, c):
    """Per split: its name, the baseline's name, graphs, and the GNN's, baseline's, ceiling's means."""
    s = c.replace(":", "_")
    for split, name, bname in SPLITS:
        n, g = mean(os.path.join(run, "%s.%s.txt" % (s, split)))
        _, b = mean(os.path.join(base, "%s.%s.txt" % (s, split)))
        _, top = mean(os.path.join(base, "%s.%s.ceiling.txt" % (s, split)))
        yield name, bname, n, g, b, top


def table(run, base, minutes, label, args, programs, colls):
    xla, _, nlp = programs.partition(",")
    print("### quality: %s (%s min per collection, %s xla and %s nlp programs; train args: %s)"
          % (label, minutes, xla, nlp or xla, args or "defaults"))
    print()
    print("| collection | split | graphs | GNN Kendall | GNN OPA | baseline | baseline Kendall | baseline OPA | GNN - baseline | ceiling Kendall |")
    print("|---|---|---:|---:|---:|---|---:|---:|---:|---:|")
    tiles = [c for c in colls if c.startswith("tile")]
    for c in colls:
        if c in tiles:
            continue
        for name, bname, n, g, b, top in rows(run, base, c):
            print("| %s | %s | %d | %.3f | %.3f | %s | %.3f | %.3f | %+.3f | %.3f |" % (
                c, name, n, g[1], g[0], bname, b[1], b[0], g[1] - b[1], top[1]))
    if tiles:
        print()
        print("| collection | split | graphs | GNN top-1 | GNN top-5 | GNN score | baseline | baseline top-1 | baseline top-5 | baseline score | ceiling top-5 |")
        print("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|")
        for c in tiles:
            for name, bname, n, g, b, top in rows(run, base, c):
                print("| %s | %s | %d | %.2f%% | %.2f%% | %.4f | %s | %.2f%% | %.2f%% | %.4f | %.2f%% |" % (
                    c, name, n, 100 * g[0], 100 * g[1], g[3], bname, 100 * b[0], 100 * b[1], b[3], 100 * top[1]))


def margin(tile, g, b):
    """The GNN's lead over its baseline: Kendall gained (layout), top-5 slowdown saved (tile)."""
    return b[1] - g[1] if tile else g[1] - b[1]


def target(tile, split, g, b):
    """Whether this split's figure meets its target (None: the split has none). `eval` prints four
    decimals, so a margin of exactly +0.15 can compute as 0.1499999...: compare within EPS."""
    if split == "heldout":
        return g[1] < b[1] if tile else g[1] > b[1]
    if split == "fresh":
        return g[1] <= TILE_TOP5 + EPS if tile else g[1] - b[1] >= LAYOUT_MARGIN - EPS
    return None


# Per kind: the figure's name, how a figure and a lead print, and each split's target in words.
LAYOUT_KIND = ("Kendall", "%.4f", "%+.4f",
               {"fresh": "margin >= +%.2f" % LAYOUT_MARGIN, "heldout": "above the baseline"})
TILE_KIND = ("top-5 slowdown", "%.2f%%", "%+.2f%%",
             {"fresh": "top-5 <= %.1f%%" % (100 * TILE_TOP5), "heldout": "below the baseline"})


def summary_row(c, split, name, runs):
    """One collection and split over the seeds' runs, each a (GNN figures, baseline figures)."""
    tile = c.startswith("tile")
    figure, shown, lead_shown, targets = TILE_KIND if tile else LAYOUT_KIND
    scale = 100 if tile else 1
    show = lambda fmt, v: fmt % (scale * v)
    figures = [g[1] for g, _ in runs]
    leads = [margin(tile, g, b) for g, b in runs]
    met = [target(tile, split, g, b) for g, b in runs]
    return "| %s | %s | %s | %s | %s - %s | %s | %s | %s | %s | %s |" % (
        c, name, figure, show(shown, statistics.mean(figures)), show(shown, min(figures)),
        show(shown, max(figures)), show(lead_shown, statistics.mean(leads)), show(lead_shown, min(leads)),
        show(lead_shown, max(leads)), targets.get(split, "-"),
        "-" if met[0] is None else "%d of %d" % (sum(met), len(met)))


def summary(base, label, seeds, colls, runs):
    print("### quality over %d seed%s: %s (%s)"
          % (len(seeds), "" if len(seeds) == 1 else "s", label, ",".join(seeds)))
    print()
    print("| collection | split | figure | GNN mean | GNN min - max | lead over baseline: mean | min | max "
          "| target | met on |")
    print("|---|---|---|---:|---:|---:|---:|---:|---|---:|")
    for c in colls:
        per_run = [list(rows(run, base, c)) for run in runs]
        for i, (split, name, _) in enumerate(SPLITS):
            print(summary_row(c, split, name, [(r[i][3], r[i][4]) for r in per_run]))


if __name__ == "__main__":
    if len(sys.argv) >= 8 and sys.argv[1] == "table":
        table(*sys.argv[2:8], sys.argv[8:])
    elif len(sys.argv) >= 7 and sys.argv[1] == "summary":
        seeds, run_dirs = sys.argv[4].split(","), sys.argv[6:]
        if len(seeds) != len(run_dirs):
            raise SystemExit(__doc__)
        summary(sys.argv[2], sys.argv[3], seeds, sys.argv[5].split(","), run_dirs)
    else:
        raise SystemExit(__doc__)
