"""The package's figures worked by hand: spans on a scripted clock, records, requests, runs, warmup,
shapes, bounded phases, the disabled switch."""
import os
import re
import stat
import sys
import warnings
from array import array

import pytest

import ttft_tpot
from conftest import MS, Clock, two_requests


def steps(clock_values):
    """A clock that reads each (begin, end) pair in order."""
    return Clock(*[t for pair in clock_values for t in pair])


def test_spans_on_a_scripted_clock():
    # prefill 5 ms (first: warmup), steps 2 (warmup step 0), 1, 1, 3 ms; prefill 4 ms, steps 1, 2, 1 ms
    ms = [5, 2, 1, 1, 3, 4, 1, 2, 1]
    t, pairs = 1000, []
    for d in ms:
        pairs.append((t, t + d * MS))
        t += d * MS + 10
    tp = ttft_tpot.Collector(clock=steps(pairs), clock_name="scripted")
    for first, n in ((0, 4), (5, 3)):
        with tp.span("prefill", "prefill") as s:
            pass
        assert s.duration_ns == ms[first] * MS
        for _ in range(n):
            with tp.span("decode_step", "decode"):
                pass
    rep = tp.report_json()
    assert rep["clock"] == {"name": "scripted", "read_ns": None} or rep["clock"]["name"] == "scripted"
    assert rep["ttft"]["first_ms"] == 5 and rep["ttft"]["first_warmup"] is True
    assert rep["ttft"]["steady"]["n"] == 1 and rep["ttft"]["steady"]["p50_ms"] == 4
    tpot = rep["tpot"]  # steady steps 1, 1, 3, 1, 2, 1 ms
    assert (tpot["n"], tpot["excluded_warmup"]) == (6, 1)
    assert (tpot["p50_ms"], tpot["mean_ms"], tpot["min_ms"], tpot["max_ms"]) == (1, 1.5, 1, 3)
    assert rep["output_throughput_tok_s"] == pytest.approx(6 / 9e-3, rel=1e-12)  # 6 tokens / 9 ms
    assert list(tp.samples("decode_step")) == [d * MS for d in (1, 1, 3, 1, 2, 1)]
    assert list(tp.samples("decode_step", warmup=True)) == [d * MS for d in (2, 1, 1, 3, 1, 2, 1)]
    assert "TPOT (steady, p50/p99): 1.00" in tp.report()


def test_counts_set_inside_the_block():
    # the reads in order: generate begins, prefill begins, prefill ends, generate ends: generate 8 and
    # 4 ms, prefill 1 ms each
    tp = ttft_tpot.Collector(clock=Clock(0, MS, 2 * MS, 8 * MS, 10 * MS, 11 * MS, 12 * MS, 14 * MS))
    for prompt in (50, 100):
        with tp.span("generate", "e2e") as e2e:
            with tp.span("prefill", "prefill") as pre:
                pre.prompt_tokens = prompt
            e2e.tokens = 7  # known only when the generation ends
            assert (e2e.tokens, pre.prompt_tokens, e2e.duration_ns) == (7, prompt, None)
    rep = tp.report_json()
    assert rep["e2e"] == {"tokens": 14, "wall_ms": 12.0, "tok_s": pytest.approx(14 / 12e-3)}
    assert rep["prefill"]["tokens"] == 100 and rep["prefill"]["tok_s"] == pytest.approx(100 / 1e-3)


def test_record_runs_warmup_and_ms():
    tp = ttft_tpot.Collector()
    with tp.warmup():
        tp.record("step", "decode", 9 * MS)
        with tp.warmup():  # sections nest
            tp.record("step", "decode", 9 * MS)
        tp.record("step", "decode", 9 * MS)
    for run in range(3):
        tp.run()
        for k in range(4):
            tp.record("step", "decode", (run + 1) * MS, tokens=2)
    tp.record_ms("step", "decode", 2.25)
    assert list(tp.samples("step")) == [MS] * 4 + [2 * MS] * 4 + [3 * MS] * 4 + [2250000]
    rep = tp.report_json()
    assert rep["tpot"]["n"] == 13 and rep["tpot"]["excluded_warmup"] == 3
    assert rep["runs"]["n"] == 3
    assert [ttft_tpot._core.ms_to_ns(x) for x in (0.5, 0.0, 1e-6, 2.25)] == [500000, 0, 1, 2250000]


