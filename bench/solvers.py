#!/usr/bin/env python3
"""manifactor's cd against its own mu for one method: time to the objective
that mu reaches after --mu-iters iterations (issue 12's goals for GNMF and
LPNMF, which scikit-learn does not have).

Each round draws one seed; both solvers run from that seed's start, one
`bench --trace --json --evaluate 1` run each, alternating which goes
first (this machine's speed drifts). The target is that round's mu
objective at its last iteration; cd's time is the first traced point at or
below it (the trace's seconds count from the start of the fit, after the
data set-up and the graph, which both solvers share). The table reports the
medians, and the per-iteration times from bench's own ms_per_iter.

Usage: python3 bench/solvers.py --method lpnmf --lambda 10 [--data PATH]
       [--k 30] [--rounds 3] [--mu-iters 200] [--cd-iters 200]
       [--bin bin/manifactor] [-- extra bench flags]
Needs only the Python standard library.
"""
import argparse
import json
import platform
import statistics
import subprocess


def run(args, solver, iters, seed):
    cmd = [args.bin, "bench", "--data", args.data, "--method", args.method, "--k", str(args.k),
           "--iters", str(iters), "--solver", solver, "--seed", str(seed), "--evaluate", "1",
           "--trace", "--json", "--tol", "off", "--pg-tol", "off"]
    if args.weighting:
        cmd += ["--weighting", args.weighting, "--normalize", "l2"]
    if args.lam:
        cmd += ["--lambda", args.lam]
    cmd += args.extra
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--method", required=True)
    ap.add_argument("--lambda", dest="lam", default="")
    ap.add_argument("--data", default="../shared/data/tdt2/TDT2.mat")
    ap.add_argument("--weighting", default="tfidf", help="tf-idf and unit length; '' for the data as it is")
    ap.add_argument("--k", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--mu-iters", type=int, default=200)
    ap.add_argument("--cd-iters", type=int, default=200)
    ap.add_argument("--bin", default="bin/manifactor")
    ap.add_argument("extra", nargs="*")
    args = ap.parse_args()
    print(f"# {args.method} on {args.data}, k = {args.k}, lambda {args.lam or 'default'}, "
          f"{args.rounds} rounds, {platform.node()}")
    hits, mus, ms = [], [], {"mu": [], "cd": []}
    for r in range(args.rounds):
        seed = r + 1
        order = [("mu", args.mu_iters), ("cd", args.cd_iters)]
        if r % 2:
            order.reverse()
        out = {s: run(args, s, it, seed) for s, it in order}
        mu, cd = out["mu"], out["cd"]
        target = mu["trace"][-1]["objective"]
        mu_time = mu["trace"][-1]["seconds"]
        hit = next(((p["seconds"], p["iteration"]) for p in cd["trace"] if p["objective"] <= target), None)
        for s in ms:
            ms[s].append(out[s]["ms_per_iter"])
        mus.append(mu_time)
        hits.append(hit)
        got = f"{hit[0]:.2f} s at iteration {hit[1]}" if hit else \
            f"not within {args.cd_iters} iterations (last {cd['trace'][-1]['objective']:.6g})"
        print(f"round {r + 1} (seed {seed}): mu target {target:.8g} at {mu_time:.2f} s; cd {got}")
    reached = [h for h in hits if h]
    print("\n| solver | time to mu's objective (median) | iterations | ms per iteration (median) |")
    print("| --- | ---: | ---: | ---: |")
    print(f"| mu | {statistics.median(mus):.2f} s | {args.mu_iters} | {statistics.median(ms['mu']):.1f} |")
    if reached:
        t = statistics.median(h[0] for h in reached)
        it = statistics.median(h[1] for h in reached)
        print(f"| cd | {t:.2f} s ({len(reached)}/{len(hits)} rounds reached) | {it:g} | "
              f"{statistics.median(ms['cd']):.1f} |")
        ratios = [m / h[0] for m, h in zip(mus, hits) if h]
        print(f"\ncd sooner by {statistics.median(ratios):.2f}x (rounds: "
              + ", ".join(f"{x:.2f}" for x in ratios) + "); per iteration cd / mu "
              f"{statistics.median(ms['cd']) / statistics.median(ms['mu']):.2f}")
    else:
        print(f"| cd | not reached in {args.cd_iters} iterations | | {statistics.median(ms['cd']):.1f} |")


if __name__ == "__main__":
    main()
