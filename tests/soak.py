#!/usr/bin/env python3
"""A soak against a real Prometheus: three example drivers, each serving REQUESTS requests through a
collector that holds MAX_REQUESTS (so nearly all of them are folded away), publish their live
exposition every 0.2 s into node_exporter's textfile directory, which Prometheus scrapes on loopback.
Each driver also logs every request as it finishes (generate --request-log: the collector's own
points), the exact record the histograms are checked against. Then:
- the last request_success_total of each replica and increase() over the run equal the requests served,
  and nothing was refused or dropped;
- histogram_quantile of TTFT, TPOT and E2E (q = 0.5, 0.9, 0.99, the buckets summed across replicas) is
  within the documented bound of the exact quantile of every logged request: 25% of it, or 100 us below
  100 us (README: Fleets);
- no counter went down across 50 scrapes or more;
- each replica's resident memory stayed flat: the mean of the last quarter of its samples within 5% of
  the second quarter's (the first holds the start, as the tables and histograms fill to their size).
Prints its table and figures (also into WORK_DIR/soak.md). Exit 77 (skipped) where prometheus or
node_exporter is missing.

    tests/soak.py GENERATE_BIN REPORT_BIN WORK_DIR [REQUESTS]"""
import math
import os
import subprocess
import sys
import time

import fleet

REPLICAS, MAX_REQUESTS, RATE, LIMIT_S = 3, 1024, 500, 900
NAME = "soak"
# a model whose latencies lie above 100 us, where the buckets' 25% bound holds (below it, 100 us), and
# which a replica serves at RATE with a third of a core of a 2-core build machine (0.65 ms of CPU a request
# there: three replicas at 1,500 a second would need more than its two cores, and refuse requests)
MODEL = ["--dim", "128", "--layers", "2", "--heads", "2", "--hidden", "192", "--vocab", "64", "--prompt-len", "8",
         "--max-new-tokens", "4", "--batch", "16", "--capacity", "4096"]
METRICS = [("TTFT", "time_to_first_token_seconds"), ("TPOT", "request_time_per_output_token_seconds"),
           ("E2E", "e2e_request_latency_seconds")]


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def serve(generate, work, text, requests):
    """The replicas, their RSS sampled every 0.2 s while they run; their logs' paths and RSS samples."""
    logs = [os.path.join(work, "log_%d.csv" % k) for k in range(REPLICAS)]
    drivers = [subprocess.Popen([generate, *MODEL, "--seed", str(k + 1), "--requests", str(requests),
                                 "--max-requests", str(MAX_REQUESTS), "--arrival-rate", str(RATE),
                                 "--id-prefix", "r%d-" % k, "--prometheus", os.path.join(text, "replica_%d.prom" % k),
                                 "--prometheus-every", "0.2", "--model-name", NAME, "--label", "replica=%d" % k,
                                 "--request-log", logs[k]], stdout=subprocess.DEVNULL)
               for k in range(REPLICAS)]
    rss = [[] for _ in drivers]
    end = time.time() + LIMIT_S
    while any(d.poll() is None for d in drivers):
        if time.time() > end:
            for d in drivers:
                d.kill()
            sys.exit("soak: the replicas did not finish in %d s" % LIMIT_S)
        for k, d in enumerate(drivers):
            if d.poll() is None:
                try:
                    rss[k].append(rss_kib(d.pid))
                except OSError:  # it ended between poll and read
                    pass
        time.sleep(0.2)
    assert all(d.returncode == 0 for d in drivers), "a driver failed"
    time.sleep(4 * fleet.SCRAPE)  # the last publications scraped
    return logs, rss


def exact_values(logs):
    """Every logged request's TTFT, TPOT (two tokens or more) and E2E in ms, as the library defines them."""
    out = {"TTFT": [], "TPOT": [], "E2E": []}
    n = 0
    for path in logs:
        with open(path) as f:
            next(f)
            for line in f:
                _, submit, first, last, tokens = line.rstrip("\n").split(",")
                submit, first, last, tokens = int(submit), int(first), int(last), int(tokens)
                out["TTFT"].append((first - submit) / 1e6)
                out["E2E"].append((last - submit) / 1e6)
                if tokens > 1:
                    out["TPOT"].append((last - first) / (tokens - 1) / 1e6)
                n += 1
    return out, n


