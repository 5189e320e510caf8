"""Figures of the papers: decision boundaries, kernel weights, filter functions, sensitivity, SDPM.

matplotlib is an optional dependency (``pip install 'sdpkern[plot]'``) and is imported only when a
function here is called. Every function returns the :class:`matplotlib.figure.Figure` and, with
``path``, saves it as a PNG atomically (temporary file, then ``os.replace``).

- :func:`plot_decision_boundary`: any fitted 2-D classifier (000 Figure 1).
- :func:`plot_kernel_weights`: learned kernel weights β (002 §3.2).
- :func:`plot_filter_factors`: Krylov filter functions φ(λ, k) (002 Figures 5.3-5.10).
- :func:`plot_sensitivity`: error against λ_Q or λ_h (002 Figures 3.1-3.2).
- :func:`plot_sdpm_trajectories`: trajectories, separating line and virtual support vectors
  (003 Figure 2a).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._atomic import atomic_open
from ..errors import DataError, ParameterError

__all__ = [
    "plot_decision_boundary",
    "plot_kernel_weights",
    "plot_filter_factors",
    "plot_sensitivity",
    "plot_sdpm_trajectories",
    "save_png",
]


#: Where a figure is saved (``None``: not saved).
PathArg = str | os.PathLike[str] | None


def _plt() -> Any:
    try:
        import matplotlib

        # No display is needed to draw to a file; keep an interactive backend if one is set.
        if os.environ.get("MPLBACKEND") is None and not os.environ.get("DISPLAY"):
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - the test extra installs matplotlib
        raise ImportError("sdpkern.apps.plotting needs matplotlib: pip install 'sdpkern[plot]'") from exc
    return plt


def save_png(fig: Any, path: str | os.PathLike[str], dpi: int = 100) -> Path:
    """Save ``fig`` as a PNG at ``path`` atomically; return the path."""
    with atomic_open(path, "wb") as fh:
        fig.savefig(fh, format="png", dpi=dpi)
    return Path(path)


def _new_axes(ax: Any, figsize: tuple[float, float] = (5.0, 4.0)) -> tuple[Any, Any]:
    if ax is not None:
        return ax.figure, ax
    plt = _plt()
    fig, ax = plt.subplots(figsize=figsize)
    return fig, ax


def _finish(
    fig: Any, ax: Any, path: PathArg, title: str, xlabel: str | None = None,
    ylabel: str | None = None, legend: bool = False,
) -> Any:
    """Label the axes, add the legend and the title, lay out, save to ``path`` if given."""
    if legend:
        ax.legend(loc="best", fontsize="small")
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.tight_layout()
    if path is not None:
        save_png(fig, path)
    return fig


def plot_decision_boundary(
    estimator: Any,
    X: ArrayLike,
    y: ArrayLike,
    *,
    resolution: int = 200,
    margin: float = 0.1,
    ax: Any = None, path: PathArg = None, title: str | None = None,
) -> Any:
    """Decision function of a fitted 2-D classifier over a grid, with the zero level and the data.

    Parameters
    ----------
    estimator : fitted classifier with ``decision_function`` (or ``predict``)
    X : array of shape (m, 2)
    y : array of shape (m,)
    resolution : int, default=200
        Grid points per axis.
    margin : float, default=0.1
        Fraction of the data range added around it.
    ax, path, title
        Axes to draw in; PNG path to save to; title.

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    000 Figure 1 shows a thin-plate SVM boundary drawn this way.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2:
        raise DataError(f"X must have shape (m, 2) for a decision-boundary plot, got {X.shape}")
    if y.shape != (X.shape[0],):
        raise DataError(f"y must have shape ({X.shape[0]},), got {y.shape}")
    if int(resolution) < 2:
        raise ParameterError(f"resolution must be >= 2, got {resolution!r}")
    lo, hi = X.min(axis=0), X.max(axis=0)
    pad = margin * np.maximum(hi - lo, 1e-12)
    gx, gy = np.meshgrid(
        np.linspace(lo[0] - pad[0], hi[0] + pad[0], resolution), np.linspace(lo[1] - pad[1], hi[1] + pad[1], resolution)
    )
    grid = np.column_stack([gx.ravel(), gy.ravel()])
    if hasattr(estimator, "decision_function"):
        z = np.asarray(estimator.decision_function(grid), dtype=np.float64)
        if z.ndim > 1:
            z = z[:, 0]
    else:
        classes = getattr(estimator, "classes_", np.unique(y))
        z = np.where(estimator.predict(grid) == classes[-1], 1.0, -1.0)
    Z = z.reshape(gx.shape)
    fig, ax = _new_axes(ax)
    bound = float(np.max(np.abs(Z))) or 1.0
    ax.contourf(gx, gy, Z, levels=20, cmap="RdBu_r", vmin=-bound, vmax=bound, alpha=0.6)
    ax.contour(gx, gy, Z, levels=[0.0], colors="k", linewidths=1.5)
    for cls, marker in zip(np.unique(y), ("o", "s", "^", "D")):
        sel = y == cls
        ax.scatter(X[sel, 0], X[sel, 1], marker=marker, edgecolors="k", label=str(cls), s=25)
    return _finish(fig, ax, path, title or type(estimator).__name__, "$x_1$", "$x_2$", legend=True)


