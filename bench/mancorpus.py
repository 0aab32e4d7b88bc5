#!/usr/bin/env python3
"""Write the manual pages installed on this machine as a line corpus.

A second raw-text corpus beside Reuters-21578 for checking that topic
defaults were not tuned to news: manual pages have many authors, shared
templates (NAME, SYNOPSIS, SEE ALSO, licence boilerplate), near-duplicates
(one page per library function, per Perl module) and a long-tailed
technical vocabulary. Each English page under /usr/share/man/man1..man8,
read once however many links name it, becomes one line "sectionN<TAB>text"
with the roff markup removed. What it holds depends on the packages
installed; the script prints the documents written and a digest of the
file so that two runs can be compared.

    python3 bench/mancorpus.py OUT.txt [--min-words 50] [--max-words 5000]
        [--exclude REGEX]

--exclude leaves out the pages whose file name matches (e.g. "^gcloud",
the Google Cloud SDK's thousands of near-identical pages).
"""
import argparse
import gzip
import hashlib
import os
import re
import sys

ESCAPES = re.compile(r"\\f(\[[^\]]*\]|\(..|.)|\\\(..|\\\[[^\]]*\]|\\[*n]\(..|\\[*n].|\\s[-+]?\d|\\[-&e|^~0 ]|\\.")


# Macros whose arguments are text a reader sees (man and mdoc); the
# arguments of the others (string and register definitions, conditions,
# spacing) are markup.
TEXT_MACROS = {"SH", "SS", "TP", "IP", "B", "I", "BR", "BI", "IB", "IR", "RB", "RI", "SM", "SB",
               "Nm", "Nd", "Sh", "Ss", "Ar", "Fl", "Xr", "Pa", "Op", "It", "Em", "Dq", "Ql", "Sy", "Va", "Fn", "Fa", "Cm", "Ic", "Li"}


def text_of(raw):
    """The words of a roff page after its title macro (pod2man's preamble
    of definitions comes before it): text lines, and the arguments of the
    macros that carry text."""
    out = []
    started = False
    for line in raw.splitlines():
        if line.startswith((".TH", ".Dd", ".Dt")):
            started = True
            continue
        if not started:
            continue
        if line.startswith(('.', "'")):
            parts = line[1:].split(None, 1)
            if not parts or parts[0] not in TEXT_MACROS:
                continue
            line = parts[1] if len(parts) > 1 else ""
        line = ESCAPES.sub(" ", line)
        out.append(line.replace('"', " "))
    return " ".join(" ".join(out).split())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--root", default="/usr/share/man")
    ap.add_argument("--min-words", type=int, default=50)
    ap.add_argument("--max-words", type=int, default=5000)
    ap.add_argument("--exclude", default="")
    a = ap.parse_args()
    seen = set()
    written = 0
    with open(a.out, "w", encoding="utf-8") as f:
        for sec in range(1, 9):
            d = os.path.join(a.root, "man%d" % sec)
            if not os.path.isdir(d):
                continue
            for name in sorted(os.listdir(d)):
                if a.exclude and re.search(a.exclude, name):
                    continue
                path = os.path.realpath(os.path.join(d, name))
                if path in seen or not os.path.isfile(path):
                    continue
                seen.add(path)
                opener = gzip.open if path.endswith(".gz") else open
                try:
                    with opener(path, "rb") as g:
                        raw = g.read().decode("utf-8", "replace")
                except OSError:
                    continue
                if raw.lstrip().startswith(".so "):
                    continue  # a page that only includes another
                words = text_of(raw).split()
                if len(words) < a.min_words:
                    continue
                f.write("section%d\t%s\n" % (sec, " ".join(words[: a.max_words])))
                written += 1
    digest = hashlib.sha256(open(a.out, "rb").read()).hexdigest()[:16]
    print("%s: %d pages, sha256 %s" % (a.out, written, digest), file=sys.stderr)


if __name__ == "__main__":
    main()
