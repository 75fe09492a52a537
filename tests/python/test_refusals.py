"""Bad input is refused with the C library's message, and nothing is recorded: the collector's trace,
counts and report are what they were before the call."""
import pytest

import ttft_tpot
from conftest import MS, two_requests

BAD_NAMES = ["x" * 64, "y" * 80, "", "a\x1bb", "a\x7fb", "a\x85b", "a\u202eb", "a\u2066b", "a\ud800b", "a\x00b"]


def state(tp):
    return tp.trace(), tp.counts(), tp.report()


@pytest.fixture
def tp():
    """A collector with a little of everything, so that a refused call has something to disturb."""
    tp = ttft_tpot.Collector()
    tp.record("step", "decode", MS)
    tp.record("pre", "prefill", MS, prompt_tokens=10)
    two_requests(tp)
    return tp


def refused(tp, error, match, fn, *args, **kwargs):
    before = state(tp)
    with pytest.raises(error, match=match):
        fn(*args, **kwargs)
    assert state(tp) == before, (fn, args, kwargs)


def test_names(tp):
    for bad in BAD_NAMES:
        refused(tp, ValueError, "invalid phase name", tp.record, bad, "kernel", 1)
        refused(tp, ValueError, "invalid phase name", tp.span, bad, "kernel")
        refused(tp, ValueError, "invalid phase name: (the submit of request|a request id)", tp.submit, bad)  # the name rule
    for bad in (None, 3, b"bytes"):
        refused(tp, TypeError, "a phase name is a str", tp.record, bad, "kernel", 1)
        refused(tp, TypeError, "a request id is a str", tp.submit, bad)


def test_roles(tp):
    refused(tp, ValueError, "invalid argument: a role is prefill, decode, kernel or e2e", tp.record, "k", "oops", 1)
    refused(tp, TypeError, "a role is a str", tp.span, "k", 2)
    refused(tp, ValueError, "phase exists with another role: 'step' is a decode phase, not kernel", tp.record,
            "step", "kernel", 1)
    refused(tp, ValueError, "phase exists with another role", tp.span, "step", "prefill")


def test_counts(tp):
    for bad in (-1, 2**64):
        refused(tp, ValueError, "duration out of range", tp.record, "z", "kernel", bad)
    for bad in (-1, 2**32):
        refused(tp, ValueError, "invalid argument: tokens is in 0..4294967295", tp.record, "z", "kernel", 5, bad)
        refused(tp, ValueError, "invalid argument", tp.span, "z", "kernel", tokens=bad)
    # a bool is an int in Python, but True is not a count
    for args, kwargs in ((("k", "kernel", 5), {"tokens": True}), (("k", "kernel", True), {}),
                         (("k", "kernel", 5), {"start_ns": False}), (("k", "kernel", 1.5), {})):
        refused(tp, TypeError, "is an int", tp.record, *args, **kwargs)
    refused(tp, TypeError, "is an int", tp.tokens, "B", True, 60 * MS)
    refused(tp, TypeError, "is an int", tp.submit, "C", True)
    refused(tp, ValueError, "prompt tokens belong to a prefill phase, not a decode one", tp.record, "step", "decode",
            5, prompt_tokens=3)
    refused(tp, ValueError, "prompt_tokens is in 1..", tp.record, "pre", "prefill", 5, prompt_tokens=0)
    refused(tp, ValueError, "a shape key is in 0..18446744073709551614", tp.record, "step", "decode", 5, shape=2**64 - 1)
    refused(tp, ValueError, "duration out of range", tp.record_ms, "step", "decode", float("nan"))
    refused(tp, ValueError, "duration out of range", tp.record_ms, "step", "decode", -1.0)
    refused(tp, TypeError, "duration out of range", tp.record_ms, "step", "decode", True)


def test_requests(tp):
    refused(tp, ValueError, "request event refused", tp.submit, "B")              # twice
    refused(tp, ValueError, "request event refused", tp.tokens, "nobody", 1, 60 * MS)  # unknown
    refused(tp, ValueError, "request event refused", tp.tokens, "B", 1, 40 * MS)  # before its previous tokens
    refused(tp, ValueError, "invalid argument: a token event's tokens is in 1..", tp.tokens, "B", 0, 60 * MS)
    refused(tp, ValueError, "request event refused", tp.schedule, "B", 55 * MS)   # after its first token
    refused(tp, ValueError, "request event refused", tp.schedule, "#A", 15 * MS)  # twice
    refused(tp, ValueError, "request event refused", tp.output, "C")              # unknown
    refused(tp, ValueError, "request event refused", tp.output, "B", 40 * MS)     # before its first token
    refused(tp, ValueError, "request event refused", tp.output, "B", 60 * MS)     # after its last token
    refused(tp, ValueError, "an event time", tp.submit, "C", 2**64 - 1)