def plot_kernel_weights(
    beta: Any,
    *,
    labels: Sequence[str] | None = None,
    ax: Any = None, path: PathArg = None, title: str = "learned kernel weights β",
) -> Any:
    """Bar plot of kernel weights β, from an array or a fitted estimator exposing ``beta_``.

    Parameters
    ----------
    beta : array of shape (p,) or fitted estimator with ``beta_``
    labels : sequence of str, optional
        One label per weight (e.g. the basis pairs (i, j)).

    Returns
    -------
    matplotlib.figure.Figure
    """
    values = getattr(beta, "beta_", beta)
    arr = np.asarray(values, dtype=np.float64).reshape(-1) if values is not None else np.empty(0)
    if arr.size == 0:
        raise DataError("beta must be a non-empty array or an estimator with a fitted beta_")
    if not np.all(np.isfinite(arr)):
        raise DataError("beta contains NaN or infinity")
    if labels is not None and len(labels) != arr.size:
        raise DataError(f"labels must have {arr.size} entries (one per weight), got {len(labels)}")
    fig, ax = _new_axes(ax, (max(4.0, min(12.0, 0.25 * arr.size + 2)), 3.5))
    ax.bar(np.arange(arr.size), arr, color="C0")
    if labels is not None:
        ax.set_xticks(np.arange(arr.size), labels, rotation=90, fontsize="small")
    return _finish(fig, ax, path, title, "basis term", "β")


def plot_filter_factors(
    result: Any,
    eigenvalues: ArrayLike,
    *,
    iterations: Sequence[int] | None = None,
    ax: Any = None, path: PathArg = None, title: str | None = None,
) -> Any:
    """Krylov filter functions φ(λ_i, k) against the eigenvalues, one curve per iteration k.

    Parameters
    ----------
    result : KrylovResult
        From :mod:`sdpkern.native.krylov` (kept iterates / coefficients).
    eigenvalues : array of shape (m,)
        Eigenvalues of the system matrix.
    iterations : sequence of int, optional
        Which k to draw; by default up to five spread over the run.

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    002 Figures 5.3-5.10; φ comes from :func:`sdpkern.native.filters.filter_factors`.
    """
    from ..native.filters import filter_factors

    lam = np.asarray(eigenvalues, dtype=np.float64).reshape(-1)
    phi = filter_factors(result, lam)
    n_it = phi.shape[0] - 1
    if iterations is None:
        iterations = sorted({int(k) for k in np.linspace(1, max(n_it, 1), min(5, max(n_it, 1)))})
    bad = [k for k in iterations if not 0 <= int(k) <= n_it]
    if bad:
        raise ParameterError(f"iterations must lie in [0, {n_it}], got {bad}")
    order = np.argsort(lam)
    fig, ax = _new_axes(ax)
    for k in iterations:
        ax.plot(lam[order], phi[int(k)][order], marker=".", label=f"k = {int(k)}")
    ax.axhline(1.0, color="grey", linestyle=":", linewidth=1)
    title = title or f"filter factors ({getattr(result, 'method', 'krylov')})"
    return _finish(fig, ax, path, title, "eigenvalue λ", "φ(λ, k)", legend=True)


def plot_sensitivity(
    values: ArrayLike,
    errors: ArrayLike | Mapping[str, ArrayLike],
    *,
    std: ArrayLike | Mapping[str, ArrayLike] | None = None,
    parameter: str = "λ_Q",
    log_x: bool = True,
    ax: Any = None, path: PathArg = None, title: str | None = None,
) -> Any:
    """Test error against a parameter (λ_Q or λ_h), one curve per data set.

    Parameters
    ----------
    values : array of shape (g,)
        Parameter values.
    errors : array of shape (g,) or dict of name -> array of shape (g,)
    std : same structure as ``errors``, optional
        Error bars.
    parameter : str
        Axis label.

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    002 Figures 3.1-3.2 (sensitivity of the hyperkernel SVM to λ_Q and λ_h).
    """
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    series = dict(errors) if isinstance(errors, Mapping) else {"": errors}
    stds = dict(std) if isinstance(std, Mapping) else ({"": std} if std is not None else {})
    if log_x and np.any(x <= 0):
        raise ParameterError("values must be > 0 on a logarithmic axis (pass log_x=False)")
    fig, ax = _new_axes(ax)
    for name, err in series.items():
        e = np.asarray(err, dtype=np.float64).reshape(-1)
        if e.shape != x.shape:
            raise DataError(f"errors[{name!r}] must have shape {x.shape} like values, got {e.shape}")
        s = stds.get(name)
        if s is not None:
            ax.errorbar(x, e, yerr=np.asarray(s, dtype=np.float64), marker="o", capsize=3, label=name or None)
        else:
            ax.plot(x, e, marker="o", label=name or None)
    if log_x:
        ax.set_xscale("log")
    return _finish(fig, ax, path, title or f"sensitivity to {parameter}", parameter, "test error", legend=any(series))


