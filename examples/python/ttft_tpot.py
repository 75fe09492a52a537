"""ttft_tpot.py - time a Python prefill/decode loop or server and write a ttft_tpot trace (format v1).

No dependencies. The rules are the C library's: the first call of every phase is flagged warmup, and so
is every sample inside a warmup section; names and request ids follow the C name rule and are refused
when recorded; `ttft_tpot_report TRACE` then prints the same report.

    from ttft_tpot import Collector
    tp = Collector()
    with tp.span("prefill", "prefill", tokens=1):
        model.prefill(prompt)
    for _ in range(n):
        with tp.span("decode_step", "decode", tokens=batch):
            model.decode_step()
    tp.submit("req-1"); tp.schedule("req-1"); tp.tokens("req-1", 1)   # a served request
    tp.write_trace("run.csv")
"""

import csv
import time
from contextlib import contextmanager

ROLES = ("prefill", "decode", "kernel", "e2e")
HEADER = ("phase", "role", "start_ns", "dur_ns", "tokens", "warmup")
NAME_MAX = 64  # bytes of a name with its NUL, as TTFT_TPOT_NAME_MAX
U64 = 2**64


def check_name(name):
    """Raise ValueError unless name passes the C library's name rule: 1 to 63 bytes of UTF-8 that a
    terminal shows as text (no C0 or C1 control, no DEL, no bidirectional override or isolate)."""
    if not isinstance(name, str):
        raise ValueError("a name is a str, not %r" % (name,))
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        raise ValueError("name %r is not valid UTF-8 (a lone surrogate)" % name) from None
    if not 0 < size < NAME_MAX:
        raise ValueError("name %r is %d bytes of UTF-8: 1 to %d" % (name, size, NAME_MAX - 1))
    for ch in name:
        cp = ord(ch)
        if cp < 0x20 or 0x7F <= cp <= 0x9F or 0x202A <= cp <= 0x202E or 0x2066 <= cp <= 0x2069:
            raise ValueError("name %r holds U+%04X, which a terminal does not show as text" % (name, cp))


