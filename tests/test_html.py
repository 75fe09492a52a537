#!/usr/bin/env python3
"""The HTML report: a profile run, a serving run and a comparison, each one file that parses, references
nothing outside itself, holds its charts, and renders in headless Chromium to a PNG that is not blank
(skipped with a message where Chromium is not installed).

    python3 tests/test_html.py REPORT_BIN GENERATE_BIN WORK_DIR
"""
import html.parser
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

TINY = ["--dim", "64", "--layers", "2", "--heads", "4", "--hidden", "96", "--vocab", "300", "--prompt-len", "16"]
VOID = {"meta", "br", "hr", "img", "input", "link", "circle", "rect", "line", "polyline", "path"}


class Checker(html.parser.HTMLParser):
    """Tags balanced, no element or attribute that fetches anything, no script."""

    def __init__(self):
        super().__init__()
        self.stack, self.tags, self.problems = [], {}, []

    def handle_starttag(self, tag, attrs):
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag in ("script", "link", "img", "iframe", "object", "embed", "image", "use"):
            self.problems.append("element <%s>" % tag)
        for name, value in attrs:
            if name in ("src", "href", "xlink:href", "srcset", "action", "poster") or name.startswith("on"):
                self.problems.append("attribute %s=%r on <%s>" % (name, value, tag))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append("</%s> closes <%s>" % (tag, self.stack[-1] if self.stack else "nothing"))
        else:
            self.stack.pop()


def check_html(path, min_svg, words):
    text = open(path, encoding="utf-8").read()
    c = Checker()
    c.feed(text)
    c.close()
    assert not c.problems, (path, c.problems[:5])
    assert not c.stack, (path, "unclosed", c.stack)
    for bad in ("http:", "https:", "url(", "@import", "//"):
        assert bad not in text, (path, "references outside itself: " + bad)
    assert c.tags.get("svg", 0) >= min_svg, (path, c.tags.get("svg", 0))
    for w in words:
        assert w in text, (path, w)
    return text


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit, non-interlaced RGB or RGBA PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat = 8, b""
    while pos < len(data):
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + size]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + size
    bpp = 3 if ctype == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):  # undo the row's filter (PNG spec, 9.2)
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows


def render(html_path, png_path, work):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("chromium not found (Debian: apt-get install chromium): the rendering check is SKIPPED")
        return False
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                    "--user-data-dir=" + os.path.join(work, "chromium-profile"), "--window-size=1000,2400",
                    "--screenshot=" + png_path, "file://" + os.path.abspath(html_path)],
                   check=True, capture_output=True, timeout=120)
    w, h, bpp, rows = png_pixels(png_path)
    ink = blue = 0
    for line in rows[::4]:
        for i in range(0, w * bpp, 4 * bpp):
            r, g, b = line[i], line[i + 1], line[i + 2]
            ink += (r, g, b) != (255, 255, 255)
            blue += abs(r - 0x00) < 40 and abs(g - 0x72) < 40 and abs(b - 0xB2) < 40  # the first series
    total = len(rows[::4]) * len(range(0, w * bpp, 4 * bpp))
    assert ink > total // 100, (png_path, "blank", ink, total)
    assert blue > 0, (png_path, "no chart drawn in the palette's first colour")
    return True


