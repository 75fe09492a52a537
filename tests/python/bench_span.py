#!/usr/bin/env python3
"""What a span costs in Python, against the floor: two time.perf_counter_ns() calls and a list
append, the least a Python loop can do to time a block and keep the time. Prints ns a span and the
ratios (targets: an enabled span at most 1.5 times the floor, a disabled one at most 200 ns).

    PYTHONPATH=build/python python3 tests/python/bench_span.py [--n N] [--repeat R]

Each figure is the minimum over R rounds of N iterations (the least disturbed round); the loops are
measured in alternation, so drift on a shared machine hits all of them alike."""
import argparse
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100000)
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
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
