"""python -m ttft_tpot TRACE...: the report of traces, as ttft_tpot_report prints it, without the C tool.

Exit status: 0 report printed, 1 bad input, 2 bad usage, 3 a Prometheus exposition with nothing to count
(as ttft_tpot_report)."""
import argparse
import os
import sys
from typing import List, Optional, Tuple

from . import Collector, __version__, _core, compare, ranks


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m ttft_tpot", description="The report of one or more ttft_tpot "
                                 "traces (format v1), read in order into one collector; with --compare, two sides.")
    ap.add_argument("traces", nargs="*", metavar="TRACE")
    out = ap.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="the JSON report (schema ttft_tpot/v1)")
    out.add_argument("--prometheus", action="store_true", help="the Prometheus text exposition")
    ap.add_argument("--prometheus-prefix", metavar="P", help="metric names start with P, not vllm: or ttft_tpot:")
    ap.add_argument("--label", action="append", default=[], metavar="K=V", help="a label on every series")
    ap.add_argument("--model-name", metavar="NAME", dest="label", action="append", default=[],  # --label's order
                    type=lambda v: "model_name=" + v,
                    help="the label model_name=NAME, which vLLM's dashboards filter on")
    ap.add_argument("--buckets", choices=("fine", "vllm"), default="fine",
                    help="the histograms' bounds: fine (default: vLLM's and the E12 series) or vllm (vLLM's alone)")
    ap.add_argument("--max-model-len", metavar="N",
                    help="the model's length in tokens: the token histograms' last bound (default: to 5e9)")
    ap.add_argument("--slo", metavar="LIST", help="SLOs for goodput: ttft=MS,tpot=MS,e2e=MS (any of them)")
    ap.add_argument("--prefill-kernel", metavar="NAME", help="a kernel phase as steady TTFT's lower bound")
    ap.add_argument("--bounded", action="store_true", help="steady samples in histograms (memory bounded)")
    ap.add_argument("--slice", metavar="SECONDS", help="results over time, in slices (0.001 to 86400)")
    ap.add_argument("--percentiles", metavar="LIST", help="the serving figures' percentiles, e.g. 50,90,99,99.9")
    ap.add_argument("--html", metavar="FILE", help="also write the HTML report (-: instead of the report)")
    ap.add_argument("--chrome-trace", metavar="FILE", help="also write a Chrome / Perfetto trace")
    ap.add_argument("--requests-csv", metavar="FILE", help="also write one row per request (-: instead of the report)")
    ap.add_argument("--compare", action="store_true", help="compare two sides: BASE NEW, or --base and --new")
    ap.add_argument("--base", action="append", default=[], metavar="FILE", help="a trace of the base side (repeatable)")
    ap.add_argument("--new", action="append", default=[], metavar="FILE", help="a trace of the new side (repeatable)")
    ap.add_argument("--noise", default="2", metavar="PCT",
                    help="with --compare: a significant shift under PCT%% is within noise (default 2)")
    ap.add_argument("--phases-in-verdict", action="store_true", help="with --compare: the phase rows judge the verdict")
    ap.add_argument("--ranks", action="store_true", help="the traces are the tensor-parallel ranks of one model")
    ap.add_argument("--alpha", default="0.05", help="the significance level of --compare")
    ap.add_argument("--version", action="version", version="ttft_tpot %s" % __version__)
    return ap


def _decimal(text: str) -> Optional[float]:
    """A plain decimal as ttft_tpot_report reads one (cli_decimal): digits with at most one '.', nothing
    else (no sign, space, exponent, inf or nan), summed in the same order so the same double results."""
    v, scale, dot, digits = 0.0, 1.0, False, 0
    for ch in text:
        if ch == "." and not dot:
            dot = True
        elif "0" <= ch <= "9":
            digits += 1
            if dot:
                scale /= 10
                v += (ord(ch) - 48) * scale
            else:
                v = v * 10 + (ord(ch) - 48)
        else:
            return None
    return v if digits else None


def _usage_error(what: str, arg: str = "") -> int:
    """The tool's one-line usage error (its argument's bytes outside printable ASCII as \\xNN); 2."""
    esc = "".join(chr(b) if 0x20 <= b < 0x7F else "\\x%02x" % b for b in os.fsencode(arg))
    print("python -m ttft_tpot: %s%s (try --help)" % (what, esc), file=sys.stderr)
    return 2


def _numbers(args: argparse.Namespace) -> int:
    """--slice and --alpha checked as the tool checks them: 0, or 2 after a usage error."""
    if args.slice is None:
        args.slice = 0.0
    else:
        s = _decimal(args.slice)
        if s is None or not 0.001 <= s <= 86400:
            return _usage_error("--slice takes seconds, a plain decimal from 0.001 to 86400, not ", args.slice)
        args.slice = s
    a = _decimal(args.alpha)
    if a is None or not 0 < a < 1:
        return _usage_error("--alpha takes a plain decimal between 0 and 1, not ", args.alpha)
    args.alpha = a
    n = _decimal(args.noise)
    if n is None or not 0 <= n < 100:
        return _usage_error("--noise takes a percentage, a plain decimal from 0 to below 100, not ", args.noise)
    args.noise = n
    m = _decimal(args.max_model_len) if args.max_model_len is not None else 0.0
    if m is None or (args.max_model_len is not None and ("." in args.max_model_len or not 1 <= m <= 2e9)):
        return _usage_error("--max-model-len takes a whole number of tokens from 1 to 2000000000, not ",
                            args.max_model_len)
    args.max_model_len = int(m)
    return 0


