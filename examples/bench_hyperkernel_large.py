"""Hyperkernel learning at 10⁴-10⁵ points: the native master's fit time, peak memory, test error.
==============================================================================================

``HyperkernelSVC()`` (``solver="auto"``: the native restricted master of
:mod:`sdpkern.native.hyperkernel_master` from 150 points on) beside an RBF ``SVC`` tuned by
3-fold ``GridSearchCV`` over 7 C × 6 γ on the same points, on twonorm, ringnorm and banana
(the vendored KEEL copies, 002 §3.2) and, beyond a set's size, on seeded synthetic draws of
Breiman's twonorm / ringnorm distributions (banana has no generator and stops at its size).
Each fit runs in a fresh process so its peak resident memory is its own. Prints, per set and
size, the fit time, peak RSS, the certified gap, test error, and the tuned SVC's error and
grid-search time; then the growth exponent of fit time (least squares on log t vs log m).

Usage::

    python examples/bench_hyperkernel_large.py            # m = 1k, 2k, 5k, 10k, 20k
    python examples/bench_hyperkernel_large.py --full     # and 100k (synthetic)
    python examples/bench_hyperkernel_large.py --quick    # m = 300, 600, twonorm only (docs gallery)
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import time
import warnings
from typing import Any

import numpy as np

N_TEST = 2000


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
    """(X_train, y_train, X_test, y_test, source) or None when neither source has m + N_TEST points."""
    from sdpkern.datasets import load_keel

    d = load_keel(name)
    if m + N_TEST <= d.X.shape[0]:
        idx = np.random.default_rng(seed).permutation(d.X.shape[0])
        X, y, src = d.X[idx], d.y[idx], "keel"
    elif name in ("twonorm", "ringnorm"):
        X, y = synthetic(name, m + N_TEST, seed)
        src = "synthetic"
    else:
        return None
    mu, sd = X[:m].mean(0), X[:m].std(0) + 1e-12
    X = (X - mu) / sd
    return X[:m], y[:m], X[m : m + N_TEST], y[m : m + N_TEST], src


def fit_hyperkernel(args: tuple[str, int, int]) -> dict[str, Any]:
    """One HyperkernelSVC() fit in this (fresh) process: time, peak RSS, gap, test error."""
    from sdpkern.estimators import HyperkernelSVC

    name, m, seed = args
    Xtr, ytr, Xte, yte, src = data(name, m, seed)  # type: ignore[misc]
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        clf = HyperkernelSVC().fit(Xtr, ytr)
    fit = time.perf_counter() - t0
    err = 1.0 - clf.score(Xte, yte)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {
        "src": src, "fit": fit, "rss": rss, "gap": clf.certificate_["value"], "err": err, "status": clf.status_,
        "solver": clf.solver_, "warnings": len(rec),
    }  # fmt: skip


def fit_svc(args: tuple[str, int, int]) -> dict[str, Any]:
    """RBF SVC tuned by 3-fold GridSearchCV over 7 C × 6 γ: grid time and test error."""
    from sklearn.model_selection import GridSearchCV
    from sklearn.svm import SVC

    name, m, seed = args
    Xtr, ytr, Xte, yte, _ = data(name, m, seed)  # type: ignore[misc]
    d = Xtr.shape[1]
    grid = {"C": np.logspace(-2, 4, 7), "gamma": np.logspace(-2, 1.5, 6) / d}
    t0 = time.perf_counter()
    gs = GridSearchCV(SVC(kernel="rbf", cache_size=500), grid, cv=3).fit(Xtr, ytr)
    return {"grid": time.perf_counter() - t0, "err": 1.0 - gs.score(Xte, yte)}


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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true", help="m = 300, 600 on twonorm only, in this process")
    ap.add_argument("--full", action="store_true", help="also m = 100,000 (synthetic)")
    ap.add_argument("--sets", default="twonorm,ringnorm,banana")
    ap.add_argument("--no-svc", action="store_true", help="skip the tuned SVC (its grid is the slow part)")
    ap.add_argument("--svc-max", type=int, default=20000, help="tune the SVC only up to this m")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    sizes = [300, 600] if a.quick else [1000, 2000, 5000, 10000, 20000] + ([100000] if a.full else [])
    sets = ["twonorm"] if a.quick else a.sets.split(",")
    print(f"{'set':9} {'m':>7} {'src':9} {'fit s':>8} {'peak MB':>8} {'gap':>8} {'err':>6} "
          f"{'SVC err':>7} {'grid s':>8} {'fit/grid':>8}")  # fmt: skip
    for name in sets:
        times: list[tuple[int, float]] = []
        for m in sizes:
            if data(name, m, a.seed) is None:
                print(f"{name:9} {m:7d} (no source with {m + N_TEST} points)")
                continue
            h = in_child(fit_hyperkernel, (name, m, a.seed), fresh=not a.quick)
            times.append((m, h["fit"]))
            s = None if a.no_svc or m > a.svc_max else in_child(fit_svc, (name, m, a.seed), fresh=not a.quick)
            svc_cols = (
                f"{s['err']:7.3f} {s['grid']:8.1f} {h['fit'] / s['grid']:8.2f}" if s else f"{'-':>7} {'-':>8} {'-':>8}"
            )
            print(
                f"{name:9} {m:7d} {h['src']:9} {h['fit']:8.1f} {h['rss'] / 2**20:8.0f} {h['gap']:8.1e} "
                f"{h['err']:6.3f} {svc_cols}  [{h['solver']}, {h['status']}]",
                flush=True,
            )
        big = [(m, t) for m, t in times if 2000 <= m <= 20000]
        if len(big) >= 2:
            slope = np.polyfit(np.log([m for m, _ in big]), np.log([t for _, t in big]), 1)[0]
            print(f"{name:9} growth exponent of fit time, m = {big[0][0]}..{big[-1][0]}: {slope:.2f}")


if __name__ == "__main__":
    main()
