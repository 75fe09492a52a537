#!/usr/bin/env python3
"""What a span costs in Python, against the floor: two time.perf_counter_ns() calls and a list
append, the least a Python loop can do to time a block and keep the time. Prints ns a span and the
ratios (targets: an enabled span at most 1.5 times the floor, a disabled one at most 200 ns).

    PYTHONPATH=build/python python3 tests/python/bench_span.py [--n N] [--repeat R]
    PYTHONPATH=build/python python3 tests/python/bench_span.py --instructions

Each figure is the minimum over R rounds of N iterations (the least disturbed round); the loops are
measured in alternation, so drift on a shared machine hits all of them alike. --instructions counts
instead (callgrind, which a loaded machine does not move): each loop run whole at two sizes in a
process of its own, the difference divided by the difference of their iterations, so that Python's
start and the collector's making cancel out."""
import argparse
import os
import re
import subprocess
import sys
import time

import ttft_tpot

def floor(n):
    samples = []
    t0 = time.perf_counter_ns()
    for _ in range(n):
        a = time.perf_counter_ns()
        b = time.perf_counter_ns()
        samples.append(b - a)
    return time.perf_counter_ns() - t0


def span(tp, n):
    t0 = time.perf_counter_ns()
    for _ in range(n):
        with tp.span("decode_step", "decode"):
            pass
    return time.perf_counter_ns() - t0


def empty(n):
    t0 = time.perf_counter_ns()
    for _ in range(n):
        pass
    return time.perf_counter_ns() - t0


LOOPS = {"floor": lambda tp, n: floor(n), "span": span, "disabled": span, "loop": lambda tp, n: empty(n)}
SIZES = (2000, 12000)


def one(kind, n):
    """One loop of kind, n iterations, in this process (what --instructions counts)."""
    tp = ttft_tpot.Collector(capacity=max(SIZES) + 16)
    tp.enabled = kind != "disabled"
    LOOPS[kind](tp, n)


def instructions(kind, n):
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
           os.path.abspath(__file__), "--one", kind, "--n", str(n)]
    err = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True).stderr
    return int(re.search(r"refs:\s+([\d,]+)", err).group(1).replace(",", ""))


def count_instructions():
    per = {k: (instructions(k, SIZES[1]) - instructions(k, SIZES[0])) / (SIZES[1] - SIZES[0]) for k in LOOPS}
    print("ttft_tpot %s, Python %s: instructions an iteration (callgrind, %d less %d iterations)" % (
        ttft_tpot.__version__, ".".join(map(str, sys.version_info[:3])), SIZES[1], SIZES[0]))
    print("  floor (2 perf_counter_ns + append): %7.0f" % per["floor"])
    print("  span, enabled                     : %7.0f   ratio to the floor %.2f (target <= 1.5)" % (
        per["span"], per["span"] / per["floor"]))
    print("  span, disabled                    : %7.0f" % per["disabled"])
    print("  empty loop                        : %7.0f" % per["loop"])
    print("span_instructions_ratio %.3f" % (per["span"] / per["floor"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--instructions", action="store_true", help="count instructions (callgrind), not time")
    ap.add_argument("--one", choices=sorted(LOOPS), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        return one(args.one, args.n)
    if args.instructions:
        return count_instructions()
    on = ttft_tpot.Collector(capacity=args.n + 16)
    off = ttft_tpot.Collector()
    off.enabled = False
    best = {"floor": float("inf"), "span": float("inf"), "disabled": float("inf"), "loop": float("inf")}
    for _ in range(args.repeat):
        on.clear()
        best["floor"] = min(best["floor"], floor(args.n))
        best["span"] = min(best["span"], span(on, args.n))
        best["disabled"] = min(best["disabled"], span(off, args.n))
        best["loop"] = min(best["loop"], empty(args.n))
    ns = {k: v / args.n for k, v in best.items()}
    print("ttft_tpot %s, Python %s: ns an iteration (min of %d rounds of %d)" % (
        ttft_tpot.__version__, ".".join(map(str, __import__("sys").version_info[:3])), args.repeat, args.n))
    print("  floor (2 perf_counter_ns + append): %7.1f" % ns["floor"])
    print("  span, enabled                     : %7.1f   ratio to the floor %.2f (target <= 1.5)" % (
        ns["span"], ns["span"] / ns["floor"]))
    print("  span, disabled                    : %7.1f   (target <= 200 ns)" % ns["disabled"])
    print("  empty loop                        : %7.1f" % ns["loop"])
    assert on.counts()["samples"] == args.n  # the last round's spans, all kept
    print("span_ratio %.3f disabled_ns %.1f" % (ns["span"] / ns["floor"], ns["disabled"]))


if __name__ == "__main__":
    main()