def test_multi_token_steps():
    """A decode step of several tokens a sequence: sequences= on span, begin and record. TPOT is duration x
    sequences / tokens; the acceptance length tokens / sequences (as tests/test_metrics.c, by hand)."""
    tp = ttft_tpot.Collector(clock=Clock(0, 100_000, 0, 40_000))
    with tp.span("decode", "decode", tokens=2, sequences=2):  # warmup: 100 us, one token a sequence
        pass
    s = tp.begin("decode", "decode", tokens=6)
    s.sequences = 2  # settable until the end
    assert s.sequences == 2
    s.end()  # 40 us for 3 tokens a sequence: 13333 ns a token
    tp.record("decode", "decode", 30_000, tokens=2, sequences=2)
    tp.record("decode", "decode", 36_000, tokens=8, sequences=2)
    tp.record("decode", "decode", 35_000, tokens=4, sequences=2)
    rep = tp.report_json()
    assert rep["tpot"]["p50_ms"] == 0.015417 and rep["tpot"]["min_ms"] == 0.009  # (13333 + 17500) / 2
    assert rep["acceptance_length"] == {"mean": 2.5, "p50": 2.5, "p90": pytest.approx(3.7, abs=1e-12), "steps": 3}
    assert rep["output_throughput_tok_s"] == pytest.approx(20 / 141e-6)
    assert "Acceptance length     : 2.50 tokens a sequence a step" in tp.report()
    with pytest.raises(ValueError, match="sequences belong to a decode phase"):
        tp.record("k", "kernel", 5, tokens=4, sequences=2)
    with pytest.raises(ValueError, match=r"sequences \(5\) above the step's tokens \(4\)"):  # refused at the end
        tp.record("decode", "decode", 5, tokens=4, sequences=5)
    off = ttft_tpot.Collector(sequences=False)
    off.record("decode", "decode", 5, tokens=4, sequences=2)  # the warmup step
    off.record("decode", "decode", 5, tokens=4, sequences=2)
    assert off.report_json()["sequences_lost"] == 2 and off.report_json()["acceptance_length"] is None


def test_requests_worked_by_hand():
    # A: submit 0, scheduled 10 ms, tokens at 20 and 30 ms; B: submit 5 ms, one token at 50 ms.
    # TTFT A 20, B 45 ms; E2E A 30, B 45 ms; queue (A only) 10 ms, prefill 10 ms; ITL A 10 ms.
    tp = ttft_tpot.Collector()
    two_requests(tp)
    q = tp.report_json()["requests"]
    assert q["n"] == 2 and q["unscheduled"] == 1, q
    assert (q["ttft_ms"]["min"], q["ttft_ms"]["max"]) == (20, 45)
    assert (q["e2e_ms"]["min"], q["e2e_ms"]["max"]) == (30, 45)
    assert q["queue_ms"]["n"] == 1 and q["queue_ms"]["p50"] == 10
    assert q["prefill_ms"]["p50"] == 10
    assert q["itl_ms"]["n"] == 1 and q["itl_ms"]["p50"] == 10
    assert q["tpot_ms"]["p50"] == 5  # A: (30 - 20) / (3 - 1)
    tp.set_slo(ttft=30)
    goodput = tp.report_json()["requests"]["goodput"]
    assert (goodput["n"], goodput["fraction"]) == (1, 0.5)  # A met 30 ms, B did not


def test_ttfo_worked_by_hand(tool, tmp_path):
    # a: submit 0, a reasoning token at 10 ms, the answer in the tokens at 30 ms (output() takes them);
    # b: submit 5 ms, its answer in its first token at 25 ms; c: no output event. TTFO a 30, b 20 ms.
    tp = ttft_tpot.Collector(max_requests=4)
    tp.submit("a", 0)
    tp.tokens("a", 1, 10 * MS)
    tp.tokens("a", 2, 30 * MS)
    tp.output("a")
    tp.submit("b", 5 * MS)
    tp.tokens("b", 1, 25 * MS)
    tp.output(id="b", t_ns=25 * MS)
    tp.submit("c", 6 * MS)
    tp.tokens("c", 1, 40 * MS)
    q = tp.report_json()["requests"]
    assert (q["ttfo_ms"]["n"], q["ttfo_ms"]["min"], q["ttfo_ms"]["p50"], q["ttfo_ms"]["max"]) == (2, 20, 25, 30), q
    assert q["ttft_ms"]["n"] == 3
    csv = tp.requests_csv().splitlines()
    assert csv[0].endswith(",slo_e2e,first_output_ns,ttfo_ns") and csv[1].endswith(",30000000,30000000")
    assert csv[3].endswith(",,")  # c: none
    assert "ttft_tpot:time_to_first_output_token_seconds_count 2\n" in tp.prometheus()
    tp.write_trace(tmp_path / "o.csv")
    assert tool.run("--json", str(tmp_path / "o.csv")) == tp.report_json_text()
    with pytest.raises(ValueError, match=r"request event refused: the output of request 'a' \(once, between "
                                         r"its first token and its last token\)"):
        tp.output("a")


