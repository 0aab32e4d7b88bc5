"""Side-by-side benchmark of the text pipeline: manifactor's LoadReuters
against scikit-learn's TfidfVectorizer on the whole Reuters-21578 corpus.

What each side's time covers:

- manifactor (BenchmarkReutersVectorize in bench/text_test.go, run here as
  a compiled test binary): decompressing the 22 .sgm.gz files, parsing the
  SGML, tokenizing, stop words, stemming (the "nostem" row skips it),
  counting, tf-idf and unit length, to the finished sparse matrix.
- scikit-learn: "extract" is this script reading the same files (gzip,
  Latin-1, a regular-expression parse of each <REUTERS> element, character
  references decoded) into the same texts, title and body, that
  Article.Text gives; "vectorize" is TfidfVectorizer.fit_transform on
  those texts (English stop words, tokens of two or more letters without
  digits, x = tf * log(n / df) + 1, unit length; no stemming, which
  scikit-learn does not offer). "total" is the sum, the counterpart of
  manifactor's figure.

The machine's speed drifts, so the sides alternate over several rounds and
the table shows medians.

Usage: /usr/bin/python3 bench/text_compare.py [--data DIR] [--rounds 3]
(run from the module root; the Go toolchain builds the benchmark binary).
"""

import argparse
import glob
import gzip
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

import sklearn
from sklearn.feature_extraction.text import TfidfVectorizer

ARTICLE = re.compile(r"<REUTERS\b([^>]*)>(.*?)</REUTERS>", re.S)
TEXT = re.compile(r"<TEXT\b([^>]*)>(.*?)</TEXT>", re.S)
TITLE = re.compile(r"<TITLE>(.*?)</TITLE>", re.S)
BODY = re.compile(r"<BODY>(.*?)</BODY>", re.S)
TAG = re.compile(r"<[^>]*>")
NUMREF = re.compile(r"&#(\d+);")
# White space and control characters, trimmed from both ends of a field.
EDGE = "".join(chr(c) for c in range(33)) + "\x7f" + "".join(chr(c) for c in range(0x80, 0xa1))


def decode(s):
    s = NUMREF.sub(lambda m: chr(int(m.group(1))), s)
    return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&").strip(EDGE)


def extract(data):
    """The texts of every article, in file order: title, newline, body (for
    TYPE="UNPROC" the text content of <TEXT>), as Article.Text."""
    texts = []
    for path in sorted(glob.glob(os.path.join(data, "reut2-*.sgm.gz"))):
        with gzip.open(path, "rb") as f:
            sgml = f.read().decode("latin-1")
        for m in ARTICLE.finditer(sgml):
            t = TEXT.search(m.group(2))
            title = body = ""
            if t:
                attrs, inner = t.groups()
                tm = TITLE.search(inner)
                title = decode(tm.group(1)) if tm else ""
                if 'TYPE="UNPROC"' in attrs:
                    body = decode(TAG.sub("", inner))
                else:
                    bm = BODY.search(inner)
                    body = decode(bm.group(1)) if bm else ""
            texts.append("\n".join(x for x in (title, body) if x))
    return texts


def sklearn_round(data):
    t0 = time.perf_counter()
    texts = extract(data)
    t1 = time.perf_counter()
    vec = TfidfVectorizer(stop_words="english", token_pattern=r"(?u)\b[^\W\d_][^\W\d_]+\b",
                          smooth_idf=False, norm="l2")
    x = vec.fit_transform(texts)
    t2 = time.perf_counter()
    return (t1 - t0) * 1e3, (t2 - t1) * 1e3, x.shape, x.nnz


BENCH_LINE = re.compile(r"^BenchmarkReutersVectorize/(\S+?)(?:-\d+)?\s+\d+\s+(.*)$")


def go_round(binary, bench_dir):
    """The metrics of each sub-benchmark (ns/op, docs, terms, ...), from one run."""
    out = subprocess.run([binary, "-test.run", "^$", "-test.bench", "BenchmarkReutersVectorize/(all|all-nostem)$",
                          "-test.benchtime", "3x"], cwd=bench_dir, check=True, capture_output=True, text=True).stdout
    res = {}
    for line in out.splitlines():
        m = BENCH_LINE.match(line)
        if m:
            f = m.group(2).split()
            res[m.group(1)] = {f[i + 1]: float(f[i]) for i in range(0, len(f) - 1, 2)}
    if not res:
        sys.exit("no benchmark output:\n" + out)
    return res


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data", "reuters21578"))
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    if not glob.glob(os.path.join(args.data, "reut2-*.sgm.gz")):
        sys.exit(f"{args.data}: no reut2-*.sgm.gz files")

    with tempfile.TemporaryDirectory() as tmp:
        binary = os.path.join(tmp, "bench.test")
        subprocess.run(["go", "test", "-c", "-o", binary, "."], cwd=here, check=True)
        go = {"all": [], "all-nostem": []}
        sk = {"extract": [], "vectorize": [], "total": []}
        for r in range(args.rounds):
            g = go_round(binary, here)
            for k in go:
                go[k].append(g[k])
            ext, vec, shape, nnz = sklearn_round(args.data)
            sk["extract"].append(ext)
            sk["vectorize"].append(vec)
            sk["total"].append(ext + vec)
            print(f"round {r + 1}: manifactor {g['all']['ns/op'] / 1e6:.0f} ms (nostem {g['all-nostem']['ns/op'] / 1e6:.0f}), "
                  f"scikit-learn {ext:.0f} + {vec:.0f} ms", file=sys.stderr)

    med = statistics.median
    total = med(sk["total"])
    print(f"Reuters-21578, all 22 files; {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
          f"scikit-learn {sklearn.__version__}, Python {platform.python_version()}; medians of {args.rounds} rounds\n")
    print("| pipeline | documents x terms | nnz | ms | vs scikit-learn total |")
    print("| --- | --- | --- | --- | --- |")
    for k, label in (("all", "manifactor LoadReuters (stemmed)"), ("all-nostem", "manifactor LoadReuters, NoStem")):
        m = med(x["ns/op"] for x in go[k]) / 1e6
        last = go[k][-1]
        print(f"| {label} | {last['docs']:.0f} x {last['terms']:.0f} | {last['nnz']:.0f} | {m:.0f} "
              f"(read {med(x['read-ms'] for x in go[k]):.0f}, vectorize {med(x['vectorize-ms'] for x in go[k]):.0f}) "
              f"| {total / m:.1f}x faster |")
    print(f"| scikit-learn: extract texts (Python) | {shape[0]} documents | - | {med(sk['extract']):.0f} | - |")
    print(f"| scikit-learn: TfidfVectorizer.fit_transform | {shape[0]} x {shape[1]} | {nnz} | {med(sk['vectorize']):.0f} | - |")
    print(f"| scikit-learn: total | | | {total:.0f} | 1.0x |")


if __name__ == "__main__":
    main()
