"""ttft_tpot.device.TorchEvents against a fake device: events that read its clock (in ms, as
torch.cuda.Event.elapsed_time gives them), kernels that advance it; figures worked by hand."""
import sys

import pytest

import ttft_tpot
from ttft_tpot.device import TorchEvents


class FakeDevice:
    """A device clock in ms; an event records it, as torch.cuda.Event(enable_timing=True) does."""

    def __init__(self):
        self.now, self.syncs, self.streams = 0.0, 0, []

    def event(self):
        device = self

        class Event:
            def record(self, stream=None):
                device.streams.append(stream)
                self.t = device.now

            def elapsed_time(self, end):
                return end.t - self.t

        return Event()

    def synchronize(self):
        self.syncs += 1


def test_device_time_by_hand():
    dev = FakeDevice()
    tp = ttft_tpot.Collector()
    ev = TorchEvents(tp, event=dev.event, synchronize=dev.synchronize, torch_stream="s")
    for step in range(4):  # step 0 and the first layer call are warmup
        with tp.span("decode_step", "decode"):
            for layer in range(2):
                with ev.span("layer", "kernel"):
                    dev.now += (step + 1) * 0.25 + layer * 0.125  # the kernel's device time, ms
            assert ev.synchronize() == 2
    assert dev.syncs == 4 and set(dev.streams) == {"s"} and not ev.pending
    rep = tp.report_json()
    layer = [p for p in rep["phases"] if p["name"] == "layer"][0]["device"]
    # steady: 0.375, 0.5, 0.625, 0.75, 0.875, 1.0, 1.125 ms
    assert (layer["n"], layer["p50"], layer["mean"], layer["min"], layer["max"]) == (7, 0.75, 0.75, 0.375, 1.125)
    d = rep["device"]
    assert (d["intervals"], d["open"], d["refused"], d["unresolved"]) == (8, 0, 0, 0)
    # a steady step's device time is its kernels': 0.5 + 0.625, 0.75 + 0.875, 1.0 + 1.125 ms
    assert (d["tpot"]["n"], d["tpot"]["p50"], d["tpot"]["min"], d["tpot"]["max"]) == (3, 1.625, 1.125, 2.125)
    assert d["busy_steps"] == 3 and 0 < d["busy_fraction"]
    assert "Device time (8 intervals resolved" in tp.report()


def test_torch_is_imported_only_when_asked(monkeypatch):
    assert "torch" not in sys.modules  # importing the package and its helper did not import it
    monkeypatch.setitem(sys.modules, "torch", None)  # as where torch is not installed
    with pytest.raises(ImportError):
        TorchEvents(ttft_tpot.Collector())
    TorchEvents(ttft_tpot.Collector(), event=FakeDevice().event)  # a factory needs no torch


def test_fake_torch_backend(monkeypatch):
    """backend picks torch.<backend>.Event and .synchronize, as torch.cuda and torch.npu have them."""
    dev = FakeDevice()
    fake = type(sys)("torch")
    fake.npu = type(sys)("torch.npu")
    fake.npu.Event = lambda enable_timing: dev.event() if enable_timing else None
    fake.npu.synchronize = dev.synchronize
    monkeypatch.setitem(sys.modules, "torch", fake)
    tp = ttft_tpot.Collector()
    ev = TorchEvents(tp, backend="npu", stream=3)
    with ev.span("k", "kernel"):
        dev.now += 2.0
    assert ev.synchronize() == 1 and dev.syncs == 1
    assert tp.report_json()["device"]["intervals"] == 1
    with pytest.raises(ValueError, match="no cuda backend"):
        TorchEvents(tp, backend="cuda")


def test_refusals_and_losses_are_reported():
    dev = FakeDevice()
    tp = ttft_tpot.Collector()
    ev = TorchEvents(tp, event=dev.event)
    with ev.span("k", "kernel"):
        dev.now += 1
    tp.clear()  # its ticket is unknown from now on
    with ev.span("k", "kernel"):
        dev.now += 1
    with pytest.raises(ValueError, match="device ticket unknown or resolved"):
        ev.resolve()
    assert tp.counts()["device_intervals"] == 1 and tp.counts()["device_open"] == 0  # the second resolved
    with pytest.raises(RuntimeError):
        with ev.span("k", "kernel"):
            raise RuntimeError("the kernel failed")
    assert len(ev.pending) == 0  # the block raised: its span is cancelled, no ticket to resolve
    assert tp.counts()["spans_cancelled"] == 1
    with pytest.raises(ValueError, match="no synchronize"):
        ev.synchronize()
    tp.enabled = False
    with ev.span("k", "kernel"):
        pass
    assert len(ev.pending) == 0  # recording off: no ticket, nothing to resolve


def test_batch_resolve():
    """A step's tickets in one call: elapsed and absolute stamps; a refused one raises once the rest are in."""
    tp = ttft_tpot.Collector()
    tickets = []
    for _ in range(4):
        with tp.span("k", "kernel", device=0) as s:
            pass
        tickets.append(s.ticket)
    tp.device_resolve([(tickets[0], 2000), (tickets[1], 3000)])
    host = tp.now()
    tp.device_resolve([(tickets[2], 500, 1500)], pair=(host, 0))  # device clock 0 is the host's `host`
    assert tp.counts()["device_intervals"] == 4 and tp.counts()["device_open"] == 1
    with pytest.raises(ValueError, match=r"device ticket unknown or resolved: 1 of 2 stamps refused"):
        tp.device_resolve([(tickets[0], 1), (tickets[3], 4000)])
    assert tp.counts()["device_open"] == 0  # the fourth resolved beside the refusal
    phase = tp.report_json()["phases"][0]["device"]
    assert phase["n"] == 3 and phase["total"] == 0.008  # 3 + 1 + 4 us, the first call (2 us) warmup
    with pytest.raises(ValueError, match="a stamp is"):
        tp.device_resolve([(1,)])
    with pytest.raises(TypeError):
        tp.device_resolve([(tickets[0], True)])
    with pytest.raises(ValueError):
        tp.device_resolve([(tickets[3], 1, 2)])  # absolute without a pair: refused


def test_queued_stamp():
    """(ticket, queued_ns, begin_ns, end_ns): the runtime's queued stamp splits the queue delay into launch
    overhead (issue to queued) and queue wait (queued to begin)."""
    now = [0]
    tp = ttft_tpot.Collector(clock=lambda: now[0])
    stamps = []
    for issue in (10000, 20000):  # the first call of a phase is warmup
        now[0] = issue
        with tp.span("k", "kernel", device=0) as s:
            pass
        # on a device clock 5000 ns ahead: queued 700 ns after the issue, begun 1000 ns after it
        stamps.append((s.ticket, issue + 5700, issue + 6000, issue + 8000))
    tp.device_resolve(stamps, pair=(0, 5000))
    rep = tp.report_json()
    phase = rep["phases"][0]
    assert phase["queue_delay"]["p50"] == 0.001
    assert phase["launch_overhead"]["p50"] == 0.0007 and phase["queue_wait"]["p50"] == 0.0003
    assert rep["device"]["queued"] == 2
    with tp.span("k", "kernel", device=0) as s:
        pass
    with pytest.raises(ValueError, match="a stamp is"):
        tp.device_resolve([(s.ticket, 1, 2, 3, 4)])
    with pytest.raises(ValueError):  # queued after begin: refused
        tp.device_resolve([(s.ticket, 7000, 6000, 8000)], pair=(0, 5000))
    assert tp.report_json()["device"]["open"] == 1  # raised, not counted: the ticket waits for a good stamp
