"""`sdpkern demo` (and `make demo`): a hyperkernel C-SVM on breast cancer beside a tuned RBF SVC.

Trains the hyperkernel C-SVM of 002 eq. (3.8) (SOCP form, default backend, solved by constraint
generation; ``--full`` solves the full SOCP in one go) over ``HyperkernelSVC()``'s default
hyperkernel, the dictionary of harmonic ARD kernels over a ladder of widths and the features an
HSIC screen selects (:class:`~sdpkern.kernels.hyperkernels.ARDDictionary`), on a 60/40
split of scikit-learn's breast-cancer data (a stratified subsample of ``--n-train`` training
points), prints the problem summary, solver statistics and the learned kernel weights per width,
then a `GridSearchCV`-tuned RBF `SVC` in the spirit of the thesis' last column of Table 3.1
(C over powers of ten, σ between the 10% and 90% quantiles of the pairwise distances), with test
errors and times. ``--quick`` (40 points, a 3-fold grid) takes a few seconds.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["add_arguments", "load_split", "main", "run", "tuned_rbf_svc", "MIN_TRAIN"]

#: The fewest training points the demo accepts: the stratified subsample then holds at least
#: 7 points of the smaller class, enough for the SVC's 5-fold stratified grid search.
MIN_TRAIN = 20


def _n_train(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < MIN_TRAIN:
        raise argparse.ArgumentTypeError(f"must be an integer >= {MIN_TRAIN}, got {text!r}")
    return value


#: The largest seed: scikit-learn's and NumPy's legacy seeding take 0 <= seed < 2**32.
MAX_SEED = 2**32 - 1


def _seed(text: str) -> int:
    """``--seed``: an integer in [0, 2**32 − 1], else an argparse usage error (exit 2)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be an integer in [0, {MAX_SEED}], got {text!r}")
    return value


def backend_name(text: str) -> str:
    """``--backend``: a known, installed backend, else an argparse usage error (exit 2)."""
    from ..backends import get_backend  # lazy: only when --backend is given
    from ..errors import BackendError

    try:
        return get_backend(text).name
    except BackendError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The demo's options, shared by ``sdpkern demo`` and :func:`main`."""
    parser.add_argument(
        "--n-train",
        type=_n_train,
        default=None,
        metavar="N",
        help=f"training points, a stratified subsample of the 60%% split (>= {MIN_TRAIN}; default 120, 40 with --quick;"
        " at most 341 are used)",
    )
    parser.add_argument(
        "--backend", type=backend_name, default=None, help="the conic solver CVXPY calls (default: clarabel)"
    )
    parser.add_argument(
        "--seed", type=_seed, default=0, help=f"seed of the split and the subsample, 0..{MAX_SEED} (default 0)"
    )
    parser.add_argument("--full", action="store_true", help="solve the full SOCP instead of generating its cones")
    parser.add_argument("--quick", action="store_true", help="a few seconds: 40 training points, a small SVC grid")


