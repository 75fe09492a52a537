#!/usr/bin/env python3
"""Time a small Python prefill/decode loop with ttft_tpot.py, write a v1 trace, and print the report
that ttft_tpot_report computes from it.

    python3 example.py --report ./build/ttft_tpot_report [--trace run.csv] [--check]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ttft_tpot import Collector  # noqa: E402

DIM, VOCAB = 48, 64


class TinyModel:
    """A toy language model in pure Python. Like an accelerator, its first call pays a one-time cost:
    the weights are built on first use."""

    def __init__(self, seed):
        self.seed = seed
        self.w = None
        self.state = [0.0] * DIM

    def _weights(self):
        if self.w is None:
            rng = random.Random(self.seed)
            self.w = [[rng.uniform(-1, 1) for _ in range(DIM)] for _ in range(VOCAB * 4)]
        return self.w

    def _step(self, token):
        w = self._weights()
        x = [a + b for a, b in zip(self.state, w[token % len(w)])]
        logits = [sum(r * v for r, v in zip(row, x)) for row in w[:VOCAB]]
        self.state = [v * 0.5 for v in x]
        return max(range(VOCAB), key=logits.__getitem__)

    def prefill(self, prompt):
        self.state = [0.0] * DIM
        token = 0
        for t in prompt:
            token = self._step(t)
        return token

    def decode_step(self, token):
        return self._step(token)


def generate(tp, model, prompt, new_tokens):
    with tp.span("generate", "e2e", tokens=new_tokens):
        with tp.span("prefill", "prefill"):
            token = model.prefill(prompt)
        out = [token]
        for _ in range(new_tokens - 1):
            with tp.span("decode_step", "decode"):
                token = model.decode_step(token)
            out.append(token)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--report", default=shutil.which("ttft_tpot_report"), help="path of ttft_tpot_report")
    ap.add_argument("--trace", help="where to write the trace (default: a temporary file)")
    ap.add_argument("--warmup-runs", type=int, default=1)
    ap.add_argument("--repeat-runs", type=int, default=3)
    ap.add_argument("--check", action="store_true", help="check the report's shape (used by the tests)")
    args = ap.parse_args()
    if not args.report:
        sys.exit("example.py: ttft_tpot_report not found: pass --report PATH")

    tp = Collector()
    model = TinyModel(seed=1)
    prompt = [random.Random(2).randrange(VOCAB) for _ in range(32)]
    for run in range(args.warmup_runs + args.repeat_runs):
        if run < args.warmup_runs:
            with tp.warmup():
                tokens = generate(tp, model, prompt, 16)
        else:
            tokens = generate(tp, model, prompt, 16)
        print("run %d:" % (run + 1), " ".join(map(str, tokens)))

    trace = args.trace or os.path.join(tempfile.mkdtemp(), "python_trace.csv")
    tp.write_trace(trace)
    text = subprocess.run([args.report, trace], check=True, capture_output=True, text=True).stdout
    print("\n" + text, end="")
    if args.check:
        rep = json.loads(subprocess.run([args.report, "--json", trace], check=True, capture_output=True,
                                        text=True).stdout)
        steps = 15 * (args.warmup_runs + args.repeat_runs)
        assert rep["schema"] == "ttft_tpot/v1"
        assert rep["ttft"]["steady"]["n"] == args.repeat_runs, rep["ttft"]
        assert rep["tpot"]["n"] == 15 * args.repeat_runs, rep["tpot"]
        assert rep["tpot"]["excluded_warmup"] == steps - 15 * args.repeat_runs, rep["tpot"]
        assert rep["tpot"]["p50_ms"] <= rep["tpot"]["p99_ms"]
        assert rep["e2e"]["tokens"] == 16 * (args.warmup_runs + args.repeat_runs)
        assert rep["phases"][0]["name"] == "prefill" and rep["phases"][0]["warmup_n"] == args.warmup_runs
        print("python example: the report has the expected shape")


if __name__ == "__main__":
    main()