def _count(value, what, limit):
    """value, an int in 0..limit-1: TypeError for anything but an int (a bool is an int in Python, but
    True is not a count), ValueError out of range."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("%s is an int, not %r" % (what, value))
    if not 0 <= value < limit:
        raise ValueError("%s is in 0..%d, not %r" % (what, limit - 1, value))
    return value


def _ns(value, what):
    return _count(value, what + " (ns)", U64)


class Collector:
    """Samples in call order: (phase, role, start_ns, dur_ns, tokens, warmup); request events in call
    order: (id, kind, t_ns, tokens) with kind submit, schedule or token."""

    def __init__(self, clock=time.perf_counter_ns, clock_name="time.perf_counter_ns"):
        self.samples = []
        self.roles = {}  # phase -> role of its first sample; a phase not here has not been called
        self.events = []
        self.requests = {}  # id -> {"warmup", "submit", "scheduled", "last"}
        self.warmup_depth = 0
        self.clock = clock
        self.clock_name = clock_name
        self.clock_read_ns = self._clock_cost() if clock is time.perf_counter_ns else 0

    def _clock_cost(self):
        """The median cost of one clock read, over 255 pairs (as the C library measures its clock)."""
        costs = []
        for _ in range(255):
            a = self.clock()
            b = self.clock()
            costs.append(b - a)
        costs.sort()
        return max(costs[len(costs) // 2], 1)

    def record(self, phase, role, dur_ns, tokens=None, start_ns=0):
        """Record a duration measured elsewhere; tokens default to 1 for prefill/decode, 0 otherwise."""
        check_name(phase)
        if role not in ROLES:
            raise ValueError("role must be one of %s, not %r" % (", ".join(ROLES), role))
        _ns(dur_ns, "a duration")
        _ns(start_ns, "a start time")
        if tokens is None:
            tokens = 1 if role in ("prefill", "decode") else 0
        _count(tokens, "tokens", 2**32)
        first = phase not in self.roles
        if first:
            self.roles[phase] = role
        elif self.roles[phase] != role:
            raise ValueError("phase %r has role %s, not %s" % (phase, self.roles[phase], role))
        warmup = first or self.warmup_depth > 0
        self.samples.append((phase, role, start_ns, dur_ns, tokens, 1 if warmup else 0))

    @contextmanager
    def span(self, phase, role, tokens=None):
        """Time the block with the monotonic clock and record it."""
        check_name(phase)  # before the block runs: a bad name is the caller's mistake, not the block's
        start = self.clock()
        try:
            yield
        finally:
            self.record(phase, role, self.clock() - start, tokens, start)

    @contextmanager
    def warmup(self):
        """Flag every sample recorded inside the block as warmup (how --warmup-runs works); requests
        submitted inside it are warmup requests."""
        self.warmup_depth += 1
        try:
            yield
        finally:
            self.warmup_depth -= 1

    # Requests: vLLM's per-request metrics (TTFT, TPOT, ITL, E2E, queue time) come from these events.

    def _now(self, t_ns):
        return self.clock() if t_ns is None else _ns(t_ns, "an event time")

    def _request(self, rid):
        if rid not in self.requests:
            raise ValueError("request %r was not submitted" % (rid,))
        return self.requests[rid]

    def submit(self, rid, t_ns=None):
        """A request arrives (t_ns on this collector's clock; None: now)."""
        check_name(rid)
        if rid in self.requests:
            raise ValueError("request %r was submitted before" % (rid,))
        t = self._now(t_ns)
        self.requests[rid] = {"warmup": 1 if self.warmup_depth > 0 else 0, "submit": t, "scheduled": None,
                              "first": None, "last": None}
        self.events.append((rid, "submit", t, 0))

    def schedule(self, rid, t_ns=None):
        """The request's prefill begins: TTFT splits into queue time and prefill. Once, between its
        submit and its first token."""
        q = self._request(rid)
        t = self._now(t_ns)
        if q["scheduled"] is not None or t < q["submit"] or (q["first"] is not None and t > q["first"]):
            raise ValueError("request %r: a schedule is once, between its submit and its first token" % (rid,))
        q["scheduled"] = t
        self.events.append((rid, "schedule", t, 0))

    def tokens(self, rid, n=1, t_ns=None):
        """n tokens of the request are delivered."""
        q = self._request(rid)
        if _count(n, "a token event's tokens", 2**32) == 0:
            raise ValueError("a token event delivers 1 token or more, not 0")
        t = self._now(t_ns)
        if t < q["submit"] or (q["last"] is not None and t < q["last"]) or \
                (q["scheduled"] is not None and t < q["scheduled"]):
            raise ValueError("request %r: tokens before its submit, schedule or previous tokens" % (rid,))
        if q["first"] is None:
            q["first"] = t
        q["last"] = t
        self.events.append((rid, "token", t, n))

    def write_trace(self, path):
        """Write every sample, then every request event, as a v1 trace (CSV through the csv module)."""
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write("# ttft_tpot trace v1\n")
            if self.clock_read_ns:
                f.write("# clock: %s, %d ns/read\n" % (self.clock_name, self.clock_read_ns))
            plain = csv.writer(f, lineterminator="\n")
            # a name starting with '#' or ' ' would read as a comment or lose its space: quote it; the
            # numbers stay unquoted
            quoted = csv.writer(f, lineterminator="\n", quoting=csv.QUOTE_NONNUMERIC)
            plain.writerow(HEADER)
            for row in self.samples:
                (quoted if row[0].startswith(("#", " ")) else plain).writerow(row)
            for rid, kind, t, n in self.events:
                row = (rid, kind, t, 0, n, self.requests[rid]["warmup"])
                (quoted if rid.startswith(("#", " ")) else plain).writerow(row)
