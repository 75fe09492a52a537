"""python -m ttft_tpot takes its numbers as ttft_tpot_report does: the same values accepted, the same
one-line refusal and exit status 2 for the rest, the same report for the accepted ones."""
import re
import subprocess
import sys

import pytest

import ttft_tpot
from conftest import MS, VECTORS

SLICES = ["0.0005", "1e-12", "1e3", "inf", "nan", "-1", "+1", "0", "0.000", "0.0009", "0.001", "0.0010", ".5", "5.",
          "1", "86400", "86400.0", "86400.0001", "86401", "", ".", "1..2", "1.2.3", " 1", "1 ", "0x10", "1_000",
          "\u0663", "1e", "99999999999999999999999"]
ALPHAS = ["0.05", ".5", "0", "1", "1.0", "0.99999", "5e-2", "inf", "nan", "-0.1", "", "0,05"]


def run(argv):
    p = subprocess.run(argv, capture_output=True)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def both(tool, *args):
    """(exit status, stdout, stderr without the program's name) of the tool and of python -m ttft_tpot."""
    t = run([tool.path, *args])
    m = run([sys.executable, "-m", "ttft_tpot", *args])
    strip = lambda err, name: err[len(name) + 2:] if err.startswith(name + ": ") else err  # noqa: E731
    return (t[0], t[1], strip(t[2], "ttft_tpot_report")), (m[0], m[1], strip(m[2], "python -m ttft_tpot"))


@pytest.mark.parametrize("value", SLICES)
def test_slice_as_the_tool(tool, value):
    t, m = both(tool, "--slice=" + value, VECTORS[0])
    assert m == t, value
    assert t[0] in (0, 2), (value, t)
    if t[0] == 2:
        assert m[2].count("\n") == 1 and m[2].startswith("--slice takes seconds"), m[2]


def test_slice_as_a_separate_argument(tool):
    for value in ("0.0005", "inf", "0.25"):
        t, m = both(tool, "--slice", value, VECTORS[0])
        assert m == t, value


@pytest.mark.parametrize("value", ALPHAS)
def test_alpha_as_the_tool(tool, value):
    t, m = both(tool, "--compare", "--alpha=" + value, VECTORS[0], VECTORS[1])
    assert m[0] == t[0] and m[2] == t[2], (value, t, m)
    assert t[0] in (0, 2), (value, t)


def long_flags(help_text):
    """The long options a --help text defines: those in the option column of its lines that start
    with one (before the two spaces that open a description; prose naming an option is not one)."""
    column = (line.strip().split("  ")[0] for line in help_text.splitlines() if line.lstrip().startswith("-"))
    return set(flag for text in column for flag in re.findall(r"--[a-z][a-z-]*", text))


def test_the_flags_are_the_tools(tool):
    """python -m ttft_tpot takes every flag of ttft_tpot_report, and no other."""
    t = run([tool.path, "--help"])
    m = run([sys.executable, "-m", "ttft_tpot", "--help"])
    assert t[0] == m[0] == 0
    assert long_flags(m[1]) == long_flags(t[1]), long_flags(m[1]) ^ long_flags(t[1])


@pytest.mark.parametrize("value", ["2", "0", "0.5", "99.9", "100", "-1", "inf", "", "1e1"])
def test_noise_as_the_tool(tool, value):
    t, m = both(tool, "--compare", "--noise", value, VECTORS[0], VECTORS[1])
    assert m == t, value


@pytest.mark.parametrize("fmt", [[], ["--json"], ["--html", "-"], ["--phases-in-verdict"], ["--alpha", "0.1", "--noise", "5"]])
def test_several_traces_a_side_as_the_tool(tool, fmt):
    """--base TRACE... --new TRACE...: each trace one unit, the same comparison as the tool's."""
    t, m = both(tool, "--compare", *fmt, "--base", VECTORS[0], "--base", VECTORS[1], "--new", VECTORS[1],
                "--new", VECTORS[0], "--new", VECTORS[1])
    assert t[0] == 0 and m == t


def test_model_name_and_buckets_as_the_tool(tool, tmp_path):
    tp = ttft_tpot.Collector()
    for k in range(3):
        tp.submit("r%d" % k, k * MS)
        tp.tokens("r%d" % k, 1, (k + 20) * MS)
        tp.tokens("r%d" % k, 1, (k + 30) * MS)
        tp.finish("r%d" % k)
    path = str(tmp_path / "served.csv")
    tp.write_trace(path)
    for args in (["--model-name", "llama"], ["--buckets", "vllm"], ["--buckets", "vllm", "--model-name", "m",
                                                                     "--label", "replica=1"]):
        t, m = both(tool, "--prometheus", *args, path)
        assert t[0] == 0 and m == t, args
    t, m = both(tool, "--prometheus", "--buckets", "coarse", path)
    assert t[0] == m[0] == 2


@pytest.mark.parametrize("args", [["--label", "a=b"], ["--model-name", "m"], ["--prometheus-prefix", "p"],
                                  ["--compare", "--label", "a=b"], ["--compare", "--bounded"],
                                  ["--compare", "--prometheus"], ["--compare", "--slo", "ttft=5"]])
def test_usage_refused_as_the_tool(tool, args):
    """Options that shape an output not asked for, or that --compare has no use for: the same one-line
    refusal and exit status 2 as the tool's."""
    traces = [VECTORS[0], VECTORS[1]] if "--compare" in args else [VECTORS[0]]
    t, m = both(tool, *args, *traces)
    assert t[0] == 2 and m == t, args


def test_sides_read_as_the_tool_reads_them(tool, tmp_path):
    """--compare --buckets vllm reads each side's traces into collectors with vLLM's bounds, as the tool
    does: traces whose folded buckets are vLLM's read, and compare the same."""
    paths = []
    for k in range(2):
        tp = ttft_tpot.Collector(buckets="vllm", max_requests=4, request_window=1)
        for r in range(8):
            tp.submit("r%d" % r, r * 10 * MS)
            tp.tokens("r%d" % r, 1, (r * 10 + 5 + k) * MS)
            tp.tokens("r%d" % r, 1, (r * 10 + 7 + k) * MS)
            tp.finish("r%d" % r)
        paths.append(str(tmp_path / ("side%d.csv" % k)))
        tp.write_trace(paths[-1])
        assert "# buckets: vllm-0.33\n" in open(paths[-1]).read()
    t, m = both(tool, "--compare", "--buckets", "vllm", *paths)
    assert t[0] == 0 and m == t
