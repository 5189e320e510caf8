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

``--family`` runs the other formulations of 002 §3.1.2 the same way, each beside the
scikit-learn model a user would tune instead (3-fold grid, 5 × 5 over γ and the family's C or
ν; the grid's time beside the fit's):

* ``nusvc``: ``HyperkernelNuSVC()`` vs ``NuSVC`` (ν × γ), test error;
* ``l2svc``: ``HyperkernelL2SVC()`` vs ``SVC`` (C × γ), test error;
* ``one_class``: ``HyperkernelOneClassSVM()`` trained on the positive class vs ``OneClassSVM``
  (ν × γ, each fold's model scored by the AUC of its held-out points of both classes), test AUC
  of the positive class against the other;
* ``nu_svr``: ``HyperkernelNuSVR()`` vs ``NuSVR`` (C × γ), test mean squared error, on seeded
  draws of Friedman's regression problem #1 (``sklearn.datasets.make_friedman1``, 10 features
  of which 5 matter, noise sd 1: any m) whatever ``--sets`` says;
* ``alignment``: ``HyperkernelAlignment()`` (no scikit-learn counterpart: time, memory and
  certificate only);
* ``all``: the five above and ``svc`` (the default: ``HyperkernelSVC()`` vs ``SVC`` over 7 × 6).

``--n-jobs 2`` gives the native master two threads for its kernel passes and factorisations
(``solver_options={"n_jobs": 2}``; the default is one, as libsvm's): then read the wall-clock time.

``--sets classif10`` is a seeded ``make_classification`` draw (10 features), a set none of this
code was tuned on.

The ``1sd`` column says whether the hyperkernel's mean is within one standard deviation (over the
splits) of the tuned model's; for AUC larger is better, for error and MSE smaller.

Usage::

    python examples/benchmarks/bench_hyperkernel_large.py            # m = 1k, 2k, 5k, 10k, 20k, one split
    python examples/benchmarks/bench_hyperkernel_large.py --sizes 2000,10000 --splits 5   # the large-scale figures
    python examples/benchmarks/bench_hyperkernel_large.py --full     # and 100k (synthetic)
    python examples/benchmarks/bench_hyperkernel_large.py --sets twonorm --sizes 100000 --no-svc   # 100k alone
    # the 10k grids in the background first (minutes each), then the table from their cache:
    python examples/benchmarks/bench_hyperkernel_large.py --svc-only --sizes 10000 --splits 5 --svc-cache svc.json
    python examples/benchmarks/bench_hyperkernel_large.py --sizes 10000 --splits 5 --svc-cache svc.json
    python examples/benchmarks/bench_hyperkernel_large.py --quick    # m = 300, 600, twonorm only (docs gallery)
    # every family, one fit per size, then accuracy over 5 splits at 2k beside the tuned models:
    python examples/benchmarks/bench_hyperkernel_large.py --family all --sets twonorm --sizes 2000,5000,10000 --no-svc
    python examples/benchmarks/bench_hyperkernel_large.py --family all --sets twonorm --sizes 2000 --splits 5
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import resource
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

N_TEST = 2000
#: Smallest test part of a KEEL copy without a generator (banana at m = 5000: 300 points).
MIN_TEST = 300
SYNTHETIC = ("twonorm", "ringnorm", "classif10")