def test_shapes_and_rows():
    tp = ttft_tpot.Collector()
    for key in (1, 2, 1, 2, 1):
        tp.record("step", "decode", MS, shape=key)  # the first of each shape is warmup
    tp.shape_row("step", 8, "b8")
    tp.record("step", "decode", 3 * MS, shape=8)
    tp.record("step", "decode", 3 * MS, shape=8)
    by_name = {p["name"]: p for p in tp.report_json()["phases"]}
    assert (by_name["step"]["n"], by_name["step"]["warmup_n"]) == (5, 2)
    assert (by_name["step[b8]"]["n"], by_name["step[b8]"]["warmup_n"]) == (2, 1)
    assert tp.phases() == [("step", "decode"), ("step[b8]", "decode")]


def test_bounded_phase_samples():
    tp = ttft_tpot.Collector(hist_slots=1)
    tp.phase("k", "kernel", bounded=True)
    for d in range(1, 11):
        tp.record("k", "kernel", d * 1000)
    with pytest.raises(ValueError, match="histogram"):
        tp.samples("k")
    assert list(tp.samples("k", warmup=True, stored_only=True)) == [1000]  # its first call stays exact
    assert tp.report_json()["phases"][0]["n"] == 10


def test_samples_numpy_or_array(monkeypatch):
    tp = ttft_tpot.Collector()
    tp.record("k", "kernel", 5)
    tp.record("k", "kernel", 7)
    try:
        import numpy
    except ImportError:
        numpy = None
    if numpy is not None:
        got = tp.samples("k")
        assert isinstance(got, numpy.ndarray) and got.dtype == numpy.uint64 and got.tolist() == [7]
    monkeypatch.setitem(sys.modules, "numpy", None)  # as where numpy is not installed
    assert tp.samples("k") == array("Q", [7])
    with pytest.raises(ValueError, match="no phase"):
        tp.samples("nope")


def test_disabled_records_nothing():
    tp = ttft_tpot.Collector()
    tp.enabled = False
    with tp.span("x", "kernel") as a:
        a.tokens = 3
        a.prompt_tokens = 9  # taken, and dropped: nothing is recorded
    with tp.span("y", "prefill", tokens="not even checked") as b:
        pass
    assert a is b and a.duration_ns is None
    tp.record("x", "kernel", 5)
    tp.submit("r")
    assert tp.counts()["samples"] == 0 and tp.counts()["requests"] == 0 and tp.phases() == []  # nothing checked
    tp.enabled = True
    with tp.span("x", "kernel"):
        pass
    assert tp.counts()["samples"] == 1 and tp.enabled is True


def test_timed():
    tp = ttft_tpot.Collector()

    @tp.timed("double", "kernel")
    def double(x):
        """Twice x."""
        return 2 * x

    assert [double(k) for k in range(5)] == [0, 2, 4, 6, 8]
    assert double.__name__ == "double" and double.__doc__ == "Twice x."
    assert tp.counts()["samples"] == 5


def test_clear_keeps_phases():
    tp = ttft_tpot.Collector()
    tp.record("a", "decode", 5)
    tp.record("a", "decode", 6)
    tp.clear()
    assert tp.counts()["samples"] == 0 and tp.phases() == [("a", "decode")]
    tp.record("a", "decode", 7)
    assert list(tp.samples("a")) == [7]  # not a first call again: warmup is once a process


