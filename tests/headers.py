#!/usr/bin/env python3
"""The headers' shape: each INDEX against its declarations, the public functions counted, and no private
name (ttft_tpot__, TTFT_TPOT__) of one header used in another."""
import re
import sys
from pathlib import Path

HEADERS = {"ttft_tpot.h": 40, "ttft_tpot_serve.h": 30, "ttft_tpot_tools.h": None}


def code(text):
    """The text without comments and string literals (their words are no names)."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group().count("\n"), text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


def public(text):
    """Public functions: declared TTFT_TPOT_DEF or static inline, named ttft_tpot_ and not ttft_tpot__."""
    c = code(text)
    names = re.findall(r"(?:TTFT_TPOT_DEF|static\s+inline)\s[^;{=()]*?\b(ttft_tpot_(?!_)\w+)\s*\(", c)
    return set(names)


def index(text):
    """The names the top comment's INDEX lists: the first name of each of its lines, to a blank line."""
    head = text[: text.index("*/")]
    lines = head[head.index("INDEX"):].split("\n")[1:]
    names = set()
    for line in lines:
        if not line.strip():
            break
        m = re.match(r"\s+(?:[A-Z][A-Za-z ]*?\s+)?(ttft_tpot_(?!_)\w+)", line)
        if m:
            names.add(m.group(1))
    return names


def private_defs(text):
    """The private names a header defines: functions, variables, types, macros, enum members."""
    c = code(text)
    names = set(re.findall(r"^\s*#\s*define\s+((?:ttft_tpot__|TTFT_TPOT__)\w+)", c, re.M))
    names |= set(re.findall(r"^(?:static|TTFT_TPOT_DEF)\b[^;{]*?\b(ttft_tpot__\w+)\s*(?:\(|\[|=|;)", c, re.M))
    names |= set(re.findall(r"}\s*(ttft_tpot__\w+)\s*[\[=;]", c))
    names |= set(re.findall(r"\bttft_tpot_\w+\s+(ttft_tpot__\w+)\s*=", c))  # a macro's local
    names |= set(re.findall(r"\b(?:struct|union)\s+(ttft_tpot__\w+)", c))
    names |= set(re.findall(r"}\s*(ttft_tpot__\w+)\s*;", c))
    names |= set(re.findall(r"typedef[^;]*?\(\s*\*\s*(ttft_tpot__\w+)\s*\)", c))
    names |= set(re.findall(r"typedef\s[^;{]*?\b(ttft_tpot__\w+)\s*;", c))
    for body in re.findall(r"\benum\s*\w*\s*\{([^}]*)\}", c):
        names |= set(re.findall(r"(?:^|,)\s*((?:ttft_tpot__|TTFT_TPOT__)\w+)", body))
    return names


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent) / "include"
    texts = {h: (root / h).read_text() for h in HEADERS}
    bad = 0
    declared = {}
    for h, limit in HEADERS.items():
        pub, idx = public(texts[h]), index(texts[h])
        declared[h] = pub
        for n in sorted(pub - idx):
            print(f"{h}: {n} is declared but not in the INDEX")
            bad += 1
        for n in sorted(idx - pub):
            print(f"{h}: {n} is in the INDEX but not declared")
            bad += 1
        print(f"{h}: {len(pub)} public functions" + (f" (at most {limit})" if limit else ""))
        if limit and len(pub) > limit:
            bad += 1
    for a in HEADERS:
        for b in HEADERS:
            if a < b and declared[a] & declared[b]:
                print(f"declared in both {a} and {b}: {sorted(declared[a] & declared[b])}")
                bad += 1
    defs = {h: private_defs(t) for h, t in texts.items()}
    for h, t in texts.items():
        text = re.sub(r"\w+\s*##\s*\w+", " ", code(t))  # names pasted together are no names
        used = set(re.findall(r"\b((?:ttft_tpot__|TTFT_TPOT__)\w+)\b", text))
        for n in sorted(used - defs[h]):
            owners = [o for o in HEADERS if o != h and n in defs[o]]
            print(f"{h}: uses {n}, private to {', '.join(owners) if owners else 'no header'}")
            bad += 1
    print("ok" if not bad else f"{bad} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