def charts_drawn(html_path, work):
    """Each chart of the page alone, rendered at its own size (720 x 320, as ttft_tpot_tools.h draws
    it): its plot area (inside the margins) holds drawn pixels in the palette's colours, not only axes
    and grid.
    Returns how many charts were checked (0 without Chromium)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        return 0
    figures = [f for f in re.findall(r"<figure>.*?</figure>", open(html_path, encoding="utf-8").read(), re.S)
               if "<svg" in f]  # a figure of one value has no chart
    os.makedirs(work, exist_ok=True)
    for k, fig in enumerate(figures):
        svg = re.search(r"<svg.*?</svg>", fig, re.S).group(0)
        one, png = os.path.join(work, "chart_%d.html" % k), os.path.join(work, "chart_%d.png" % k)
        with open(one, "w", encoding="utf-8") as f:
            f.write("<!doctype html><html><body style=\"margin:0;background:#fff\"><div style=\"width:720px\">%s"
                    "</div></body></html>" % svg)
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        "--user-data-dir=" + os.path.join(work, "chromium-profile"), "--window-size=720,320",
                        "--screenshot=" + png, "file://" + os.path.abspath(one)],
                       check=True, capture_output=True, timeout=120)
        w, h, bpp, rows = png_pixels(png)
        drawn = 0
        for y in range(34 + 3, 320 - 50 - 3):  # the plot area: the charts' MT and MB, a little inside
            line = rows[y]
            for x in range(72 + 3, 720 - 16 - 3):  # ML and MR
                r, g, b = line[x * bpp], line[x * bpp + 1], line[x * bpp + 2]
                drawn += max(r, g, b) - min(r, g, b) > 60  # a palette colour: not white, grey or black
        caption = re.search(r"<figcaption>(.*?)</figcaption>", fig, re.S)
        assert drawn >= 8, (html_path, caption.group(1) if caption else k, "an empty plot area", drawn)  # a dot
    return len(figures)


def svg_texts(text):
    """The text of every <text> element of the page's charts, tick labels and legends included."""
    return re.findall(r"<text[^>]*>([^<]*)</text>", text)


def hostile(report, generate, work):
    """What once hung, read outside the storage, or printed NaN: each a page that ends, says what it
    shows, and labels every tick apart."""
    header = "phase,role,start_ns,dur_ns,tokens,warmup\n"
    run = lambda *a: subprocess.run(list(a), check=True, capture_output=True, timeout=60)  # noqa: E731
    # two steps 1 ulp apart in ms (2^60 ns and 2^60 + 129 ns): the axes' tick loops once never ended
    ulp = os.path.join(work, "ulp.csv")
    open(ulp, "w").write(header + "d,decode,0,1152921504606846976,1,0\nd,decode,0,1152921504606847105,1,0\n")
    out = os.path.join(work, "ulp.html")
    run(report, "--html", out, ulp)
    assert os.path.getsize(out) < 200000, os.path.getsize(out)
    text = check_html(out, 2, ["Headline"])
    for fig in re.findall(r"<figure>.*?</figure>", text, re.S):  # each axis's tick labels differ
        for anchor in ("middle", "end"):  # x, then y
            ticks = re.findall(r'text-anchor="%s" class="tick">([^<]*)<' % anchor, fig)
            assert len(ticks) >= 2 and len(set(ticks)) == len(ticks), ("tick labels repeat", anchor, ticks)
    # every step the same: the CDF's one step lies inside the frame, not on it (the frame's left is x=72)
    same = os.path.join(work, "same.csv")
    open(same, "w").write(header + "d,decode,0,5000000,1,1\n" + "d,decode,0,4000000,1,0\n" * 5)
    out = os.path.join(work, "same.html")
    run(report, "--html", out, same)
    cdf = re.search(r"Steady TPOT \(decode steps\): CDF.*?</figure>", open(out).read(), re.S).group(0)
    xs = [float(p.split(",")[0]) for p in re.search(r'points="([^"]*)"', cdf).group(1).split()]
    assert all(100 < x < 680 for x in xs), xs
    # runs whose TPOT is 0 ns: a CV of 0/0 is n/a, never NaN
    zero = os.path.join(work, "zero.csv")
    open(zero, "w").write(header + "d,decode,0,7,1,1\n# run:\nd,decode,0,0,1,0\n# run:\nd,decode,0,0,1,0\n")
    out = os.path.join(work, "zero.html")
    run(report, "--html", out, zero)
    text = open(out).read()
    assert "nan" not in text.lower(), re.findall(r".{40}nan.{40}", text.lower())[:2]
    assert "CV n/a" in text
    # a kernel name of 63 bytes: its bar's label starts inside the chart
    name = "k" * 63
    kern = os.path.join(work, "long.csv")
    open(kern, "w").write(header + "".join("%s,kernel,0,1000,0,%d\nd,decode,0,2000,1,%d\n" % (name, i == 0, i == 0)
                                           for i in range(4)))
    out = os.path.join(work, "long.html")
    run(report, "--html", out, kern)
    label = re.search(r'<text x="([0-9.]+)"[^>]*text-anchor="(\w+)"[^>]*>' + name + "<", open(out).read())
    assert label and label.group(2) == "start" and float(label.group(1)) >= 0, label and label.groups()
    # storage full: the charts drawn from stored samples say how many of how many they show
    out = os.path.join(work, "full.html")
    run(generate, *TINY, "--max-new-tokens", "32", "--capacity", "64", "--profile-html", out)
    text = open(out).read()
    assert re.search(r"shows the \d+ stored of \d+ decode steps", text), "no note on the step chart"
    assert re.search(r"shows the \d+ stored of \d+ steady decode steps", text), "no note on the TPOT CDF"
    # one new token and two runs: charts without a sample (qsort(NULL, 0) under UBSan)
    run(generate, *TINY, "--max-new-tokens", "1", "--repeat-runs", "2", "--profile-html",
        os.path.join(work, "one.html"))


