#!/usr/bin/env python3
"""What a driver that includes ttft_tpot.h pays, measured in one run against 0.3.0's header (commit
5440156, read from git): sizeof(ttft_tpot); the -O2 compile time of examples/minimal.c with the
implementation, the two headers compiled in interleaved pairs (CPU time of the compiler, median of the
pairs' ratios); its object size (text + data + bss); and what a link with --gc-sections keeps: every
function left, and none of the serving layer's (requests, Prometheus, publisher, folding). Beside them,
the floor: the same file with TTFT_TPOT_STATIC, where only what minimal.c reaches is compiled (the spans,
the collector, the model and the text report), timed in the same interleaved runs: what the core would
cost with no public function beyond those minimal.c calls.

    tests/core_bench.py [--cc gcc] [--pairs 9]

Each figure is printed with its target; the last line is one JSON object. Exits 1 when the old header
cannot be had (a clone without history), else 0: the figures are for the reader to judge, as every
benchmark of tests/BENCHMARKS.md."""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OLD_COMMIT = "5440156"
SIZEOF = r"""#include <stdio.h>
#include "ttft_tpot.h"
int main(void) { printf("%zu\n", sizeof(ttft_tpot)); return 0; }
"""
SERVING = re.compile(r"request|prometheus|publish|fold|tally|bucket|slo|serve|goodput", re.I)


