"""Speed of the native path against scikit-learn's libsvm, in one run.
===================================================================

1. PrimalSVC (primal Newton, squared hinge; 004) vs ``sklearn.svm.SVC`` at the same C and
   Gaussian kernel, n = 5000 training points from a two-class KEEL set (the rest is the test
   set), fit-time ratio primal / SVC (target ≤ 1.5). Solvers: ``"exact"`` (Newton on the
   support-vector block, kernel columns only for support vectors), ``"auto"`` (at n = 5000 the
   low-rank path with at most ⌈2√n⌉ = 142 pivots) and ``"lowrank"`` with at most 300 pivots.
   SVC minimises the L1 hinge, PrimalSVC the squared hinge: the same C and γ are not the same
   problem, so test accuracies are printed for both, and for the low-rank fits the objective of
   their function in the exact squared-hinge problem, relative to the exact optimum ("obj gap").
2. KrylovFisherDiscriminant (MR-II with early stopping; 002 §6.3) vs SVC on pima, wdbc and crx:
   10-fold CV, test error median and IQR, fit time. The SVC's C is chosen by 3-fold CV on each
   training fold and the Fisher discriminant's iteration count by 5-fold CV on it (002 §6.2);
   "fit" times are the final fit at the chosen value, "select" times the model selection.

Threads: everything runs under ``threadpool_limits(1)`` (one BLAS thread for NumPy/SciPy);
libsvm is single-threaded. The settings in force are printed. Run::

    python examples/benchmarks/bench_native.py [--quick] [--primal-only]
"""

from __future__ import annotations

import argparse
import time
import warnings
from typing import Any

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import SVC
from threadpoolctl import threadpool_info, threadpool_limits

from sdpkern.datasets import load_keel
from sdpkern.estimators import KrylovFisherDiscriminant, PrimalSVC
from sdpkern.kernels import Gaussian


def _standardise(X: np.ndarray) -> np.ndarray:
    sd = X.std(0)
    return (X - X.mean(0)) / np.where(sd > 0, sd, 1.0)


def _fit_time(est: Any, X: np.ndarray, y: np.ndarray, repeats: int) -> tuple[float, Any]:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        est.fit(X, y)
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), est


def _threads() -> str:
    pools = ", ".join(f"{p['internal_api']} {p['num_threads']}" for p in threadpool_info())
    return f"BLAS/OpenMP thread pools: {pools or 'none'}; libsvm (SVC): single-threaded"


def _squared_hinge_objective(est: Any, X: np.ndarray, y_pm: np.ndarray, C: float, kern: Gaussian) -> float:
    """½‖f‖² + C Σ max(0, 1 − y f(x))² of the fitted function ``f = Σ_j a_j k(x_j, ·) + b``."""
    a, S = np.asarray(est.dual_coef_), np.asarray(est.support_vectors_)
    xi = np.maximum(0.0, 1.0 - y_pm * est.decision_function(X))
    return float(0.5 * a @ kern(S) @ a + C * xi @ xi)


def bench_primal(repeats: int) -> None:
    print("== PrimalSVC vs sklearn SVC, n = 5000, Gaussian kernel, same C and gamma ==")
    print(_threads())
    print(f"{'set':8s} {'C':>4s} {'solver':9s} {'primal s':>8s} {'SVC s':>6s} {'ratio':>6s} "
          f"{'acc primal':>10s} {'acc SVC':>7s} {'obj gap':>8s} {'nSV/rank':>8s}")
    for name, gamma in (("banana", 0.5), ("twonorm", 0.05)):
        ds = load_keel(name)
        rng = np.random.default_rng(0)
        idx = rng.permutation(ds.y.shape[0])
        X = _standardise(ds.X)[idx]
        y = ds.y[idx]
        Xtr, ytr, Xte, yte = X[:5000], y[:5000], X[5000:], y[5000:]
        kern = Gaussian(gamma=gamma)
        for C in (1.0, 10.0):
            t_svc, svc = _fit_time(SVC(C=C, gamma=gamma), Xtr, ytr, repeats)
            acc_svc = svc.score(Xte, yte)
            optimum = None
            for label, params in (("exact", {"solver": "exact"}), ("auto", {"solver": "auto"}),
                                  ("lr300", {"solver": "lowrank", "max_rank": 300})):
                t_p, p = _fit_time(PrimalSVC(C=C, gamma=gamma, **params), Xtr, ytr, repeats)
                y_pm = np.where(ytr == p.classes_[1], 1.0, -1.0)
                obj = _squared_hinge_objective(p, Xtr, y_pm, C, kern)
                if optimum is None:
                    optimum = obj
                label = label if p.solver_ == "exact" else f"{label}:{p.support_.shape[0]}"
                print(f"{name:8s} {C:4.0f} {label:9s} {t_p:8.3f} {t_svc:6.3f} {t_p / t_svc:6.2f} "
                      f"{p.score(Xte, yte):10.3f} {acc_svc:7.3f} {(obj - optimum) / optimum:8.1e} "
                      f"{p.support_.shape[0]:8d}")


