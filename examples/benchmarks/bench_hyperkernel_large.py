"""Hyperkernel learning at 10⁴-10⁵ points: the native master's fit time, peak memory, test error.
==============================================================================================

``HyperkernelSVC()`` (``solver="auto"``: the native restricted master of
:mod:`sdpkern.native.hyperkernel_master` from 30 points on; the default hyperkernel spans a
ladder of widths) beside an RBF ``SVC`` tuned by 3-fold ``GridSearchCV`` over 7 C × 6 γ on the
same points, on twonorm, ringnorm and banana (the vendored KEEL copies, 002 §3.2) and, beyond a
set's size, on seeded synthetic draws of Breiman's twonorm / ringnorm distributions (banana has
no generator: its test part is what the 5300 points leave, at least 300, and it stops there).
Each fit runs in a fresh process so its peak resident memory is its own. Prints, per set and
size, over ``--splits`` random splits (seeds 0, 1, …): the mean fit time (wall clock and CPU
time: on a shared machine the CPU time is the one that does not depend on the other processes),
the largest peak RSS, the largest certified gap, the test error (mean ± standard deviation), the
tuned SVC's error and mean grid-search time (wall and CPU), the ratios of the two times, and
whether the hyperkernel's mean error is within one standard deviation of the SVC's (``1sd``);
then the growth exponent of fit time (least squares on log t vs log m, 2k-20k).

Usage::

    python examples/benchmarks/bench_hyperkernel_large.py            # m = 1k, 2k, 5k, 10k, 20k, one split
    python examples/benchmarks/bench_hyperkernel_large.py --sizes 2000,10000 --splits 5   # the large-scale figures
    python examples/benchmarks/bench_hyperkernel_large.py --full     # and 100k (synthetic)
    python examples/benchmarks/bench_hyperkernel_large.py --sets twonorm --sizes 100000 --no-svc   # 100k alone
    # the 10k grids in the background first (minutes each), then the table from their cache:
    python examples/benchmarks/bench_hyperkernel_large.py --svc-only --sizes 10000 --splits 5 --svc-cache svc.json
    python examples/benchmarks/bench_hyperkernel_large.py --sizes 10000 --splits 5 --svc-cache svc.json
    python examples/benchmarks/bench_hyperkernel_large.py --quick    # m = 300, 600, twonorm only (docs gallery)
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import time
import warnings
from typing import Any

import numpy as np

N_TEST = 2000
#: Smallest test part of a KEEL copy without a generator (banana at m = 5000: 300 points).
MIN_TEST = 300
SYNTHETIC = ("twonorm", "ringnorm")


def synthetic(name: str, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Breiman's twonorm / ringnorm (20-D Gaussians), seeded."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, m) * 2 - 1
    if name == "twonorm":
        X = rng.normal(size=(m, 20)) + (2 / np.sqrt(20)) * y[:, None]
    else:
        X = np.where(y[:, None] > 0, rng.normal(size=(m, 20)) * 2.0, rng.normal(size=(m, 20)) + 2 / np.sqrt(20))
    return X, y.astype(float)


def data(name: str, m: int, seed: int) -> tuple[np.ndarray, ...] | None:
    """(X_train, y_train, X_test, y_test, source) or None when no source has m + MIN_TEST points.

    The KEEL copy when it has m + N_TEST points (or, for banana, at least m + MIN_TEST: the test
    part is then the rest), else a synthetic draw (twonorm, ringnorm). Inputs are standardised
    on the training part.
    """
    from sdpkern.datasets import load_keel

    d = load_keel(name)
    n_test = min(N_TEST, d.X.shape[0] - m)
    if n_test >= N_TEST or (n_test >= MIN_TEST and name not in SYNTHETIC):
        idx = np.random.default_rng(seed).permutation(d.X.shape[0])
        X, y, src = d.X[idx], d.y[idx], "keel"
    elif name in SYNTHETIC:
        X, y = synthetic(name, m + N_TEST, seed)
        src, n_test = "synthetic", N_TEST
    else:
        return None
    mu, sd = X[:m].mean(0), X[:m].std(0) + 1e-12
    X = (X - mu) / sd
    return X[:m], y[:m], X[m : m + n_test], y[m : m + n_test], src


def fit_hyperkernel(args: tuple[str, int, int]) -> dict[str, Any]:
    """One HyperkernelSVC() fit in this (fresh) process: time, peak RSS, gap, test error."""
    from sdpkern.estimators import HyperkernelSVC

    name, m, seed = args
    Xtr, ytr, Xte, yte, src = data(name, m, seed)  # type: ignore[misc]
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        clf = HyperkernelSVC().fit(Xtr, ytr)
    fit, cpu = time.perf_counter() - t0, time.process_time() - c0
    err = 1.0 - clf.score(Xte, yte)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {
        "src": src, "fit": fit, "cpu": cpu, "rss": rss, "gap": clf.certificate_["value"], "err": err,
        "status": clf.status_, "solver": clf.solver_, "warnings": len(rec),
    }  # fmt: skip


def fit_svc(args: tuple[str, int, int]) -> dict[str, Any]:
    """RBF SVC tuned by 3-fold GridSearchCV over 7 C × 6 γ: grid time and test error."""
    from sklearn.model_selection import GridSearchCV
    from sklearn.svm import SVC

    name, m, seed = args
    Xtr, ytr, Xte, yte, _ = data(name, m, seed)  # type: ignore[misc]
    d = Xtr.shape[1]
    grid = {"C": np.logspace(-2, 4, 7), "gamma": np.logspace(-2, 1.5, 6) / d}
    t0, c0 = time.perf_counter(), time.process_time()
    gs = GridSearchCV(SVC(kernel="rbf", cache_size=500), grid, cv=3).fit(Xtr, ytr)
    return {"grid": time.perf_counter() - t0, "grid_cpu": time.process_time() - c0, "err": 1.0 - gs.score(Xte, yte)}


def in_child(func: Any, args: Any, fresh: bool = True) -> Any:
    """Run ``func(args)`` in a fresh spawned process (so its peak RSS is its own), or here.

    The docs gallery runs this file with a ``__main__`` that spawned workers cannot import, so
    ``--quick`` fits in this process (its peak-memory column is then the process's so far).
    """
    if not fresh:
        return func(args)
    ctx = mp.get_context("spawn")
    with ctx.Pool(1, maxtasksperchild=1) as pool:
        return pool.apply(func, (args,))


def svc_results(name: str, m: int, seeds: range, cache: str | None, fresh: bool) -> list[dict[str, Any]]:
    """The tuned SVC on each split, read from / added to the JSON file ``cache`` when given.

    The 7 × 6 grid is the slow part at m = 10,000 (minutes per split); the cache lets its
    results be computed once (e.g. in the background) and reused by later runs. Entries are keyed
    by set, m and seed: the same points as ``data(name, m, seed)``.
    """
    store: dict[str, Any] = {}
    if cache and os.path.exists(cache):
        with open(cache) as f:
            store = json.load(f)
    out = []
    for seed in seeds:
        key = f"{name}/{m}/{seed}"
        if key not in store:
            store[key] = in_child(fit_svc, (name, m, seed), fresh=fresh)
            if cache:  # re-read first: another run may have added entries meanwhile
                old = {}
                if os.path.exists(cache):
                    with open(cache) as f:
                        old = json.load(f)
                old.update(store)
                store = old
                with open(cache + ".tmp", "w") as f:
                    json.dump(store, f, indent=1, sort_keys=True)
                os.replace(cache + ".tmp", cache)
        out.append(store[key])
    return out


def _row(name: str, m: int, hs: list[dict[str, Any]], ss: list[dict[str, Any]]) -> str:
    """One printed line: means over the splits (errors as mean ± sd in %)."""
    herr = 100 * np.array([h["err"] for h in hs])
    fit = float(np.mean([h["fit"] for h in hs]))
    cpu = float(np.mean([h["cpu"] for h in hs]))
    sd = float(herr.std(ddof=1)) if herr.size > 1 else 0.0
    status = ",".join(sorted({f"{h['solver']} {h['status']}" for h in hs}))
    line = (
        f"{name:9} {m:7d} {hs[0]['src']:9} {len(hs):2d} {fit:8.1f} {cpu:7.1f} {max(h['rss'] for h in hs) / 2**20:8.0f} "
        f"{max(h['gap'] for h in hs):8.1e} {herr.mean():5.2f}±{sd:4.2f}"
    )
    if not ss:
        return f"{line} {'-':>11} {'-':>8} {'-':>7} {'-':>8} {'-':>7} {'-':>4}  [{status}]"
    serr = 100 * np.array([s["err"] for s in ss])
    ssd = float(serr.std(ddof=1)) if serr.size > 1 else 0.0
    grid = float(np.mean([s["grid"] for s in ss]))
    grid_cpu = float(np.mean([s["grid_cpu"] for s in ss]))
    within = "-" if serr.size < 2 else "yes" if abs(herr.mean() - serr.mean()) <= ssd else "no"
    return (
        f"{line} {serr.mean():5.2f}±{ssd:4.2f} {grid:8.1f} {grid_cpu:7.1f} {fit / grid:8.2f} {cpu / grid_cpu:7.2f} "
        f"{within:>4}  [{status}]"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true", help="m = 300, 600 on twonorm only, in this process")
    ap.add_argument("--full", action="store_true", help="also m = 100,000 (synthetic)")
    ap.add_argument("--sets", default="twonorm,ringnorm,banana")
    ap.add_argument("--sizes", default="1000,2000,5000,10000,20000", help="training sizes, comma-separated")
    ap.add_argument("--splits", type=int, default=1, help="random splits per size (seeds 0, 1, ...)")
    ap.add_argument("--no-svc", action="store_true", help="skip the tuned SVC (its grid is the slow part)")
    ap.add_argument("--svc-max", type=int, default=10000, help="tune the SVC only up to this m")
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--svc-cache", default=None, help="JSON file to read / store the tuned SVC's results in")
    ap.add_argument("--svc-only", action="store_true", help="only the tuned SVC (to fill --svc-cache)")
    a = ap.parse_args()
    sizes = [300, 600] if a.quick else [int(v) for v in a.sizes.split(",")] + ([100000] if a.full else [])
    sets = ["twonorm"] if a.quick else a.sets.split(",")
    seeds = range(a.seed, a.seed + max(1, a.splits))
    print(f"{'set':9} {'m':>7} {'src':9} {'n':>2} {'fit s':>8} {'cpu s':>7} {'peak MB':>8} {'gap':>8} {'err %':>10} "
          f"{'SVC err %':>11} {'grid s':>8} {'cpu s':>7} {'fit/grid':>8} {'cpu/cpu':>7} {'1sd':>4}")  # fmt: skip
    for name in sets:
        times: list[tuple[int, float, float]] = []
        for m in sizes:
            if data(name, m, a.seed) is None:
                print(f"{name:9} {m:7d} (no source with {m + MIN_TEST} points)")
                continue
            if a.svc_only:
                ss = svc_results(name, m, seeds, a.svc_cache, fresh=True)
                errs = " ".join(f"{100 * s['err']:.2f}" for s in ss)
                print(f"{name:9} {m:7d} SVC errors % {errs}, grid CPU s {np.mean([s['grid_cpu'] for s in ss]):.1f}")
                continue
            hs = [in_child(fit_hyperkernel, (name, m, seed), fresh=not a.quick) for seed in seeds]
            times.append((m, float(np.mean([h["fit"] for h in hs])), float(np.mean([h["cpu"] for h in hs]))))
            svc = not a.no_svc and m <= a.svc_max
            ss = svc_results(name, m, seeds, a.svc_cache, fresh=not a.quick) if svc else []
            print(_row(name, m, hs, ss), flush=True)
        big = [row for row in times if 2000 <= row[0] <= 20000]
        if len(big) >= 2:
            logm = np.log([row[0] for row in big])
            wall, cpu = (np.polyfit(logm, np.log([row[k] for row in big]), 1)[0] for k in (1, 2))
            span = f"m = {big[0][0]}..{big[-1][0]}"
            print(f"{name:9} growth exponent of fit time, {span}: {wall:.2f} (of CPU time: {cpu:.2f})")


if __name__ == "__main__":
    main()