def cpu_time(cmd):
    """The CPU seconds (user + system) cmd's process took."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def object_size(path):
    """text + data + bss of an object file, as size(1) adds them."""
    out = subprocess.run(["size", str(path)], check=True, capture_output=True, text=True).stdout
    return int(out.splitlines()[1].split()[3])


def sizeof(cc, inc, work):
    src, exe = work / "sizeof.c", work / f"sizeof_{inc.name}"
    src.write_text(SIZEOF)
    subprocess.run([cc, "-std=c99", "-I", str(inc), str(src), "-o", str(exe)], check=True)
    return int(subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout)


# What each public call that minimal.c does not make adds to the floor's object: the call, put before
# ttft_tpot_free in a copy of minimal.c (its tp, its argc), compiled with TTFT_TPOT_STATIC.
FAMILIES = {
    "the JSON report": "{ ttft_tpot_model m; if (ttft_tpot_model_compute(&tp, NULL, &m) == 0) "
                       "{ ttft_tpot_model_write(&m, stdout, argc); ttft_tpot_model_free(&m); } }",
    "trace writing": "ttft_tpot_trace_write(&tp, stdout);",
    "merge": "{ ttft_tpot t2; if (ttft_tpot_init(&t2, NULL) == 0) { ttft_tpot_merge(&t2, &tp); ttft_tpot_free(&t2); } }",
    "device time": "{ ttft_tpot_device_stamp st; memset(&st, 0, sizeof st); "
                   "ttft_tpot_device_resolve(&tp, &st, 1, NULL, NULL); ttft_tpot_device_part(&tp, 1, 0, &st, NULL); }",
    "the rest": "{ uint64_t v[4] = {0}, t[4], lo, hi; ttft_tpot_shape_row(&tp, 0, 1, \"x\"); ttft_tpot_clear(&tp); "
                "ttft_tpot_phase_bounded(&tp, 0); ttft_tpot_ms_to_ns(1.0, v); puts(ttft_tpot_strerror(argc)); "
                "printf(\"%zu %g\", ttft_tpot_bytes_needed(NULL), ttft_tpot_t975(3)); ttft_tpot_sort(v, 4, t); "
                "ttft_tpot_ci95_ranks(100, 50, &lo, &hi); ttft_tpot_attach(&tp, NULL); "
                "ttft_tpot_name_hash(&tp, \"a\", 1, v); }",
}


def family_sizes(cc, inc, work):
    """The floor's object with each family's calls added: {family: bytes added}."""
    text = (ROOT / "examples/minimal.c").read_text()
    sizes = {}
    for name, call in [("", "")] + list(FAMILIES.items()):
        src, obj = work / "family.c", work / "family.o"
        src.write_text(text.replace("    ttft_tpot_free(&tp);", f"    {call}\n    ttft_tpot_free(&tp);", 1))
        subprocess.run([cc, "-std=c99", "-O2", "-DTTFT_TPOT_STATIC", "-c", "-I", str(inc), str(src), "-o", str(obj)],
                       check=True)
        sizes[name] = object_size(obj) - sizes.get("", 0)
    del sizes[""]
    return sizes


def linked_functions(cc, inc, work):
    """The functions of the library a --gc-sections link of minimal.c keeps."""
    exe = work / "minimal_gc"
    subprocess.run([cc, "-std=c99", "-O2", "-ffunction-sections", "-fdata-sections", "-I", str(inc),
                    str(ROOT / "examples/minimal.c"), "-o", str(exe), "-Wl,--gc-sections"], check=True)
    syms = subprocess.run(["nm", "--defined-only", str(exe)], check=True, capture_output=True, text=True).stdout
    return sorted({line.split()[2] for line in syms.splitlines()
                   if len(line.split()) == 3 and line.split()[1] in "tT" and "ttft_tpot" in line})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    ap.add_argument("--pairs", type=int, default=9)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        new_inc, old_inc = ROOT / "include", work / "old"
        old_inc.mkdir()
        try:
            old = subprocess.run(["git", "-C", str(ROOT), "show", f"{OLD_COMMIT}:include/ttft_tpot.h"],
                                 check=True, capture_output=True, text=True).stdout
        except (subprocess.CalledProcessError, FileNotFoundError):
            print(f"core_bench: 0.3.0's header ({OLD_COMMIT}) is not in this clone's history", file=sys.stderr)
            return 1
        (old_inc / "ttft_tpot.h").write_text(old)
        objs = {"new": work / "new.o", "old": work / "old.o", "floor": work / "floor.o"}
        incs = {"new": new_inc, "old": old_inc, "floor": new_inc}

        def compile_minimal(which):
            static = ["-DTTFT_TPOT_STATIC"] if which == "floor" else []
            return cpu_time([a.cc, "-std=c99", "-O2", *static, "-c", "-I", str(incs[which]),
                             str(ROOT / "examples/minimal.c"), "-o", str(objs[which])])

        compile_minimal("new"), compile_minimal("old")  # a first pair, thrown away: the page cache
        compile_minimal("floor")
        ratios, floors, times = [], [], {"new": [], "old": [], "floor": []}
        for k in range(a.pairs):  # interleaved, the order alternating: a noisy neighbour moves all
            order = ("new", "floor", "old") if k % 2 == 0 else ("old", "floor", "new")
            t = {w: compile_minimal(w) for w in order}
            for w in t:
                times[w].append(t[w])
            ratios.append(t["new"] / t["old"])
            floors.append(t["floor"] / t["old"])
        figures = {
            "sizeof_new": sizeof(a.cc, new_inc, work), "sizeof_old": sizeof(a.cc, old_inc, work),
            "compile_s_new": statistics.median(times["new"]), "compile_s_old": statistics.median(times["old"]),
            "compile_ratio": statistics.median(ratios),
            "object_new": object_size(objs["new"]), "object_old": object_size(objs["old"]),
            "compile_s_floor": statistics.median(times["floor"]), "compile_ratio_floor": statistics.median(floors),
            "object_floor": object_size(objs["floor"]),
        }
        kept = linked_functions(a.cc, new_inc, work)
        serving = [f for f in kept if SERVING.search(f)]
        figures["linked_new"], figures["serving_linked"] = len(kept), len(serving)
        figures["linked_old"] = len(linked_functions(a.cc, old_inc, work))
        figures["families"] = family_sizes(a.cc, new_inc, work)
    cc = subprocess.run([a.cc, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"core_bench: {cc}, -O2, examples/minimal.c with the implementation; 0.3.0 = {OLD_COMMIT}")
    print(f"sizeof(ttft_tpot)      {figures['sizeof_new']:7d} B (0.3.0: {figures['sizeof_old']} B)   target <= 6144")
    print(f"compile time           {figures['compile_s_new']:7.2f} s (0.3.0: {figures['compile_s_old']:.2f} s), "
          f"median ratio of {a.pairs} interleaved pairs {figures['compile_ratio']:.2f}   target <= 0.5")
    print(f"object (text+data+bss) {figures['object_new']:7d} B (0.3.0: {figures['object_old']} B)   "
          f"target <= 65536")
    print(f"floor (TTFT_TPOT_STATIC: only what minimal.c reaches) {figures['compile_s_floor']:.2f} s, ratio "
          f"{figures['compile_ratio_floor']:.2f}; object {figures['object_floor']} B")
    print("  what each call minimal.c does not make adds to it: " +
          ", ".join(f"{k} {v} B" for k, v in figures["families"].items()))
    print(f"functions after --gc-sections {figures['linked_new']} (0.3.0: {figures['linked_old']}); "
          f"of the serving layer: {figures['serving_linked']}   target 0" + (f": {serving}" if serving else ""))
    print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