def bench_fisher(n_splits: int) -> None:
    print("\n== Fisher discriminant by MR-II vs C-SVM (10-fold CV; error % median [IQR]; ms) ==")
    print(f"{'set':6s} {'SVC err':>16s} {'MR-II err':>16s} {'SVC fit':>8s} {'MR-II fit':>9s} {'speed-up':>8s} "
          f"{'SVC select':>10s} {'MR-II fit+CV':>12s} {'iters':>6s}  within IQR?")
    for name in ("pima", "wdbc", "crx"):
        ds = load_keel(name)
        X, y = _standardise(ds.X), ds.y
        gamma = 1.0 / X.shape[1]
        err_s, err_f, t_s, t_f, t_sel, t_fcv, iters = [], [], [], [], [], [], []
        for tr, te in StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=0).split(X, y):
            t0 = time.perf_counter()
            gs = GridSearchCV(SVC(gamma=gamma), {"C": [0.1, 1.0, 10.0, 100.0]}, cv=3).fit(X[tr], y[tr])
            t_sel.append(time.perf_counter() - t0)
            tf, svc = _fit_time(SVC(gamma=gamma, C=gs.best_params_["C"]), X[tr], y[tr], 3)
            t_s.append(tf)
            err_s.append(1 - svc.score(X[te], y[te]))
            t0 = time.perf_counter()
            kfd = KrylovFisherDiscriminant(gamma=gamma, method="mr_ii", max_iter=40, cv=5).fit(X[tr], y[tr])
            t_fcv.append(time.perf_counter() - t0)
            tf, fixed = _fit_time(KrylovFisherDiscriminant(gamma=gamma, method="mr_ii", n_iter=kfd.n_iter_),
                                  X[tr], y[tr], 3)
            t_f.append(tf)
            iters.append(kfd.n_iter_)
            err_f.append(1 - fixed.score(X[te], y[te]))

        def med_iqr(v: list[float]) -> tuple[float, float, float]:
            q1, med, q3 = np.percentile(100 * np.asarray(v), [25, 50, 75])
            return med, q3 - q1, q1

        ms, iqs, q1s = med_iqr(err_s)
        mf, iqf, _ = med_iqr(err_f)
        within = mf <= q1s + iqs  # median MR-II error no worse than SVC's upper quartile
        print(f"{name:6s} {ms:7.1f} [{iqs:5.1f}]  {mf:7.1f} [{iqf:5.1f}]  {1e3 * np.median(t_s):8.1f} "
              f"{1e3 * np.median(t_f):9.1f} {np.median(t_s) / np.median(t_f):8.2f} {1e3 * np.median(t_sel):10.1f} "
              f"{1e3 * np.median(t_fcv):12.1f} {np.mean(iters):6.1f}  {'yes' if within else 'NO'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--quick", action="store_true", help="one repeat per timing, 5 folds")
    parser.add_argument("--primal-only", action="store_true", help="only the PrimalSVC vs SVC table")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    with threadpool_limits(1):
        bench_primal(1 if args.quick else 3)
        if not args.primal_only:
            bench_fisher(5 if args.quick else 10)


if __name__ == "__main__":
    main()
