#!/usr/bin/env python3
"""The OpenCL example's device figures, recomputed from its OpenCL events, to the nanosecond.

    opencl_check.py OPENCL_DECODE WORKDIR     run opencl_decode in both forms, then check both
    opencl_check.py --check JSON EVENTS ...   check files already written (a JSON report, its events)

opencl_decode (examples/opencl/decode.c) runs a decode loop on an OpenCL queue (PoCL in CI) and
writes the library's JSON report (--json) and one line a kernel event (--events): its phase, whether
it ran in the warmup generation, the host issue time the collector stored, the event's QUEUED,
SUBMIT, START and END profiling stamps, and the clock pair its stamps were mapped with. From the
events alone, with integer arithmetic, this script recomputes what the report says, per phase over
the steady (not warmup) kernel events:

    device          END - START                                       (both forms)
    queue_delay     map(START) - issue                                (absolute form)
    launch_overhead map(QUEUED) - issue                               (absolute form)
    queue_wait      START - QUEUED                                    (absolute form)

with map(x) = pair.host_ns + (x - pair.device_ns), a delay below 0 taken as 0 and counted (the
report's queue_clamped and queued_clamped); and the headline's TTFT (steady, device) and TPOT
(device): each steady prefill's or decode step's kernels' device times, summed. Each set's n, total,
min, max, mean (rounded to the ns, half up), p50, p90, p95 and p99 must equal the JSON's exactly: the
JSON gives ms with at most 6 decimals, integer ns (read as decimals, never floats). A percentile is
the header's written definition (METRICS): h = (n-1) p / 100, x[floor h] + (h - floor h) (x[floor h
+ 1] - x[floor h]), rounded to the nearest ns, half up, computed here in integers; where numpy is
installed, its "linear" percentile is checked to agree before rounding. Each event's own interval
(the collector's device_ns, begin_ns and queued_ns) is checked too. In the elapsed form the report
has no queue figures: they must be null. Both forms must give the same phases and counts, and a
run checks itself: one START moved by 1 ns must make the phase figures differ.
"""
import json, os, subprocess, sys
from decimal import Decimal
from fractions import Fraction

PCTS = (50, 90, 95, 99)


def pct(xs, p):
    """Percentile p of sorted integers, the header's definition, rounded to the ns half up (exact)."""
    num = (len(xs) - 1) * p
    i, f = divmod(num, 100)
    if f == 0:
        return xs[i]
    return xs[i] + (f * (xs[i + 1] - xs[i]) + 50) // 100