def synthetic(name: str, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Breiman's twonorm / ringnorm (20-D Gaussians), or ``classif10``: scikit-learn's
    ``make_classification`` (10 features, 5 informative and 2 redundant, 3 % of the labels
    flipped: a set none of this code was tuned on), seeded."""
    if name == "classif10":
        from sklearn.datasets import make_classification

        Xc, yc = make_classification(
            n_samples=m, n_features=10, n_informative=5, n_redundant=2, flip_y=0.03, random_state=seed
        )
        return Xc, (2 * yc - 1).astype(float)
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, m) * 2 - 1
    if name == "twonorm":
        X = rng.normal(size=(m, 20)) + (2 / np.sqrt(20)) * y[:, None]
        return X, y.astype(float)
    X = np.where(y[:, None] > 0, rng.normal(size=(m, 20)) * 2.0, rng.normal(size=(m, 20)) + 2 / np.sqrt(20))
    # KEEL's ring.dat labels the shifted unit Gaussian 1 (the class the one-class SVM learns);
    # the labels are flipped here rather than the draw changed, so that earlier figures stand
    return X, -y.astype(float)


def data(name: str, m: int, seed: int) -> tuple[np.ndarray, ...] | None:
    """(X_train, y_train, X_test, y_test, source) or None when no source has m + MIN_TEST points.

    The KEEL copy when it has m + N_TEST points (or, for banana, at least m + MIN_TEST: the test
    part is then the rest), else a synthetic draw (twonorm, ringnorm; classif10 has no KEEL
    copy). Inputs are standardised on the training part.
    """
    from sdpkern.datasets import load_keel

    keel = None if name == "classif10" else load_keel(name)
    n_test = 0 if keel is None else min(N_TEST, keel.X.shape[0] - m)
    if keel is not None and (n_test >= N_TEST or (n_test >= MIN_TEST and name not in SYNTHETIC)):
        idx = np.random.default_rng(seed).permutation(keel.X.shape[0])
        X, y, src = keel.X[idx], keel.y[idx], "keel"
    elif name in SYNTHETIC:
        X, y = synthetic(name, m + N_TEST, seed)
        src, n_test = "synthetic", N_TEST
    else:
        return None
    mu, sd = X[:m].mean(0), X[:m].std(0) + 1e-12
    X = (X - mu) / sd
    return X[:m], y[:m], X[m : m + n_test], y[m : m + n_test], src


#: The formulations ``--family`` runs: (estimator, tuned scikit-learn model, its grid's parameters, metric)
FAMILIES = {
    "svc": ("HyperkernelSVC", "SVC", ("C", "gamma"), "err"),
    "nusvc": ("HyperkernelNuSVC", "NuSVC", ("nu", "gamma"), "err"),
    "l2svc": ("HyperkernelL2SVC", "SVC", ("C", "gamma"), "err"),
    "one_class": ("HyperkernelOneClassSVM", "OneClassSVM", ("nu", "gamma"), "auc"),
    "nu_svr": ("HyperkernelNuSVR", "NuSVR", ("C", "gamma"), "mse"),
    "alignment": ("HyperkernelAlignment", None, (), "-"),
}


def family_data(family: str, name: str, m: int, seed: int) -> tuple[Any, ...] | None:
    """(X_train, y_train, X_test, y_test, source) for ``family``: ``data`` for the classifiers and the
    alignment; the positive class' first m training points for the one-class SVM (its test part
    keeps both classes); Friedman #1 for the regression."""
    if family == "nu_svr":
        from sklearn.datasets import make_friedman1

        X, y = make_friedman1(m + N_TEST, n_features=10, noise=1.0, random_state=seed)
        mu, sd = X[:m].mean(0), X[:m].std(0)
        X = (X - mu) / sd
        return X[:m], y[:m], X[m:], y[m:], "friedman1"
    if family == "one_class":
        got = data(name, 2 * m + 200, seed)
        if got is None:
            return None
        Xtr, ytr, Xte, yte, src = got
        pos = np.flatnonzero(ytr > 0)[:m]
        if pos.size < m:
            return None
        return Xtr[pos], ytr[pos], Xte, yte, src
    return data(name, m, seed)


def _score(family: str, est: Any, X: np.ndarray, y: np.ndarray) -> float:
    """Test error (classifiers), AUC of the positive class against the other (one-class), MSE."""
    if family == "one_class":
        from sklearn.metrics import roc_auc_score

        return float(roc_auc_score(y > 0, est.decision_function(X)))
    if family == "nu_svr":
        return float(np.mean((est.predict(X) - y) ** 2))
    return 1.0 - float(est.score(X, y))


def fit_hyperkernel(args: tuple[Any, ...]) -> dict[str, Any]:
    """One fit of the family's hyperkernel estimator (defaults) in this (fresh) process: time, peak
    RSS, certificate, test metric."""
    import sdpkern.estimators as E

    name, m, seed = args[:3]
    family = args[3] if len(args) > 3 else "svc"
    n_jobs = args[4] if len(args) > 4 else 1
    Xtr, ytr, Xte, yte, src = family_data(family, name, m, seed)  # type: ignore[misc]
    est = getattr(E, FAMILIES[family][0])(solver_options={"n_jobs": n_jobs} if n_jobs > 1 else None)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        est.fit(Xtr) if family == "one_class" else est.fit(Xtr, ytr)
    fit, cpu = time.perf_counter() - t0, time.process_time() - c0
    err = float("nan") if family == "alignment" else _score(family, est, Xte, yte)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {
        "src": src, "fit": fit, "cpu": cpu, "rss": rss, "gap": est.certificate_["value"], "err": err,
        "status": est.status_, "solver": est.solver_, "warnings": len(rec),
    }  # fmt: skip


def _grid(family: str, d: int) -> dict[str, np.ndarray]:
    """The tuned model's grid: 7 C × 6 γ for the C-SVM (as before), 5 × 5 for the others."""
    gammas = np.logspace(-2, 1.5, 6 if family == "svc" else 5) / d
    if family == "svc":
        return {"C": np.logspace(-2, 4, 7), "gamma": gammas}
    first = FAMILIES[family][2][0]
    values = np.array([0.05, 0.1, 0.2, 0.35, 0.5]) if first == "nu" else np.logspace(-2, 3, 5)
    return {first: values, "gamma": gammas}