def test_live_publication(tool, tmp_path):
    tp = ttft_tpot.Collector()
    path = tmp_path / "replica.prom"
    tp.submit("a", 0)
    tp.tokens("a", 1, 10 * MS)
    tp.finish("a")
    tp.submit("b", 0)
    tp.tokens("b", 1, 20 * MS)  # not finished: not published
    tp.publish(path, labels={"replica": "0"})
    first = path.read_text()
    assert 'vllm:request_success_total{replica="0",finished_reason=""} 1\n' in first
    tp.finish("b")
    tp.write_trace(tmp_path / "r.csv")
    tp.publish(path, labels={"replica": "0"})
    assert path.read_text() == tool.run("--prometheus", "--label", "replica=0", str(tmp_path / "r.csv"))
    tp.clear()
    tp.publish(path, labels={"replica": "0"})  # cleared: what was published stays
    assert 'vllm:request_success_total{replica="0",finished_reason=""} 2\n' in path.read_text()
    with pytest.raises(ValueError, match="request event refused: the finish of request 'zz'"):
        tp.finish("zz")
    assert tp.counts()["rejected"] == 0
    with pytest.raises(OSError):
        tp.publish(tmp_path / "no" / "dir.prom")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # not a regular file: refused, and left as it is
    with pytest.raises(OSError, match="is not replaced"):
        tp.publish(fifo)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_model_name_and_requests_in_flight(tmp_path):
    """Collector(model_name=...) labels every series; the gauges count the requests in flight: a waiting (only
    submitted), b running (a token), c finished."""
    tp = ttft_tpot.Collector(model_name="llama-3.1-8b", max_requests=3)
    tp.submit("a", 0)
    tp.submit("b", 0)
    tp.tokens("b", 1, 10 * MS)
    tp.submit("c", 0)
    tp.tokens("c", 1, 20 * MS)
    with pytest.warns(ttft_tpot.RequestsLostWarning, match="a request was refused: the request table"):
        tp.submit("d", 30 * MS)  # the table is full, none finished: a loss, counted (in the exposition too), warned of
    with pytest.warns(ttft_tpot.RequestsLostWarning, match="a request event was not kept: its request was refused"):
        tp.tokens("d", 1, 40 * MS)
    with pytest.warns(ttft_tpot.RequestsLostWarning, match="not kept") as seen:
        tp.finish("d")
    assert seen[0].filename == __file__  # the line that made the call
    with pytest.warns(ttft_tpot.RequestsLostWarning, match="not kept"):
        tp.prompt("d", 3)
    tp.finish("c")
    tp.prompt("c", 12)
    with pytest.raises(ValueError, match="given once"):
        tp.prompt("c", 12)
    with pytest.raises(ValueError, match=r"1\.\.4294967295"):  # as a span's tokens: no total of them wraps
        tp.prompt("a", 2 ** 32)
    path = tmp_path / "m.prom"
    tp.publish(path, labels={"replica": "0"})
    text = path.read_text()
    for line in ('vllm:num_requests_waiting{model_name="llama-3.1-8b",replica="0"} 1\n',
                 'vllm:num_requests_running{model_name="llama-3.1-8b",replica="0"} 1\n',
                 'vllm:request_success_total{model_name="llama-3.1-8b",replica="0",finished_reason=""} 1\n',
                 'ttft_tpot:request_refused_total{model_name="llama-3.1-8b",replica="0"} 1\n',
                 'vllm:prompt_tokens_total{model_name="llama-3.1-8b",replica="0"} 12\n'):
        assert line in text
    with warnings.catch_warnings():  # a filter can make it raise: counted all the same
        warnings.simplefilter("error", ttft_tpot.RequestsLostWarning)
        with pytest.raises(ttft_tpot.RequestsLostWarning, match="not kept"):
            tp.tokens("d", 2, 50 * MS)
    assert tp.counts()["requests_refused"] == 1
    assert tp.counts()["requests_dropped"] == 1  # one request, whatever its later calls: counted once
    assert 'ttft_tpot:request_dropped_total{model_name="llama-3.1-8b",replica="0"} 1\n' in text
    with pytest.raises(ValueError, match="model_name"):
        ttft_tpot.Collector(model_name="a{b}")


def test_engine_label(tmp_path):
    """Collector(engine=...) labels every series engine="...", after model_name, as vLLM labels each engine."""
    tp = ttft_tpot.Collector(model_name="m", engine="0", max_requests=2)
    tp.submit("a", 0)
    path = tmp_path / "e.prom"
    tp.publish(path)
    assert 'vllm:num_requests_waiting{model_name="m",engine="0"} 1\n' in path.read_text()
    with pytest.raises(ValueError):
        ttft_tpot.Collector(engine="x" * 32)


def test_the_issues_spellings(tool, tmp_path):
    """The API as the issue names it, keywords spelled as given."""
    tp = ttft_tpot.Collector(capacity=1024, max_requests=4)
    with tp.span("prefill", "prefill", tokens=1, prompt_tokens=None, shape=None) as s:
        s.prompt_tokens = 16
    tp.record("decode_step", "decode", ns=2 * MS, tokens=1)
    tp.record("decode_step", "decode", ns=3 * MS, tokens=1)
    tp.submit(id="r")
    tp.schedule(id="r")
    tp.tokens(id="r", n=2)
    tp.run()
    tp.write_html(tmp_path / "r.html")
    tp.write_trace(tmp_path / "r.csv")
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")
    assert ttft_tpot.Collector.read_trace(tmp_path / "r.csv").report() == tp.report() == tool.run(
        str(tmp_path / "r.csv"))
    assert tp.report_json()["tpot"]["p50_ms"] == 3 and list(tp.samples("decode_step")) == [3 * MS]
    # one run a side cannot decide, not even against itself: the verdict says so and what it needs
    assert str(ttft_tpot.compare(tp, tp)).startswith("Verdict: undecided: 1 and 1 runs can give p = 1 at best")
    assert ttft_tpot.compare(tp, tp, noise=5).json()["verdict"]["kind"] == "undecided"


