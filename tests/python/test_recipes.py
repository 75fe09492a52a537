"""The recipes of examples/python run, and their figures agree with a recomputation from the raw event
times: the streaming server (client threads, a worker thread, a queue a request) and the transformers
driver where torch and transformers import (skipped, saying so, elsewhere)."""
import csv
import io
import os
import statistics
import sys

import pytest

import ttft_tpot

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples", "python"))


def test_streaming_server_records_every_request_from_its_thread():
    import serve
    tp = ttft_tpot.Collector()
    received = serve.serve(tp, requests=9, clients=3, max_tokens=5, max_batch=4)
    assert received == {rid: 5 for rid in ["warm0"] + ["r%d" % k for k in range(9)]}  # no token lost or extra
    counts = tp.counts()
    assert counts["requests"] == 10 and counts["requests_refused"] == 0 and counts["spans_open"] == 0
    rows = list(csv.DictReader(io.StringIO(tp.requests_csv())))
    measured = [r for r in rows if r["measured"] == "1"]
    assert sorted(r["id"] for r in measured) == sorted("r%d" % k for k in range(9))  # the warmup one excluded
    for r in rows:  # each figure from the request's own event times
        submit, first, last = (int(r[k]) for k in ("submit_ns", "first_token_ns", "last_token_ns"))
        assert int(r["tokens"]) == 5
        assert int(r["ttft_ns"]) == first - submit and int(r["e2e_ns"]) == last - submit
        assert float(r["tpot_ns"]) == pytest.approx((last - first) / 4, abs=1e-3)
        assert int(r["schedule_ns"]) >= submit
    j = tp.report_json()["requests"]
    ttft_ms = [int(r["ttft_ns"]) / 1e6 for r in measured]
    assert j["n"] == 9
    assert j["ttft_ms"]["p50"] == pytest.approx(statistics.median(ttft_ms), rel=1e-9)
    assert j["e2e_ms"]["max"] == pytest.approx(max(int(r["e2e_ns"]) / 1e6 for r in measured), rel=1e-9)


def test_transformers_recipe():
    pytest.importorskip("torch", reason="torch is not installed: the transformers recipe is not run")
    pytest.importorskip("transformers", reason="transformers is not installed: the transformers recipe is not run")
    import hf_generate
    tp, texts = hf_generate.run(requests=2, max_new_tokens=6, warmup=1)
    assert all(len(t) == 6 for t in texts)  # the streamer: no prompt, no extra end item
    j = tp.report_json()
    assert j["requests"]["n"] == 2 and j["tpot"]["n"] > 0 and j["ttft"]["first_warmup"] is True