def stats(values):
    """The figures of a set, integer ns; None for an empty set (the JSON's null)."""
    if not values:
        return None
    xs = sorted(values)
    n, total = len(xs), sum(xs)
    out = {"n": n, "total": total, "min": xs[0], "max": xs[-1], "mean": (2 * total + n) // (2 * n)}
    for p in PCTS:
        out["p%d" % p] = pct(xs, p)
    return out


def numpy_agrees(values):
    """numpy's "linear" percentile, unrounded, against the exact value of the same definition."""
    try:
        import numpy
    except ImportError:
        return None
    xs = sorted(values)
    for p in PCTS:
        h = Fraction((len(xs) - 1) * p, 100)
        i = int(h)
        exact = xs[i] + (h - i) * ((xs[i + 1] if i + 1 < len(xs) else xs[i]) - xs[i])
        got = numpy.percentile(numpy.array(xs, dtype=numpy.float64), p)
        if abs(Fraction(float(got)) - exact) > Fraction(1, 1000):
            return False
    return True


def ns_of(ms):
    """A JSON ms figure (a Decimal) as integer ns: it must be one."""
    ns = ms * 1000000
    if ns != ns.to_integral_value():
        raise ValueError("%s ms is not a whole ns" % ms)
    return int(ns)


def compare(where, mine, theirs, bad):
    """One set's figures against the JSON's stats object (or null)."""
    if mine is None or theirs is None:
        if (mine is None) != (theirs is None):
            bad.append("%s: recomputed %s, the report %s" % (where, mine, theirs))
        return
    for key, v in mine.items():
        got = theirs[key] if key == "n" else ns_of(theirs[key])
        if got != v:
            bad.append("%s.%s: recomputed %d ns, the report %d%s" % (where, key, v, got, "" if key == "n" else " ns"))


def load(json_path, events_path):
    with open(json_path) as f:
        report = json.load(f, parse_float=Decimal)
    with open(events_path) as f:
        events = [json.loads(line) for line in f if line.strip()]
    return report, events


def recompute(events):
    """Per phase (steady events): device, queue_delay, launch_overhead, queue_wait; the steps' device
    sums; the clamp counts. Integers throughout."""
    form = events[0]["form"]
    sets = {}
    steps = {"prefill": {}, "decode": {}}
    clamped = {"queue": 0, "queued": 0}
    for e in events:
        s = sets.setdefault(e["phase"], {"device": [], "queue_delay": [], "launch_overhead": [], "queue_wait": []})
        if e["warmup"]:
            continue
        dev = e["end"] - e["start"]
        s["device"].append(dev)
        kind = "prefill" if e["step"] < 0 else "decode"
        key = (e["run"], e["step"])
        steps[kind][key] = steps[kind].get(key, 0) + dev
        if form == "absolute":
            pair = e["pair"]
            begin = pair["host_ns"] + (e["start"] - pair["device_ns"])
            queued = pair["host_ns"] + (e["queued"] - pair["device_ns"])
            clamped["queue"] += begin < e["issue_ns"]
            clamped["queued"] += queued < e["issue_ns"]
            s["queue_delay"].append(max(0, begin - e["issue_ns"]))
            s["launch_overhead"].append(max(0, queued - e["issue_ns"]))
            s["queue_wait"].append(e["start"] - e["queued"])
    return form, sets, steps, clamped


def check_events(events, bad):
    """Each event on its own: its stamps in order, and what the collector made of it."""
    for i, e in enumerate(events):
        where = "event %d (%s, run %d, step %d)" % (i, e["phase"], e["run"], e["step"])
        if not e["queued"] <= e["submit"] <= e["start"] <= e["end"]:
            bad.append("%s: stamps out of order" % where)
        lib = e["lib"]
        if lib["warmup"] != e["warmup"] or lib["warmup"] != (e["run"] < 0):
            bad.append("%s: warmup %s, the collector's %s" % (where, e["warmup"], lib["warmup"]))
        if lib["device_ns"] != e["end"] - e["start"]:
            bad.append("%s: device_ns %d, END - START %d" % (where, lib["device_ns"], e["end"] - e["start"]))
        if e["form"] == "absolute":
            pair = e["pair"]
            want = (3, pair["host_ns"] + (e["start"] - pair["device_ns"]), pair["host_ns"] + (e["queued"] - pair["device_ns"]))
        else:
            want = (2, 0, 0)
        if (lib["state"], lib["begin_ns"], lib["queued_ns"]) != want:
            bad.append("%s: state, begin_ns, queued_ns %s, expected %s" % (where, (lib["state"], lib["begin_ns"], lib["queued_ns"]), want))


def check(report, events):
    """Every mismatch between the report and the figures recomputed from the events, as text."""
    bad = []
    if not events:
        return ["no kernel events"]
    form, sets, steps, clamped = recompute(events)
    if any(e["form"] != form for e in events):
        bad.append("events of both forms in one file")
    check_events(events, bad)
    phases = {p["name"]: p for p in report["phases"]}
    for name, s in sorted(sets.items()):
        if name not in phases:
            bad.append("phase %s: not in the report" % name)
            continue
        for key in ("device", "queue_delay", "launch_overhead", "queue_wait"):
            compare("%s.%s" % (name, key), stats(s[key]), phases[name][key], bad)
    for name, p in phases.items():  # no other phase has device figures
        if name not in sets and any(p[k] is not None for k in ("device", "queue_delay", "launch_overhead", "queue_wait")):
            bad.append("phase %s: device figures without events" % name)
    d = report["device"]
    compare("device.ttft_steady", stats(list(steps["prefill"].values())), d["ttft_steady"], bad)
    compare("device.tpot", stats(list(steps["decode"].values())), d["tpot"], bad)
    want = {"intervals": len(events), "unresolved": 0, "open": 0, "refused": 0, "parts": 0,
            "elapsed": len(events) if form == "elapsed" else 0,
            "queued": len(events) if form == "absolute" else 0,
            "queue_clamped": clamped["queue"], "queued_clamped": clamped["queued"]}
    for key, v in want.items():
        if d[key] != v:
            bad.append("device.%s: expected %d, the report %s" % (key, v, d[key]))
    return bad


def summary(report, events):
    form, sets, steps, clamped = recompute(events)
    n = sum(len(s["device"]) for s in sets.values())
    agree = [numpy_agrees(v) for s in sets.values() for k, v in s.items() if len(v) > 1]
    return "%s form: %d kernel events (%d steady) in %d phases, %d prefills and %d decode steps; clamped %d/%d%s" % (
        form, len(events), n, len(sets), len(steps["prefill"]), len(steps["decode"]), clamped["queue"], clamped["queued"],
        "" if agree[0] is None else "; numpy's linear percentile agrees on all %d sets" % len(agree) if all(agree)
        else "; numpy DISAGREES")


def check_files(pairs):
    """Check each (JSON, events) pair, then that the forms give the same phases and counts."""
    failed = 0
    seen = {}
    for json_path, events_path in pairs:
        report, events = load(json_path, events_path)
        bad = check(report, events)
        said = summary(report, events)
        if said.endswith("DISAGREES"):
            bad.append("numpy's linear percentile disagrees with the header's definition")
        print("%s: %s" % (json_path, said))
        for b in bad[:20]:
            print("  MISMATCH " + b)
        if len(bad) > 20:
            print("  ... %d mismatches in all" % len(bad))
        if not bad:
            print("  every figure equal, to the ns: %s of each phase; TTFT and TPOT (device)" %
                  ("device, queue_delay, launch_overhead, queue_wait" if events[0]["form"] == "absolute"
                   else "device (queue_delay, launch_overhead, queue_wait null)"))
            # the check must be able to fail: one START 1 ns later changes the phase figures
            moved = [dict(e) for e in events]
            k = next(i for i, e in enumerate(moved) if not e["warmup"])
            moved[k]["start"] += 1
            moved[k]["lib"] = dict(moved[k]["lib"], device_ns=moved[k]["end"] - moved[k]["start"],
                                   begin_ns=moved[k]["lib"]["begin_ns"] + (moved[k]["form"] == "absolute"))
            caught = [b for b in check(report, moved) if not b.startswith("event ")]
            if not caught:
                bad.append("a START moved by 1 ns went unnoticed: the check proves nothing")
            else:
                print("  self-test: one START moved by 1 ns is caught (%s)" % caught[0])
        failed += bool(bad)
        form, sets, _, _ = recompute(events)
        seen[form] = {name: len(s["device"]) for name, s in sets.items()}
    if len(seen) == 2:
        if seen["absolute"] != seen["elapsed"]:
            print("MISMATCH the two forms' phases or counts differ: %s / %s" % (seen["absolute"], seen["elapsed"]))
            failed += 1
        else:
            print("both forms: the same %d phases with device figures, the same counts, each equal to END - START "
                  "of its own events" % len(seen["absolute"]))
    return 1 if failed else 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "--check" and len(argv) % 2 == 1:
        return check_files(list(zip(argv[1::2], argv[2::2])))
    if len(argv) != 2:
        sys.exit(__doc__)
    binary, work = argv
    os.makedirs(work, exist_ok=True)
    pairs = []
    for form in ("absolute", "elapsed"):
        j, ev = os.path.join(work, form + ".json"), os.path.join(work, form + ".events")
        cmd = [binary, "--form", form, "--steps", "24", "--runs", "3", "--json", j, "--events", ev]
        out = subprocess.run(cmd, capture_output=True, text=True)
        print("$ " + " ".join(cmd) + "\n" + out.stdout.strip())
        if out.returncode != 0:
            print(out.stderr.strip())
            print("opencl_check: %s exited %d" % (binary, out.returncode))
            return 1
        pairs.append((j, ev))
    return check_files(pairs)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
