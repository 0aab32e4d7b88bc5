"""Topic coherence: package coherence (internal/cmd/cohere) against
gensim's CoherenceModel on the same tokens and topics.

Tokens: the Reuters-21578 articles' bodies, lower-cased runs of letters
of 3 or more, gensim's stop words removed (any tokenization does: both
sides read the same file). Topics: 20 of 10 words drawn (seeded) from
the 2,000 most frequent. Scores NPMI (c_npmi, window 10), UMass (u_mass,
documents) and C_V (c_v, window 110, gamma 1) per topic, with stock
gensim and with gensim's sliding window corrected (its accumulator, on
sliding on, drops the word that leaves the window even when it occurs
again inside), and prints the largest differences and the times.

Usage: /usr/bin/python3 bench/coherence_gensim.py [--reuters DIR] [--rounds 3]
Needs python3-gensim; the Go toolchain (go run ./internal/cmd/cohere).
"""

import argparse
import glob
import gzip
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
from gensim.corpora import Dictionary
from gensim.models import CoherenceModel
from gensim.parsing.preprocessing import STOPWORDS
from gensim.topic_coherence import text_analysis


def reuters_texts(path):
    texts = []
    for f in sorted(glob.glob(os.path.join(path, "*.sgm.gz"))):
        raw = gzip.open(f, "rt", encoding="latin-1").read()
        for body in re.findall(r"<BODY>(.*?)</BODY>", raw, re.S):
            toks = [t for t in re.findall(r"[a-z]{3,}", body.lower()) if t not in STOPWORDS]
            if toks:  # gensim's sliding window fails on an empty document
                texts.append(toks)
    return texts


def fixed_slide(self, window, doc_num):
    """The window's words recounted from the window itself."""
    self._uniq_words[:] = False
    self._uniq_words[np.unique(window)] = True
    self._current_doc_num = doc_num
    self._token_at_edge = window[0]


def gensim_scores(texts, dictionary, corpus, topics, measure):
    kw = {"u_mass": dict(corpus=corpus), "c_npmi": dict(texts=texts), "c_v": dict(texts=texts)}[measure]
    cm = CoherenceModel(topics=topics, dictionary=dictionary, coherence=measure, processes=1, **kw)
    t = time.perf_counter()
    per = cm.get_coherence_per_topic()
    return per, time.perf_counter() - t


def ours(tok, top, measure):
    out = subprocess.run([os.environ.get("COHERE", "bin/cohere"), "--tokens", tok, "--topics", top, "--measure", measure],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reuters", default="../shared/data/reuters21578")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    subprocess.run(["go", "build", "-o", "bin/cohere", "./internal/cmd/cohere"], check=True)
    texts = reuters_texts(a.reuters)
    dictionary = Dictionary(texts)
    corpus = [dictionary.doc2bow(t) for t in texts]
    freq = sorted(dictionary.cfs.items(), key=lambda kv: -kv[1])[:2000]
    rng = random.Random(1)
    topics = [[dictionary[i] for i, _ in rng.sample(freq, 10)] for _ in range(20)]
    d = tempfile.mkdtemp()
    tok, top = os.path.join(d, "tokens.txt"), os.path.join(d, "topics.txt")
    with open(tok, "w") as f:
        for t in texts:
            f.write(" ".join(t) + "\n")
    with open(top, "w") as f:
        for t in topics:
            f.write(" ".join(t) + "\n")
    print(f"# Reuters-21578 bodies: {len(texts)} documents, {sum(map(len, texts))} tokens; 20 topics of 10 words")
    print("| measure | max abs. difference, stock gensim | corrected window | gensim s | manifactor s | ratio |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    stock_slide = text_analysis.WordOccurrenceAccumulator._slide_window
    for gm, om in (("c_npmi", "npmi"), ("u_mass", "umass"), ("c_v", "cv")):
        g_t, o_t = [], []
        for _ in range(a.rounds):
            text_analysis.WordOccurrenceAccumulator._slide_window = stock_slide
            stock, gt = gensim_scores(texts, dictionary, corpus, topics, gm)
            res = ours(tok, top, om)
            g_t.append(gt)
            o_t.append(res["seconds"])
        text_analysis.WordOccurrenceAccumulator._slide_window = fixed_slide
        fixed, _ = gensim_scores(texts, dictionary, corpus, topics, gm)
        text_analysis.WordOccurrenceAccumulator._slide_window = stock_slide
        mine = np.array(res["topics"], dtype=float)
        d_stock = np.max(np.abs(mine - np.array(stock)))
        d_fixed = np.max(np.abs(mine - np.array(fixed)))
        gs, os_ = sorted(g_t)[len(g_t) // 2], sorted(o_t)[len(o_t) // 2]
        print(f"| {om} | {d_stock:.2e} | {d_fixed:.2e} | {gs:.2f} | {os_:.3f} | {gs / os_:.0f}x |")


if __name__ == "__main__":
    sys.exit(main())