def _one_class_grid(grid: dict[str, np.ndarray], Xin: np.ndarray, Xout: np.ndarray) -> Any:
    """OneClassSVM tuned by 3-fold CV: fit on two folds of the inliers, score the AUC of the third
    fold's inliers against a third of the outliers; the best (ν, γ) refitted on all inliers."""
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import KFold
    from sklearn.svm import OneClassSVM

    folds_out = np.array_split(np.arange(Xout.shape[0]), 3)
    best, best_auc = None, -np.inf
    for nu in grid["nu"]:
        for gamma in grid["gamma"]:
            aucs = []
            for k, (tr, va) in enumerate(KFold(3, shuffle=True, random_state=0).split(Xin)):
                oc = OneClassSVM(nu=nu, gamma=gamma, cache_size=500).fit(Xin[tr])
                Xv = np.vstack([Xin[va], Xout[folds_out[k]]])
                lab = np.r_[np.ones(va.size), np.zeros(folds_out[k].size)]
                aucs.append(roc_auc_score(lab, oc.decision_function(Xv)))
            if np.mean(aucs) > best_auc:
                best, best_auc = (nu, gamma), float(np.mean(aucs))
    assert best is not None
    return OneClassSVM(nu=best[0], gamma=best[1], cache_size=500).fit(Xin)


