"""Reproduce the Krylov experiments of 002 Ch. 5-6 on the bundled data.
====================================================================

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

    python examples/reproductions/reproduce_krylov_tables.py [--folds 10] [--out krylov_figures] [--quick]
    python examples/reproductions/reproduce_krylov_tables.py --acceptance   # the issue's acceptance figures
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
from sdpkern.kernels.gram import PrecomputedGram
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
            res = SOLVERS[method](K, ds.y, max_iter=8, rtol=0.0)
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


def acceptance_figures() -> None:
    """Print the issue's acceptance figures (the tests assert the same thresholds)."""
    import cvxpy as cp
    from scipy.sparse.linalg import minres

    from sdpkern.kernels import Epanechnikov, Linear, Sigmoid
    from sdpkern.kernels.spectrum import center_kernel
    from sdpkern.native.filters import filtered_solution
    from sdpkern.native.krylov import mr
    from sdpkern.native.primal_svm import primal_svm_kernel, primal_svm_linear
    from sdpkern.native.pseudo_euclidean import (
        induced_squared_distances,
        kernel_suitability,
        pseudo_euclidean_embedding,
        wMw,
    )

    n = 200

    def system(kind: str, seed: int, low: float = 2.0) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(seed)
        Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
        lam = rng.uniform(low, 10, n)
        if kind == "indefinite":
            lam *= np.where(rng.random(n) < 0.5, -1, 1)
        A = (Q * lam) @ Q.T
        return (A + A.T) / 2, rng.standard_normal(n)

    print("Krylov vs numpy.linalg.solve (n = 200, |λ| in [2, 10]), max relative error over 5 seeds (≤ 1e-8):")
    for kind in ("spd", "indefinite"):
        for name, solver in SOLVERS.items():
            worst = 0.0
            for seed in range(5):
                A, b = system(kind, seed)
                x_ref = np.linalg.solve(A, b)
                worst = max(worst, float(np.linalg.norm(solver(A, b, rtol=1e-13).x - x_ref) / np.linalg.norm(x_ref)))
            print(f"  {kind:10s} {name:6s} {worst:.1e}")
    print("MR vs scipy minres, max over steps of |‖r_k‖ − ‖r_k^minres‖| / ‖b‖ (≤ 1e-8):")
    for kind in ("spd", "indefinite"):
        for low in (2.0, 1.0):
            A, b = system(kind, 2, low)
            ref: list[float] = []

            def record(xk: np.ndarray, A: np.ndarray = A, b: np.ndarray = b, ref: list[float] = ref) -> None:
                ref.append(float(np.linalg.norm(b - A @ xk)))

            minres(A, b, rtol=1e-12, maxiter=400, callback=record)
            res = mr(A, b, rtol=1e-12, return_iterates=True)
            m = min(len(ref), res.iterations)
            ours = np.linalg.norm(b[None, :] - res.iterates[1 : m + 1] @ A, axis=1)
            print(f"  {kind:10s} |λ| in [{low}, 10]: {np.max(np.abs(ours - np.array(ref[:m]))) / np.linalg.norm(b):.1e}"
                  f" over {m} steps")
    print("Filter factors rebuild the iterates, max over k of relative error (≤ 1e-8):")
    for kind in ("spd", "indefinite"):
        A, y = system(kind, 1)
        lam, U = np.linalg.eigh(A)
        for name, solver in SOLVERS.items():
            res = solver(A, y, rtol=1e-10, return_iterates=True)
            phi = filter_factors(res, lam)
            worst = max(float(np.linalg.norm(filtered_solution(A, y, phi[k], eig=(lam, U)) - res.iterates[k])
                              / np.linalg.norm(res.iterates[k])) for k in range(1, res.iterations + 1))
            print(f"  {kind:10s} {name:6s} {worst:.1e} ({res.iterations} iterates)")
    print("Primal Newton SVM vs CVXPY/Clarabel on the same squared-hinge problem, relative (≤ 1e-6):")
    ds = load_keel("pima")
    idx = np.random.default_rng(0).permutation(ds.y.shape[0])[:200]
    X, y = _std(ds.X[idx]), ds.y[idx]
    K = Gaussian(gamma=0.1)(X)
    ev, V = np.linalg.eigh(K)
    F = V * np.sqrt(np.clip(ev, 0, None))
    for C in (0.1, 1.0, 30.0):
        beta, b0, w = cp.Variable(200), cp.Variable(), cp.Variable(X.shape[1])
        pk = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(F.T @ beta)
                                    + C * cp.sum_squares(cp.pos(1 - cp.multiply(y, K @ beta + b0)))))
        pk.solve(solver="CLARABEL")
        pl = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w)
                                    + C * cp.sum_squares(cp.pos(1 - cp.multiply(y, X @ w + b0)))))
        pl.solve(solver="CLARABEL")
        rk, rl = primal_svm_kernel(PrecomputedGram(K), y, C), primal_svm_linear(X, y, C)
        print(f"  C = {C:5.1f}: kernel {abs(rk.objective - pk.value) / pk.value:.1e} ({rk.iterations} Newton steps), "
              f"linear {abs(rl.objective - pl.value) / pl.value:.1e}")
    print("Pseudo-Euclidean embedding (001 Prop. 1) and eq. (12):")
    Xr = np.random.default_rng(2).standard_normal((60, 3))
    yr = np.where(Xr[:, 0] + 0.3 * Xr[:, 1] > 0, 1.0, -1.0)
    for name, k in (("sigmoid", Sigmoid(gamma=0.5, coef0=-1.0)), ("epanechnikov", Epanechnikov(sigma=4.0)),
                    ("sqeuclidean", SquaredEuclidean()), ("gaussian", Gaussian(gamma=0.5))):
        K = k(Xr)
        D = induced_squared_distances(K)
        emb = pseudo_euclidean_embedding(K)
        lam = np.linalg.eigvalsh(center_kernel(K))
        thr = 1e-10 * np.abs(lam).max()
        svc = SVC(kernel="precomputed").fit(K, yr)
        c = np.zeros(60)
        c[svc.support_] = svc.dual_coef_[0]
        wv = c @ emb.coordinates
        in_emb = float(emb.inner(wv[None], wv[None])[0, 0])
        print(f"  {name:12s} max|ΔD|/max|D| {np.abs(emb.squared_distances() - D).max() / max(1, np.abs(D).max()):.1e}; "
              f"(p, q) = {emb.signature}, eigenvalue signs of JKJ = "
              f"({int((lam > thr).sum())}, {int((lam < -thr).sum())}); "
              f"w'Mw eq. (12) {wMw(K, c):.6g} vs embedding {in_emb:.6g} (rel. diff "
              f"{abs(wMw(K, c) - in_emb) / max(1, abs(in_emb)):.1e})")
    for k in (Gaussian(gamma=0.5), Linear()):
        rep = kernel_suitability(-k(Xr))
        print(f"  −{type(k).__name__} kernel before training: suitable = {rep.suitable} (p = {rep.n_positive})")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--out", type=Path, default=Path("krylov_figures"))
    parser.add_argument("--quick", action="store_true", help="5 folds, three classification sets")
    parser.add_argument("--acceptance", action="store_true", help="print the acceptance figures only")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    if args.acceptance:
        with threadpool_limits(1):
            acceptance_figures()
        return
    folds = 5 if args.quick else args.folds
    names = ("pima", "wdbc", "crx") if args.quick else CLASSIFICATION
    with threadpool_limits(1):
        classification_tables(folds, names)
        regression_tables(folds)
        filter_figures(args.out)


if __name__ == "__main__":
    main()
