#!/usr/bin/env python3
"""What the report tool costs now against an earlier commit (08545d3, also 0.3.0, read from git and built
in the same run), where nothing asked it to cost more:

- the instructions of `ttft_tpot_report --json` over a serving trace (callgrind: stable on a shared
  machine), for a burst (every request at once) and for Poisson arrivals, each trace written by the
  earlier commit's `generate` so that both tools read the same file;
- the report's peak memory a trace line: the peak resident size of `ttft_tpot_report --json` over a
  decode trace of 2e6 lines less its size over an empty one, divided by the lines; and the same over
  a trace with start times, which the report keeps for nesting and self time;
- the bytes of a request and of a device interval, each beside the earlier ones.

    tests/cost_bench.py [--cc gcc] [--lines 2000000]

Both trees are built at -O2 (CMake, the report tool and the example driver only). Each figure is
printed with its target; the last line is one JSON object. Exits 1 when the earlier commit cannot be
had (a clone without history) or valgrind is missing, else 0: the figures are for the reader to judge,
as every benchmark of tests/BENCHMARKS.md."""
import argparse
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EARLIER = "08545d3"
GENERATE = ["--dim", "64", "--layers", "1", "--hidden", "128", "--vocab", "256", "--prompt-len", "16",
            "--max-new-tokens", "32", "--batch", "8", "--requests", "400"]
SHAPES = {"burst": ["--arrival-rate", "0"], "poisson": ["--arrival-rate", "400", "--seed", "3"]}
SIZES = r"""#include <stdio.h>
#include "ttft_tpot.h"
#if __has_include("ttft_tpot_serve.h")
#include "ttft_tpot_serve.h"
#endif
int main(void) { printf("%zu %zu\n", sizeof(ttft_tpot_request), sizeof(ttft_tpot_device_interval)); return 0; }
"""
PEAK = ("import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")


def build(src, out, cc):
    """The report tool and the example driver of tree src, at -O2, into out."""
    subprocess.run(["cmake", "-S", str(src), "-B", str(out), "-DCMAKE_BUILD_TYPE=Release",
                    "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG", f"-DCMAKE_C_COMPILER={cc}",
                    "-DTTFT_TPOT_BUILD_TESTS=OFF"], check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(out), "-j2", "--target", "ttft_tpot_report", "generate"],
                   check=True, capture_output=True)
    return out / "ttft_tpot_report", out / "examples" / "generate"


def instructions(cmd):
    """The instructions cmd executes, as callgrind counts them."""
    err = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True).stderr
    return int(re.search(r"refs:\s+([\d,]+)", err).group(1).replace(",", ""))


def peak_kib(cmd):
    """The peak resident size of cmd's process, KiB (measured by a launcher of its own)."""
    out = subprocess.run([sys.executable, "-c", PEAK, *cmd], check=True, capture_output=True, text=True).stdout
    return int(out)


def decode_trace(path, lines, starts):
    """A driver's trace: generations of 256 steps (a prefill, decode steps, every fourth step four
    kernels, an e2e), about 30 bytes a line, or 40 with start times (starts: a timeline's)."""
    rnd = random.Random(1)
    t = 0
    with open(path, "w") as f:
        f.write("phase,role,start_ns,dur_ns,tokens,warmup\n")
        n = 0
        while n < lines:
            rows = []
            for phase, role, lo, hi, tokens in [("prefill", "prefill", 40000000, 50000000, 1)] + [
                    row for s in range(256) for row in [("decode_step", "decode", 4000000, 5000000, 1)] +
                    ([(f"k{k}", "kernel", 100000, 200000, 0) for k in range(4)] if s % 4 == 0 else [])] + [
                    ("e2e", "e2e", 1000000000, 1100000000, 256)]:
                d = rnd.randint(lo, hi)
                rows.append(f"{phase},{role},{t if starts else 0},{d},{tokens},0")
                t += d
            rows = rows[:lines - n]
            f.write("\n".join(rows) + "\n")
            n += len(rows)


def sizes(cc, inc, work):
    src, exe = work / "sizes.c", work / f"sizes_{inc.parent.name}"
    src.write_text(SIZES)
    subprocess.run([cc, "-std=gnu11", "-I", str(inc), str(src), "-o", str(exe)], check=True)
    return [int(v) for v in subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()]


def earlier_tree(work):
    """The earlier commit's tree, from git, in work/earlier; None without it."""
    try:
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", EARLIER], check=True, capture_output=True).stdout
    except (subprocess.CalledProcessError, FileNotFoundError):
        return None
    with tarfile.open(fileobj=io.BytesIO(tar)) as t:
        t.extractall(work / "earlier")
    return work / "earlier"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    ap.add_argument("--lines", type=int, default=2000000)
    a = ap.parse_args()
    if not shutil.which("valgrind"):
        print("cost_bench: valgrind is needed (apt-get install valgrind)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        old_src = earlier_tree(work)
        if old_src is None:
            print(f"cost_bench: {EARLIER} is not in this clone's history", file=sys.stderr)
            return 1
        tools = {"new": build(ROOT, work / "build_new", a.cc), "old": build(old_src, work / "build_old", a.cc)}
        fig = {}
        for shape, flags in SHAPES.items():
            trace = work / f"{shape}.csv"
            subprocess.run([str(tools["old"][1]), *GENERATE, *flags, "--trace", str(trace)],
                           check=True, stdout=subprocess.DEVNULL)
            for w in tools:
                fig[f"serving_json_{shape}_{w}"] = instructions([str(tools[w][0]), "--json", str(trace)])
            fig[f"serving_json_{shape}_ratio"] = fig[f"serving_json_{shape}_new"] / fig[f"serving_json_{shape}_old"]
        empty = work / "empty.csv"
        decode_trace(empty, 0, False)
        for starts in (False, True):
            big = work / "decode.csv"
            decode_trace(big, a.lines, starts)
            for w in tools:
                base = peak_kib([str(tools[w][0]), "--json", str(empty)])
                fig[f"bytes_per_line{'_starts' if starts else ''}_{w}"] = \
                    (peak_kib([str(tools[w][0]), "--json", str(big)]) - base) * 1024 / a.lines
        (fig["request_new"], fig["device_new"]) = sizes(a.cc, ROOT / "include", work)
        (fig["request_old"], fig["device_old"]) = sizes(a.cc, old_src / "include", work)
    cc = subprocess.run([a.cc, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"cost_bench: {cc}, -O2; earlier = {EARLIER}")
    for shape in SHAPES:
        print(f"serving --json ({shape:7s}) {fig[f'serving_json_{shape}_new']:11,d} instructions "
              f"({EARLIER}: {fig[f'serving_json_{shape}_old']:,d}), ratio {fig[f'serving_json_{shape}_ratio']:.3f}"
              "   target <= 1.05")
    print(f"report peak memory       {fig['bytes_per_line_new']:5.1f} bytes a line at {a.lines:.0e} lines "
          f"({EARLIER}: {fig['bytes_per_line_old']:.1f})   target <= 24")
    print(f"  ... with start times   {fig['bytes_per_line_starts_new']:5.1f} bytes a line "
          f"({EARLIER}: {fig['bytes_per_line_starts_old']:.1f}): nesting and self time keep 8 a sample")
    print(f"a request                {fig['request_new']:5d} bytes ({EARLIER}: {fig['request_old']}): the TTST, "
          "first output token and prompt and cached tokens figures hold 8 each")
    print(f"a device interval        {fig['device_new']:5d} bytes ({EARLIER}: {fig['device_old']}): the queued "
          "stamp (queue delay) holds 8")
    print(json.dumps(fig, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
