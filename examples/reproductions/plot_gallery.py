"""Every plot of :mod:`sdpkern.apps.plotting`, each from a model fitted here, saved as PNGs.
=========================================================================================

- ``decision_boundary.png``: a thin-plate SVM on 2-D banana data (000 Figure 1);
- ``kernel_weights.png``: the learned weights β of a hyperkernel SVM on wdbc (002 eq. 2.15);
- ``filter_factors.png``: conjugate-gradient filter factors on a Gaussian kernel matrix
  (002 Figures 5.3-5.10);
- ``sensitivity.png``: cross-validated error of the hyperkernel SVM against λ_Q on two data
  sets (002 Figures 3.1-3.2, at a small scale);
- ``sdpm_trajectories.png``: linear SDPM on rotated 2-D points, with its truly virtual support
  vectors (003 Figure 2a).

Run::

    python examples/reproductions/plot_gallery.py [--out gallery] [--quick]

About a minute on two cores (``--quick``: a few seconds, smaller data and fewer λ_Q values).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sdpkern.apps import plotting
from sdpkern.builders.sdpm import sdpm
from sdpkern.datasets import load_keel
from sdpkern.estimators import HyperkernelSVC, ThinPlateSVC
from sdpkern.kernels.base import Gaussian
from sdpkern.native.krylov import cg


def _subsample(X: np.ndarray, y: np.ndarray, n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    idx = np.random.default_rng(seed).permutation(X.shape[0])[:n]
    return X[idx], y[idx]


def _subsample_set(name: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    ds = load_keel(name)
    return _subsample(ds.X, ds.y, n)


def decision_boundary(out: Path, n: int) -> Path:
    X, y = _subsample_set("banana", n)
    est = ThinPlateSVC(C=500.0).fit(X, y)
    path = out / "decision_boundary.png"
    plotting.plot_decision_boundary(est, X, y, path=path, title=f"thin-plate SVM, banana (n = {n}, λ = 1e-3)")
    return path


def kernel_weights(out: Path, n: int) -> Path:
    X, y = _subsample_set("wdbc", n)
    est = make_pipeline(StandardScaler(), HyperkernelSVC()).fit(X, y)
    path = out / "kernel_weights.png"
    plotting.plot_kernel_weights(est[-1], path=path, title=f"hyperkernel SVM on wdbc (m = {n}): β")
    return path


def filter_factors(out: Path, n: int) -> Path:
    X, y = _subsample_set("sonar", n)
    X = StandardScaler().fit_transform(X)
    K = Gaussian(gamma=1.0 / X.shape[1])(X, X)
    t = np.where(y == np.unique(y)[0], -1.0, 1.0)
    res = cg(K, t, rtol=1e-10, max_iter=8)
    path = out / "filter_factors.png"
    plotting.plot_filter_factors(res, np.linalg.eigvalsh(K), iterations=[1, 2, 4, 8], path=path)
    return path


def sensitivity(out: Path, n: int, values: np.ndarray) -> Path:
    errors: dict[str, list[float]] = {}
    stds: dict[str, list[float]] = {}
    for name in ("wdbc", "heart"):
        X, y = _subsample_set(name, n)
        errors[name], stds[name] = [], []
        for lq in values:
            pipe = make_pipeline(StandardScaler(), HyperkernelSVC(lambda_Q=float(lq)))
            err = 1.0 - cross_val_score(pipe, X, y, cv=3)
            errors[name].append(float(err.mean()))
            stds[name].append(float(err.std()))
    path = out / "sensitivity.png"
    plotting.plot_sensitivity(values, errors, std=stds, parameter="λ_Q", path=path)
    return path


def sdpm_trajectories(out: Path) -> Path:
    # points of two clusters under rotation by θ: x(θ) ≈ x + θ·Jx + θ²/2·J²x (Taylor, 003 eq. 2)
    rng = np.random.default_rng(1)
    x = np.r_[rng.normal([2.0, 0.5], 0.3, (4, 2)), rng.normal([-2.0, -0.5], 0.3, (4, 2))]
    y = np.r_[np.ones(4), -np.ones(4)]
    J = np.array([[0.0, -1.0], [1.0, 0.0]])
    T = np.stack([x, x @ J.T, 0.5 * x @ (J @ J).T], axis=1)  # (m, r + 1, n)
    model = sdpm(T, y, C=10.0, segment=0.5).solve().model
    extras = model.extras
    path = out / "sdpm_trajectories.png"
    plotting.plot_sdpm_trajectories(
        T,
        y,
        w=extras["w"],
        b=model.offset or 0.0,
        theta_star={int(i): float(extras["theta_star"][i]) for i in extras["support"]},
        theta_range=(-0.5, 0.5),
        path=path,
    )
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    ap.add_argument("--out", type=Path, default=Path("gallery"), help="directory for the PNGs")
    ap.add_argument("--quick", action="store_true", help="smaller data and fewer λ_Q values")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    quick = args.quick
    values = np.logspace(-2, 2, 3 if quick else 5)
    jobs = [
        ("decision boundary", lambda: decision_boundary(args.out, 150 if quick else 400)),
        ("kernel weights", lambda: kernel_weights(args.out, 40 if quick else 100)),
        ("filter factors", lambda: filter_factors(args.out, 60 if quick else 150)),
        ("sensitivity", lambda: sensitivity(args.out, 40 if quick else 90, values)),
        ("SDPM trajectories", lambda: sdpm_trajectories(args.out)),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for name, job in jobs:
            t0 = time.perf_counter()
            path = job()
            print(f"{name:<18} {time.perf_counter() - t0:6.1f} s  {path}")


if __name__ == "__main__":
    main()
