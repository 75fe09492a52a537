"""ttft_tpot.py - time a Python prefill/decode loop and write a ttft_tpot trace (format v1).

No dependencies. The rules are the C library's: the first call of every phase is flagged warmup, and so
is every sample inside a warmup section; `ttft_tpot_report TRACE` then prints the same report.

    from ttft_tpot import Collector
    tp = Collector()
    with tp.span("prefill", "prefill", tokens=1):
        model.prefill(prompt)
    for _ in range(n):
        with tp.span("decode_step", "decode", tokens=batch):
            model.decode_step()
    tp.write_trace("run.csv")
"""

import time
from contextlib import contextmanager

ROLES = ("prefill", "decode", "kernel", "e2e")
HEADER = "phase,role,start_ns,dur_ns,tokens,warmup"


class Collector:
    """Samples in call order: (phase, role, start_ns, dur_ns, tokens, warmup)."""

    def __init__(self, clock=time.perf_counter_ns):
        self.samples = []
        self.roles = {}  # phase -> role of its first sample; a phase not here has not been called
        self.warmup_depth = 0
        self.clock = clock

    def record(self, phase, role, dur_ns, tokens=None, start_ns=0):
        """Record a duration measured elsewhere; tokens default to 1 for prefill/decode, 0 otherwise."""
        if role not in ROLES:
            raise ValueError("role must be one of %s, not %r" % (", ".join(ROLES), role))
        if dur_ns < 0 or start_ns < 0:
            raise ValueError("durations and start times are non-negative integers of ns")
        if tokens is None:
            tokens = 1 if role in ("prefill", "decode") else 0
        first = phase not in self.roles
        if first:
            self.roles[phase] = role
        elif self.roles[phase] != role:
            raise ValueError("phase %r has role %s, not %s" % (phase, self.roles[phase], role))
        warmup = first or self.warmup_depth > 0
        self.samples.append((phase, role, int(start_ns), int(dur_ns), int(tokens), 1 if warmup else 0))

    @contextmanager
    def span(self, phase, role, tokens=None):
        """Time the block with the monotonic clock and record it."""
        start = self.clock()
        try:
            yield
        finally:
            self.record(phase, role, self.clock() - start, tokens, start)

    @contextmanager
    def warmup(self):
        """Flag every sample recorded inside the block as warmup (how --warmup-runs works)."""
        self.warmup_depth += 1
        try:
            yield
        finally:
            self.warmup_depth -= 1

    def write_trace(self, path):
        """Write every sample as a v1 trace (CSV, RFC 4180 quoting)."""
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write("# ttft_tpot trace v1\n" + HEADER + "\n")
            for phase, role, start, dur, tokens, warm in self.samples:
                name = phase
                if any(c in phase for c in ',"\r\n') or phase.startswith(("#", " ")):
                    name = '"' + phase.replace('"', '""') + '"'
                f.write("%s,%s,%d,%d,%d,%d\n" % (name, role, start, dur, tokens, warm))