def plot_sdpm_trajectories(
    trajectories: ArrayLike,
    y: ArrayLike,
    w: ArrayLike,
    b: float = 0.0,
    theta_star: Mapping[int, float] | Sequence[float] | None = None,
    *,
    support: Sequence[int] | None = None,
    theta_range: tuple[float, float] = (-1.0, 1.0),
    n_theta: int = 100,
    ax: Any = None, path: PathArg = None, title: str = "SDPM: trajectories and virtual support vectors",
) -> Any:
    """Polynomial trajectories in 2-D, the separating line wᵀx + b = 0 and the virtual SVs.

    Parameters
    ----------
    trajectories : array of shape (m, r + 1, 2)
        Taylor coefficients of each example's trajectory (003 eq. 2).
    y : array of shape (m,)
    w : array of shape (2,)
    b : float
    theta_star : sequence of float or dict index -> θ*, optional
        θ_i* of the support trajectories (003 Proposition 3); with ``support`` the indices they
        belong to (default: the first ``len(theta_star)`` examples).
    theta_range : (float, float)
        The θ segment over which the trajectories are drawn.

    Returns
    -------
    matplotlib.figure.Figure

    Notes
    -----
    003 Figure 2a.
    """
    from ..trajectories import check_trajectories, evaluate_trajectories

    T = check_trajectories(trajectories)
    if T.ndim != 3 or T.shape[2] != 2:
        raise DataError(f"trajectories must have shape (m, r+1, 2) to be drawn in the plane, got {T.shape}")
    y = np.asarray(y)
    if y.shape != (T.shape[0],):
        raise DataError(f"y must have shape ({T.shape[0]},), got {y.shape}")
    w = np.asarray(w, dtype=np.float64).reshape(-1)
    if w.shape != (2,):
        raise DataError(f"w must have shape (2,), got {w.shape}")
    theta = np.linspace(theta_range[0], theta_range[1], int(n_theta))
    pts = evaluate_trajectories(T, theta)  # (m, g, 2)
    fig, ax = _new_axes(ax)
    colors = {c: f"C{i}" for i, c in enumerate(np.unique(y))}
    for i in range(T.shape[0]):
        ax.plot(pts[i, :, 0], pts[i, :, 1], color=colors[y[i]], linewidth=1)
        ax.plot(T[i, 0, 0], T[i, 0, 1], marker="o", color=colors[y[i]], markersize=4)
    lo, hi = pts.reshape(-1, 2).min(axis=0), pts.reshape(-1, 2).max(axis=0)
    xs = np.linspace(lo[0], hi[0], 50)
    if abs(w[1]) > 1e-12 * max(1.0, abs(w[0])):
        ax.plot(xs, -(w[0] * xs + b) / w[1], "k-", linewidth=1.5, label="wᵀx + b = 0")
    else:
        ax.axvline(-b / w[0], color="k", linewidth=1.5, label="wᵀx + b = 0")
    if theta_star is not None:
        if isinstance(theta_star, Mapping):
            idx, th = list(theta_star.keys()), list(theta_star.values())
        else:
            th = list(np.asarray(theta_star, dtype=np.float64).reshape(-1))
            idx = list(support) if support is not None else list(range(len(th)))
        if len(idx) != len(th):
            raise DataError(f"support has {len(idx)} indices but theta_star has {len(th)} values")
        vsv = np.array([evaluate_trajectories(T[i : i + 1], t)[0] for i, t in zip(idx, th)]).reshape(-1, 2)
        ax.scatter(
            vsv[:, 0], vsv[:, 1], marker="*", s=150, facecolors="none", edgecolors="k", label="virtual support vectors"
        )
    ax.set_xlim(lo[0] - 0.05 * (hi[0] - lo[0] + 1e-12), hi[0] + 0.05 * (hi[0] - lo[0] + 1e-12))
    ax.set_ylim(lo[1] - 0.05 * (hi[1] - lo[1] + 1e-12), hi[1] + 0.05 * (hi[1] - lo[1] + 1e-12))
    return _finish(fig, ax, path, title, legend=True)