def figures(report, work):
    """The figures the page shows beside its charts, worked by hand: each kernel's share of steady
    decode time, and the runs' mean, sd and CV."""
    header = "phase,role,start_ns,dur_ns,tokens,warmup\n"
    run = lambda *a: subprocess.run(list(a), check=True, capture_output=True, timeout=60)  # noqa: E731
    # kernels belong to the next step; the warmup step's are not counted. Steady steps 4000 + 6000 ns:
    # k1 (1000 + 2000) / 10000 = 30.0%, k2 1000 / 10000 = 10.0%
    shares = os.path.join(work, "shares.csv")
    open(shares, "w").write(header + "k1,kernel,0,1000,0,1\nk2,kernel,0,500,0,1\nd,decode,0,4000,1,1\n"
                            "k1,kernel,0,1000,0,0\nk2,kernel,0,1000,0,0\nd,decode,0,4000,1,0\n"
                            "k1,kernel,0,2000,0,0\nd,decode,0,6000,1,0\n")
    out = os.path.join(work, "shares.html")
    run(report, "--html", out, shares)
    bars = re.search(r"share of steady decode time.*?</figure>", open(out).read(), re.S).group(0)
    # beside each share its time per mean steady step (5000 ns): 30% is 1500 ns, 10% 500 ns
    assert svg_texts(bars) == ["k1", "30.0% &#183; 1.50 us", "k2", "10.0% &#183; 500 ns"], svg_texts(bars)
    # against a side without k2: its bar says so, not 0%
    other = os.path.join(work, "shares_no_k2.csv")
    open(other, "w").write("".join(line + "\n" for line in open(shares).read().splitlines() if not line.startswith("k2")))
    out = os.path.join(work, "shares_cmp.html")
    run(report, "--compare", "--html", out, shares, other)
    bars = re.search(r"share of steady decode time.*?</figure>", open(out).read(), re.S).group(0)
    assert svg_texts(bars) == ["base", "new", "k1", "30.0% &#183; 1.50 us", "30.0% &#183; 1.50 us", "k2",
                               "10.0% &#183; 500 ns", "absent"], svg_texts(bars)
    # run 1: steps 4 and 6 ms (p50 5 ms, 2 tokens / 10 ms = 200 tok/s); run 2: 6 and 8 ms (p50 7 ms,
    # 2 / 14 ms = 142.857 tok/s). TPOT p50 mean 6 ms, sd sqrt(2) = 1.414 ms, CV 23.6%; output mean
    # 171.43, sd 40.41 tok/s, CV 23.6%
    runs = os.path.join(work, "runs.csv")
    open(runs, "w").write(header + "# run:\nd,decode,0,4000000,1,0\nd,decode,0,6000000,1,0\n"
                          "# run:\nd,decode,0,6000000,1,0\nd,decode,0,8000000,1,0\n")
    out = os.path.join(work, "runs.html")
    run(report, "--html", out, runs)
    text = open(out).read()
    assert ("<th>Runs: TPOT p50</th><td>6 +- 1.4 ms</td><td class=\"note\">mean +- sd over 2 runs, CV 23.6%: "
            "over 5%, compare runs, not one figure</td>") in text, re.findall(r"<th>Runs.*", text)
    assert ("<th>Runs: output throughput</th><td>171.4 +- 40.4 tok/s</td><td class=\"note\">mean +- sd over 2 "
            "runs, CV 23.6%: over 5%, compare runs, not one figure</td>") in text, re.findall(r"<th>Runs.*", text)


