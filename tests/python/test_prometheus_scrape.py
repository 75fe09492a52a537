"""The Python process's /metrics (ttft_tpot.PrometheusCollector, served by ttft_tpot.start_metrics_server) as a
real Prometheus scrapes it: a query of a dashboard's kind for every vLLM family it serves returns data,
and a quantile panel lies in the bucket of the exact figure. Skipped without prometheus_client or a
prometheus binary (Debian's prometheus package)."""
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import pytest

import ttft_tpot
from conftest import MS, ROOT

sys.path.insert(0, os.path.join(ROOT, "tests"))
from fleet import free_port, query, wait_for  # noqa: E402  (the fleet test's, against its Prometheus)

prometheus_client = pytest.importorskip("prometheus_client", reason="prometheus_client (pip install prometheus-client)")
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

SCRAPE_MS = 200
NAME = "py-replica"


def serve_requests(tp):
    """Twenty requests, each: submit, schedule 5 ms later, first token 20 ms after its submit (TTFT 20
    ms, every one), 7 more a ms apart; stop, but the last aborted; its parameters told."""
    for k in range(20):
        rid, t0 = "r%d" % k, k * 100 * MS
        tp.submit(rid, t0)
        tp.schedule(rid, t0 + 5 * MS)
        tp.prompt(rid, 16)
        tp.tokens(rid, 1, t0 + 20 * MS)
        for j in range(7):
            tp.tokens(rid, 1, t0 + (21 + j) * MS)
        tp.finish(rid, reason="abort" if k == 19 else "stop")
        tp.tell("params_max_tokens", 8)
        tp.tell("params_n", 1)
        tp.tell("request_num_preemptions", 0)
        tp.tell("iteration_tokens", 8)


@pytest.fixture()
def prometheus():
    """A Prometheus scraping this process's /metrics every SCRAPE_MS; its port."""
    binary = shutil.which("prometheus")
    if not binary:
        pytest.skip("no prometheus binary (apt-get install prometheus)")
    tp = ttft_tpot.Collector(model_name=NAME)
    registry = prometheus_client.CollectorRegistry()
    registry.register(ttft_tpot.PrometheusCollector(tp))
    server, thread = ttft_tpot.start_metrics_server(0, registry=registry)
    work = tempfile.mkdtemp()
    pm = free_port()
    with open(os.path.join(work, "prometheus.yml"), "w") as f:
        f.write("global:\n  scrape_interval: %dms\nscrape_configs:\n  - job_name: python\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % (SCRAPE_MS, server.server_port))
    proc = subprocess.Popen([binary, "--config.file=" + os.path.join(work, "prometheus.yml"),
                             "--storage.tsdb.path=" + os.path.join(work, "data"),
                             "--web.listen-address=127.0.0.1:%d" % pm], stderr=subprocess.DEVNULL)
    try:
        wait_for("Prometheus ready", lambda: urllib.request.urlopen("http://127.0.0.1:%d/-/ready" % pm,
                                                                     timeout=2).status == 200)
        yield tp, server.server_port, pm
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        server.shutdown()
        server.server_close()
        thread.join()
        shutil.rmtree(work, ignore_errors=True)


def test_a_real_prometheus_scrapes_python_metrics(prometheus):
    tp, port, pm = prometheus
    sel = '{model_name="%s"}' % NAME
    wait_for("the zeros' scrape", lambda: len(query(pm, "vllm:request_success_total" + sel)) > 0)
    time.sleep(2 * SCRAPE_MS / 1000)
    serve_requests(tp)
    wait_for("the requests' scrape", lambda: query(pm, 'sum(vllm:request_success_total%s)' % sel)[0]["value"][1]
             == "20")
    time.sleep(2 * SCRAPE_MS / 1000)
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
        families = {f.name: f.type for f in text_string_to_metric_families(r.read().decode())}
    ours = {n: t for n, t in families.items() if n.startswith("vllm:")}
    assert len(ours) == 30, sorted(ours)
    for name, kind in ours.items():
        if kind == "histogram":
            promql = "histogram_quantile(0.9, sum by (le) (rate(%s_bucket%s[1m])))" % (name, sel)
        elif kind == "counter":
            promql = "rate(%s_total%s[1m])" % (name, sel)
        else:
            promql = name + sel
        assert query(pm, promql), promql
    reasons = {r["metric"].get("finished_reason", ""): float(r["value"][1]) for r in
               query(pm, "sum by (finished_reason) (increase(vllm:request_success_total%s[1m]))" % sel)}
    assert set(reasons) == {"", "stop", "length", "abort", "error", "repetition"}, reasons  # every child
    held = {r["metric"]["finished_reason"]: r["value"][1] for r in
            query(pm, 'vllm:request_success_total{model_name="%s",finished_reason!=""}' % NAME)}
    assert held["stop"] == "19" and held["abort"] == "1", held  # increase() extrapolates; the counters are exact
    # TTFT 20 ms, each of the 19 measured: the p50 panel lies in the bucket holding 0.02 s (0.018, 0.022]
    p50 = float(query(pm, "histogram_quantile(0.5, sum by (le) (vllm:time_to_first_token_seconds_bucket%s))"
                      % sel)[0]["value"][1])
    assert 0.018 < p50 <= 0.022, p50
    tokens = float(query(pm, "vllm:generation_tokens_total" + sel)[0]["value"][1])
    assert tokens == 160  # 8 a request, the aborted one's too: made before it was aborted
    print("Prometheus scraped %d vLLM families from this process's /metrics; TTFT p50 %.4f s; %d tokens; "
          "finished_reason %s" % (len(ours), p50, tokens, reasons))


def test_metrics_server_answers_in_the_text_format():
    """Asked for OpenMetrics, as Prometheus 2.x asks, start_metrics_server answers in the classic text
    format, every name as written (vllm:..., where prometheus_client's own server escapes ':' to '_')."""
    tp = ttft_tpot.Collector(model_name="m")
    registry = prometheus_client.CollectorRegistry()
    registry.register(ttft_tpot.PrometheusCollector(tp))
    server, thread = ttft_tpot.start_metrics_server(0, registry=registry)
    try:
        req = urllib.request.Request("http://127.0.0.1:%d/metrics" % server.server_port, headers={
            "Accept": "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
                      "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"})
        with urllib.request.urlopen(req, timeout=10) as r:
            kind, body = r.headers.get("Content-Type"), r.read().decode()
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert kind.startswith("text/plain"), kind
    assert '\nvllm:time_to_first_token_seconds_bucket{le="0.0001",model_name="m"} 0.0\n' in body
    assert "\nvllm_" not in body