def _emit(path: str, text: str) -> None:
    if path == "-":
        sys.stdout.write(text)
    else:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)


def _read(args: argparse.Namespace, *paths: str) -> Collector:
    """The traces read into one collector made as the tool makes each (--bounded, --slice, --percentiles,
    --buckets)."""
    return Collector.read_trace(*paths, bounded=args.bounded, slice_ns=int(args.slice * 1e9 + 0.5),
                                percentiles=args.percentiles, buckets=args.buckets,
                                max_model_len=args.max_model_len)


def _refused(args: argparse.Namespace) -> Optional[str]:
    """What the tool refuses as usage in these options (as ttft_tpot_report says it), or None."""
    shapes = args.prometheus_prefix is not None or args.label
    if args.compare and (args.prometheus or args.chrome_trace or args.bounded or args.prefill_kernel or args.slo or
                         args.requests_csv):
        return "--compare prints the comparison only (text, --json or --html)"
    if args.compare and shapes:
        return ("--compare prints the comparison only (text, --json or --html): --prometheus-prefix and --label "
                "have no use")
    if shapes and not args.prometheus:
        return "--prometheus-prefix and --label shape the --prometheus output"
    return None


def _report(args: argparse.Namespace) -> int:
    tp = _read(args, *args.traces)
    if args.prefill_kernel:
        tp.link_prefill_kernel(args.prefill_kernel)
    if args.slo:
        tp.set_slo(*_core.slo_parse(args.slo))
    if args.chrome_trace:
        _emit(args.chrome_trace, tp.chrome_trace())
    if args.requests_csv:
        _emit(args.requests_csv, tp.requests_csv())
    if args.html:
        name = args.traces[0] + (" and %d more" % (len(args.traces) - 1) if len(args.traces) > 1 else "")
        _emit(args.html, tp.html(name))
    if "-" in (args.html, args.chrome_trace, args.requests_csv):
        return 0
    labels = dict(kv.split("=", 1) for kv in args.label)
    sys.stdout.write(tp.report_json_text() if args.json else tp.prometheus(args.prometheus_prefix, labels or None)
                     if args.prometheus else tp.report())
    if args.prometheus and not (tp.report_json()["requests"] or {}).get("n"):
        print("python -m ttft_tpot: warning: --prometheus: no measured request in the traces (none, or all warmup "
              "or without a token): every histogram is empty", file=sys.stderr)
        return 3
    return 0


def _compare(args: argparse.Namespace, sides: Tuple[List[str], List[str]]) -> None:
    """Each trace read into its own collector, one unit each (as the tool's --compare); the HTML page
    takes each side's traces in one collector."""
    base, new = ([_read(args, t) for t in side] for side in sides)
    cmp = compare(base, new, args.alpha, args.noise, args.phases_in_verdict)
    if args.html:
        page = [_read(args, *side) if len(side) > 1 else each[0] for side, each in zip(sides, (base, new))]
        _emit(args.html, compare(page[0], page[1]).html([side[0] for side in sides]))
    if args.html != "-":
        sys.stdout.write(cmp.json_text() if args.json else str(cmp))


def main(argv: Optional[List[str]] = None) -> int:
    args = _parser().parse_args(argv)
    if _numbers(args):
        return 2
    sides = (args.base, args.new) if args.base or args.new else None
    if args.compare and (len(args.traces) != 2 if sides is None else args.traces or not all(sides)):
        _parser().error("--compare takes BASE NEW, or --base TRACE... --new TRACE...")
    if (args.base or args.new) and not args.compare:
        _parser().error("--base and --new are the sides of --compare")
    if not args.traces and not args.compare:
        _parser().error("no trace given")
    names = [kv.split("=", 1)[0] for kv in args.label]
    if any("=" not in kv for kv in args.label) or len(set(names)) < len(names):
        _parser().error("--label takes NAME=VALUE, each name once")
    if _refused(args):
        return _usage_error(_refused(args) or "")
    try:
        if args.ranks:
            if args.compare or len(args.traces) < 2:
                _parser().error("--ranks takes 2 traces or more, rank 0 first (not with --compare)")
            sys.stdout.write(ranks([_read(args, t) for t in args.traces], args.traces, args.json))
        elif args.compare:
            _compare(args, sides or ([args.traces[0]], [args.traces[1]]))
        else:
            return _report(args)
    except (OSError, ValueError) as e:
        print("python -m ttft_tpot: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