def figure_of(text, title):
    """The <figure> whose caption starts with title."""
    fig = re.search(r"<figure><figcaption>" + re.escape(title) + r".*?</figure>", text, re.S)
    assert fig, ("no figure", title)
    return fig.group(0)


def ticks(fig, anchor):
    """The tick labels of one axis of a chart: x ("middle") or y ("end")."""
    return re.findall(r'text-anchor="%s" class="tick">([^<]*)<' % anchor, fig)


def at_a_glance(report, work):
    """What makes a chart read at a glance, worked by hand on the chart's own coordinates: the plot
    area runs from x = 72 to 704 and from y = 270 (bottom) to 34 (top)."""
    header = "phase,role,start_ns,dur_ns,tokens,warmup\n"
    run = lambda *a: subprocess.run(list(a), check=True, capture_output=True, timeout=60)  # noqa: E731

    def page(name, body, *opts):
        path = os.path.join(work, name + ".csv")
        open(path, "w").write(header + body)
        run(report, *opts, "--html", os.path.join(work, name + ".html"), path)
        return open(os.path.join(work, name + ".html")).read()

    # a warmup step of 100 ms over steady steps of 4 to 6 ms: y up to 6.6 ms (ticks 0..6), the 100 ms
    # one a triangle on the top edge with its value; a single prefill: one value, not a chart
    text = page("clip", "p,prefill,0,5000000,16,1\nd,decode,0,100000000,1,1\n" +
                "".join("d,decode,0,%d000000,1,0\n" % v for v in (4, 5, 6, 5)))
    steps = figure_of(text, "Decode step time by step")
    assert ticks(steps, "end") == ["0", "1", "2", "3", "4", "5", "6"], ticks(steps, "end")
    assert steps.count('class="offscale"') == 1 and "&#8593; 100.00 ms" in steps, steps
    assert "Warmup values above 6.60 ms are off the scale" in steps
    assert re.findall(r'<circle cx="[0-9.]+" cy="([0-9.]+)"', steps) == ["22.0"]  # the legend's ring alone:
    # the triangle stands for the off-scale one
    one = figure_of(text, "Prefill time by call")
    assert "<svg" not in one and "One value: <b>5.00 ms</b> (warmup)" in one, one
    # steady steps 1, 10 and 100 ms: a log scale, its ticks durations
    text = page("logy", "d,decode,0,2000000,1,1\n" + "".join("d,decode,0,%d000000,1,0\n" % v for v in (1, 10, 100)))
    steps = figure_of(text, "Decode step time by step")
    assert ticks(steps, "end") == ["1 ms", "10 ms", "100 ms"] and "(log scale)" in steps, ticks(steps, "end")
    # steady steps from 0.5 to 200 ms (400x): the CDF's x in decades from 100 us to 1 s
    text = page("logx", "d,decode,0,1,1,1\n" + "".join("d,decode,0,%d,1,0\n" % v
                                                     for v in (500000, 1000000, 2000000, 5000000, 20000000, 200000000)))
    cdf = figure_of(text, "Steady TPOT (decode steps): CDF")
    assert ticks(cdf, "middle") == ["100 us", "1 ms", "10 ms", "100 ms", "1 s"], ticks(cdf, "middle")
    # two batch sizes: a line each (legend in report order, the warmup rings last)
    text = page("batches", "d[b=1],decode,0,3000000,1,1\nd[b=2],decode,0,5000000,2,1\n" +
                "d[b=1],decode,0,3000000,1,0\nd[b=2],decode,0,5000000,2,0\n" * 4)
    steps = figure_of(text, "Decode step time by step")
    assert [t for t in svg_texts(steps) if t.startswith(("d[", "warmup"))] == ["d[b=1]", "d[b=2]", "warmup"]
    assert 'polyline fill="none" stroke="#0072B2"' in steps and 'polyline fill="none" stroke="#D55E00"' in steps
    # runs: steps 4, 6 | 6, 8 ms; run 2 begins between steps 1 and 2: x = 72 + 1.5 / 3 * 632 = 388
    text = page("runlines", "# run:\nd,decode,0,4000000,1,0\nd,decode,0,6000000,1,0\n"
                            "# run:\nd,decode,0,6000000,1,0\nd,decode,0,8000000,1,0\n")
    steps = figure_of(text, "Decode step time by step")
    assert re.findall(r'<line x1="([0-9.]+)"[^>]*class="mark"/>', steps) == ["388.0"], steps
    assert "run 2</text>" in steps
    # requests: A (submit 0; tokens 0.1, 0.2 s), B (0; 0.3, 0.4 s), C (1.5 s; 1.6, 3.6 s). TTFT 100, 300,
    # 100 ms: the SLO of 200 ms at 72 + (200 - 100) / 200 * 632 = 388. E2E 200, 400, 2100 ms: in s.
    # 1 s slices, each drawn at its middle on 0..4 s: tokens 4, 1, 0, 1 (x 0.5..3.5 s: 72 + x / 4 * 632 =
    # 151, 309, 467, 625; y 4, 1, 0: 34, 211, 270); in flight
    # 2, 1, 1, 1; TTFT p50 of those submitted: 200 ms (A, B), 100 ms (C)
    reqs = [("A", "submit", 0, 0), ("B", "submit", 0, 0), ("A", "token", 100, 1), ("A", "token", 200, 1),
            ("B", "token", 300, 1), ("B", "token", 400, 1), ("C", "submit", 1500, 0), ("C", "token", 1600, 1),
            ("C", "token", 3600, 1)]
    text = page("slo", "".join("%s,%s,%d,0,%d,0\n" % (i, e, t * 1000000, n) for i, e, t, n in reqs),
                "--slo", "ttft=200")
    cdf = figure_of(text, "Time to first token: CDF")
    assert re.findall(r'<line x1="([0-9.]+)"[^>]*class="mark"/>', cdf) == ["388.0"], cdf
    assert "SLO 200 ms</text>" in cdf
    e2e = figure_of(text, "E2E latency: CDF")
    assert ticks(e2e, "middle") == ["0.5", "1.0", "1.5", "2.0"] and "latency (s)" in e2e, ticks(e2e, "middle")
    tok = figure_of(text, "Output throughput over time")
    assert re.search(r'points="([^"]*)"', tok).group(1).split() == ["151.0,34.0", "309.0,211.0", "467.0,270.0",
                                                                     "625.0,211.0"], tok
    flight = figure_of(text, "Requests in flight over time")
    assert ticks(flight, "end") == ["0", "1", "2"], ticks(flight, "end")  # counts: whole ticks
    ttft = figure_of(text, "TTFT over time")
    assert len(re.findall(r"<circle", ttft)) == 2, ttft  # the slices with a submit
    return [os.path.join(work, n + ".html") for n in ("clip", "logx", "batches", "runlines", "slo")]


