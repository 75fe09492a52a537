#!/usr/bin/env python3
"""Time a small Python prefill/decode loop with the ttft_tpot package and print its report in-process
(--profile): TTFT, TPOT, decode throughput, the runs, the phases. No C tool needed.

    python3 example.py --profile [--warmup-runs 1] [--repeat-runs 3] [--trace run.csv] [--html run.html]
"""
import argparse
import random

import ttft_tpot

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
    with tp.span("generate", "e2e") as run:
        with tp.span("prefill", "prefill", prompt_tokens=len(prompt)):
            token = model.prefill(prompt)
        out = [token]
        while len(out) < new_tokens:
            with tp.span("decode_step", "decode"):
                token = model.decode_step(token)
            out.append(token)
        run.tokens = len(out)  # known when the generation ends
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", action="store_true", help="time the loop and print the report")
    ap.add_argument("--warmup-runs", type=int, default=1)
    ap.add_argument("--repeat-runs", type=int, default=3)
    ap.add_argument("--new-tokens", type=int, default=16)
    ap.add_argument("--trace", help="also write the trace (ttft_tpot_report and Collector.read_trace read it)")
    ap.add_argument("--html", help="also write the HTML report")
    ap.add_argument("--check", action="store_true", help="check the report's figures (used by the tests)")
    args = ap.parse_args()

    tp = ttft_tpot.Collector()
    tp.enabled = args.profile  # off: every span costs about 0.1 us and records nothing
    model = TinyModel(seed=1)
    prompt = [random.Random(2).randrange(VOCAB) for _ in range(32)]
    for run in range(args.warmup_runs + args.repeat_runs):
        if run < args.warmup_runs:
            with tp.warmup():
                tokens = generate(tp, model, prompt, args.new_tokens)
        else:
            tp.run()  # one run of the repeated generation: the report adds their spread
            tokens = generate(tp, model, prompt, args.new_tokens)
        print("run %d:" % (run + 1), " ".join(map(str, tokens)))
    if not args.profile:
        return
    print("\n" + tp.report(), end="")
    if args.trace:
        tp.write_trace(args.trace)
    if args.html:
        tp.write_html(args.html, "example.py")
    if args.check:
        check(tp.report_json(), args)


def check(rep, args):
    steps = args.new_tokens - 1
    runs = args.warmup_runs + args.repeat_runs
    assert rep["schema"] == "ttft_tpot/v1"
    assert rep["ttft"]["steady"]["n"] == args.repeat_runs, rep["ttft"]
    assert rep["tpot"]["n"] == steps * args.repeat_runs, rep["tpot"]
    assert rep["tpot"]["excluded_warmup"] == steps * args.warmup_runs, rep["tpot"]
    assert rep["tpot"]["p50_ms"] <= rep["tpot"]["p99_ms"]
    assert rep["e2e"]["tokens"] == args.new_tokens * runs
    assert rep["prefill"]["tokens"] == 32 * args.repeat_runs and rep["prefill"]["tok_s"] > 0
    assert rep["runs"]["n"] == args.repeat_runs
    phases = {p["name"]: p for p in rep["phases"]}
    assert phases["prefill"]["warmup_n"] == args.warmup_runs and phases["generate"]["n"] == runs
    print("python example: the report has the expected figures")


if __name__ == "__main__":
    main()
