#!/usr/bin/env python3
"""A fleet against a real Prometheus: three example drivers labelled replica=0..2 serve requests and
publish their live exposition (generate --prometheus-every) into node_exporter's textfile directory;
Prometheus, on loopback with its data in WORK_DIR, scrapes node_exporter. Then, through its HTTP API:
- for TTFT, TPOT, ITL, E2E, queue and prefill, histogram_quantile of q = 0.5, 0.9, 0.99 over the
  buckets summed across replicas is within the documented bound of the exact figure ttft_tpot_report
  gives for the three traces: 25% of it, or 100 us below 100 us (README: Fleets);
- increase(request_success_total) is the requests served, and no counter went down between scrapes;
- a query of a dashboard's kind for every vLLM family written (histogram_quantile over rate of the
  buckets, increase of a counter by finished_reason, a gauge) returns data, and the token histograms'
  quantiles lie in the bucket of the exact count (every request 16 prompt tokens and 8 generated).
Prints the table of PromQL against exact. Exit 77 (skipped) where prometheus or node_exporter is
missing.

    tests/fleet.py GENERATE_BIN REPORT_BIN WORK_DIR"""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

REPLICAS, REQUESTS, SCRAPE = 3, 240, 0.25
NAME = "fleet-tiny"  # the model_name label of every series, as vLLM writes it
MODEL = ["--dim", "128", "--layers", "4", "--heads", "4", "--hidden", "256", "--vocab", "512", "--prompt-len", "16",
         "--max-new-tokens", "8", "--batch", "8", "--warmup-runs", "1"]
METRICS = [("TTFT", "time_to_first_token_seconds", "ttft_ms"), ("TPOT", "request_time_per_output_token_seconds",
           "tpot_ms"), ("ITL", "inter_token_latency_seconds", "itl_ms"), ("E2E", "e2e_request_latency_seconds",
           "e2e_ms"), ("queue", "request_queue_time_seconds", "queue_ms"), ("prefill", "request_prefill_time_seconds",
           "prefill_ms")]
BOUND, FLOOR_MS = 0.25, 0.1  # the documented bound: 25%, or 100 us below 100 us


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def query(port, promql, at=None):
    args = {"query": promql}
    if at is not None:
        args["time"] = repr(at)
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (port, urllib.parse.urlencode(args))
    with urllib.request.urlopen(url, timeout=10) as r:
        out = json.load(r)
    assert out["status"] == "success", out
    return out["data"]["result"]


def wait_for(what, check, seconds=30):
    end = time.time() + seconds
    while time.time() < end:
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.1)
    sys.exit("fleet: %s did not come up in %d s" % (what, seconds))