def plotted(fig):
    """The points of a chart's polylines in its data's units, read back through its tick labels (x at
    their x; y 4 px above their baseline, as ttft_tpot_tools.h writes them); linear axes only."""
    def axis(anchor, at):
        found = [(float(m.group(at)), float(m.group(3))) for m in re.finditer(
            r'<text x="([0-9.]+)" y="([0-9.]+)" text-anchor="%s" class="tick">([-0-9.]+)<' % anchor, fig)]
        (p0, v0), (p1, v1) = found[0], found[-1]
        return lambda p: v0 + (p - p0) / (p1 - p0) * (v1 - v0)
    fx, fy = axis("middle", 1), axis("end", 2)
    return [(fx(float(x)), fy(float(y) + 4)) for line in re.findall(r'points="([^"]*)"', fig)
            for x, y in (p.split(",") for p in line.split())]


def peak_of(text):
    """The headline's peak of requests in flight at once."""
    return int(re.search(r"<tr><th>Peak</th><td>[0-9.]+ tok/s, (\d+) requests</td>", text).group(1))


def trace_page(report, work, name, reqs, *opts):
    """The page of a trace of requests: (id, "submit" or "token", ms), a token each event."""
    path, out = os.path.join(work, name + ".csv"), os.path.join(work, name + ".html")
    open(path, "w").write("phase,role,start_ns,dur_ns,tokens,warmup\n" + "".join(
        "%s,%s,%d,0,%d,0\n" % (i, e, t * 1000000, e == "token") for i, e, t in reqs))
    subprocess.run([report, *opts, "--html", out, path], check=True, capture_output=True, timeout=60)
    return open(out).read()


