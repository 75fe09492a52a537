"""The Python package's tests: the package (build/python, or an installed one) against the C report
tool (TTFT_TPOT_REPORT, default build/ttft_tpot_report) and hand-computed figures."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
VECTORS = sorted(os.path.join(ROOT, "tests", "vectors", f) for f in os.listdir(os.path.join(ROOT, "tests", "vectors"))
                 if f.endswith(".csv"))
OLD_API_TRACE = os.path.join(HERE, "old_api_trace.csv")  # written by the module this package replaced
MS = 1000000


class Tool:
    """ttft_tpot_report, run as a subprocess."""

    def __init__(self, path):
        self.path = path

    def run(self, *args, rc=0):
        p = subprocess.run([self.path, *args], capture_output=True)
        assert p.returncode == rc, (args, p.returncode, p.stderr.decode())
        return p.stdout.decode("utf-8")


@pytest.fixture(scope="session")
def tool():
    path = os.environ.get("TTFT_TPOT_REPORT", os.path.join(ROOT, "build", "ttft_tpot_report"))
    if not os.access(path, os.X_OK):
        pytest.fail("ttft_tpot_report not found at %s: build it, or set TTFT_TPOT_REPORT" % path)
    return Tool(path)


class Clock:
    """A scripted clock: each read returns the next value."""

    def __init__(self, *values):
        self.values = list(values)

    def __call__(self):
        return self.values.pop(0)


def two_requests(tp):
    """A: submit 0, scheduled 10 ms, tokens at 20 and 30 ms; B: submit 5 ms, one token at 50 ms.
    TTFT A 20, B 45 ms; E2E A 30, B 45 ms; queue (A only) 10 ms, prefill 10 ms; ITL A 10 ms; TPOT A
    (30 - 20) / (3 - 1) = 5 ms."""
    tp.submit("#A", 0)
    tp.schedule("#A", 10 * MS)
    tp.tokens("#A", 1, 20 * MS)
    tp.tokens("#A", 2, 30 * MS)
    tp.submit("B", 5 * MS)
    tp.tokens("B", 1, 50 * MS)


def python_module(*args, rc=0):
    """python -m ttft_tpot ARGS: its stdout."""
    p = subprocess.run([sys.executable, "-m", "ttft_tpot", *args], capture_output=True)
    assert p.returncode == rc, (args, p.returncode, p.stderr.decode())
    return p.stdout.decode("utf-8")
