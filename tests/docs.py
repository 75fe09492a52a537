#!/usr/bin/env python3
"""Every output the documents show, made by running its command: a block

    <!-- output: COMMAND -->
    ```text
    ...
    ```

in README.md or examples/README.md holds what COMMAND prints (run by sh from the top of the tree,
after a build in build/), and examples/report/man/ttft_tpot_report.1 is what help2man makes of the tool's
--help and --version with examples/report/man/ttft_tpot_report.h2m. With --check nothing is written: any
difference is printed and the exit status is 1 (CI runs it so). --check also runs the tool with
--json over the test vectors, the serving trace and traces of the example driver (--async for the
device keys, --repeat-runs for the runs), with --ranks and --compare, and fails when a key it writes
is not named in the man page's JSON REPORT section.
  usage: tests/docs.py [--check]"""
import difflib, json, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = ["README.md", "examples/README.md"]
BLOCK = re.compile(r"(<!-- output: (.*?) -->\n```text\n)(.*?)(```\n)", re.S)
MAN = "examples/report/man/ttft_tpot_report"
RELEASED = "1796169600"  # the date the man page carries: 2026-12-02, the release of its version


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


def json_keys():
    """Every key the tool's JSON documents hold, with a path where it was met."""
    gen = "build/examples/generate --dim 64 --layers 2 --heads 4 --hidden 96 --vocab 300 --prompt-len 16 " \
          "--max-new-tokens 8 --batch 2 --warmup-runs 1"
    keys = {}
    with tempfile.TemporaryDirectory() as t:
        for name, how in (("dev", "--async"), ("req", "--requests 4 --arrival-rate 0"), ("runs", "--repeat-runs 3"),
                          ("runs2", "--repeat-runs 3")):
            run("%s %s --trace %s/%s.csv >/dev/null" % (gen, how, t, name))
        tool = "build/ttft_tpot_report --json "
        docs = [tool + "--slo ttft=300,tpot=15,e2e=1000 --slice 0.5 --percentiles 50,90,99,99.9 "
                "examples/traces/serving.csv", tool + "--bounded --prefill-kernel prefill_fwd "
                "tests/vectors/seed_npu_qwen3_14b.csv", tool + "%s/dev.csv %s/req.csv" % (t, t),
                tool + "--ranks %s/runs.csv %s/runs2.csv" % (t, t), tool + "--compare %s/runs.csv %s/runs2.csv" % (t, t),
                tool + "--compare tests/vectors/warmup_repeat_batch64.csv tests/vectors/seed_npu_qwen3_14b.csv"]
        docs += [tool + os.path.join("tests/vectors", v) for v in sorted(os.listdir(os.path.join(ROOT, "tests/vectors")))
                 if v.endswith(".csv")]

        def walk(v, path):
            if isinstance(v, dict):
                for k, x in v.items():
                    keys.setdefault(k, path + "." + k)
                    walk(x, path + "." + k)
            elif isinstance(v, list):
                for x in v:
                    walk(x, path + "[]")

        for cmd in docs:
            walk(json.loads(run(cmd)), "")
    return keys


def unlisted_keys():
    """The keys the tool writes that the man page's JSON REPORT section does not name."""
    h2m = open(os.path.join(ROOT, MAN + ".h2m")).read()
    section = re.search(r"\[JSON REPORT\](.*?)\n\[", h2m, re.S).group(1)
    return sorted("%s (at %s)" % (k, path) for k, path in json_keys().items() if '"%s"' % k not in section)


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
    missing = unlisted_keys() if check else []
    if missing:
        sys.exit("docs: JSON keys the tool writes and the man page's JSON REPORT does not name (%s):\n  %s"
                 % (MAN + ".h2m", "\n  ".join(missing)))


main()
