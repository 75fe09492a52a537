"""ttft_tpot: TTFT, TPOT and the other latency figures of an LLM inference loop, in-process.

The C library (include/ttft_tpot.h) compiled in: the same collector, the same statistics, so every
report (text, JSON, HTML, Prometheus, Chrome trace, the trace file) is byte for byte the one the C
library and ``ttft_tpot_report`` make from the same samples.

    import ttft_tpot
    tp = ttft_tpot.Collector()
    with tp.span("prefill", "prefill", prompt_tokens=len(prompt)):
        logits = model.prefill(prompt)
    for _ in range(steps):
        with tp.span("decode_step", "decode"):
            token = model.decode(token)
    print(tp.report())

Any thread records into a collector (HF's generate() runs in a thread of its own); a span may end on
another thread than the one that began it. For a begin and an end in different places (a forward
pre-hook and its post-hook), ``s = tp.begin(phase, role)`` then ``s.end()``; ``tp.now()`` reads the
collector's clock, the ``t_ns`` that request events take.
"""
from __future__ import annotations

# Imported under private names: the module's public names are its API (__all__ and DEFAULTS, PathLike).
import contextlib as _contextlib
import functools as _functools
import json as _json
import os as _os
import sys as _sys
import typing as _typing
from array import array as _array

from . import _core
from ._core import RequestsLostWarning, Span

__all__ = ["Collector", "Comparison", "PrometheusCollector", "RequestsLostWarning", "Span", "compare", "ranks",
           "start_metrics_server", "__version__"]
__version__: str = _core.__version__

PathLike = _typing.Union[str, "_os.PathLike[str]"]
F = _typing.TypeVar("F", bound=_typing.Callable[..., _typing.Any])

# The defaults of a Python collector: the C library's, except what a Python driver expects to work
# unasked (requests, a timeline for the Chrome trace). What does not fit is counted and
# shown in every report.
DEFAULTS: _typing.Dict[str, _typing.Any] = {
    "capacity": 65536,
    "timeline": True,
    "max_requests": 1024,
    "max_request_events": 262144,
}

# The report tool's collector: it grows as a trace needs, and reads no clock (a trace names its own).
_READER: _typing.Dict[str, _typing.Any] = {
    "capacity": 4096,
    "max_phases": 65535,
    "max_requests": 64,
    "max_request_events": 1024,
    "grow": True,
    "timeline": True,
    "clock": False,
    "clock_name": "not in the trace",
}


