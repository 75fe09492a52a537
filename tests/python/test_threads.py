"""Spans for hooks and threads: begin()/end(), any thread recording into one collector, a span ended on
another thread, tp.now(), and a generate()-like worker thread with a streamer, whose figures are exactly
those of the same calls made on one thread."""
import queue
import threading
import time

import pytest

import ttft_tpot
from ttft_tpot.device import TorchEvents
from conftest import MS


class Clock:
    """A clock that moves only when told: every figure is then known exactly, on any thread."""

    def __init__(self):
        self.t = 1000 * MS

    def __call__(self):
        return self.t

    def step(self, ms):
        self.t += int(ms * MS)


def test_begin_and_end_as_a_hook_pair():
    clock = Clock()
    tp = ttft_tpot.Collector(clock=clock)
    open_spans = {}

    def pre_hook(module):  # as torch's register_forward_pre_hook calls it
        open_spans[module] = tp.begin("layer_" + module, "kernel")

    def post_hook(module):
        open_spans.pop(module).end()

    for ms in (3, 2, 2):
        pre_hook("attn")
        clock.step(ms)
        post_hook("attn")
    s = tp.begin("step", "decode", tokens=4)
    clock.step(8)
    s.end()
    assert s.duration_ns == 8 * MS and s.tokens == 4
    with pytest.raises(ValueError, match="a span ends once"):
        s.end()
    assert [(p["name"], p["n"], p["warmup_n"], p["max_ms"]) for p in tp.report_json()["phases"]] == [
        ("layer_attn", 3, 1, 3.0), ("step", 1, 1, 8.0)]
    assert tp.counts()["spans_open"] == 0
    tp.enabled = False
    off = tp.begin("step", "decode")
    off.end()  # the inert span: nothing recorded, no error
    assert tp.counts()["samples"] == 4


def test_now_is_the_collectors_clock():
    clock = Clock()
    assert ttft_tpot.Collector(clock=clock).now() == clock.t
    tp = ttft_tpot.Collector()  # CLOCK_MONOTONIC: what time.monotonic_ns() reads
    a = time.monotonic_ns()
    t = tp.now()
    b = time.monotonic_ns()
    assert a <= t <= b
    tp.submit("r", t_ns=t)
    tp.tokens("r", t_ns=t + 5 * MS)
    assert tp.report_json()["requests"]["ttft_ms"]["p50"] == 5.0


def test_any_thread_records_and_a_span_ends_elsewhere():
    tp = ttft_tpot.Collector()
    errors = []

    def worker():
        try:
            for _ in range(100):
                with tp.span("x", "kernel"):
                    pass
        except Exception as e:  # recorded, so that the assertion below shows it
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert tp.counts()["samples"] == 400
    assert tp.report_json()["phases"][0]["warmup_n"] == 1  # the phase's first call, once
    s = tp.begin("handoff", "kernel")
    done = threading.Thread(target=s.end)
    done.start()
    done.join()
    assert s.duration_ns is not None and tp.counts()["samples"] == 401 and tp.counts()["spans_open"] == 0


def test_per_thread_collectors_merge_with_warmup_once():
    def worker(out):
        mine = ttft_tpot.Collector()
        for _ in range(100):
            with mine.span("x", "kernel"):
                pass
        out.append(mine)

    others = []
    threads = [threading.Thread(target=worker, args=(others,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    main = ttft_tpot.Collector()
    for other in others:
        main.merge(other)
    assert main.counts()["samples"] == 400
    assert main.report_json()["phases"][0]["warmup_n"] == 1  # as one collector would flag it


class Streamer:
    """As transformers' TextIteratorStreamer: generate() calls put() from its thread, first with the
    prompt, then with each new token, and end(); the consumer iterates on its own thread."""

    def __init__(self):
        self.q, self.prompt_seen = queue.Queue(), False

    def put(self, token):
        if not self.prompt_seen:  # the prompt comes first: not a token
            self.prompt_seen = True
            return
        self.q.put(token)

    def end(self):
        self.q.put(None)

    def __iter__(self):
        while (item := self.q.get()) is not None:
            yield item


def generate(tp, clock, streamer, rid, prefill_ms, step_ms):
    """A generate() call: prefill, then decode steps, each a hook pair, each token to the streamer; the
    request's events are recorded where they happen (generation times, on this thread)."""
    streamer.put("prompt")
    s = tp.begin("prefill", "prefill", prompt_tokens=16)
    clock.step(prefill_ms)
    s.end()
    tp.tokens(rid)
    streamer.put("tok0")
    for k, ms in enumerate(step_ms):
        s = tp.begin("decode_step", "decode")
        clock.step(ms)
        s.end()
        tp.tokens(rid)
        streamer.put("tok%d" % (k + 1))
    tp.finish(rid)
    streamer.end()


def serve(threaded):
    """Two requests, the first a warmup, through generate() on a worker thread (threaded) or inline."""
    clock = Clock()
    tp = ttft_tpot.Collector(clock=clock)
    texts = []
    for rid, (prefill, steps) in (("warm", (50, (9, 4, 4))), ("r1", (20, (4, 5, 4)))):
        streamer = Streamer()
        section = tp.warmup() if rid == "warm" else None
        if section:
            section.__enter__()
        tp.submit(rid)
        if threaded:
            worker = threading.Thread(target=generate, args=(tp, clock, streamer, rid, prefill, steps))
            worker.start()
            texts.append(list(streamer))  # the consumer: until end()
            worker.join()
        else:
            generate(tp, clock, streamer, rid, prefill, steps)
            texts.append(list(streamer))
        if section:
            section.__exit__(None, None, None)
    return tp, texts


def test_generate_in_a_thread_with_a_streamer_is_exact():
    tp, texts = serve(threaded=True)
    one, one_texts = serve(threaded=False)
    assert texts == one_texts == [["tok0", "tok1", "tok2", "tok3"]] * 2  # the prompt not counted, no extra item
    assert tp.report_json_text() == one.report_json_text()
    j = tp.report_json()
    assert j["ttft"]["first_ms"] == 50.0 and j["ttft"]["first_warmup"] is True
    assert j["ttft"]["steady"]["p50_ms"] == 20.0  # r1's prefill: the warmup request flagged as one
    assert j["tpot"]["n"] == 3 and j["tpot"]["p50_ms"] == 4.0  # r1's steps; the warmup request's excluded
    assert j["requests"]["ttft_ms"]["p50"] == 20.0 and j["requests"]["n"] == 1


class FakeEvents:
    def __init__(self):
        self.now = 0.0

    def event(self):
        device = self

        class Event:
            def record(self, stream=None):
                self.t = device.now

            def elapsed_time(self, end):
                return end.t - self.t

        return Event()


def test_torch_events_begin_and_end():
    dev = FakeEvents()
    tp = ttft_tpot.Collector()
    ev = TorchEvents(tp, event=dev.event)
    for ms in (1.5, 0.5, 0.25):
        s = ev.begin("layer", "kernel")
        dev.now += ms
        s.end()
    assert ev.resolve() == 3
    phase = tp.report_json()["phases"][0]
    # the first call (1.5 ms) is warmup: the steady device times are 0.5 and 0.25 ms
    assert phase["device"]["n"] == 2 and phase["device"]["max"] == 0.5 and phase["device"]["total"] == 0.75
