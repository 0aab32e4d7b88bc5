#!/usr/bin/env python3
"""Topics of manifactor beside gensim's LdaModel and Nmf, on the same tokens,
scored by the same scorer.

The tokens are the documents `topics` fits, as their terms in text order
(go run ./internal/cmd/tokens: read and prepared as topics reads them,
stemmed unless --no-stem). gensim's models are trained on those token
lists, each with its documented defaults (one pass; random_state = the
seed). Every model's topics are then scored by package coherence
(internal/cmd/cohere) on the same token file: NPMI over windows of 10
tokens and C_V over windows of 110 on each topic's top 10 words, and
topic diversity on the top 25. Both reward a topic made of one long
document's words, so the table also counts the narrow topics: those that
are the largest topic of fewer than 1 % of the documents. Each
configuration runs once per seed; the table gives the medians and the
seconds of the fit.

    /usr/bin/python3 bench/topics_gensim.py --data DIR_OR_FILE [--single-label]
        [--no-stem] [--ks 10,20] [--seeds 1,2,3]
        [--variant NAME=ARGS ...] [--no-gensim]

A variant is a manifactor configuration, "default" (topics with no
options) unless given: e.g. --variant "raw=--normalize none". Needs
python3-gensim and the Go toolchain.
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build(tmp):
    bins = {}
    for name, pkg in [("manifactor", "./cmd/manifactor"), ("tokens", "./internal/cmd/tokens"), ("cohere", "./internal/cmd/cohere")]:
        out = os.path.join(tmp, name)
        subprocess.run(["go", "build", "-o", out, pkg], cwd=ROOT, check=True)
        bins[name] = out
    return bins


def score(bins, tokens, topics, tmp):
    """NPMI and C_V of the topics' top 10 words on tokens, and their
    diversity on the top 25."""
    path = os.path.join(tmp, "topics.txt")
    with open(path, "w") as f:
        for t in topics:
            f.write(" ".join(t[:10]) + "\n")
    out = {}
    for m in ("npmi", "cv"):
        r = subprocess.run([bins["cohere"], "--tokens", tokens, "--topics", path, "--measure", m], check=True, capture_output=True, text=True)
        out[m] = json.loads(r.stdout)["mean"]
    full = [t[:25] for t in topics if len(t) >= 25]
    out["diversity"] = len({w for t in full for w in t}) / (25 * len(full)) if full else float("nan")
    return out


def manifactor_topics(bins, a, k, seed, extra):
    args = [bins["manifactor"], "topics", "--data", a.data, "--k", str(k), "--seed", str(seed), "--top", "25", "--stems", "--json", "--quiet"]
    if a.single_label:
        args.append("--single-label")
    if a.no_stem:
        args.append("--no-stem")
    t = time.perf_counter()
    r = subprocess.run(args + extra, check=True, capture_output=True, text=True)
    secs = time.perf_counter() - t
    out = json.loads(r.stdout)
    return [tp["terms"] for tp in out["topics"]], [tp["size"] for tp in out["topics"]], secs


def gensim_topics(kind, texts, k, seed):
    from gensim.corpora import Dictionary
    from gensim.models import LdaModel, Nmf

    d = Dictionary(texts)
    pruned = [i for w, i in d.token2id.items() if w == "<pruned>"]
    d.filter_tokens(bad_ids=pruned)
    corpus = [d.doc2bow(t) for t in texts]
    t = time.perf_counter()
    if kind == "lda":
        m = LdaModel(corpus, num_topics=k, id2word=d, random_state=seed)
    else:
        m = Nmf(corpus, num_topics=k, id2word=d, random_state=seed)
    secs = time.perf_counter() - t
    sizes = [0] * k
    for bow in corpus:
        weights = m.get_document_topics(bow, minimum_probability=0) if kind == "lda" else m[bow]
        if weights:
            sizes[max(weights, key=lambda x: x[1])[0]] += 1
    return [[w for w, _ in m.show_topic(c, topn=25)] for c in range(k)], sizes, secs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--single-label", action="store_true")
    ap.add_argument("--no-stem", action="store_true")
    ap.add_argument("--ks", default="10,20")
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--variant", action="append", default=[])
    ap.add_argument("--no-gensim", action="store_true")
    a = ap.parse_args()
    variants = [("default", [])]
    for v in a.variant:
        name, _, args = v.partition("=")
        variants.append((name, shlex.split(args)))
    ks = [int(x) for x in a.ks.split(",")]
    seeds = [int(x) for x in a.seeds.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        bins = build(tmp)
        tokens = os.path.join(tmp, "tokens.txt")
        args = [bins["tokens"], "--data", a.data] + (["--single-label"] if a.single_label else []) + (["--no-stem"] if a.no_stem else [])
        with open(tokens, "w") as f:
            subprocess.run(args, stdout=f, check=True)
        texts = [line.split() for line in open(tokens)]
        ntok = sum(len(t) for t in texts)
        print("# %s%s%s: %d documents, %d tokens; seeds %s; medians" % (
            a.data, " --single-label" if a.single_label else "", " --no-stem" if a.no_stem else "", len(texts), ntok, a.seeds))
        print("| k | run | NPMI | C_V | diversity | narrow topics | seconds |")
        print("| ---: | --- | ---: | ---: | ---: | ---: | ---: |")
        runs = [("manifactor " + name, lambda k, s, extra=extra: manifactor_topics(bins, a, k, s, extra)) for name, extra in variants]
        if not a.no_gensim:
            runs += [("gensim LDA", lambda k, s: gensim_topics("lda", texts, k, s)),
                     ("gensim NMF", lambda k, s: gensim_topics("nmf", texts, k, s))]
        for k in ks:
            for name, fit in runs:
                rows = []
                for s in seeds:
                    topics, sizes, secs = fit(k, s)
                    sc = score(bins, tokens, topics, tmp)
                    sc["seconds"] = secs
                    sc["narrow"] = sum(1 for x in sizes if x < 0.01 * len(texts))
                    rows.append(sc)
                med = {m: statistics.median(r[m] for r in rows) for m in ("npmi", "cv", "diversity", "narrow", "seconds")}
                print("| %d | %s | %.3f | %.3f | %.3f | %g | %.1f |" % (k, name, med["npmi"], med["cv"], med["diversity"], med["narrow"], med["seconds"]), flush=True)


if __name__ == "__main__":
    main()