def fit_svc(args: tuple[Any, ...]) -> dict[str, Any]:
    """The scikit-learn model a user would tune instead, by a 3-fold grid: grid time and test metric."""
    from sklearn.model_selection import GridSearchCV
    from sklearn.svm import SVC, NuSVC, NuSVR

    name, m, seed = args[:3]
    family = args[3] if len(args) > 3 else "svc"
    Xtr, ytr, Xte, yte, _ = family_data(family, name, m, seed)  # type: ignore[misc]
    grid = _grid(family, Xtr.shape[1])
    t0, c0 = time.perf_counter(), time.process_time()
    if family == "one_class":  # outliers for validation: the other class of a disjoint draw
        Xo, yo = data(name, 2 * m + 200, seed + 1000)[:2]  # type: ignore[index]
        est = _one_class_grid(grid, Xtr, Xo[yo < 0][: max(30, m // 4)])
    else:
        model = {"svc": SVC, "l2svc": SVC, "nusvc": NuSVC, "nu_svr": NuSVR}[family](cache_size=500)
        scoring = "neg_mean_squared_error" if family == "nu_svr" else None
        est = GridSearchCV(model, grid, cv=3, scoring=scoring).fit(Xtr, ytr).best_estimator_
    grid_time, grid_cpu = time.perf_counter() - t0, time.process_time() - c0
    return {"grid": grid_time, "grid_cpu": grid_cpu, "err": _score(family, est, Xte, yte)}


def in_child(func: Any, args: Any, fresh: bool = True) -> Any:
    """Run ``func(args)`` in a fresh spawned process (so its peak RSS is its own), or here.

    The docs gallery runs this file with a ``__main__`` that spawned workers cannot import, so
    ``--quick`` fits in this process (its peak-memory column is then the process's so far).
    """
    if not fresh:
        return func(args)
    # an executor, not a Pool: a worker killed by a signal raises BrokenProcessPool here, where
    # Pool.apply would wait for it forever
    with ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) as pool:
        return pool.submit(func, args).result()


def svc_results(
    name: str, m: int, seeds: range, cache: str | None, fresh: bool, family: str = "svc"
) -> list[dict[str, Any]]:
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
        key = f"{name}/{m}/{seed}" if family == "svc" else f"{family}/{name}/{m}/{seed}"
        if key not in store:
            store[key] = in_child(fit_svc, (name, m, seed, family), fresh=fresh)
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


def _row(name: str, m: int, hs: list[dict[str, Any]], ss: list[dict[str, Any]], metric: str = "err") -> str:
    """One printed line: means over the splits (the metric as mean ± sd: % for errors)."""
    unit = 100.0 if metric == "err" else 1.0
    herr = unit * np.array([h["err"] for h in hs])
    fit = float(np.mean([h["fit"] for h in hs]))
    cpu = float(np.mean([h["cpu"] for h in hs]))
    sd = float(herr.std(ddof=1)) if herr.size > 1 else 0.0
    status = ",".join(sorted({f"{h['solver']} {h['status']}" for h in hs}))
    line = (
        f"{name:9} {m:7d} {hs[0]['src']:9} {len(hs):2d} {fit:8.1f} {cpu:7.1f} {max(h['rss'] for h in hs) / 2**20:8.0f} "
        f"{max(h['gap'] for h in hs):8.1e} {_pm(herr.mean(), sd)}"
    )
    if not ss:
        return f"{line} {'-':>11} {'-':>8} {'-':>7} {'-':>8} {'-':>7} {'-':>4}  [{status}]"
    serr = unit * np.array([s["err"] for s in ss])
    ssd = float(serr.std(ddof=1)) if serr.size > 1 else 0.0
    grid = float(np.mean([s["grid"] for s in ss]))
    grid_cpu = float(np.mean([s["grid_cpu"] for s in ss]))
    within = "-" if serr.size < 2 else "yes" if abs(herr.mean() - serr.mean()) <= ssd else "no"
    return (
        f"{line} {_pm(serr.mean(), ssd)} {grid:8.1f} {grid_cpu:7.1f} {fit / grid:8.2f} {cpu / grid_cpu:7.2f} "
        f"{within:>4}  [{status}]"
    )


def _pm(mean: float, sd: float) -> str:
    if not np.isfinite(mean):
        return f"{'-':>11}"
    if abs(mean) >= 100:
        return f"{mean:6.1f}±{sd:4.1f}"
    return f"{mean:5.2f}±{sd:5.2f}" if abs(mean) < 10 else f"{mean:5.2f}±{sd:4.2f}"


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
    ap.add_argument("--family", default="svc", help=f"one of {', '.join(FAMILIES)}, or all")
    ap.add_argument("--n-jobs", type=int, default=1, help="the native master's threads (solver_options n_jobs)")
    a = ap.parse_args()
    families = list(FAMILIES) if a.family == "all" else a.family.split(",")
    for fam in families:
        if fam not in FAMILIES:
            ap.error(f"--family {fam!r}: expected one of {', '.join(FAMILIES)} or all")
    sizes = [300, 600] if a.quick else [int(v) for v in a.sizes.split(",")] + ([100000] if a.full else [])
    sets = ["twonorm"] if a.quick else a.sets.split(",")
    seeds = range(a.seed, a.seed + max(1, a.splits))
    for family in families:
        run_family(family, a, sizes, sets, seeds)


def run_family(family: str, a: argparse.Namespace, sizes: list[int], sets: list[str], seeds: range) -> None:
    """The table of one family: a line per set and size, then the growth exponent per set."""
    est, ref, _, metric = FAMILIES[family]
    label = {"err": "err %", "auc": "AUC", "mse": "MSE", "-": "-"}[metric]
    jobs = "" if a.n_jobs == 1 else f", solver_options={{'n_jobs': {a.n_jobs}}}"
    print(f"\n{est}() beside {ref or 'no reference'} ({label}; fit: one fit, defaults{jobs}; grid: 3-fold)")
    print(f"{'set':9} {'m':>7} {'src':9} {'n':>2} {'fit s':>8} {'cpu s':>7} {'peak MB':>8} {'gap':>8} {label:>11} "
          f"{'ref':>11} {'grid s':>8} {'cpu s':>7} {'fit/grid':>8} {'cpu/cpu':>7} {'1sd':>4}")  # fmt: skip
    for name in ["friedman1"] if family == "nu_svr" else sets:
        times: list[tuple[int, float, float]] = []
        for m in sizes:
            if family_data(family, name, m, a.seed) is None:
                print(f"{name:9} {m:7d} (no source with {m + MIN_TEST} points)")
                continue
            if a.svc_only:
                if ref is None:
                    continue
                ss = svc_results(name, m, seeds, a.svc_cache, True, family)
                errs = " ".join(f"{s['err']:.4g}" for s in ss)
                print(f"{name:9} {m:7d} {ref} {label} {errs}, grid CPU s {np.mean([s['grid_cpu'] for s in ss]):.1f}")
                continue
            hs = [in_child(fit_hyperkernel, (name, m, seed, family, a.n_jobs), fresh=not a.quick) for seed in seeds]
            times.append((m, float(np.mean([h["fit"] for h in hs])), float(np.mean([h["cpu"] for h in hs]))))
            svc = ref is not None and not a.no_svc and m <= a.svc_max
            ss = svc_results(name, m, seeds, a.svc_cache, not a.quick, family) if svc else []
            print(_row(name, m, hs, ss, metric), flush=True)
        big = [row for row in times if 2000 <= row[0] <= 20000]
        if len(big) >= 2:
            logm = np.log([row[0] for row in big])
            wall, cpu = (np.polyfit(logm, np.log([row[k] for row in big]), 1)[0] for k in (1, 2))
            span = f"m = {big[0][0]}..{big[-1][0]}"
            print(f"{name:9} growth exponent of fit time, {span}: {wall:.2f} (of CPU time: {cpu:.2f})")


if __name__ == "__main__":
    main()
