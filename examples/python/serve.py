"""A streaming server in the usual continuous-batching shape, instrumented: client threads submit
requests and read each one's tokens from a queue of its own; one worker thread steps a scheduler
(admit the waiting requests, prefill them, one decode step for the whole batch) and puts each new
token in its request's queue. Every request event is recorded on the thread where it happens:
submit on the client's, schedule, tokens and finish on the worker's.

    PYTHONPATH=build/python python3 examples/python/serve.py --requests 16 --clients 4
    PYTHONPATH=build/python python3 examples/python/serve.py --metrics-port 8000   # and /metrics

The model is a stand-in (a sleep a step, longer for a bigger batch); replace Model with yours. The
report's requests section gives vLLM's per-request TTFT, TPOT, ITL, E2E and queue time."""
import argparse
import queue
import threading
import time

import ttft_tpot


class Model:
    """A stand-in: prefill costs more with a longer prompt, a decode step more with a bigger batch."""

    def prefill(self, prompt_len):
        time.sleep(0.002 + prompt_len * 1e-5)

    def decode(self, batch):
        time.sleep(0.001 + batch * 1e-4)


class Server:
    """Continuous batching: a waiting queue, a running batch of at most max_batch requests."""

    def __init__(self, tp, model, max_batch):
        self.tp, self.model, self.max_batch = tp, model, max_batch
        self.waiting = queue.Queue()
        self.running = []  # [rid, stream, tokens left]
        self.stop = threading.Event()
        self.worker = threading.Thread(target=self.loop, name="worker")

    def submit(self, rid, prompt_len, max_tokens):
        """On the client's thread: the request arrives; its tokens come back through the queue returned."""
        stream = queue.Queue()
        self.tp.submit(rid)
        self.waiting.put((rid, prompt_len, max_tokens, stream))
        return stream

    def admit(self):
        """Waiting requests into the batch, each prefilled: its first token."""
        while len(self.running) < self.max_batch:
            try:
                rid, prompt_len, max_tokens, stream = self.waiting.get_nowait()
            except queue.Empty:
                return
            self.tp.schedule(rid)
            self.tp.prompt(rid, prompt_len)  # vLLM's prompt_tokens_total and request_prompt_tokens
            with self.tp.span("prefill", "prefill", prompt_tokens=prompt_len):
                self.model.prefill(prompt_len)
            self.emit(rid, stream)
            self.running.append([rid, stream, max_tokens - 1])

    def emit(self, rid, stream):
        self.tp.tokens(rid)
        stream.put("tok")

    def step(self):
        """One decode step for the batch: a token a running request; the finished ones leave."""
        with self.tp.span("decode_step", "decode", tokens=len(self.running)):
            self.model.decode(len(self.running))
        for r in self.running:
            self.emit(r[0], r[1])
            r[2] -= 1
        for r in [r for r in self.running if r[2] == 0]:
            self.tp.finish(r[0], reason="length")  # its token budget spent
            r[1].put(None)
            self.running.remove(r)

    def loop(self):
        while not (self.stop.is_set() and self.waiting.empty() and not self.running):
            self.admit()
            if self.running:
                self.step()
            else:
                time.sleep(0.0005)


def client(server, ids, prompt_len, max_tokens, received):
    """Requests one after another, each read to its end (the client's view: delivery)."""
    for rid in ids:
        stream = server.submit(rid, prompt_len, max_tokens)
        n = 0
        while stream.get() is not None:
            n += 1
        received[rid] = n


def serve(tp, requests, clients, max_tokens=8, prompt_len=64, max_batch=4, warmup=1):
    """warmup requests first, inside a warmup section, then the rest from clients threads."""
    server = Server(tp, Model(), max_batch)
    server.worker.start()
    received = {}
    with tp.warmup():
        client(server, ["warm%d" % k for k in range(warmup)], prompt_len, max_tokens, received)
    threads = [threading.Thread(target=client, args=(server, ["r%d" % k for k in range(c, requests, clients)],
                                                     prompt_len, max_tokens, received)) for c in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    server.stop.set()
    server.worker.join()
    return received


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--requests", type=int, default=16)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--max-tokens", type=int, default=8)
    ap.add_argument("--metrics-port", type=int, help="serve the live families at /metrics on this port while it "
                    "runs, and print the last scrape (needs prometheus_client: pip install 'ttft_tpot[prometheus]')")
    args = ap.parse_args()
    tp = ttft_tpot.Collector(model_name="stand-in")
    if args.metrics_port is not None:
        import urllib.request
        from prometheus_client import REGISTRY
        REGISTRY.register(ttft_tpot.PrometheusCollector(tp))  # beside the process's own families
        ttft_tpot.start_metrics_server(args.metrics_port)  # the text format: names keep their ':'

    serve(tp, args.requests, args.clients, args.max_tokens)
    print(tp.report())
    if args.metrics_port is not None:
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % args.metrics_port) as r:
            print("\n".join(line for line in r.read().decode().splitlines() if "request_success_total{" in line))


if __name__ == "__main__":
    main()