def test_chosen_percentiles_against_numpy():
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(7)
    x = rng.integers(1, 10**9, size=5001)  # ns, durations spread over 9 decades' worth of ns
    picks = [0.1, 50, 99.9, 99.99, 99.999]
    tp = ttft_tpot.Collector(percentiles=picks)
    for v in x:
        tp.record("k", "kernel", int(v))
    ph = tp.report_json()["phases"][0]
    for p in picks:
        key = "p%s_ms" % ("%g" % p)
        want = np.percentile(x.astype(np.float64), p, method="linear") / 1e6
        assert ph[key if p not in (50,) else "p50_ms"] == pytest.approx(want, abs=1e-6), key  # JSON: to the ns


def test_a_server_publishes_every_request_it_finished(tmp_path):
    """A table of 100 serves 1,000 requests, publishing every 250: the exposition reads 250, 500, 750 and
    1,000 (it froze at 100 when finished requests were kept until the table filled), nothing is lost, and the
    report is exact over the requests the table still holds (at most 100), counting the rest as folded."""
    tp = ttft_tpot.Collector(max_requests=100)
    path = tmp_path / "m.prom"
    served = []
    for i in range(1000):
        rid, t = "r%d" % i, i * 10 * MS
        tp.submit(rid, t)
        for k in range(4):  # TTFT 2 ms, then a token every 1 ms: ITL 1 ms, E2E 5 ms
            tp.tokens(rid, 1, t + (2 + k) * MS)
        tp.finish(rid)
        if (i + 1) % 250 == 0:
            tp.publish(path)
            text = path.read_text()
            served.append(int(re.search(r'^vllm:request_success_total\{finished_reason=""\} (\d+)$', text, re.M).group(1)))
            assert "vllm:generation_tokens_total %d\n" % (4 * (i + 1)) in text
            assert "vllm:inter_token_latency_seconds_count %d\n" % (3 * (i + 1)) in text
            assert "ttft_tpot:request_refused_total 0\n" in text
    assert served == [250, 500, 750, 1000]
    doc = tp.report_json()
    held, folded = doc["requests"]["n"], doc["requests"]["folded"]["requests"]
    assert held <= 100 and held + folded == 1000
    assert doc["requests"]["dropped"] == 0
    assert doc["requests"]["ttft_ms"]["p50"] == 2.0
    assert "were folded out of the request table" in tp.report()


def test_finish_reasons():
    """finish(id, reason=...) labels request_success_total as vLLM does; an aborted request is in
    request_success_total by its reason and in no figure: TTFT over a (stop, 10 ms) and b (length, 20 ms) only."""
    tp = ttft_tpot.Collector()
    for k, (rid, reason) in enumerate((("a", "stop"), ("b", "length"), ("c", "abort"))):
        tp.submit(rid, 0)
        tp.tokens(rid, 1, (k + 1) * 10 * MS)
        tp.finish(rid, reason=reason)
    with pytest.raises(ValueError, match="a finish reason is"):
        tp.finish("a", reason="done")
    text = tp.prometheus()
    assert 'vllm:request_success_total{finished_reason="stop"} 1\n' in text
    assert 'vllm:request_success_total{finished_reason="length"} 1\n' in text
    assert 'vllm:request_success_total{finished_reason="abort"} 1\n' in text
    doc = tp.report_json()
    assert doc["requests"]["n"] == 2
    assert doc["requests"]["ttft_ms"]["max"] == 20.0
    assert doc["requests"]["finish_reasons"] == {"none": 0, "stop": 1, "length": 1, "abort": 1, "error": 0,
                                                 "repetition": 0}


def test_what_the_driver_tells():
    """tell(name, value): a counter adds (num_preemptions 2 + 3), a gauge is set (waiting_capacity 3,
    then 1), kv_cache_usage_perc a fraction; each family is written from the start (0 until told)."""
    tp = ttft_tpot.Collector()
    assert "vllm:kv_cache_usage_perc 0.0\n" in tp.prometheus()
    tp.tell("num_preemptions", 2)
    tp.tell("num_preemptions", 3)
    tp.tell("waiting_capacity", 3)
    tp.tell("waiting_capacity", 1)
    tp.tell("kv_cache_usage_perc", 0.25)
    for name, value in (("kv_cache_usage_perc", 1.5), ("num_preemptions", -1), ("num_preemptions", 0.5),
                        ("nope", 1)):
        with pytest.raises(ValueError):
            tp.tell(name, value)
    text = tp.prometheus()
    assert "vllm:num_preemptions_total 5\n" in text
    assert 'vllm:num_requests_waiting_by_reason{reason="capacity"} 1\n' in text
    assert "vllm:kv_cache_usage_perc 0.25\n" in text


