"""
Learning the kernel with a hyperkernel: widths and the boundary on banana
=========================================================================

A Gaussian SVM needs a width. :class:`~sdpkern.estimators.HyperkernelSVC` learns the kernel
instead: the kernel is sought in a hyper-reproducing kernel Hilbert space, and by a representer
theorem it is a non-negative combination k(x, x') = Σ_l β_l k̲((x_i, x_j)_l, (x, x')) of basis
kernels given by a hyperkernel k̲ on pairs of training points (002 eq. 2.15), learned with the
SVM by one convex program (002 eq. 3.8). Its default hyperkernel is the mean of ARD harmonic
hyperkernels (002 eq. 2.22) over a ladder of widths c·σ_d, c = 1, 1/4, …, 1/4⁵, where σ_d is
the thesis' width rule, so every basis kernel mixes wide and narrow components. This example
fits it on the two-dimensional banana data, draws the learned kernel split into the ladder's
widths, and its decision boundary beside a Gaussian SVM whose width was tuned by grid search.
"""

# %%
# Banana: 300 training points, 1000 test points.
import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import GridSearchCV
from sklearn.svm import SVC

from sdpkern.apps.plotting import plot_decision_boundary
from sdpkern.datasets import load_keel
from sdpkern.estimators import HyperkernelSVC
from sdpkern.kernels import HarmonicARD

ds = load_keel("banana")
idx = np.random.default_rng(0).permutation(ds.y.shape[0])
X, y = ds.X[idx[:300]], ds.y[idx[:300]]
X_test, y_test = ds.X[idx[300:1300]], ds.y[idx[300:1300]]

# %%
# Fit the hyperkernel SVM (defaults: the width ladder, C = 1) and a tuned Gaussian SVC.
t0 = time.perf_counter()
clf = HyperkernelSVC().fit(X, y)
t_hk = time.perf_counter() - t0
t0 = time.perf_counter()
svc = GridSearchCV(SVC(), {"C": [1, 10, 100], "gamma": [0.1, 0.3, 1, 3, 10]}, cv=5).fit(X, y).best_estimator_
t_svc = time.perf_counter() - t0
print(
    f"HyperkernelSVC: test error {1 - clf.score(X_test, y_test):.3f}, {clf.n_terms_} basis kernels, "
    f"status {clf.status_} ({t_hk:.1f} s)"
)
print(f"SVC, tuned γ = {svc.gamma:g}, C = {svc.C:g}: test error {1 - svc.score(X_test, y_test):.3f} ({t_svc:.1f} s)")


# %%
# The learned kernel, split into the ladder's widths. The ladder hyperkernel is the mean over
# the widths c_s of one ARD harmonic hyperkernel each, so the learned kernel is the mean of its
# parts k_s(x, x') = Σ_l β_l k̲_s((x_i, x_j)_l, (x, x')), one per width; the functions below
# compute them from the fitted ``beta_`` and ``basis_``. The learned kernel depends on x − x'
# only, so it is drawn along each input dimension. A part's weight is its height at distance 0
# above the constant Π_d(1 − λ_h) every part tends to far away.


def ladder_parts(fitted: HyperkernelSVC, offsets: np.ndarray, dim: int) -> np.ndarray:
    """k_s(x, x + r·e_dim) for r in ``offsets``, one row per ladder width (from beta_ and basis_)."""
    hk, basis = fitted.hyperkernel_, fitted.basis_
    origin = np.zeros((1, basis.X.shape[1]))
    moved = np.zeros((offsets.size, basis.X.shape[1]))
    moved[:, dim] = offsets
    rows = []
    for c in hk.scale_array():
        one_width = HarmonicARD(lambda_h=hk.lambda_h, widths=hk.widths, scales=(c,))
        rows.append(one_width.learned_kernel(basis.features, fitted.beta_, origin, moved)[0])
    return np.array(rows)


def ladder_weights(fitted: HyperkernelSVC) -> np.ndarray:
    """Each ladder width's share of the learned kernel's height at distance 0 (from beta_ and basis_)."""
    hk = fitted.hyperkernel_
    floor = (1.0 - hk.lambda_h) ** fitted.basis_.X.shape[1]
    height = ladder_parts(fitted, np.zeros(1), 0)[:, 0] - floor
    return height / height.sum()


weights = ladder_weights(clf)
scales = clf.hyperkernel_.scale_array()
labels = ["σ" if c == 1 else f"σ/{round(1 / c)}" for c in scales]
nonzero = np.flatnonzero(clf.beta_ > 1e-6)
print(
    "basis terms with weight:",
    [tuple(int(i) for i in clf.basis_.pairs[k]) for k in nonzero],
    "β =",
    clf.beta_[nonzero].round(3),
)
print("share of each ladder width:", ", ".join(f"{label} {w:.3f}" for label, w in zip(labels, weights)))

# %%
# Here β puts its weight on a diagonal pair (x_i, x_i), whose basis kernel holds every width of
# the ladder at full height: the learned kernel is a mixture of all six widths, a sharp peak on
# a broad base, and no single Gaussian width has that shape. Left: the widths' shares. Middle:
# the learned kernel along x₁ (black) and its parts (each divided by the number of widths, so
# that they sum to it). Right: the decision boundary.
fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))
axes[0].bar(labels, weights, color="C0")
axes[0].set_ylabel("share of the learned kernel")
axes[0].set_xlabel("ladder width")
axes[0].set_title("learned weights over the width ladder")
r = np.linspace(0.0, 3.0, 200)
parts = ladder_parts(clf, r, 0)
for label, part in zip(labels, parts):
    axes[1].plot(r, part / len(parts), lw=1, label=label)
axes[1].plot(r, parts.mean(axis=0), color="k", lw=2, label="learned kernel")
axes[1].plot(r, np.exp(-svc.gamma * r**2), color="C3", ls="--", lw=1.5, label=f"tuned Gaussian, γ = {svc.gamma:g}")
axes[1].set_xlabel("distance along $x_1$")
axes[1].set_title("the learned kernel and its widths")
axes[1].legend(fontsize="x-small")
plot_decision_boundary(clf, X, y, ax=axes[2], title=f"HyperkernelSVC: test error {1 - clf.score(X_test, y_test):.3f}")
plt.show()
