"""A collector's life: one whose __init__ never ran is refused by every entry point (it holds no C
collector), and cycles through a collector and its spans are collected."""
import gc
import inspect
import weakref

import pytest

import ttft_tpot
from ttft_tpot import _core
from conftest import MS, VECTORS

NOT_SET_UP = "Collector.__init__"


def uninit():
    return ttft_tpot.Collector.__new__(ttft_tpot.Collector)


def good():
    tp = ttft_tpot.Collector()
    tp.record("step", "decode", MS)
    return tp


class Forgetful(ttft_tpot.Collector):
    """A subclass whose __init__ does not call super().__init__()."""

    def __init__(self, name):
        self.name = name


# Arguments for each public method of ttft_tpot.Collector: a method missing here fails the sweep.
CALLS = {
    "span": ("p", "decode"),
    "begin": ("p", "decode"),
    "now": (),
    "record": ("p", "decode", 5),
    "phase": ("p", "decode"),
    "shape_row": ("p", 1, "row"),
    "run": (),
    "submit": ("r",),
    "schedule": ("r",),
    "output": ("r",),
    "tokens": ("r",),
    "finish": ("r",),
    "prompt": ("r", 8),
    "cached": ("r", 0),
    "tell": ("num_preemptions", 1),
    "publish": ("/nonexistent/dir/x.prom",),
    "device_resolve": ([(1, 5)],),
    "device_elapsed": (1, 5),
    "device_elapsed_ms": (1, 0.5),
    "device_absolute": (1, 0, 5, (0, 0)),
    "report": (),
    "report_json": (),
    "report_json_text": (),
    "prometheus": (),
    "html": ("x",),
    "trace": (),
    "chrome_trace": (),
    "requests_csv": (),
    "write_html": ("/nonexistent/dir/x.html",),
    "write_trace": ("/nonexistent/dir/x.csv",),
    "write_chrome_trace": ("/nonexistent/dir/x.json",),
    "write_requests_csv": ("/nonexistent/dir/x.csv",),
    "read": (VECTORS[0],),
    "samples": ("p",),
    "phases": (),
    "counts": (),
    "clear": (),
    "merge": (None,),  # filled with a good collector
    "set_slo": (1, 2, 3),
    "record_ms": ("p", "decode", 0.5),
    "link_prefill_kernel": ("k",),
    "_warmup": (True,),
    "_report_json": (),
    "_prometheus": (None, None),
    "_html": ("x",),
    "_trace": (),
    "_chrome_trace": (),
    "_read": (VECTORS[0], "x"),
    "_samples": ("p", True, True),
    "_set_slo": (1.0, 2.0, 3.0),
    "_publish": ("/nonexistent/dir/x.prom", None, None),
    "_published": (None, None),
}


AS_CONTEXT = {"timed", "warmup"}  # they call the collector later: the next test


def public_methods():
    for name, member in inspect.getmembers(ttft_tpot.Collector):
        if name.startswith("__") or name in AS_CONTEXT or isinstance(inspect.getattr_static(ttft_tpot.Collector, name), classmethod):
            continue
        if callable(member):
            yield name


def test_every_method_refuses_an_uninitialised_collector():
    names = list(public_methods())
    assert set(names) <= set(CALLS), set(names) - set(CALLS)
    for name in names:
        for tp in (uninit(), Forgetful("f")):
            args = (good(),) if name == "merge" else CALLS[name]
            with pytest.raises(RuntimeError, match=NOT_SET_UP):
                getattr(tp, name)(*args)
            # the C methods called unbound, past the Python class
            if hasattr(_core.Collector, name):
                with pytest.raises(RuntimeError, match=NOT_SET_UP):
                    getattr(_core.Collector, name)(tp, *args)


def test_the_context_managers_and_attributes_refuse_it():
    for tp in (uninit(), Forgetful("f")):
        with pytest.raises(RuntimeError, match=NOT_SET_UP):
            with tp.warmup():
                pass
        with pytest.raises(RuntimeError, match=NOT_SET_UP):
            tp.timed("p", "decode")(lambda: 1)()
        with pytest.raises(RuntimeError, match=NOT_SET_UP):
            tp.enabled
        with pytest.raises(RuntimeError, match=NOT_SET_UP):
            tp.enabled = False