def _write(path: PathLike, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


def _labels(labels: _typing.Union[None, str, _typing.Mapping[str, str]]) -> _typing.Optional[str]:
    """Prometheus labels as the library takes them: name="value" pairs joined by ','."""
    if labels is None or isinstance(labels, str):
        return labels
    esc = {"\\": "\\\\", '"': '\\"', "\n": "\\n"}
    return ",".join('%s="%s"' % (k, "".join(esc.get(ch, ch) for ch in str(v))) for k, v in labels.items())


class Collector(_core.Collector):
    """A collector of spans, samples and request events.

    Keyword arguments are the C config's fields: capacity, max_phases, timeline, bounded, hist_slots,
    max_requests, max_request_events, request_window (finished requests kept whole once the table is full; the
    rest fold into the exposition's histograms), model_name and engine (labels of every series), buckets ("fine", or "vllm": vLLM's bounds alone),
    max_model_len (the model's length in tokens: the token histograms' last bound; 0: to 5e9),
    num_speculative_tokens (k: a decode span given its sequences counts vLLM's spec_decode_*), max_shapes, grow, max_device, max_pending, slice_ns, percentiles ("50,90,99.9"
    or a sequence of numbers), clock (a callable returning monotonic ns; None: the platform's CLOCK_MONOTONIC)
    and clock_name. Unset ones take
    DEFAULTS, then the C library's defaults.

    Recording (the hot path is C): ``span`` (a context manager), ``begin`` (its ``end()`` records it),
    ``record``, ``timed``, ``warmup``,
    ``run``, ``phase``, ``shape_row``; requests: ``submit``, ``schedule``, ``tokens``, ``output``; device time:
    ``span(..., device=stream)`` then ``device_elapsed``/``_ms``/``_absolute`` (or
    ttft_tpot.device.TorchEvents). ``enabled = False`` turns recording off.
    """

    __slots__ = ()

    def __init__(self, **config: _typing.Any) -> None:
        super().__init__(**{**DEFAULTS, **config})

    # -- recording --------------------------------------------------------------------------------

    def timed(self, phase: str, role: str, tokens: _typing.Optional[int] = None) -> _typing.Callable[[F], F]:
        """Decorator: every call of the function is a span."""

        def wrap(fn: F) -> F:
            @_functools.wraps(fn)
            def timed_call(*args: _typing.Any, **kwargs: _typing.Any) -> _typing.Any:
                with self.span(phase, role, tokens):
                    return fn(*args, **kwargs)

            return timed_call  # type: ignore[return-value]

        return wrap

    @_contextlib.contextmanager
    def warmup(self) -> _typing.Iterator[None]:
        """Every sample recorded in the block is warmup (sections nest), and every request submitted."""
        self._warmup(True)
        try:
            yield
        finally:
            self._warmup(False)

    def record_ms(self, phase: str, role: str, ms: float, tokens: _typing.Optional[int] = None) -> None:
        """record() for a duration in ms, as device timers give it (to the nearest ns)."""
        self.record(phase, role, _core.ms_to_ns(ms), tokens)

    def set_slo(self, ttft: float = 0, tpot: float = 0, e2e: float = 0) -> None:
        """Goodput's service-level objectives, in ms (0: none)."""
        self._set_slo(ttft, tpot, e2e)

    # -- outputs ----------------------------------------------------------------------------------

    def report_json(self) -> _typing.Dict[str, _typing.Any]:
        """The JSON report (schema ttft_tpot/v1) as a dict."""
        report: _typing.Dict[str, _typing.Any] = _json.loads(self._report_json())
        return report

    def report_json_text(self) -> str:
        """The JSON report as the C library writes it."""
        return self._report_json()

    def prometheus(self, prefix: _typing.Optional[str] = None,
                   labels: _typing.Union[None, str, _typing.Mapping[str, str]] = None) -> str:
        """The Prometheus text exposition (vLLM's families under "vllm:", the project's own under
        "ttft_tpot:"; prefix replaces both); labels on every series."""
        return self._prometheus(prefix, _labels(labels))

    def publish(self, path: PathLike, prefix: _typing.Optional[str] = None,
                labels: _typing.Union[None, str, _typing.Mapping[str, str]] = None) -> None:
        """The live exposition of the requests finished so far (finish(id)), written atomically to path
        (node_exporter's textfile collector reads *.prom): its counters and histograms only grow, across
        publications and clear(), so rate() and increase() work."""
        self._publish(path, prefix, _labels(labels))

    def html(self, name: _typing.Optional[str] = None) -> str:
        """The HTML report: one self-contained page; name heads it (default: the program's name)."""
        return self._html(name or _os.path.basename(_sys.argv[0] or "python") or "python")

    def trace(self) -> str:
        """The trace (format v1): ttft_tpot_report and Collector.read_trace read it back."""
        return self._trace()

    def chrome_trace(self) -> str:
        """The samples as a Chrome / Perfetto trace (needs timeline, the default)."""
        return self._chrome_trace()

    def write_html(self, path: PathLike, name: _typing.Optional[str] = None) -> None:
        _write(path, self.html(name))

    def write_trace(self, path: PathLike) -> None:
        _write(path, self.trace())

    def write_chrome_trace(self, path: PathLike) -> None:
        _write(path, self.chrome_trace())

    def write_requests_csv(self, path: PathLike) -> None:
        """One row per request (requests_csv()), for a spreadsheet or pandas."""
        _write(path, self.requests_csv())

    def samples(self, phase: str, warmup: bool = False, stored_only: bool = False) -> _typing.Any:
        """The phase's durations in ns, in call order, steady ones only unless warmup: a numpy array
        (uint64) when numpy is installed, else array('Q'). A phase that sent samples to a histogram
        (bounded, or past the capacity) raises ValueError unless stored_only."""
        raw = self._samples(phase, warmup, stored_only)
        try:
            import numpy  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            out = _array("Q")
            out.frombytes(bytes(raw))
            return out
        return numpy.frombuffer(raw, dtype=numpy.uint64)

    # -- reading ----------------------------------------------------------------------------------

    @classmethod
    def read_trace(cls, path: PathLike, *more: PathLike, bounded: bool = False, slice_ns: int = 0,
                   percentiles: _typing.Union[None, str, _typing.Sequence[float]] = None,
                   buckets: str = "fine", max_model_len: int = 0) -> "Collector":
        """A collector holding the traces, read in order, as ttft_tpot_report reads them (slice_ns,
        percentiles, buckets and max_model_len: as its --slice, --percentiles, --buckets and
        --max-model-len)."""
        tp = cls(**{**_READER, "bounded": bounded, "hist_slots": 16 if bounded else 0, "slice_ns": slice_ns,
                    "percentiles": percentiles, "buckets": buckets, "max_model_len": max_model_len})
        for p in (path,) + more:
            tp._read(p, _os.fsdecode(p))
        return tp

    def read(self, path: PathLike) -> None:
        """Append a trace to this collector."""
        self._read(path, _os.fsdecode(path))


_Side = _typing.Union[Collector, _typing.Sequence[Collector]]


class Comparison:
    """base against new, as ``ttft_tpot_report --compare``: the run is the unit (a run each collector
    marked with run(), or the collector as one run); per metric each side's runs with their 95%
    intervals, the Hodges-Lehmann shift, the Mann-Whitney U p-value over the runs (Holm-adjusted), and
    a verdict (json()["verdict"]["kind"]): no_difference, within_noise, improvement, regression,
    trade_off or undecided (too few runs to decide). A side may be a sequence of collectors, as the
    tool's --base TRACE... --new TRACE...: each one a unit (its runs, or itself as one run); the HTML
    page then wants one collector a side (read a side's traces into one)."""

    def __init__(self, base: _Side, new: _Side, alpha: float = 0.05, noise: float = 2.0,
                 phases_in_verdict: bool = False) -> None:
        self.base, self.new, self.alpha = _side(base), _side(new), alpha  # an iterator, read once
        self.noise, self.phases_in_verdict = noise, phases_in_verdict
        self._text = self._ask(0)

    def _ask(self, kind: int, names: _typing.Sequence[_typing.Optional[str]] = (None, None)) -> str:
        if isinstance(self.base, Collector) and isinstance(self.new, Collector):
            return _core._compare(self.base, self.new, self.alpha, kind, names[0], names[1], self.noise,
                                  self.phases_in_verdict)
        return _core._compare_sides(self.base, self.new, self.alpha, kind, self.noise, self.phases_in_verdict)

    def __str__(self) -> str:
        return self._text

    def json(self) -> _typing.Dict[str, _typing.Any]:
        """The comparison (schema ttft_tpot/compare-v1) as a dict."""
        comparison: _typing.Dict[str, _typing.Any] = _json.loads(self.json_text())
        return comparison

    def json_text(self) -> str:
        return self._ask(1)

    def html(self, names: _typing.Sequence[str] = ("base", "new")) -> str:
        if not (isinstance(self.base, Collector) and isinstance(self.new, Collector)):
            raise ValueError("the HTML comparison takes one collector a side: read a side's traces into one "
                             "(Collector.read_trace(*paths))")
        return _core._compare(self.base, self.new, 0.05, 3, names[0], names[1])

    def write_html(self, path: PathLike, names: _typing.Sequence[str] = ("base", "new")) -> None:
        _write(path, self.html(names))


def ranks(collectors: _typing.Sequence[Collector], names: _typing.Optional[_typing.Sequence[str]] = None,
          json_text: bool = False) -> str:
    """The tensor-parallel ranks of one model, rank 0 first, as ``ttft_tpot_report --ranks``: rank 0's
    report, then each rank's decode steps and the model's step (the maximum over ranks); JSON with the
    report's "ranks" object when json_text."""
    return _core._ranks(list(collectors), list(names or ["rank %d" % k for k in range(len(collectors))]), json_text)


def _side(side: _Side) -> _Side:
    """A side as given: one collector, or a list of them (a sequence or iterator, read once)."""
    return side if isinstance(side, Collector) else list(side)


def compare(base: _Side, new: _Side, alpha: float = 0.05, noise: float = 2.0,
            phases_in_verdict: bool = False) -> Comparison:
    """Is new faster than base? See Comparison (noise: the threshold in %, as --noise; a side: a
    collector, or a sequence of them, each one unit)."""
    return Comparison(base, new, alpha, noise, phases_in_verdict)


class PrometheusCollector:
    """The live exposition of a collector's requests (Collector.publish's, the same publisher) as a
    prometheus_client custom collector, for /metrics served in this process:

        from prometheus_client import REGISTRY
        REGISTRY.register(ttft_tpot.PrometheusCollector(tp, labels={"engine": "0"}))
        ttft_tpot.start_metrics_server(8000)   # or prometheus_client's own server: see there

    describe() names every family, so registering it beside a family of the same name (vLLM's own)
    raises prometheus_client's duplicate error rather than write a family twice. collect() publishes:
    counters and histograms only grow, across clear() too. prefix and labels: as Collector.prometheus.
    Needs prometheus_client (pip install "ttft_tpot[prometheus]")."""

    def __init__(self, collector: Collector, prefix: _typing.Optional[str] = None,
                 labels: _typing.Union[None, str, _typing.Mapping[str, str]] = None) -> None:
        from prometheus_client.parser import text_string_to_metric_families  # the optional extra
        self._parse = text_string_to_metric_families
        self._collector, self._prefix, self._labels = collector, prefix, _labels(labels)
        self._names = [m.name for m in self._families()]  # refused here, as the library refuses them

    def _families(self) -> _typing.List[_typing.Any]:
        return list(self._parse(self._collector._published(self._prefix, self._labels)))

    def describe(self) -> _typing.List[_typing.Any]:
        """Every family, without samples: the registry's duplicate check reads their names."""
        from prometheus_client.core import Metric
        return [Metric(m.name, m.documentation, m.type) for m in self._families()]

    def collect(self) -> _typing.List[_typing.Any]:
        """A publication: every family with its samples."""
        return self._families()


def start_metrics_server(port: int, addr: str = "127.0.0.1",
                         registry: _typing.Any = None) -> _typing.Tuple[_typing.Any, _typing.Any]:
    """Serve registry (prometheus_client's REGISTRY when None) at /metrics on addr:port from a daemon
    thread, always in the classic text format (text/plain; version=0.0.4), whatever the scraper asks
    for. prometheus_client 0.22 and later answer a Prometheus 2.x, which asks for OpenMetrics, with
    every ':' of a sample's name escaped to '_' (vllm_time_to_first_token_seconds_bucket): vLLM's
    dashboards, which query vllm:..., then find nothing. Returns (server, thread): server.server_port
    is the port (0 picks one); server.shutdown() and server.server_close() stop it. Needs
    prometheus_client (pip install "ttft_tpot[prometheus]")."""
    import threading
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    import prometheus_client
    app = prometheus_client.make_wsgi_app(prometheus_client.REGISTRY if registry is None else registry)

    def text_format(environ: _typing.Any, start_response: _typing.Any) -> _typing.Any:
        environ["HTTP_ACCEPT"] = "text/plain; version=0.0.4"
        return app(environ, start_response)

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args: _typing.Any) -> None:
            """No line on stderr a scrape."""

    server = make_server(addr, port, text_format, handler_class=Quiet)
    thread = threading.Thread(target=server.serve_forever, name="ttft_tpot metrics", daemon=True)
    thread.start()
    return server, thread


del annotations  # the __future__ import's name: not part of the API