def slo_edges(report, work):
    """An SLO far outside the data is marked at the edge, not let squeeze the data into a line."""
    # requests 1 s apart, each: first token 2, 3, 4 ms after its submit, then tokens at 50 ms and its
    # E2E 100, 105, 110 ms. TTFT's SLO of 300 ms is 75x the data: the axis stays on 2..4 ms with the SLO
    # at its right edge; E2E's of 10 ms would leave the data a tenth of the axis: at its left edge;
    # TPOT (49, 51, 53 ms) takes its SLO of 55 ms in: the data keeps two thirds of the axis
    reqs = [(i, e, 1000 * k + t) for k, (i, f, last) in enumerate((("A", 2, 100), ("B", 3, 105), ("C", 4, 110)))
            for e, t in (("submit", 0), ("token", f), ("token", 50), ("token", last))]
    text = trace_page(report, work, "slo_far", reqs, "--slo", "ttft=300,e2e=10,tpot=55")
    ttft = figure_of(text, "Time to first token: CDF")
    xs = [x for x, _ in plotted(ttft)]
    assert min(xs) >= 1.9 and max(xs) <= 4.1 and float(ticks(ttft, "middle")[-1]) <= 4.1, ticks(ttft, "middle")
    drawn = [float(p.split(",")[0]) for p in re.search(r'points="([^"]*)"', ttft).group(1).split()]
    assert max(drawn) - min(drawn) >= (704 - 72) / 2, drawn  # the data fills the axis, not a line at 2 ms
    assert 'class="mark"' not in ttft and re.findall(r'<path d="M704.0 [0-9.]+ l-9 -5 v10 z"[^>]*class="markoff"',
                                                     ttft), ttft
    assert re.findall(r'class="marklabel">([^<]*)<', ttft) == ["SLO 300 ms &#8594;"], ttft
    e2e = figure_of(text, "E2E latency: CDF")
    assert float(ticks(e2e, "middle")[0]) >= 90 and 'class="mark"' not in e2e, ticks(e2e, "middle")
    assert re.findall(r'<path d="M72.0 [0-9.]+ l9 -5 v10 z"[^>]*class="markoff"', e2e), e2e
    assert re.findall(r'class="marklabel">([^<]*)<', e2e) == ["&#8592; SLO 10 ms"], e2e
    tpot = figure_of(text, "Time per output token: CDF")  # taken in: drawn as a line, as inside the data
    assert len(re.findall(r'class="mark"/>', tpot)) == 1 and "markoff" not in tpot, tpot
    assert re.findall(r'class="marklabel">([^<]*)<', tpot) == ["SLO 55 ms"], tpot


