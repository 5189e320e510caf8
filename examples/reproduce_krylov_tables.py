"""Reproduce the Krylov experiments of 002 Ch. 5-6 on the bundled data.

- Tables 6.3/6.4: binary classification error (median [IQR], %) and training time (ms, mean
  iterations in brackets) of C-SVM against the kernel Fisher discriminant solved by MR, CGNE and
  MR-II, with the Gaussian kernel and (starred) the squared Euclidean distance
  ``k(x, x') = ‖x − x'‖²/σ``, on pima, ionosphere, wdbc, heart, sonar, crx and new-thyroid.
- Tables 6.1/6.2: regression mean squared error (median [IQR]) and time of ridge regression,
  GPR ``(K + λI)⁻¹y``, ε-SVR, and CGNE / MR-II (kernel PLS) on boston, cpus and auto-mpg.
- Figures 5.3-5.7: fixed filter functions, and the Krylov filter factors ``φ(λ, k)`` of CG, MR,
  CGNE and MR-II after 1, 2, 5 and 8 iterations (Gaussian kernel, K normalised by its norm),
  written as PNGs to ``--out``.

Protocol (smaller than the thesis' 10 × 10-fold): ``--folds``-fold CV, inputs standardised, σ the
median squared distance, the SVM's C and the regressors' λ / C chosen by 3-fold CV on each
training fold, Krylov iteration counts by 5-fold CV on it (002 §6.2). Times are the final fit at
the chosen parameter, on one BLAS thread.

    .venv/bin/python examples/reproduce_krylov_tables.py [--folds 10] [--out krylov_figures] [--quick]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.svm import SVC, SVR
from threadpoolctl import threadpool_limits

from sdpkern.datasets import load_keel, load_regression
from sdpkern.estimators import KrylovFisherDiscriminant, KrylovRegressor
from sdpkern.kernels import Gaussian, SquaredEuclidean, squared_distances
from sdpkern.native.filters import filter_factors, landweber_filter, ridge_filter, tikhonov_filter, tsf_filter
from sdpkern.native.krylov import SOLVERS

CLASSIFICATION = ("pima", "ionosphere", "wdbc", "heart", "sonar", "crx", "thyroid")
REGRESSION = ("auto_mpg", "boston", "cpus")


def _std(X: np.ndarray) -> np.ndarray:
    sd = X.std(0)
    return (X - X.mean(0)) / np.where(sd > 0, sd, 1.0)


def _timed_fit(est, X, y) -> float:
    t0 = time.perf_counter()
    est.fit(X, y)
    return 1e3 * (time.perf_counter() - t0)


def _summary(values: list[float], scale: float = 100.0) -> str:
    q1, med, q3 = np.percentile(scale * np.asarray(values), [25, 50, 75])
    return f"{med:6.1f}±{q3 - q1:4.1f}"


def classification_tables(folds: int, names: tuple[str, ...]) -> None:
    methods = ("mr", "cgne", "mr_ii")
    cols = ["C-SVM"] + [m.upper().replace("_", "-") for m in methods] + [m.upper().replace("_", "-") + "*"
                                                                         for m in methods]
    err_rows, time_rows = [], []
    for name in names:
        ds = load_keel(name)
        X, y = _std(ds.X), ds.y
        sigma = float(np.median(squared_distances(X)))
        errs: dict[str, list[float]] = {c: [] for c in cols}
        times: dict[str, list[float]] = {c: [] for c in cols}
        iters: dict[str, list[int]] = {c: [] for c in cols}
        for tr, te in StratifiedKFold(n_splits=folds, shuffle=True, random_state=0).split(X, y):
            gs = GridSearchCV(SVC(gamma=1 / sigma), {"C": [0.1, 1.0, 10.0, 100.0]}, cv=3).fit(X[tr], y[tr])
            svc = SVC(gamma=1 / sigma, C=gs.best_params_["C"])
            times["C-SVM"].append(_timed_fit(svc, X[tr], y[tr]))
            errs["C-SVM"].append(1 - svc.score(X[te], y[te]))
            for star, kernel in (("", Gaussian(gamma=1 / sigma)), ("*", SquaredEuclidean(sigma=sigma))):
                for m in methods:
                    col = m.upper().replace("_", "-") + star
                    sel = KrylovFisherDiscriminant(kernel=kernel, method=m, max_iter=40, cv=5).fit(X[tr], y[tr])
                    est = KrylovFisherDiscriminant(kernel=kernel, method=m, n_iter=sel.n_iter_)
                    times[col].append(_timed_fit(est, X[tr], y[tr]))
                    iters[col].append(est.n_iter_)
                    errs[col].append(1 - est.score(X[te], y[te]))
        err_rows.append((f"{name} ({X.shape[0]})", [_summary(errs[c]) for c in cols]))
        time_rows.append((f"{name} ({X.shape[0]})", [f"{np.mean(times[c]):5.0f}" + (
            f"({np.mean(iters[c]):4.1f})" if iters[c] else "      ") for c in cols]))
    print("Table 6.3: binary classification test error % (median ± IQR)")
    print(f"{'data':18s}" + "".join(f"{c:>13s}" for c in cols))
    for label, vals in err_rows:
        print(f"{label:18s}" + "".join(f"{v:>13s}" for v in vals))
    print("\nTable 6.4: training time (ms) and mean iterations")
    print(f"{'data':18s}" + "".join(f"{c:>13s}" for c in cols))
    for label, vals in time_rows:
        print(f"{label:18s}" + "".join(f"{v:>13s}" for v in vals))


def regression_tables(folds: int) -> None:
    cols = ["Linear", "GPR", "eps-SVR", "CGNE", "MR-II", "CGNE*", "MR-II*"]
    err_rows, time_rows = [], []
    for name in REGRESSION:
        ds = load_regression(name)
        X, y = _std(ds.X), ds.y
        sigma = float(np.median(squared_distances(X)))
        errs: dict[str, list[float]] = {c: [] for c in cols}
        times: dict[str, list[float]] = {c: [] for c in cols}
        iters: dict[str, list[int]] = {c: [] for c in cols}
        for tr, te in KFold(n_splits=folds, shuffle=True, random_state=0).split(X):
            grids = {
                "Linear": (Ridge(), {"alpha": [0.01, 0.1, 1.0, 10.0]}),
                "GPR": (KernelRidge(kernel="rbf", gamma=1 / sigma), {"alpha": [1e-3, 1e-2, 1e-1, 1.0]}),
                "eps-SVR": (SVR(gamma=1 / sigma, epsilon=0.1), {"C": [1.0, 10.0, 100.0, 1000.0]}),
            }
            for col, (est, grid) in grids.items():
                best = GridSearchCV(est, grid, cv=3, scoring="neg_mean_squared_error").fit(X[tr], y[tr])
                final = best.best_estimator_
                times[col].append(_timed_fit(final, X[tr], y[tr]))
                errs[col].append(float(np.mean((final.predict(X[te]) - y[te]) ** 2)))
            for star, kernel in (("", Gaussian(gamma=1 / sigma)), ("*", SquaredEuclidean(sigma=sigma))):
                for m, label in (("cgne", "CGNE"), ("mr_ii", "MR-II")):
                    col = label + star
                    sel = KrylovRegressor(kernel=kernel, method=m, max_iter=40, cv=5).fit(X[tr], y[tr])
                    est = KrylovRegressor(kernel=kernel, method=m, n_iter=sel.n_iter_)
                    times[col].append(_timed_fit(est, X[tr], y[tr]))
                    iters[col].append(est.n_iter_)
                    errs[col].append(float(np.mean((est.predict(X[te]) - y[te]) ** 2)))
        err_rows.append((f"{name} ({X.shape[0]})", [_summary(errs[c], 1.0) for c in cols]))
        time_rows.append((f"{name} ({X.shape[0]})", [f"{np.mean(times[c]):5.0f}" + (
            f"({np.mean(iters[c]):4.1f})" if iters[c] else "      ") for c in cols]))
    print("\nTable 6.1: regression test MSE (median ± IQR)")
    print(f"{'data':16s}" + "".join(f"{c:>14s}" for c in cols))
    for label, vals in err_rows:
        print(f"{label:16s}" + "".join(f"{v:>14s}" for v in vals))
    print("\nTable 6.2: training time (ms) and mean iterations")
    print(f"{'data':16s}" + "".join(f"{c:>14s}" for c in cols))
    for label, vals in time_rows:
        print(f"{label:16s}" + "".join(f"{v:>14s}" for v in vals))


def filter_figures(out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    lam = np.linspace(0.0, 1.0, 400)
    fig, ax = plt.subplots(figsize=(5, 3.5))
    ax.plot(lam, tsf_filter(lam, 0.5), label="TSF (γ=0.5)")
    ax.plot(lam, tikhonov_filter(lam, 5.0), label="TIK (γ=5)")
    ax.plot(lam, ridge_filter(lam, 5.0), label="RR (γ=5)")
    ax.plot(lam, landweber_filter(lam, 0.2, 7), label="LW (γ=0.2, k=7)")
    ax.set_xlabel("λ")
    ax.set_ylabel("φ(λ)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "figure_5_3_fixed_filters.png", dpi=120)
    plt.close(fig)
    figure = {"cg": "5_4", "mr": "5_5", "cgne": "5_6", "mr_ii": "5_7"}
    sets = ("pima", "wdbc", "sonar")
    for method, number in figure.items():
        fig, axes = plt.subplots(1, len(sets), figsize=(4 * len(sets), 3.2))
        for ax, name in zip(axes, sets):
            ds = load_keel(name)
            X = _std(ds.X)
            K = Gaussian(gamma=1 / float(np.median(squared_distances(X))))(X)
            K /= np.linalg.norm(K, 2)
            ev = np.linalg.eigvalsh(K)
            res = SOLVERS[method](K, ds.y, maxiter=8, rtol=0.0)
            phi = filter_factors(res, lam)
            for k in (1, 2, 5, 8):
                if k <= res.iterations:
                    ax.plot(lam, phi[k], label=f"{method}{k}")
            ax.plot(np.sort(np.abs(ev))[-10:], np.zeros(10), "k*")
            ax.set_ylim(-0.5, 2.0)
            ax.set_title(name)
            ax.set_xlabel("λ")
        axes[0].set_ylabel("φ(λ, k)")
        axes[0].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / f"figure_{number}_{method}_filters.png", dpi=120)
        plt.close(fig)
    print(f"\nFigures 5.3-5.7 written to {out}/")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path("krylov_figures"))
    parser.add_argument("--quick", action="store_true", help="5 folds, three classification sets")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    folds = 5 if args.quick else args.folds
    names = ("pima", "wdbc", "crx") if args.quick else CLASSIFICATION
    with threadpool_limits(1):
        classification_tables(folds, names)
        regression_tables(folds)
        filter_figures(args.out)


if __name__ == "__main__":
    main()
