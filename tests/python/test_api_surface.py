"""What a user meets first: the module's names, a missing file's message, a torch backend without
timing events refused when TorchEvents is made."""
import os
import pathlib
import subprocess
import sys
import types

import pytest

import ttft_tpot
from ttft_tpot.device import TorchEvents

# Public before the namespace was tidied, and still public: never removed.
KEPT = {"Collector", "Comparison", "Span", "compare", "ranks", "DEFAULTS", "PathLike", "F"}
ADDED = {"RequestsLostWarning", "PrometheusCollector", "start_metrics_server"}  # since: 0.4.0


def test_the_namespace_is_the_api():
    public = {n for n in dir(ttft_tpot) if not n.startswith("_")} - {"device"}  # the submodule, once imported
    assert public == KEPT | ADDED, public ^ (KEPT | ADDED)
    for name in ttft_tpot.__all__:
        assert hasattr(ttft_tpot, name), name
    assert set(ttft_tpot.__all__) <= KEPT | ADDED | {"__version__"}


def test_the_annotations_resolve():
    """typing.get_type_hints (documentation tools, checkers at run time) finds every annotation's name."""
    import typing
    for fn in (ttft_tpot.ranks, ttft_tpot.compare, ttft_tpot.Comparison.__init__, ttft_tpot.Comparison.json):
        typing.get_type_hints(fn)
    for name, member in vars(ttft_tpot.Collector).items():
        member = getattr(member, "__func__", member)
        if callable(member) and hasattr(member, "__annotations__"):
            typing.get_type_hints(member)


@pytest.mark.parametrize("given", ["nope.csv", pathlib.Path("nope.csv"), b"nope.csv"])
def test_a_missing_trace_is_named_as_given(tmp_path, monkeypatch, given):
    monkeypatch.chdir(tmp_path)
    expected = os.fspath(given)  # as open() names it: a path-like object by its fspath
    for read in (ttft_tpot.Collector.read_trace, ttft_tpot.Collector().read):
        with pytest.raises(FileNotFoundError) as e:
            read(given)
        assert e.value.filename == expected and type(e.value.filename) is type(expected)
        assert str(e.value).endswith(": %r" % expected)


def test_a_publication_nowhere_is_named_as_given(tmp_path):
    path = tmp_path / "no" / "x.prom"
    for given in (str(path), path):
        with pytest.raises(FileNotFoundError) as e:
            ttft_tpot.Collector().publish(given)
        assert e.value.filename == str(path)


def test_the_command_names_a_missing_trace_as_given(tmp_path):
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(ttft_tpot.__file__))))
    p = subprocess.run([sys.executable, "-m", "ttft_tpot", "nope.csv"], capture_output=True, cwd=tmp_path, env=env)
    assert p.returncode == 1
    assert "b'nope.csv'" not in p.stderr.decode() and "nope.csv" in p.stderr.decode()


# ---- TorchEvents against fake torch modules ------------------------------------------------------

class TimingEvent:
    """As torch.cuda.Event: takes enable_timing, records, gives elapsed_time in ms."""

    def __init__(self, enable_timing=False):
        self.timing = enable_timing

    def record(self, stream=None):
        self.t = 1.0 if hasattr(TimingEvent, "started") else 0.0
        TimingEvent.started = True

    def elapsed_time(self, end):
        return end.t - self.t


class NoArgsEvent:
    """As torch.cpu.Event: no arguments (so no enable_timing), no elapsed_time."""

    def record(self, stream=None):
        pass


class UntimedEvent:
    """Takes enable_timing, but cannot say the time between two events."""

    def __init__(self, enable_timing=False):
        pass

    def record(self, stream=None):
        pass


@pytest.fixture
def fake_torch(monkeypatch):
    torch = types.ModuleType("torch")
    for name, event in (("cuda", TimingEvent), ("cpu", NoArgsEvent), ("xpu", UntimedEvent)):
        setattr(torch, name, types.SimpleNamespace(Event=event, synchronize=lambda: None))
    torch.mps = types.SimpleNamespace(synchronize=lambda: None)  # no Event at all
    monkeypatch.setitem(sys.modules, "torch", torch)
    return torch


def test_a_backend_without_timing_events_is_refused_when_made(fake_torch):
    tp = ttft_tpot.Collector()
    for backend in ("cpu", "xpu", "mps", "nope"):
        with pytest.raises(ValueError, match="torch.%s" % backend):
            TorchEvents(tp, backend=backend)
    assert tp.counts()["samples"] == 0


def test_a_backend_with_timing_events_works(fake_torch):
    tp = ttft_tpot.Collector()
    dev = TorchEvents(tp, backend="cuda")
    with dev.span("layer", "kernel"):
        pass
    assert dev.synchronize() == 1
    assert tp.counts()["device_intervals"] == 1


def test_no_reference_leaks(tmp_path, monkeypatch):
    """The paths and collectors handed to the refusing calls keep their reference counts; the memory
    of many refusals does not grow."""
    import tracemalloc

    from conftest import VECTORS

    monkeypatch.chdir(tmp_path)
    missing, nowhere, vector = "nope.csv", str(tmp_path / "no" / "x.prom"), str(VECTORS[0])
    uninit = ttft_tpot.Collector.__new__(ttft_tpot.Collector)
    objects = (missing, nowhere, vector, uninit)

    def rounds(n):
        tp = ttft_tpot.Collector()
        for _ in range(n):
            for call, arg in ((tp.read, missing), (tp.read, pathlib.Path(missing)), (tp.publish, nowhere)):
                try:
                    call(arg)
                except OSError:
                    pass
            ttft_tpot.Collector.read_trace(vector)
            for call in (uninit.report, uninit.counts, lambda: ttft_tpot.compare(tp, uninit)):
                try:
                    call()
                except RuntimeError:
                    pass

    rounds(10)
    before = [sys.getrefcount(o) for o in objects]
    tracemalloc.start()
    rounds(50)
    first, _ = tracemalloc.get_traced_memory()
    rounds(200)
    second, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert [sys.getrefcount(o) for o in objects] == before
    assert second - first < 64 * 1024, (first, second)