def test_told_histograms():
    """tell("params_max_tokens" | "params_n" | "max_num_generation_tokens", value): each value counted
    in vLLM's histogram of it (max_tokens 256 and 100 with max_model_len 1000: le 100 1, 500 2; n 4:
    vLLM's bounds 1, 2, 5, 10, 20, le 2 0, le 5 1); request_num_preemptions 0 and 3 (vLLM's bounds 1, 2, 3,
    4, 5, 10, 20: le 1 1, le 2 1, le 3 2); a fraction is refused."""
    tp = ttft_tpot.Collector(max_model_len=1000)
    tp.tell("params_max_tokens", 256)
    tp.tell("params_max_tokens", 100)
    tp.tell("params_n", 4)
    tp.tell("request_num_preemptions", 0)
    tp.tell("request_num_preemptions", 3)
    with pytest.raises(ValueError):
        tp.tell("params_n", 1.5)
    text = tp.prometheus()
    les = bounds_of(text)
    assert les["vllm:request_params_n"] == ["1.0", "2.0", "5.0", "10.0", "20.0", "+Inf"]
    assert les["vllm:request_num_preemptions"] == ["1.0", "2.0", "3.0", "4.0", "5.0", "10.0", "20.0", "+Inf"]
    assert les["vllm:request_params_max_tokens"] == [repr(float(b)) for b in build_1_2_5_buckets(1000)] + ["+Inf"]
    for line in ('vllm:request_params_max_tokens_bucket{le="100.0"} 1', 'vllm:request_params_max_tokens_bucket{le="500.0"} 2',
                 "vllm:request_params_max_tokens_sum 356", 'vllm:request_params_n_bucket{le="2.0"} 0',
                 'vllm:request_params_n_bucket{le="5.0"} 1', "vllm:request_max_num_generation_tokens_count 0",
                 'vllm:request_num_preemptions_bucket{le="1.0"} 1', 'vllm:request_num_preemptions_bucket{le="2.0"} 1',
                 'vllm:request_num_preemptions_bucket{le="3.0"} 2', "vllm:request_num_preemptions_sum 3"):
        assert "\n" + line + "\n" in text, line


def test_engine_steps_from_spans():
    """Each prefill or decode span is an engine step for vLLM's iteration_tokens_total: its prompt and
    output tokens (42, 2 and 5: among 1, 8, 16, 32, 64, le 8 2, le 64 3, sum 49), not a kernel span's;
    with num_speculative_tokens 3, the step of 5 tokens for 2 sequences counts 2 drafts, 6 draft tokens
    and 3 accepted ones (the C test: test_requests.c engine_steps_count_from_the_spans)."""
    tp = ttft_tpot.Collector(num_speculative_tokens=3)
    tp.record("prefill", "prefill", 9 * MS, 2, prompt_tokens=40)
    tp.record("decode", "decode", 3 * MS, 2)
    tp.record("matmul", "kernel", 1 * MS, 7)
    tp.record("decode", "decode", 4 * MS, 5, sequences=2)
    text = tp.prometheus()
    for line in ('vllm:iteration_tokens_total_bucket{le="8.0"} 2', 'vllm:iteration_tokens_total_bucket{le="64.0"} 3',
                 "vllm:iteration_tokens_total_sum 49", "vllm:spec_decode_num_drafts_total 2",
                 "vllm:spec_decode_num_draft_tokens_total 6", "vllm:spec_decode_num_accepted_tokens_total 3"):
        assert "\n" + line + "\n" in text, line
    assert "\nvllm:spec_decode_num_drafts_total 0\n" in ttft_tpot.Collector().prometheus()

def test_prefill_kv_computed():
    """prompt(id, n, cached=k): a finished request's prompt tokens less the cached ones, in vLLM's
    request_prefill_kv_computed_tokens (100 less 30: 70 among 1, 2, 5, ... 100; le 50 0, le 100 1); a
    request without cached tokens given is not counted there; cached past the prompt is refused (the C
    test: test_requests.c prefill_kv_computed_is_prompt_less_cached)."""
    tp = ttft_tpot.Collector(max_model_len=100)
    for rid, cached in (("a", 30), ("b", None)):
        tp.submit(rid, 0)
        tp.prompt(rid, 100, cached=cached)
        tp.tokens(rid, 1, 10 * MS)
        tp.finish(rid)
    text = tp.prometheus()
    for line in ('vllm:request_prefill_kv_computed_tokens_bucket{le="50.0"} 0',
                 'vllm:request_prefill_kv_computed_tokens_bucket{le="100.0"} 1',
                 "vllm:request_prefill_kv_computed_tokens_sum 70", "vllm:request_prefill_kv_computed_tokens_count 1"):
        assert "\n" + line + "\n" in text, line
    tp.submit("c", 0)
    with pytest.raises(ValueError):
        tp.prompt("c", 10, cached=11)
    tp.prompt("c", 10)
    tp.cached("c", 4)  # told apart from its prompt, as a scheduler learns it
    with pytest.raises(ValueError):
        tp.cached("c", 4)  # once
    tp.tokens("c", 1, 20 * MS)
    tp.finish("c")
    assert "\nvllm:request_prefill_kv_computed_tokens_sum 76\n" in tp.prometheus()

