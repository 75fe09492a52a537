#!/usr/bin/env python3
"""The Python bridge (examples/python/ttft_tpot.py) against the C reader: everything the module writes,
ttft_tpot_report reads, with the figures worked by hand; what the C library refuses, the module refuses
when it is recorded.

    python3 tests/test_python.py REPORT_BIN WORK_DIR
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "python"))
from ttft_tpot import Collector  # noqa: E402

MS = 1000000


def report(tool, trace, *args):
    out = subprocess.run([tool, "--json", *args, trace], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def refused(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except (ValueError, TypeError):
        return True
    return False


def main():
    tool, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    trace = os.path.join(work, "python_bridge.csv")
    tp = Collector()
    # names CSV must quote, names that would read as a comment or lose a space, UTF-8, the longest
    names = ["a,b", 'q"uote', "#hash", " space", "\u00fcn\u00ef", "x" * 63]
    for name in names:
        tp.record(name, "kernel", 5, start_ns=1)
    # A: submit 0, scheduled 10 ms, tokens at 20 and 30 ms; B: submit 5 ms, one token at 50 ms.
    # TTFT A 20, B 45 ms; E2E A 30, B 45 ms; queue (A only) 10 ms, prefill 10 ms; ITL A 10 ms.
    tp.submit("#A", 0)
    tp.schedule("#A", 10 * MS)
    tp.tokens("#A", 1, 20 * MS)
    tp.tokens("#A", 2, 30 * MS)
    tp.submit("B", 5 * MS)
    tp.tokens("B", 1, 50 * MS)
    tp.write_trace(trace)

    rep = report(tool, trace)
    assert [p["name"] for p in rep["phases"]] == names, rep["phases"]
    assert rep["clock"]["name"] == "time.perf_counter_ns" and rep["clock"]["read_ns"] > 0, rep["clock"]
    q = rep["requests"]
    assert q["n"] == 2 and q["unscheduled"] == 1, q
    assert (q["ttft_ms"]["min"], q["ttft_ms"]["max"]) == (20, 45), q["ttft_ms"]
    assert (q["e2e_ms"]["min"], q["e2e_ms"]["max"]) == (30, 45), q["e2e_ms"]
    assert q["queue_ms"]["n"] == 1 and q["queue_ms"]["p50"] == 10, q["queue_ms"]
    assert q["prefill_ms"]["p50"] == 10, q["prefill_ms"]
    assert q["itl_ms"]["n"] == 1 and q["itl_ms"]["p50"] == 10, q["itl_ms"]
    assert q["tpot_ms"]["p50"] == 5, q["tpot_ms"]  # A: (30 - 20) / (3 - 1)

    # refused when recorded, as the C library refuses them
    for bad in ["x" * 64, "y" * 80, "", "a\x1bb", "a\x7fb", "a\x85b", "a\u202eb", "a\u2066b", "a\ud800b"]:
        assert refused(tp.record, bad, "kernel", 1), repr(bad)
        assert refused(tp.submit, bad), repr(bad)
    assert refused(tp.record, "k", "oops", 1)
    assert refused(tp.record, "z", "kernel", -1)
    assert refused(tp.submit, "B")                    # twice
    assert refused(tp.tokens, "nobody", 1, 60 * MS)   # unknown
    assert refused(tp.tokens, "B", 1, 40 * MS)        # before its previous tokens
    assert refused(tp.tokens, "B", 0, 60 * MS)        # 0 tokens
    assert refused(tp.schedule, "B", 55 * MS)         # after its first token
    assert refused(tp.schedule, "#A", 15 * MS)        # twice
    # a bool is not a count (bool is an int in Python: True was written into the trace, which the C
    # reader then refused whole)
    assert refused(tp.record, "k", "kernel", 5, tokens=True)
    assert refused(tp.record, "k", "kernel", True)
    assert refused(tp.record, "k", "kernel", 5, start_ns=False)
    assert refused(tp.tokens, "B", True, 60 * MS)
    assert refused(tp.submit, "C", True)
    try:
        tp.record("k", "kernel", 5, tokens=True)
    except TypeError:
        pass
    else:
        raise AssertionError("a bool as tokens: TypeError expected")
    tp.write_trace(trace)                             # nothing refused reached the trace
    assert report(tool, trace)["requests"]["n"] == 2
    assert "True" not in open(trace).read() and "False" not in open(trace).read()
    print("python bridge: the C reader takes what the module writes; the name rule and the request rules hold")


if __name__ == "__main__":
    main()
