"""Device time from torch: a pair of timing events around each span, resolved after the step's
synchronize, on the library's device-time API (a span's ticket, then its elapsed time).

    from ttft_tpot.device import TorchEvents
    dev = TorchEvents(tp)                      # torch.cuda; backend="npu" for torch.npu (torch_npu)
    for step in range(steps):
        for i, layer in enumerate(model.layers):
            with dev.span("decode_layer", "kernel"):
                x = layer(x)                   # launches return at once: the host span is the enqueue
        dev.synchronize()                      # the step's synchronize, then every pair resolved

The report then shows each span's device time beside its host time (README: Asynchronous devices).
torch is imported only when a TorchEvents is made without an event factory.
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional, Tuple
import contextlib

from . import _core


def _timing_event(api: Any, backend: str) -> None:
    """One event made as the spans make theirs: a backend whose events take no enable_timing (torch.cpu's)
    or give no elapsed_time cannot time a span, which is said now with the backend's name."""
    why = "its events cannot be timed (elapsed_time between two Event(enable_timing=True)); use cuda or npu"
    try:
        probe = api.Event(enable_timing=True)
    except TypeError as e:
        raise ValueError("torch.%s: %s: %s" % (backend, why, e)) from e
    if not (callable(getattr(probe, "record", None)) and callable(getattr(probe, "elapsed_time", None))):
        raise ValueError("torch.%s: %s" % (backend, why))


class TorchEvents:
    """Timing events around spans of one collector, resolved together.

    tp: the collector; backend: "cuda" or "npu" (the torch module whose Event and synchronize are
    used); stream: the stream number the report shows the device time on; torch_stream: the stream
    the events are recorded on (None: the current one). event and synchronize replace torch's: event()
    returns an object with record(stream=None) and elapsed_time(end) in ms, as torch.cuda.Event."""

    def __init__(self, tp: Any, backend: str = "cuda", stream: int = 0, torch_stream: Any = None,
                 event: Optional[Callable[[], Any]] = None, synchronize: Optional[Callable[[], None]] = None) -> None:
        if event is None:
            import torch  # type: ignore[import-not-found, unused-ignore]  # only here: the package does not need it

            api = getattr(torch, backend, None)
            if api is None or not hasattr(api, "Event"):
                raise ValueError("torch has no %s backend with events (torch.%s.Event)" % (backend, backend))
            _timing_event(api, backend)  # refused here, not at the first span

            def event() -> Any:
                return api.Event(enable_timing=True)

            synchronize = synchronize or api.synchronize
        self.tp, self.stream, self.torch_stream = tp, stream, torch_stream
        self._event: Callable[[], Any] = event
        self._synchronize = synchronize
        self.pending: List[Tuple[int, Any, Any]] = []  # (ticket, start event, end event)

    @contextlib.contextmanager
    def span(self, phase: str, role: str, tokens: Optional[int] = None, **counts: Any) -> Iterator[Any]:
        """tp.span(phase, role, ...) with its device time: an event recorded as the block begins and one
        as it ends, kept with the span's ticket until resolve(). A block that raises is cancelled
        (counted in spans_cancelled): it gets no ticket, and its events are not kept."""
        start, end = self._event(), self._event()
        span = self.tp.span(phase, role, tokens, device=self.stream, **counts)
        try:
            with span:
                start.record(self.torch_stream)
                try:
                    yield span
                finally:
                    end.record(self.torch_stream)
        finally:
            if span.ticket:  # 0: recording off, or no room (counted as unresolved by the collector)
                self.pending.append((span.ticket, start, end))

    def begin(self, phase: str, role: str, tokens: Optional[int] = None, **counts: Any) -> "DeviceSpan":
        """tp.begin(phase, role, ...) with its device time, for a begin and an end in different places
        (a forward pre-hook and its post-hook): the start event is recorded now, the end event by the
        returned span's end()."""
        start, end = self._event(), self._event()
        span = self.tp.begin(phase, role, tokens, device=self.stream, **counts)
        start.record(self.torch_stream)
        return DeviceSpan(self, span, start, end)

    def resolve(self) -> int:
        """Each pending span's device time (start.elapsed_time(end), ms) given to the collector: call it
        after a synchronize, all in one call (Collector.device_resolve). Returns how many there were. A
        ticket the collector refuses (unknown after tp.clear(), say) is skipped; the refusal is raised
        once the rest are resolved."""
        pending, self.pending = self.pending, []
        self.tp.device_resolve([(ticket, _core.ms_to_ns(float(start.elapsed_time(end)))) for ticket, start, end in pending])
        return len(pending)

    def synchronize(self) -> int:
        """The step's synchronize (the backend's, or the one given), then resolve()."""
        if self._synchronize is None:
            raise ValueError("no synchronize: pass one to TorchEvents, or synchronize yourself and call resolve()")
        self._synchronize()
        return self.resolve()


class DeviceSpan:
    """A span from TorchEvents.begin: end() records its end event, ends the host span and keeps the
    pair until resolve(). span is the host span (tokens and the other counts can be set on it)."""

    def __init__(self, events: TorchEvents, span: Any, start: Any, end: Any) -> None:
        self.events, self.span, self._start, self._end = events, span, start, end

    def end(self) -> None:
        self._end.record(self.events.torch_stream)
        self.span.end()
        if self.span.ticket:  # 0: recording off, or no room (counted as unresolved by the collector)
            self.events.pending.append((self.span.ticket, self._start, self._end))

    def cancel(self) -> None:
        """End the host span without recording it (counted in spans_cancelled): no device time kept."""
        self.span.cancel()