def test_repetition_finishes():
    """reason="repetition" (vLLM's repetition detection) is a request that finished: in the figures
    (TTFT over a, 10 ms, and b, 20 ms) and counted by its reason."""
    tp = ttft_tpot.Collector()
    for k, (rid, reason) in enumerate((("a", "repetition"), ("b", "stop"))):
        tp.submit(rid, 0)
        tp.tokens(rid, 1, (k + 1) * 10 * MS)
        tp.finish(rid, reason=reason)
    assert 'vllm:request_success_total{finished_reason="repetition"} 1\n' in tp.prometheus()
    doc = tp.report_json()
    assert doc["requests"]["n"] == 2
    assert doc["requests"]["ttft_ms"]["max"] == 20.0
    assert doc["requests"]["finish_reasons"]["repetition"] == 1


def test_vllm_buckets():
    """Collector(buckets="vllm") writes vLLM's bounds alone: TTFT 10 ms in le 0.01, no E12 bound."""
    tp = ttft_tpot.Collector(buckets="vllm")
    tp.submit("a", 0)
    tp.tokens("a", 1, 10 * MS)
    tp.finish("a")
    text = tp.prometheus()
    assert 'vllm:time_to_first_token_seconds_bucket{le="0.005"} 0\n' in text
    assert 'vllm:time_to_first_token_seconds_bucket{le="0.01"} 1\n' in text
    assert 'le="0.0012"' not in text
    with pytest.raises(ValueError, match='buckets is "fine" or "vllm"'):
        ttft_tpot.Collector(buckets="coarse")


# vLLM 0.33's bounds (vllm/v1/metrics/buckets.py), typed from its source: the TTFT family; the ITL and
# TPOT families; the request latencies (E2E, queue, prefill, decode).
VLLM_TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0,
             80.0, 160.0, 640.0, 2560.0]
VLLM_ITL = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0]
VLLM_LATENCY = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0,
                480.0, 960.0, 1920.0, 7680.0]


def bounds_of(text):
    """Each histogram family's le values, in the order written: {family: [le, ...]}."""
    out = {}
    for name, le in re.findall(r'^([a-z0-9_:]+)_bucket\{(?:[^}]*,)?le="([^"]*)"\}', text, re.M):
        out.setdefault(name, []).append(le)
    return out


def test_vllm_buckets_are_vllm_033s():
    """buckets="vllm" writes exactly vLLM 0.33's bounds for each of vLLM's families, then +Inf."""
    tp = ttft_tpot.Collector(buckets="vllm")
    two_requests(tp)
    les = bounds_of(tp.prometheus())
    want = {"time_to_first_token_seconds": VLLM_TTFT, "inter_token_latency_seconds": VLLM_ITL,
            "request_time_per_output_token_seconds": VLLM_ITL, "e2e_request_latency_seconds": VLLM_LATENCY,
            "request_queue_time_seconds": VLLM_LATENCY, "request_prefill_time_seconds": VLLM_LATENCY,
            "request_decode_time_seconds": VLLM_LATENCY, "request_inference_time_seconds": VLLM_LATENCY}
    for family, bounds in want.items():
        assert les["vllm:" + family] == [repr(b) for b in bounds] + ["+Inf"], family


def test_bounds_spelled_as_prometheus_client():
    """Every le of both bucket sets is spelled as prometheus_client spells that float ("1.0", never
    "1"; "+Inf"), so a ttft_tpot replica's bound and a vLLM replica's are one series under sum by (le)."""
    floatToGoString = pytest.importorskip("prometheus_client.utils",
                                          reason="prometheus_client (pip install prometheus-client)").floatToGoString
    for buckets in ("fine", "vllm"):
        tp = ttft_tpot.Collector(buckets=buckets)
        two_requests(tp)
        les = bounds_of(tp.prometheus())
        assert len(les) == 18  # 10 of time, 2 of tokens, 6 told
        for family, bounds in les.items():
            assert bounds == [floatToGoString(float(b)) for b in bounds], family