def tuned_rbf_svc(X: NDArray[Any], y: NDArray[Any], *, n_sigma: int = 5, cv: int = 5, seed: int = 0) -> Any:
    """Thesis-style grid: C ∈ 10^{-2..5}, σ between the 10% and 90% distance quantiles (002 Table 3.1).

    Returns an unfitted :class:`sklearn.model_selection.GridSearchCV` over an RBF ``SVC``.
    """
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.svm import SVC

    from ..kernels.base import squared_distances

    rng = np.random.default_rng(seed)
    sample = X[rng.choice(X.shape[0], size=max(2, X.shape[0] // 5), replace=False)]
    d = np.sqrt(squared_distances(sample)[np.triu_indices(sample.shape[0], 1)])
    sigmas = np.quantile(d, np.linspace(0.1, 0.9, n_sigma))
    grid = {"C": 10.0 ** np.arange(-2, 6), "gamma": 1.0 / (2.0 * sigmas**2)}
    return GridSearchCV(SVC(kernel="rbf"), grid, cv=StratifiedKFold(cv, shuffle=True, random_state=seed), n_jobs=1)


def load_split(n_train: int, seed: int = 0) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any], NDArray[Any]]:
    """Breast cancer split 60/40 (stratified), the training part cut to a stratified subsample of
    ``n_train`` points: ``X_train, X_test, y_train, y_test`` (labels 0/1 as scikit-learn loads them)."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split

    X, y = load_breast_cancer(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, train_size=0.6, random_state=seed, stratify=y)
    if n_train < len(y_tr):
        X_tr, _, y_tr, _ = train_test_split(X_tr, y_tr, train_size=n_train, random_state=seed, stratify=y_tr)
    return X_tr, X_te, y_tr, y_te


def _fit_hyperkernel(X_tr: NDArray[Any], y_tr: NDArray[Any], backend: str, full: bool) -> tuple[Any, Any, str, float]:
    """The hyperkernel C-SVM as ``HyperkernelSVC()`` fits it (its dictionary of harmonic ARD kernels
    over the width ladder and the HSIC-screened features, λ_Q = "auto"), through the builder:
    ``(problem, solution, how, basis time)``."""
    from ..builders.hyperkernel import cone_generation, csvm
    from ..estimators.hyperkernel import HyperkernelSVC

    estimator = HyperkernelSVC()
    t0 = time.perf_counter()
    y_pm = np.where(y_tr == 1, 1.0, -1.0)
    basis = estimator._basis(X_tr, y_pm)
    hk = basis.hyperkernel
    # builder and estimator take the same C (scikit-learn's; eq. (3.8)'s C' = C·m inside)
    params: dict[str, Any] = {"C": estimator.C, "lambda_Q": estimator._lambda_Q(basis, None), "basis": basis}
    if full:
        problem = csvm(X_tr, y_pm, hk, form="socp", **params)
        build = time.perf_counter() - t0
        print(problem.summary())
        return problem, problem.solve(backend=backend, allow_inaccurate=True), f"full SOCP, {basis.size} cones", build
    problem, sol, trace = cone_generation(csvm, X_tr, y_pm, hk, backend=backend, allow_inaccurate=True, **params)
    print(problem.summary())
    how = (
        f"constraint generation: {trace.rounds} round(s), {trace.terms.size} of {basis.size} cones kept, "
        f"largest omitted-cone violation {trace.max_violation:.1e}\n"
        "(no omitted cone violated: this is the full SOCP's optimum; --full solves it in one go to compare)"
    )
    return problem, sol, how, time.perf_counter() - t0 - trace.total_time


def _print_weights(problem: Any, sol: Any) -> None:
    """The learned kernel's weights β: per relevance vector (every feature; the screened ones) and width."""
    basis = problem.data["basis"]
    assert sol.beta is not None  # the C-SVM's recovery always sets β
    hk = basis.hyperkernel
    R = hk.relevance_array(basis.X.shape[1])
    W = sol.beta.reshape(R.shape[0], -1)
    scales = hk.scale_array()
    print(f"\nlearned kernel weights β (≥ 0, Σβ = 1; {int(np.sum(sol.beta > 1e-6))} of {basis.size} terms above 1e-6):")
    print("  features        " + "".join(f"   c={c:<8.4g}" for c in scales))
    for k in range(R.shape[0]):
        label = "all" if np.all(R[k] == 1) else f"{int(R[k].sum())} screened"
        print(f"  {label:15} " + "".join(f"   {w:<10.4f}" for w in W[k]))
    if R.shape[0] > 1:
        print(f"  screened features: {np.flatnonzero(R[1]).tolist()}")


def run(args: argparse.Namespace) -> int:
    """Run the demo with parsed options (see :func:`add_arguments`); returns the exit code.

    Raises
    ------
    UnknownBackendError, BackendNotInstalledError
        For a ``--backend`` that is not known or not installed (``sdpkern`` exits 2).
    """
    from ..backends import DEFAULT_BACKEND, get_backend

    backend = args.backend or DEFAULT_BACKEND
    get_backend(backend)  # an unknown or missing backend is a usage error, before any work
    n_train = args.n_train if args.n_train is not None else (40 if args.quick else 120)
    X_tr, X_te, y_tr, y_te = load_split(n_train, args.seed)
    m, d = X_tr.shape
    print(f"breast cancer (UCI wdbc): {m} training / {X_te.shape[0]} test points, {d} features\n")

    t0 = time.perf_counter()
    problem, sol, how, build = _fit_hyperkernel(X_tr, y_tr, backend, args.full)
    fit_time = time.perf_counter() - t0
    print(f"\n{how}")
    print(f"solver: {sol.backend}  status: {sol.status}  objective: {sol.objective:.6f}  iterations: {sol.iterations}")
    if sol.certificate is not None:
        c = sol.certificate
        v = ["n/a" if x is None else f"{x:.1e}" for x in (c.primal_residual, c.dual_residual, c.relative_gap)]
        print(f"certificate: primal residual {v[0]}, dual residual {v[1]}, relative gap {v[2]} ({c.solver_status})")
    if sol.recovery:
        print(f"recovery: {sol.recovery}")
    print(
        f"times: basis {build:.2f}s  last compile {sol.compile_time:.2f}s  last solve {sol.solve_time or 0:.2f}s  "
        f"total {fit_time:.2f}s"
    )
    _print_weights(problem, sol)

    y_pm_te = np.where(y_te == 1, 1.0, -1.0)
    err_hk = float(np.mean(sol.predict(X_te) != y_pm_te))
    cv = 3 if args.quick else 5
    t1 = time.perf_counter()
    grid = tuned_rbf_svc(X_tr, y_tr, n_sigma=3 if args.quick else 5, cv=cv, seed=args.seed).fit(X_tr, y_tr)
    svc_time = time.perf_counter() - t1
    err_svc = float(np.mean(grid.predict(X_te) != y_te))
    print("\n                               test error   time")
    print(f"  hyperkernel C-SVM (SOCP)      {100 * err_hk:6.2f}%   {fit_time:6.1f}s   (no tuning: the learned kernel)")
    print(
        f"  RBF SVC, GridSearchCV         {100 * err_svc:6.2f}%   {svc_time:6.1f}s   "
        f"(best C={grid.best_params_['C']:g}, gamma={grid.best_params_['gamma']:.3g}; "
        f"{len(grid.cv_results_['params'])} cells × {cv} folds)"
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``sdpkern demo [options]``: the same as the console script, with its exit codes."""
    import sys

    from .cli import main as cli_main

    return cli_main(["demo", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
