"""Every output of the package is the C tool's, byte for byte: on the shared vectors, on the trace the
replaced Python module wrote, and on traces the package recorded live."""
import json
import os

import pytest

import ttft_tpot
from conftest import MS, OLD_API_TRACE, VECTORS, python_module, two_requests

TRACES = VECTORS + [OLD_API_TRACE]


def live(tmp_path):
    """A collector with every kind of record, and its trace written to a file."""
    tp = ttft_tpot.Collector()
    with tp.warmup():
        with tp.span("generate", "e2e", tokens=4):
            with tp.span("prefill", "prefill", prompt_tokens=16):
                pass
            for _ in range(3):
                with tp.span("decode_step", "decode"):
                    pass
    for run in range(3):
        tp.run()
        with tp.span("generate", "e2e") as e2e:
            with tp.span("prefill", "prefill", prompt_tokens=16 + run):
                pass
            for step in range(3):
                with tp.span("decode_step", "decode", shape=step % 2):
                    with tp.span("matmul", "kernel", device=1) as k:
                        pass
                    tp.device_elapsed(k.ticket, 1000 + step)
            e2e.tokens = 4
    tp.shape_row("decode_step", 7, "7")
    tp.record("decode_step", "decode", 5 * MS, shape=7)
    tp.record("#quoted, name", "kernel", 7 * MS, start_ns=1)
    two_requests(tp)
    path = str(tmp_path / "live.csv")
    tp.write_trace(path)
    return tp, path


@pytest.mark.parametrize("trace", TRACES, ids=os.path.basename)
def test_read_trace_outputs_are_the_tools(tool, trace):
    tp = ttft_tpot.Collector.read_trace(trace)
    assert tp.report() == tool.run(trace)
    assert tp.report_json_text() == tool.run("--json", trace)
    empty = 3 if not (tp.report_json()["requests"] or {}).get("n") else 0  # nothing to count: exit 3
    assert tp.prometheus() == tool.run("--prometheus", trace, rc=empty)
    assert python_module("--prometheus", trace, rc=empty) == tool.run("--prometheus", trace, rc=empty)
    assert tp.prometheus("llm_", {"model_name": 'q"3\\'}) == tool.run(
        "--prometheus", "--prometheus-prefix", "llm_", "--label", 'model_name=q"3\\', trace, rc=empty)
    assert tp.html(trace) == tool.run("--html", "-", trace)


def test_chrome_trace_is_the_tools(tool, tmp_path):
    for trace in [live(tmp_path)[1]] + [t for t in TRACES if "seed_npu" in t]:
        assert ttft_tpot.Collector.read_trace(trace).chrome_trace() == tool.run("--chrome-trace", "-", trace)


def test_chrome_trace_needs_start_times(tool, tmp_path):
    no_starts = tmp_path / "no_starts.csv"
    no_starts.write_text("phase,role,start_ns,dur_ns,tokens,warmup\nprefill,prefill,0,5,1,1\n")
    tool.run("--chrome-trace", "-", str(no_starts), rc=1)
    with pytest.raises(ValueError, match="start times"):
        ttft_tpot.Collector.read_trace(no_starts).chrome_trace()
    with pytest.raises(ValueError, match="timeline=True"):
        ttft_tpot.Collector(timeline=False).chrome_trace()


def test_live_outputs_are_the_tools_of_its_trace(tool, tmp_path):
    tp, path = live(tmp_path)
    assert tp.report() == tool.run(path)
    assert tp.report_json_text() == tool.run("--json", path)
    assert tp.prometheus() == tool.run("--prometheus", path)
    assert tp.html(path) == tool.run("--html", "-", path)
    assert tp.chrome_trace() == tool.run("--chrome-trace", "-", path)
    assert tp.requests_csv() == tool.run("--requests-csv", "-", path)
    assert tp.requests_csv().splitlines()[1] == "\"#A\",0,10000000,20000000,30000000,3,20000000,5000000.000,30000000,1,,,,,"
    assert "Device time" in tp.report() and "decode_step[7]" in tp.report() and "Runs (3)" in tp.report()


