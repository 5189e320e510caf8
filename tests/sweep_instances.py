"""Random instances of the status sweep (examples/benchmarks/status_sweep.py), drawn the same way, for the
regression tests of its misses."""

from __future__ import annotations

import numpy as np

from sdpkern.datasets import load_keel


def keel(name: str, m: int, seed: int, regression: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """m standardised points of a vendored KEEL set (as examples/benchmarks/status_sweep.py draws them)."""
    ds = load_keel(name)
    y_all = (ds.y == ds.y[0]).astype(float)
    rng = np.random.default_rng(seed)
    idx = rng.permutation(ds.X.shape[0])[:m]
    if len(np.unique(y_all[idx])) < 2:
        idx[-1] = int(np.flatnonzero(y_all != y_all[idx[0]])[0])
    X = ds.X[idx]
    sd = X.std(axis=0)
    X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    if regression:
        return X, 2 * X[:, 0] + 0.1 * X[:, 1] + 0.1 * rng.normal(size=m)
    return X, y_all[idx]


def sdpm_trajectories(name: str, m: int, seed: int, r: int) -> tuple[np.ndarray, np.ndarray]:
    """The status sweep's SDPM instance (``status_sweep.build``): the points of :func:`keel` (m, or
    all of a smaller set) as the θ⁰ row and 0.3·N(0, 1)/j noise rows j = 1..r (seeded seed + 1)."""
    X, y = keel(name, m, seed)
    rng = np.random.default_rng(seed + 1)
    V = np.zeros((X.shape[0], r + 1, X.shape[1]))
    V[:, 0] = X
    for j in range(1, r + 1):
        V[:, j] = 0.3 * rng.normal(size=X.shape) / j
    return V, y
