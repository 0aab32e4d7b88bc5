#!/usr/bin/env python3
"""Scores rules for --lambda auto on the records of bench/autorules.sh.

Each record is one draw of the protocol with every candidate's relative
cut, cohesion, cluster sizes and accuracy (internal/cmd/autocands). A rule picks a
candidate from the first two; its score on a corpus is the accuracy of its
picks averaged over the draws of each k, then over k, as experiment
averages. Printed beside: each candidate weight kept always (the fits
auto saw; under the path start these are not the fixed weights' own fits
for weights above 1), and how many draws each rule decides differently
from the shipped one.

Usage: bench/autorules.py DIR   (DIR holds <corpus>.jsonl)
"""
import collections
import json
import os
import sys

CORPORA = ["tdt2", "reuters", "ohscal", "la1", "k1b", "coil20", "pie"]


def least_cut(r):
    cut = r["relative_cut"]
    return min(range(len(cut)), key=lambda i: (cut[i], i))


def most_cohesive(r, among=None):
    coh = r["cohesion"]
    idx = among if among is not None else range(len(coh))
    return max(idx, key=lambda i: (coh[i], -i))


OFF_TOPIC_CUT, COLLAPSE_SHARE, REFINE_GROWTH = 0.5, 0.4, 1.5


def collapsed(r, i):
    """Fewer than COLLAPSE_SHARE times the plain clustering's effective
    number of clusters, k^size_entropy."""
    e = r["size_entropy"]
    return i > 0 and r["k"] ** (e[i] - e[0]) < COLLAPSE_SHARE


def refines(r, i):
    return i == 0 or (not collapsed(r, i) and r["largest"][i] <= REFINE_GROWTH * r["largest"][0])


def shipped(r):
    """model.autoChoice: collapsed clusterings never kept; where the plain
    clusters cut the graph at OFF_TOPIC_CUT of chance or more, only the
    weights that refine the plain clustering weighed; trusted when the
    least cut is the plain method's (not off topic) or at most half of
    it; else the most cohesive clustering that refines the plain one."""
    cut = r["relative_cut"]
    off = cut[0] >= OFF_TOPIC_CUT
    ok = [i for i in range(len(cut)) if not collapsed(r, i) and (refines(r, i) or not off)]
    b = min(ok, key=lambda i: (cut[i], i))
    if (b == 0 and not off) or cut[b] <= cut[0] / 2:
        return b
    return most_cohesive(r, [i for i in range(len(cut)) if refines(r, i)])


def size_blind(r):
    """The rule before the size guards (2026-11-26 to 2026-11-28): trusted
    when the least cut is the plain method's or at most half of it, else
    the most cohesive."""
    b = least_cut(r)
    if b == 0 or r["relative_cut"][b] <= r["relative_cut"][0] / 2:
        return b
    return most_cohesive(r)


def before(r):
    """The rule before 2026-11-26: trusted only when a weight halves the
    plain method's relative cut."""
    b = least_cut(r)
    if r["relative_cut"][b] <= r["relative_cut"][0] / 2:
        return b
    return most_cohesive(r)


def cohesive_not_cutting_more(r):
    """Untrusted: the most cohesive among the clusterings that cut no more
    than the plain method's."""
    b = least_cut(r)
    cut = r["relative_cut"]
    if cut[b] <= cut[0] / 2:
        return b
    return most_cohesive(r, [i for i in range(len(cut)) if cut[i] <= cut[0]])


def untrusted_plain(r):
    """Untrusted: the plain method."""
    b = least_cut(r)
    if r["relative_cut"][b] <= r["relative_cut"][0] / 2:
        return b
    return 0


def guarded(ok):
    """The rule without the size guards among the candidates ok(r, i)
    accepts (and the plain method)."""
    def rule(r):
        idx = [i for i in range(len(r["lambda"])) if i == 0 or ok(r, i)]
        cut = r["relative_cut"]
        b = min(idx, key=lambda i: (cut[i], i))
        if b == 0 or cut[b] <= cut[0] / 2:
            return b
        return most_cohesive(r, idx)
    return rule


RULES = [
    ("shipped (size guards; least cut if plain or half of plain's)", shipped),
    ("without the size guards", size_blind),
    ("before: least cut if half of plain's", before),
    ("untrusted: cohesive, cutting <= plain", cohesive_not_cutting_more),
    ("untrusted: the plain method", untrusted_plain),
    ("largest cluster at most 1.5 times the plain one's, alone", guarded(lambda r, i: r["largest"][i] <= 1.5 * r["largest"][0])),
    ("largest cluster at most 2 times the plain one's, alone", guarded(lambda r, i: r["largest"][i] <= 2 * r["largest"][0])),
    ("size entropy at least half the plain one's, alone", guarded(lambda r, i: r["size_entropy"][i] >= 0.5 * r["size_entropy"][0])),
    ("cohesion at least 0.9 times the plain one's, alone", guarded(lambda r, i: r["cohesion"][i] >= 0.9 * r["cohesion"][0])),
]


def score(recs, pick):
    by_k = collections.defaultdict(list)
    for r in recs:
        by_k[r["k"]].append(r["accuracy"][pick(r)])
    return 100 * sum(sum(v) / len(v) for v in by_k.values()) / len(by_k)


def main():
    d = sys.argv[1]
    data = {}
    for c in CORPORA:
        p = os.path.join(d, c + ".jsonl")
        if os.path.exists(p) and os.path.getsize(p) > 0:
            data[c] = [json.loads(line) for line in open(p)]
    cs = list(data)
    print("| rule | " + " | ".join(cs) + " | draws decided otherwise |")
    print("| --- |" + " ---: |" * (len(cs) + 1))
    for name, rule in RULES:
        changed = sum(rule(r) != shipped(r) for c in cs for r in data[c])
        print(f"| {name} | " + " | ".join(f"{score(data[c], rule):.1f}" for c in cs) + f" | {changed} |")
    lambdas = data[cs[0]][0]["lambda"] if cs else []
    for i, lam in enumerate(lambdas):
        name = "the plain method" if lam == 0 else f"lambda {lam:g}, always"
        print(f"| {name} | " + " | ".join(f"{score(data[c], lambda r, i=i: i):.1f}" for c in cs) + " | |")


if __name__ == "__main__":
    main()
