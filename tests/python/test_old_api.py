"""The package replaces examples/python/ttft_tpot.py: a trace that module wrote still reads, and the
calls it took (Collector(), span, record with start_ns, warmup, submit, schedule, tokens, write_trace)
still work, the figures worked by hand."""
import json

import ttft_tpot
from conftest import MS, OLD_API_TRACE, two_requests


def test_a_trace_of_the_old_module_reads(tool):
    tp = ttft_tpot.Collector.read_trace(OLD_API_TRACE)
    rep = tp.report_json()
    assert rep["clock"] == {"name": "time.perf_counter_ns", "read_ns": 41}
    # one warmup generation and three more: 4 steps of 0.75 ms each, the first (warmup) excluded
    assert rep["tpot"]["n"] == 9 and rep["tpot"]["excluded_warmup"] == 3 and rep["tpot"]["p50_ms"] == 0.75
    assert rep["e2e"]["tokens"] == 16 and rep["requests"]["n"] == 2
    assert tp.report() == tool.run(OLD_API_TRACE)


def test_the_old_calls(tool, tmp_path):
    trace = str(tmp_path / "old_calls.csv")
    tp = ttft_tpot.Collector()
    # names CSV must quote, names that would read as a comment or lose a space, UTF-8, the longest
    names = ["a,b", 'q"uote', "#hash", " space", "\u00fcn\u00ef", "x" * 63]
    for name in names:
        tp.record(name, "kernel", 5, start_ns=1)
    with tp.warmup():
        with tp.span("generate", "e2e", tokens=4):
            pass
    two_requests(tp)
    tp.write_trace(trace)
    rep = json.loads(tool.run("--json", trace))
    assert [p["name"] for p in rep["phases"]] == names + ["generate"], rep["phases"]
    assert rep["clock"]["name"] == "CLOCK_MONOTONIC" and rep["clock"]["read_ns"] > 0, rep["clock"]
    q = rep["requests"]
    assert q["n"] == 2 and q["unscheduled"] == 1 and q["ttft_ms"]["min"] == 20 and q["e2e_ms"]["max"] == 45
    assert "True" not in open(trace).read() and "False" not in open(trace).read()
