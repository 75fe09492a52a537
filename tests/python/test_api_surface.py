"""What a user meets first: a missing file's message."""
import os
import pathlib
import subprocess
import sys

import pytest

import ttft_tpot

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
