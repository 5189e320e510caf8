"""Every plot renders on the Agg backend to a valid PNG with the expected artists."""

from __future__ import annotations

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from sklearn.datasets import make_classification  # noqa: E402

from sdpkern.apps import plotting  # noqa: E402
from sdpkern.errors import DataError, ParameterError  # noqa: E402

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _check_png(path):
    data = path.read_bytes()
    assert len(data) > 1000 and data[:8] == PNG_MAGIC
    assert not list(path.parent.glob(f".{path.name}.*.tmp"))


def test_decision_boundary(tmp_path):
    from sdpkern.estimators import PrimalSVC

    X, y = make_classification(n_samples=40, n_features=2, n_redundant=0, random_state=0)
    est = PrimalSVC(kernel="rbf").fit(X, y)
    fig = plotting.plot_decision_boundary(est, X, y, resolution=40, path=tmp_path / "db.png")
    _check_png(tmp_path / "db.png")
    ax = fig.axes[0]
    assert len(ax.collections) >= 3  # filled contours, zero level, one scatter per class
    assert len(ax.get_legend().get_texts()) == 2
    with pytest.raises(DataError, match="X"):
        plotting.plot_decision_boundary(est, np.ones((5, 3)), np.ones(5))


def test_kernel_weights(tmp_path):
    from sdpkern.estimators import HyperkernelSVC

    X, y = make_classification(n_samples=20, n_features=3, n_redundant=0, random_state=0)
    est = HyperkernelSVC().fit(X, y)
    beta = np.asarray(est.beta_).reshape(-1)
    fig = plotting.plot_kernel_weights(est, path=tmp_path / "beta.png")
    _check_png(tmp_path / "beta.png")
    heights = [p.get_height() for p in fig.axes[0].patches]
    np.testing.assert_allclose(heights, beta)
    fig = plotting.plot_kernel_weights(beta[:4], labels=list("abcd"))
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == list("abcd")
    with pytest.raises(DataError, match="labels"):
        plotting.plot_kernel_weights(beta, labels=["a"])


def test_filter_factors(tmp_path):
    from sdpkern.native.krylov import cg

    lam = np.linspace(0.1, 5.0, 12)
    res = cg(np.diag(lam), np.ones(12), rtol=1e-12, max_iter=6)
    fig = plotting.plot_filter_factors(res, lam, iterations=[1, 3, 6], path=tmp_path / "phi.png")
    _check_png(tmp_path / "phi.png")
    assert len(fig.axes[0].get_lines()) == 3 + 1  # three iterations and the φ = 1 reference
    with pytest.raises(ParameterError, match="iterations"):
        plotting.plot_filter_factors(res, lam, iterations=[99])


def test_sensitivity(tmp_path):
    lq = np.logspace(-2, 2, 5)
    fig = plotting.plot_sensitivity(
        lq,
        {"sonar": np.linspace(0.2, 0.3, 5), "heart": np.linspace(0.1, 0.2, 5)},
        std={"sonar": np.full(5, 0.01)},
        path=tmp_path / "sens.png",
    )
    _check_png(tmp_path / "sens.png")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and len(ax.get_legend().get_texts()) == 2
    with pytest.raises(DataError, match="errors"):
        plotting.plot_sensitivity(lq, np.ones(3))


def test_sdpm_trajectories(tmp_path):
    rng = np.random.default_rng(0)
    m = 6
    T = np.zeros((m, 3, 2))
    T[:, 0] = np.r_[rng.normal(2, 0.3, (3, 2)), rng.normal(-2, 0.3, (3, 2))]
    T[:, 1] = rng.normal(0, 0.3, (m, 2))
    T[:, 2] = rng.normal(0, 0.1, (m, 2))
    y = np.r_[np.ones(3), -np.ones(3)]
    fig = plotting.plot_sdpm_trajectories(
        T, y, w=[1.0, 1.0], b=0.0, theta_star={0: 0.5, 4: -0.2}, path=tmp_path / "sdpm.png"
    )
    _check_png(tmp_path / "sdpm.png")
    ax = fig.axes[0]
    stars = [c for c in ax.collections if len(c.get_offsets()) == 2]
    assert stars, "the two virtual support vectors are drawn"
    assert len(ax.get_lines()) >= 2 * m + 1
    with pytest.raises(DataError, match="trajectories"):
        plotting.plot_sdpm_trajectories(np.ones((2, 3, 3)), [1, -1], w=[1, 1])


def test_gallery_example_writes_every_png(tmp_path):
    """`examples/reproductions/plot_gallery.py --quick` fits each model and saves one PNG per plot."""
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "examples" / "reproductions" / "plot_gallery.py"
    run = subprocess.run(
        [sys.executable, str(script), "--quick", "--out", str(tmp_path)], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr
    names = ["decision_boundary", "kernel_weights", "filter_factors", "sensitivity", "sdpm_trajectories"]
    for name in names:
        _check_png(tmp_path / f"{name}.png")