def build_1_2_5_buckets(max_value):
    """vLLM's token bounds (vllm/v1/metrics/loggers.py): 1, 2, 5, 10, 20, 50, ... while at most max_value."""
    out, exponent = [], 0
    while True:
        for mantissa in (1, 2, 5):
            if mantissa * 10 ** exponent > max_value:
                return out
            out.append(mantissa * 10 ** exponent)
        exponent += 1


def test_token_histograms_as_vllm():
    """request_prompt_tokens and request_generation_tokens: vLLM's bounds up to max_model_len, each
    finished request's prompt tokens (where given) and tokens. A: prompt 300, 3 tokens; B: no prompt,
    1 token; C: prompt 9000, 700 tokens (past 500: le 1000 and 2000 only)."""
    tp = ttft_tpot.Collector(max_model_len=2048)
    two_requests(tp)
    tp.prompt("#A", 300)
    tp.submit("C", 60 * MS)
    tp.tokens("C", 700, 70 * MS)
    tp.prompt("C", 9000)
    for r in ("#A", "B", "C"):
        tp.finish(r)
    text = tp.prometheus()
    les = bounds_of(text)
    for family in ("request_prompt_tokens", "request_generation_tokens"):
        assert les["vllm:" + family] == [repr(float(b)) for b in build_1_2_5_buckets(2048)] + ["+Inf"], family
    got = {m[0]: int(m[1]) for m in re.findall(r'^vllm:(request_(?:prompt|generation)_tokens_[a-z]+(?:\{le="[^"]*"\})?) '
                                               r'(\d+)$', text, re.M)}
    assert got['request_prompt_tokens_bucket{le="200.0"}'] == 0
    assert got['request_prompt_tokens_bucket{le="500.0"}'] == 1
    assert got['request_prompt_tokens_bucket{le="2000.0"}'] == 1
    assert got['request_prompt_tokens_bucket{le="+Inf"}'] == got["request_prompt_tokens_count"] == 2
    assert got["request_prompt_tokens_sum"] == 9300
    assert got['request_generation_tokens_bucket{le="1.0"}'] == 1
    assert got['request_generation_tokens_bucket{le="5.0"}'] == 2
    assert got['request_generation_tokens_bucket{le="500.0"}'] == 2
    assert got['request_generation_tokens_bucket{le="1000.0"}'] == 3
    assert got["request_generation_tokens_count"] == 3 and got["request_generation_tokens_sum"] == 704


def test_a_block_that_raises_is_cancelled(tmp_path):
    """A block that raises inside tp.span(...) did not complete: its span is cancelled and counted
    (counts()["spans_cancelled"], the reports' NOTE and JSON), not recorded; Span.cancel() does the
    same by hand, inside a block or for a span of begin()."""
    tp = ttft_tpot.Collector()
    with pytest.raises(RuntimeError, match="out of memory"):
        with tp.span("decode_step", "decode"):
            raise RuntimeError("out of memory")
    k = tp.counts()
    assert (k["spans_cancelled"], k["samples"], k["spans_open"]) == (1, 0, 0)
    with tp.span("decode_step", "decode") as s:
        s.cancel()
    s = tp.begin("decode_step", "decode")
    s.cancel()
    with pytest.raises(ValueError, match="a span ends once"):
        s.cancel()
    with pytest.raises(ValueError, match="a span ends once"):
        s.end()
    with tp.span("decode_step", "decode"):
        pass
    k = tp.counts()
    assert (k["spans_cancelled"], k["samples"], k["spans_open"], k["rejected"]) == (3, 1, 0, 0)
    assert "NOTE: 3 spans cancelled (a step abandoned on an error path): in no figure\n" in tp.report()
    assert tp.report_json()["spans_cancelled"] == 3
    tp.write_trace(tmp_path / "t.csv")  # the trace carries the count
    assert ttft_tpot.Collector.read_trace(tmp_path / "t.csv").counts()["spans_cancelled"] == 3


def test_merge_into_full_request_tables():
    """A merge folds the finished requests away to make room, as a submit does; where the unfinished ones
    leave none, it says which tables are full, and merges nothing."""
    a, b = ttft_tpot.Collector(max_requests=2), ttft_tpot.Collector(max_requests=2)
    for rid in ("a0", "a1"):
        a.submit(rid, 0)
    b.submit("b0", 0)
    with pytest.raises(ValueError, match=r"the request tables \(max_requests, max_request_events\) cannot hold"):
        a.merge(b)
    assert a.counts()["requests"] == 2
    a.tokens("a0", 1, 5 * MS)
    a.finish("a0")
    a.merge(b)  # a0 folded away: room for b0
    assert a.counts()["requests"] == 2