def test_trace_round_trip(tool, tmp_path):
    for trace in TRACES + [live(tmp_path)[1]]:
        again = tmp_path / "again.csv"
        ttft_tpot.Collector.read_trace(trace).write_trace(again)
        assert tool.run(str(again)) == tool.run(trace)
        assert tool.run("--json", str(again)) == tool.run("--json", trace)


def test_several_traces_read_in_order(tool):
    assert ttft_tpot.Collector.read_trace(*VECTORS).report() == tool.run(*VECTORS)
    name = VECTORS[0] + " and %d more" % (len(VECTORS) - 1)
    assert python_module("--html", "-", *VECTORS) == tool.run("--html", "-", *VECTORS)
    assert name in python_module("--html", "-", *VECTORS)


def test_bounded_read_is_the_tools(tool):
    for trace in TRACES:
        assert ttft_tpot.Collector.read_trace(trace, bounded=True).report() == tool.run("--bounded", trace)


def test_compare_is_the_tools(tool, tmp_path):
    base, new = VECTORS[0], live(tmp_path)[1]
    cmp = ttft_tpot.compare(ttft_tpot.Collector.read_trace(base), ttft_tpot.Collector.read_trace(new))
    assert str(cmp) == tool.run("--compare", base, new)
    assert cmp.json_text() == tool.run("--compare", "--json", base, new)
    assert cmp.json()["schema"] == "ttft_tpot/compare-v1"
    assert cmp.html((base, new)) == tool.run("--compare", "--html", "-", base, new)
    strict = ttft_tpot.compare(ttft_tpot.Collector.read_trace(base), ttft_tpot.Collector.read_trace(new), 0.01)
    assert str(strict) == tool.run("--compare", "--alpha", "0.01", base, new)


def test_python_m_is_the_tool(tool, tmp_path):
    path = live(tmp_path)[1]
    for args in ([path], ["--json", path], ["--prometheus", path], ["--slo", "ttft=30,e2e=40", path],
                 ["--requests-csv", "-", "--slo", "ttft=30", path], ["--slice", "0.005", path],
                 ["--prefill-kernel", "matmul", path], ["--bounded", path], ["--compare", VECTORS[0], path],
                 ["--compare", "--json", VECTORS[0], path],
                 ["--prometheus", "--label", "a=b", "--label", 'c=d"\\', path]):
        assert python_module(*args) == tool.run(*args), args
    html = tmp_path / "page.html"
    python_module("--html", str(html), path)
    assert html.read_text(encoding="utf-8") == tool.run("--html", "-", path)
    assert python_module("--version").startswith("ttft_tpot %s" % ttft_tpot.__version__)


def test_ranks_are_the_tools(tool, tmp_path):
    paths = []
    for k, steps in enumerate(((1, 3, 2), (2, 1, 2, 5))):
        tp = ttft_tpot.Collector()
        for ms in (9,) + steps:
            tp.record("d", "decode", ms * MS)
        paths.append(str(tmp_path / ("rank%d.csv" % k)))
        tp.write_trace(paths[-1])
    both = [ttft_tpot.Collector.read_trace(p) for p in paths]
    assert ttft_tpot.ranks(both, paths) == tool.run("--ranks", *paths)
    assert ttft_tpot.ranks(both, paths, json_text=True) == tool.run("--ranks", "--json", *paths)
    assert python_module("--ranks", *paths) == tool.run("--ranks", *paths)
    assert json.loads(python_module("--ranks", "--json", *paths))["ranks"]["slowest"] == [2, 1]


def test_python_m_exit_status(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("phase,role,start_ns,dur_ns,tokens,warmup\nx,nope,0,1,1,0\n")
    python_module(str(bad), rc=1)
    python_module(str(tmp_path / "missing.csv"), rc=1)
    python_module(rc=2)
    python_module("--compare", str(bad), rc=2)
    python_module("--prometheus", "--label", "a=1", "--label", "a=2", str(bad), rc=2)