def at_rank(values, q):
    """The value at the quantile's rank (nearest rank, as the bound is stated)."""
    values = sorted(values)
    return values[max(0, math.ceil(q * len(values)) - 1)]


def check(work, pm, logs, rss, requests):
    rows = ["| metric | q | exact (ms) | PromQL (ms) | off by |", "|---|---|---|---|---|"]
    values, n = exact_values(logs)
    assert n == REPLICAS * requests, ("logged", n)
    last = max(float(s["value"][1]) for s in fleet.query(pm, 'timestamp(vllm:request_success_total{model_name="%s"})'
                                                         % NAME))
    for label, name in METRICS:
        for q in (0.5, 0.9, 0.99):
            got = fleet.query(pm, 'histogram_quantile(%g, sum by (le) (vllm:%s_bucket{model_name="%s"}))'
                              % (q, name, NAME), last)
            promql, want = float(got[0]["value"][1]) * 1e3, at_rank(values[label], q)
            rows.append("| %s | p%g | %.4f | %.4f | %+.1f%% |" % (label, q * 100, want, promql,
                                                                 (promql - want) / want * 100))
            assert abs(promql - want) <= max(fleet.BOUND * want, fleet.FLOOR_MS), (label, q, want, promql)
    per = {s["metric"]["replica"]: float(s["value"][1]) for s in
           fleet.query(pm, 'sum by (replica) (vllm:request_success_total{model_name="%s"})' % NAME, last)}
    served = sum(float(s["value"][1]) for s in
                 fleet.query(pm, 'increase(vllm:request_success_total{model_name="%s"}[1h])' % NAME, last))
    lost = sum(float(s["value"][1]) for s in fleet.query(
        pm, '{__name__=~"ttft_tpot:request_(refused|dropped)_total",model_name="%s"}' % NAME, last))
    assert sorted(per.values()) == [float(requests)] * REPLICAS and abs(served - n) < 1e-6 and lost == 0, \
        (per, served, lost)
    series, scrapes, _ = fleet.counters_never_fall(pm, ',model_name="%s"' % NAME, last)
    assert scrapes >= 50, ("scrapes", scrapes)
    flat = []
    for k, r in enumerate(rss):
        with open(os.path.join(work, "rss_%d.txt" % k), "w") as f:  # every sample, KiB, 0.2 s apart
            f.write("\n".join(map(str, r)) + "\n")
        # the second quarter against the last: the first holds the start, as the request table and the
        # bounded phases' histograms fill up to their fixed size (a leak goes on growing after it)
        quarter = max(1, len(r) // 4)
        first, final = sum(r[quarter:2 * quarter]) / quarter, sum(r[-quarter:]) / quarter
        flat.append("replica %d: RSS %.0f KiB in the second quarter, %.0f KiB in the last (%+.2f%%), %d samples, "
                    "peak %d KiB" % (k, first, final, (final - first) / first * 100, len(r), max(r)))
        assert final <= 1.05 * first and final >= 0.95 * first, flat[-1]
    lines = rows + ["", "%d requests served (%d a replica, %d held by each collector): request_success_total %s a "
                        "replica, increase() %g over the run, refused and dropped 0" % (
                            n, requests, MAX_REQUESTS, "/".join("%g" % per[r] for r in sorted(per)), served),
                    "%d series, each scraped %d times or more: no counter went down" % (series, scrapes)] + flat
    print("\n".join(lines))
    with open(os.path.join(work, "soak.md"), "w") as f:  # CI prints it
        f.write("\n".join(lines) + "\n")


def main():
    generate, report, work = sys.argv[1:4]
    requests = int(sys.argv[4]) if len(sys.argv) > 4 else 40000

    def body(text, pm):
        fleet.expose_zeros(report, work, text, pm, NAME, REPLICAS)
        logs, rss = serve(generate, work, text, requests)
        check(work, pm, logs, rss, requests)
    return fleet.run("soak", work, body)


if __name__ == "__main__":
    sys.exit(main())