def flight_peaks(report, generate, work):
    """The chart of requests in flight peaks where the headline does: both count them at once."""
    # 1 s slices: A, B, C one after another in the first (0-100, 200-300, 400-500 ms) with E from 900 ms
    # to 2.5 s; D 1.2-1.3 s; F 2.1-2.2 s. At once: 1, then 2 (E and D), then 2 (E and F): the headline's
    # 2. In flight during some of each: 4, 2, 2
    spans = (("A", 0, 100), ("B", 200, 300), ("C", 400, 500), ("E", 900, 2500), ("D", 1200, 1300),
             ("F", 2100, 2200))
    reqs = [(i, e, t) for i, a, b in spans for e, t in (("submit", a), ("token", b))]
    text = trace_page(report, work, "flight", reqs)
    flight = figure_of(text, "Requests in flight over time")
    assert [round(y, 3) for _, y in plotted(flight)] == [1, 2, 2] and peak_of(text) == 2, plotted(flight)
    assert "(the most at once in each 1.00 s slice, from submit to last token" in flight, flight[:200]
    # the example serving trace (11 requests in its first second, 2 at most at once) and a generated
    # one at 50 requests/s over 2 s
    serve = os.path.join(work, "serve50.csv")
    subprocess.run([generate, *TINY, "--max-new-tokens", "16", "--batch", "4", "--requests", "100", "--arrival-rate",
                    "50", "--trace", serve], check=True, capture_output=True, timeout=120)
    for trace in (os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "traces",
                               "serving.csv"), serve):
        out = os.path.join(work, "peak.html")
        subprocess.run([report, "--html", out, trace], check=True, capture_output=True, timeout=60)
        text = open(out).read()
        ys = [y for _, y in plotted(figure_of(text, "Requests in flight over time"))]
        assert round(max(ys), 3) == peak_of(text), (trace, ys, peak_of(text))


def main():
    report, generate, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    run = lambda *a: subprocess.run(list(a), check=True, capture_output=True)  # noqa: E731
    prof, serve = os.path.join(work, "profile.csv"), os.path.join(work, "serve.csv")
    run(generate, *TINY, "--max-new-tokens", "24", "--warmup-runs", "1", "--repeat-runs", "2", "--trace", prof,
        "--profile-html", os.path.join(work, "generate.html"))
    run(generate, *TINY, "--max-new-tokens", "8", "--batch", "2", "--requests", "12", "--arrival-rate", "0",
        "--trace", serve)
    pages = {"profile": [prof], "serving": [serve], "compare": ["--compare", prof, prof]}
    charts = 0
    for name, args in pages.items():
        out = os.path.join(work, name + ".html")
        run(report, "--html", out, *args)
        text = check_html(out, 5 if name == "serving" else 4, ["Headline", "Decode step time"])
        if name == "serving":  # it leads with the requests, then the steps; the peaks are there
            assert text.index("<th>Request TTFT</th>") < text.index("<th>TTFT, first request</th>")
            assert "<tr><th>Peak</th><td>" in text and "the most requests in flight at once" in text
            assert "Request TTFT" in text and "Inter-token latency: CDF" in text
            assert "Request TTST" in text and "Time to second token: CDF" in text
        if name == "compare":  # a side against itself, of 2 runs: too few to decide, every change is ~
            assert "Base [95% CI]" in text
            assert '<p class="verdict">Verdict: undecided: 2 and 2 runs can give p = 0.333 at best' in text, text[:2000]
            assert 'class="worse"' not in text and "~</td>" in text
        rendered = render(out, os.path.join(work, name + ".png"), work)
        charts += charts_drawn(out, os.path.join(work, name))
        if name == "profile" and charts:  # the check can fail: the same page with its series greyed out
            grey = re.sub(r"#(0072B2|D55E00|009E73|E69F00|CC79A7|56B4E9)", "#808080",
                          open(out, encoding="utf-8").read())
            with open(os.path.join(work, "grey.html"), "w", encoding="utf-8") as f:
                f.write(grey)
            try:
                charts_drawn(os.path.join(work, "grey.html"), os.path.join(work, "grey"))
            except AssertionError:
                pass
            else:
                raise AssertionError("a page whose series are grey passed the drawn-pixels check")
    check_html(os.path.join(work, "generate.html"), 4, ["TTFT, first request", "Prefill rate", "Runs: TPOT p50"])
    hostile(report, generate, work)
    figures(report, work)
    slo_edges(report, work)
    flight_peaks(report, generate, work)
    for page in at_a_glance(report, work):  # the new kinds of chart: over time, clipped, log x, marks
        charts += charts_drawn(page, page[:-5]) if rendered else 0
    print("html: 3 reports and the driver's parse, reference nothing outside themselves%s"
          % (", and render to PNGs that are not blank; each of their %d charts alone has a drawn plot area"
             % charts if rendered else ""))


if __name__ == "__main__":
    main()