def test_states(tp):
    s = tp.span("step", "decode")
    refused(tp, ValueError, "span or warmup section misused: a span ends once, after it was entered", s.__exit__,
            None, None, None)
    with s:
        refused(tp, ValueError, "span or warmup section misused: a span is entered once", s.__enter__)
    refused(tp, ValueError, "span or warmup section misused", s.__exit__, None, None, None)
    refused(tp, ValueError, "the span has ended", setattr, s, "tokens", 3)
    refused(tp, ValueError, "span or warmup section misused: a warmup section ends after it begins", tp._warmup, False)
    with pytest.raises(AttributeError):
        del s.tokens
    with tp.span("step", "decode") as t:
        refused(tp, TypeError, "not None", setattr, t, "tokens", None)
        refused(tp, ValueError, "prompt tokens belong to a prefill phase", setattr, t, "prompt_tokens", 5)
        t.shape = None  # no shape: allowed


def test_device_tickets(tp):
    with tp.span("k", "kernel", device=0) as s:
        pass
    tp.device_elapsed(s.ticket, 500)
    refused(tp, ValueError, "device ticket unknown or resolved: ticket", tp.device_elapsed, s.ticket, 600)
    refused(tp, ValueError, "device ticket unknown or resolved", tp.device_elapsed_ms, 12345, 1.0)
    with tp.span("k", "kernel", device=0) as s:
        pass
    refused(tp, ValueError, "duration out of range", tp.device_elapsed_ms, s.ticket, float("nan"))
    refused(tp, ValueError, "duration out of range", tp.device_absolute, s.ticket, 9, 5, (0, 0))
    tp.device_absolute(s.ticket, 5, 9, (1000, 0))
    assert tp.counts()["device_refused"] == 0 and tp.counts()["device_open"] == 0


def test_tables_and_config():
    tp = ttft_tpot.Collector(max_phases=2)
    tp.record("a", "kernel", 1)
    tp.record("b", "kernel", 1)
    refused(tp, ValueError, "phase table full: 'c' would be phase 3 of 2", tp.record, "c", "kernel", 1)
    for kwargs, error in (({"capacity": -1}, ValueError), ({"max_phases": 70000}, ValueError),
                          ({"capacity": 1.5}, TypeError), ({"colour": 1}, TypeError), ({"clock": 5}, TypeError)):
        with pytest.raises(error):
            ttft_tpot.Collector(**kwargs)
    with pytest.raises(TypeError):
        ttft_tpot.Collector(5)


def test_a_failing_clock_records_nothing():
    def clock():
        if reads.pop(0):
            raise OSError("the clock is gone")
        return 1000

    reads = [False, True]
    tp = ttft_tpot.Collector(clock=clock)
    with pytest.raises(OSError, match="the clock is gone"):
        with tp.span("k", "kernel"):
            pass
    reads[:] = [True]
    with pytest.raises(OSError):
        tp.submit("r")
    reads[:] = [False]
    tp.submit("r")  # the clock works again
    assert tp.counts()["samples"] == 0 and tp.counts()["requests"] == 1
    with pytest.raises(ValueError, match="the clock's value"):
        ttft_tpot.Collector(clock=lambda: -5).submit("x")


def test_a_clock_that_fails_inside_a_refused_mark():
    """A mark without the point it follows makes the library read the clock: a clock failing there raises
    its own error, and the next call works (it raised SystemError, the error lost)."""
    reads = [False, True, False, False]

    def clock():
        if reads.pop(0):
            raise OSError("the clock broke")
        return 1000

    tp = ttft_tpot.Collector(clock=clock)
    tp.submit("r")
    with pytest.raises(OSError, match="the clock broke"):
        tp.output("r")  # no first token yet: the library reads the clock, and the mark is refused
    tp.submit("s")
    assert tp.counts()["requests"] == 2 and tp.counts()["requests_refused"] == 0


def test_trace_errors(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("phase,role,start_ns,dur_ns,tokens,warmup\nx,nope,0,1,1,0\n")
    with pytest.raises(ValueError, match=r"bad.csv:2: "):
        ttft_tpot.Collector.read_trace(bad)
    with pytest.raises(FileNotFoundError):
        ttft_tpot.Collector.read_trace(tmp_path / "missing.csv")
    with pytest.raises(IsADirectoryError):
        ttft_tpot.Collector.read_trace(tmp_path)
    tp = ttft_tpot.Collector()
    tp.record("k", "kernel", 5)
    before = state(tp)
    with pytest.raises(ValueError):
        tp.read(bad)  # a malformed trace leaves the collector as it was
    assert state(tp) == before
    with pytest.raises(ValueError, match="a prefix is"):
        tp.prometheus("bad prefix")
    with pytest.raises(ValueError, match="label name"):
        tp.prometheus(labels={"le": "x"})