def test_the_reported_crashes():
    with pytest.raises(RuntimeError, match=NOT_SET_UP):
        ttft_tpot.Collector.__new__(ttft_tpot.Collector)._samples("p", True, True)
    with pytest.raises(RuntimeError, match=NOT_SET_UP):
        Forgetful("f").samples("p")
    for base, new in ((good(), uninit()), (uninit(), good())):
        with pytest.raises(RuntimeError, match=NOT_SET_UP):
            ttft_tpot.compare(base, new)
        with pytest.raises(RuntimeError, match=NOT_SET_UP):
            _core._compare(base, new, 0.05, 0, None, None)
    with pytest.raises(RuntimeError, match=NOT_SET_UP):
        ttft_tpot.ranks([good(), uninit()])
    with pytest.raises(RuntimeError, match=NOT_SET_UP):
        good().merge(uninit())


def test_set_up_later_it_works():
    tp = uninit()
    with pytest.raises(RuntimeError):
        tp.report()
    ttft_tpot.Collector.__init__(tp)
    tp.record("step", "decode", MS)
    assert tp.counts()["samples"] == 1
    with pytest.raises(TypeError, match="set up once"):
        ttft_tpot.Collector.__init__(tp)


def test_a_failed_init_leaves_it_refused():
    tp = uninit()
    with pytest.raises(ValueError):
        ttft_tpot.Collector.__init__(tp, clock=lambda: 0, percentiles="90,50")
    with pytest.raises(RuntimeError, match=NOT_SET_UP):
        tp.report()


def test_a_span_cannot_be_made_alone():
    """A Span comes from Collector.span() only: no uninitialised one to check."""
    for make in (lambda: _core.Span(), lambda: _core.Span.__new__(_core.Span), lambda: object.__new__(_core.Span)):
        with pytest.raises(TypeError):
            make()


# ---- Cycles ---------------------------------------------------------------------------------------

class Canary:
    pass


class Holder(ttft_tpot.Collector):
    pass


def collected(make, n=50):
    """make() returns weak references to what must go; after gc.collect() none is alive."""
    gc.collect()
    refs = [r for _ in range(n) for r in make()]
    gc.collect()
    alive = sum(r() is not None for r in refs)
    assert alive == 0, "%d of %d objects still alive" % (alive, len(refs))


def test_a_collector_holding_its_span_is_collected():
    def make():
        tp = Holder()
        with tp.span("step", "decode") as s:
            pass
        tp.last = s  # collector -> its __dict__ -> span -> collector
        return [weakref.ref(tp)]

    collected(make)


def test_a_span_held_by_its_clock_is_collected():
    def make():
        canary, box = Canary(), []

        def clock():
            return len(box) + (canary is not None)

        tp = ttft_tpot.Collector(clock=clock)
        span = tp.span("step", "decode")
        box.append(span)  # collector -> clock -> closure -> box -> span -> collector
        with span:
            pass
        return [weakref.ref(canary)]

    collected(make)


def test_a_span_not_entered_in_a_cycle_is_collected():
    def make():
        tp = Holder()
        tp.pending = tp.span("step", "decode")
        return [weakref.ref(tp)]

    collected(make)


def test_no_leak_over_many_cycles():
    """The objects gc tracks do not grow over rounds of cycles through collectors and spans."""

    def round_():
        for _ in range(50):
            tp = Holder(clock=lambda: 0)
            with tp.span("step", "decode") as s:
                pass
            tp.last = s
        gc.collect()

    round_()
    before = len(gc.get_objects())
    for _ in range(5):
        round_()
    assert len(gc.get_objects()) - before < 50


def test_a_span_never_ended_is_counted():
    """A span made without `with` (or never exited) records nothing; the report says so, not "0 samples" alone."""
    tp = ttft_tpot.Collector()
    s = tp.span("step", "decode")
    assert tp.counts()["spans_open"] == 1
    assert "WARNING: 1 span begun and not ended: what it timed is in no figure" in tp.report()
    assert tp.report_json()["spans_open"] == 1
    with pytest.raises(ValueError):
        tp.span("step", "kernel")  # refused: not a span left open
    assert tp.counts()["spans_open"] == 1
    with s:
        pass
    assert tp.counts()["spans_open"] == 0 and tp.counts()["samples"] == 1