def start(work, procs):
    """node_exporter on the textfile directory, Prometheus scraping it every SCRAPE s; their ports."""
    ne, pm = free_port(), free_port()
    text = os.path.join(work, "textfile")
    os.makedirs(text)
    procs.append(subprocess.Popen(["prometheus-node-exporter", "--web.listen-address=127.0.0.1:%d" % ne,
                                   "--collector.disable-defaults", "--collector.textfile",
                                   "--collector.textfile.directory=" + text], stderr=subprocess.DEVNULL))
    with open(os.path.join(work, "prometheus.yml"), "w") as f:
        f.write("global:\n  scrape_interval: %dms\n  evaluation_interval: %dms\nscrape_configs:\n"
                "  - job_name: fleet\n    honor_labels: true\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % (SCRAPE * 1000, SCRAPE * 1000, ne))
    procs.append(subprocess.Popen(["prometheus", "--config.file=" + os.path.join(work, "prometheus.yml"),
                                   "--storage.tsdb.path=" + os.path.join(work, "data"),
                                   "--web.listen-address=127.0.0.1:%d" % pm], stderr=subprocess.DEVNULL))
    wait_for("Prometheus", lambda: urllib.request.urlopen("http://127.0.0.1:%d/-/ready" % pm, timeout=2).status == 200)
    return text, pm


def expose_zeros(report, work, text, pm, name, replicas):
    """Each replica first exposes zeros, scraped before any request finishes, so increase() sees every
    request."""
    empty = os.path.join(work, "empty.csv")
    with open(empty, "w") as f:
        f.write("phase,role,start_ns,dur_ns,tokens,warmup\n")
    for k in range(replicas):
        with open(os.path.join(text, "replica_%d.prom" % k), "w") as f:
            subprocess.run([report, "--prometheus", "--model-name", name, "--label", "replica=%d" % k, empty], stdout=f,
                           stderr=subprocess.DEVNULL, check=False)  # exit 3: nothing to count, as it should
    wait_for("the zero expositions' scrape",
             lambda: len(query(pm, 'vllm:request_success_total{finished_reason="",model_name="%s"}' % name))
             == replicas)
    time.sleep(2 * SCRAPE)


def stop(procs):
    """Prometheus and node_exporter, stopped by their PIDs."""
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()


def serve(generate, report, work, text, pm):
    """The replicas: each first exposes zeros (so increase() sees every request), then serves."""
    expose_zeros(report, work, text, pm, NAME, REPLICAS)
    drivers = [subprocess.Popen([generate, *MODEL, "--seed", str(k + 1), "--requests", str(REQUESTS),
                                 "--arrival-rate", "80", "--id-prefix", "r%d-" % k, "--prometheus", os.path.join(text, "replica_%d.prom" % k),
                                 "--prometheus-every", "0.2", "--model-name", NAME, "--label", "replica=%d" % k,
                                 "--trace", os.path.join(work, "replica_%d.csv" % k)], stdout=subprocess.DEVNULL)
               for k in range(REPLICAS)]
    for d in drivers:
        assert d.wait() == 0, "a driver failed"
    time.sleep(4 * SCRAPE)  # the last publications scraped


def check(report, work, pm):
    traces = [os.path.join(work, "replica_%d.csv" % k) for k in range(REPLICAS)]
    exact = json.loads(subprocess.run([report, "--json", *traces], capture_output=True, check=True).stdout)["requests"]
    rows = ["| metric | q | exact (ms) | PromQL (ms) | off by |", "|---|---|---|---|---|"]
    worst = 0.0
    for label, name, key in METRICS:
        for q, p in ((0.5, "p50"), (0.9, "p90"), (0.99, "p99")):
            got = query(pm, "histogram_quantile(%g, sum by (le) (vllm:%s_bucket))" % (q, name))
            promql = float(got[0]["value"][1]) * 1e3
            want = exact[key][p]
            off = (promql - want) / want
            rows.append("| %s | %s | %.4f | %.4f | %+.1f%% |" % (label, p, want, promql, off * 100))
            assert abs(promql - want) <= max(BOUND * want, FLOOR_MS), (label, p, want, promql)
            worst = max(worst, abs(off) if want >= FLOOR_MS else 0)
    print("\n".join(rows))
    with open(os.path.join(work, "table.md"), "w") as f:  # CI prints it
        f.write("\n".join(rows) + "\n")
    last = max(float(s["value"][1]) for s in query(pm, "timestamp(vllm:request_success_total)"))
    served = sum(float(s["value"][1]) for s in query(pm, "increase(vllm:request_success_total[1h])", last))
    print("increase(vllm:request_success_total[1h]) summed over replicas at the last scrape: %g (served: %d)"
          % (served, exact["n"]))
    assert abs(served - exact["n"]) < 1e-9 and exact["n"] == REPLICAS * REQUESTS
    # a vLLM dashboard's panel: its queries filter on model_name
    panel = query(pm, 'histogram_quantile(0.99, sum by (le) (rate(vllm:time_to_first_token_seconds_bucket'
                      '{model_name="%s"}[1h])))' % NAME, last)
    assert len(panel) == 1 and float(panel[0]["value"][1]) > 0, panel
    gauges = query(pm, 'vllm:num_requests_running{model_name="%s"}' % NAME, last)
    assert sorted(float(g["value"][1]) for g in gauges) == [0.0] * REPLICAS, gauges  # every request finished
    print("a panel's query filtered on model_name=%s: TTFT p99 %.4f ms; num_requests_running 0 on each replica"
          % (NAME, float(panel[0]["value"][1]) * 1e3))
    dashboard(pm, last)
    series, _, most = counters_never_fall(pm, "", last)
    print("%d series, %d scrapes of each at most: no counter went down; worst relative error %.1f%%"
          % (series, most, worst * 100))


# Every histogram family of vLLM's the replicas write, and where the exact value of the token ones lies
# (the bucket holding it: (lo, hi]): 16 prompt tokens, all computed (no prefix cache), 8 generated
# (max_tokens 8, n 1) a request.
HISTOGRAMS = {"time_to_first_token_seconds": None, "inter_token_latency_seconds": None,
              "request_time_per_output_token_seconds": None, "e2e_request_latency_seconds": None,
              "request_queue_time_seconds": None, "request_prefill_time_seconds": None,
              "request_decode_time_seconds": None, "request_inference_time_seconds": None,
              "request_prompt_tokens": (10, 20), "request_prefill_kv_computed_tokens": (10, 20),
              "request_generation_tokens": (5, 10), "request_params_max_tokens": (5, 10), "request_params_n": (0, 1),
              "request_max_num_generation_tokens": (5, 10), "iteration_tokens_total": None,
              "request_num_preemptions": (0, 1)}
COUNTERS = ["prompt_tokens_total", "generation_tokens_total", "num_preemptions_total", "prefix_cache_queries_total",
            "prefix_cache_hits_total", "prompt_tokens_cached_total", "spec_decode_num_drafts_total",
            "spec_decode_num_draft_tokens_total", "spec_decode_num_accepted_tokens_total"]
GAUGES = ["num_requests_running", "num_requests_waiting", "num_requests_waiting_by_reason", "kv_cache_usage_perc"]


def dashboard(pm, at):
    """A query of a dashboard's kind for every vLLM family: none may come back empty."""
    sel = '{model_name="%s"}' % NAME
    for name, bucket in HISTOGRAMS.items():
        got = query(pm, "histogram_quantile(0.9, sum by (le) (rate(vllm:%s_bucket%s[1h])))" % (name, sel), at)
        assert len(got) == 1, (name, got)
        v = float(got[0]["value"][1])
        assert v == v and (bucket is None or bucket[0] <= v <= bucket[1]), (name, v, bucket)
    by_reason = query(pm, "sum by (finished_reason) (increase(vllm:request_success_total%s[1h]))" % sel, at)
    length = [float(r["value"][1]) for r in by_reason if r["metric"].get("finished_reason") == "length"]
    assert length == [REPLICAS * REQUESTS], by_reason
    for name in COUNTERS:
        assert len(query(pm, "sum(rate(vllm:%s%s[1h]))" % (name, sel), at)) == 1, name
    for name in GAUGES:
        assert query(pm, "vllm:%s%s" % (name, sel), at), name
    print("a query of a dashboard's kind for each of %d vLLM families returned data; the token histograms' "
          "p90 lie in their exact values' buckets" % (len(HISTOGRAMS) + 1 + len(COUNTERS) + len(GAUGES)))


def counters_never_fall(pm, labels, at):
    """Every counter and histogram series (with labels, e.g. ',model_name="x"') over the last hour at
    `at` never went down from one scrape to the next: their number, and the fewest and most scrapes."""
    series = query(pm, '{__name__=~"(vllm|ttft_tpot):.*(_bucket|_count|_sum|_total)"%s}[1h]' % labels, at)
    for s in series:
        values = [float(v) for _, v in s["values"]]
        assert all(b >= a for a, b in zip(values, values[1:])), ("a counter went down", s["metric"])
    return len(series), min(len(s["values"]) for s in series), max(len(s["values"]) for s in series)


def run(name, work, body):
    """body(text, pm) against Prometheus and node_exporter started on loopback with their files in
    work; exit 77 (skipped) where either is missing."""
    missing = [b for b in ("prometheus", "prometheus-node-exporter") if not shutil.which(b)]
    if missing:
        print("%s: %s not found (Debian: apt-get install prometheus prometheus-node-exporter): SKIPPED"
              % (name, " and ".join(missing)))
        return 77
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    procs = []
    try:
        body(*start(work, procs))
    finally:
        stop(procs)
    return 0


def main():
    generate, report, work = sys.argv[1:4]

    def body(text, pm):
        serve(generate, report, work, text, pm)
        check(report, work, pm)
    return run("fleet", work, body)


if __name__ == "__main__":
    sys.exit(main())
