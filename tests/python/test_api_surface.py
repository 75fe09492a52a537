"""What a user meets first: the module's names, a missing file's message."""
import os
import pathlib
import subprocess
import sys

import pytest

import ttft_tpot

# Public before the namespace was tidied, and still public: never removed.
KEPT = {"Collector", "Comparison", "Span", "compare", "ranks", "DEFAULTS", "PathLike", "F"}


def test_the_namespace_is_the_api():
    public = {n for n in dir(ttft_tpot) if not n.startswith("_")} - {"device"}  # the submodule, once imported
    assert public == KEPT, public ^ KEPT
    for name in ttft_tpot.__all__:
        assert hasattr(ttft_tpot, name), name
    assert set(ttft_tpot.__all__) <= KEPT | {"__version__"}


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
