#!/usr/bin/env python3
"""Every output the documents show, made by running its command: a block

    <!-- output: COMMAND -->
    ```text
    ...
    ```

in README.md or examples/README.md holds what COMMAND prints (run by sh from the top of the tree,
after a build in build/), and examples/man/ttft_tpot_report.1 is what help2man makes of the tool's
--help and --version with examples/man/ttft_tpot_report.h2m. With --check nothing is written: any
difference is printed and the exit status is 1 (CI runs it so).
  usage: tests/docs.py [--check]"""
import difflib, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ["README.md", "examples/README.md"]
BLOCK = re.compile(r"(<!-- output: (.*?) -->\n```text\n)(.*?)(```\n)", re.S)
MAN = "examples/man/ttft_tpot_report"
RELEASED = "1795392000"  # the date the man page carries: 2026-11-23, the release of its version


def run(cmd):
    env = dict(os.environ, LC_ALL="C")
    out = subprocess.run(cmd, shell=True, cwd=ROOT, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("docs: `%s` exited %d: %s" % (cmd, out.returncode, out.stderr.strip()))
    return out.stdout


def fill(text):
    return BLOCK.sub(lambda m: m.group(1) + run(m.group(2)) + m.group(4), text)


def man():
    env = dict(os.environ, LC_ALL="C", SOURCE_DATE_EPOCH=RELEASED)
    cmd = ["help2man", "-N", "--no-info", "-n", "the offline report of ttft_tpot traces",
           "-i", MAN + ".h2m", "build/ttft_tpot_report"]
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("docs: help2man failed (apt-get install help2man): " + out.stderr.strip())
    return out.stdout


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] not in ([], ["--check"]):
        sys.exit(__doc__.splitlines()[-1].strip())
    stale = 0
    pages = [(p, fill) for p in DOCS] + [(MAN + ".1", lambda _: man())]
    for path, make in pages:
        full = os.path.join(ROOT, path)
        old = open(full).read() if os.path.exists(full) else ""
        new = make(old)
        if new == old:
            continue
        stale += 1
        if check:
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True), path, path + " (made)"))
        else:
            open(full, "w").write(new)
            print("docs: wrote " + path)
    if check and stale:
        sys.exit("docs: %d document(s) out of date: run tests/docs.py" % stale)


main()
