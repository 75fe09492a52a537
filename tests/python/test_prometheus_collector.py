"""ttft_tpot.PrometheusCollector: the live exposition as a prometheus_client custom collector, served
over HTTP in the process (/metrics), checked by prometheus_client's own parser and by promtool."""
import shutil
import socket
import subprocess
import urllib.request

import pytest

import ttft_tpot
from conftest import MS, two_requests

prometheus_client = pytest.importorskip("prometheus_client", reason="prometheus_client (pip install prometheus-client)")
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402


def finished_two():
    """two_requests, finished: TTFT A 20 ms, B 45 ms (sum 0.065 s); A 3 tokens, B 1."""
    tp = ttft_tpot.Collector(model_name="m")
    two_requests(tp)
    tp.finish("#A")
    tp.finish("B")
    return tp


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape(registry):
    """GET /metrics from a prometheus_client HTTP server on this registry: its families by name. Before
    0.20 (Debian 12's 0.16) start_http_server returns nothing: its server then runs until the process
    ends, on a port found free first."""
    port = free_port()
    started = prometheus_client.start_http_server(port, addr="127.0.0.1", registry=registry)
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
            body = r.read().decode()
    finally:
        if started:
            server, thread = started
            server.shutdown()
            server.server_close()
            thread.join()
    return body, {f.name: f for f in text_string_to_metric_families(body)}


def value(families, family, sample, **labels):
    for s in families[family].samples:
        if s.name == sample and all(s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    raise AssertionError("no %s %s" % (sample, labels))


def test_metrics_over_http_in_the_process():
    """The registry serves the live families; a later finish shows at the next scrape (counters grow)."""
    tp = finished_two()
    registry = prometheus_client.CollectorRegistry()
    registry.register(ttft_tpot.PrometheusCollector(tp, labels={"engine": "0"}))
    body, fam = scrape(registry)
    assert value(fam, "vllm:time_to_first_token_seconds", "vllm:time_to_first_token_seconds_count", engine="0") == 2
    assert value(fam, "vllm:time_to_first_token_seconds", "vllm:time_to_first_token_seconds_sum") == pytest.approx(0.065)
    assert value(fam, "vllm:time_to_first_token_seconds", "vllm:time_to_first_token_seconds_bucket", le="0.02") == 1
    assert value(fam, "vllm:request_success", "vllm:request_success_total", finished_reason="", model_name="m") == 2
    assert value(fam, "vllm:generation_tokens", "vllm:generation_tokens_total") == 4
    assert body.count("# HELP vllm:time_to_first_token_seconds ") == 1
    tp.submit("C", 60 * MS)
    tp.tokens("C", 1, 70 * MS)
    tp.finish("C")
    _, fam = scrape(registry)
    assert value(fam, "vllm:time_to_first_token_seconds", "vllm:time_to_first_token_seconds_count") == 3


def test_a_family_of_the_same_name_is_refused():
    """Beside vLLM's own family of a name, registering raises prometheus_client's duplicate error (in
    either order) rather than write the family twice."""
    tp = finished_two()
    registry = prometheus_client.CollectorRegistry()
    prometheus_client.Counter("vllm:request_success", "vLLM's own", registry=registry)
    with pytest.raises(ValueError, match="Duplicated"):
        registry.register(ttft_tpot.PrometheusCollector(tp))
    registry = prometheus_client.CollectorRegistry()
    registry.register(ttft_tpot.PrometheusCollector(tp))
    with pytest.raises(ValueError, match="Duplicated"):
        prometheus_client.Gauge("vllm:kv_cache_usage_perc", "vLLM's own", registry=registry)


def test_bad_names_are_refused_when_made():
    tp = finished_two()
    with pytest.raises(ValueError):
        ttft_tpot.PrometheusCollector(tp, prefix="bad prefix")
    with pytest.raises(ValueError):
        ttft_tpot.PrometheusCollector(tp, labels={"le": "1"})


@pytest.mark.skipif(not shutil.which("promtool"), reason="promtool (Debian's prometheus) is not installed")
def test_promtool_accepts_the_scrape(tmp_path):
    """promtool check metrics on what /metrics served: one HELP a family, names as its lint wants them
    (a prefix without ':')."""
    tp = finished_two()
    registry = prometheus_client.CollectorRegistry()
    registry.register(ttft_tpot.PrometheusCollector(tp, prefix="llm_"))
    body, _ = scrape(registry)
    p = subprocess.run(["promtool", "check", "metrics"], input=body.encode(), capture_output=True)
    said = [line for line in (p.stdout + p.stderr).decode().splitlines()  # but vLLM's own name of a histogram
            if 'iteration_tokens_total non-counter metrics should not have "_total" suffix' not in line]
    assert said == [], said
