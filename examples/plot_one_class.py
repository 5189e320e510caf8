"""
One-class SVM with a learned kernel: novelty detection
======================================================

A one-class SVM estimates a region that holds most of the data: f(x) ≥ 0 inside, with ν an
upper bound on the fraction of training points left outside (002 eq. 3.11, the thesis'
novelty detection of §3.2.5). The kernel's width decides the shape of that region: too wide and
it is a blob, too narrow and it is a set of islands around the training points.
:class:`~sdpkern.estimators.HyperkernelOneClassSVM` learns the kernel with the SVM. Here the
data are two clusters of different spreads; the contours of its decision function are drawn
beside scikit-learn's ``OneClassSVM`` at two widths.
"""

# %%
# Two clusters, one tight and one spread out, and a few test points far from both.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.svm import OneClassSVM

from sdpkern.estimators import HyperkernelOneClassSVM

rng = np.random.default_rng(1)
X = np.r_[rng.normal([-2.0, 0.0], 0.35, (60, 2)), rng.normal([1.5, 1.0], 1.0, (60, 2))]
novel = rng.uniform(-5.0, 5.0, (200, 2))
novel = novel[np.min(np.linalg.norm(novel[:, None] - np.array([[-2.0, 0.0], [1.5, 1.0]]), axis=2), axis=1) > 3.5]

# %%
# The learned-kernel detector and two fixed-width ones, all with ν = 0.1. The hyperkernel's own
# regulariser λ_Q (002 §3.1.2) is set below its default 1, so that the kernel weights β can
# follow the two clusters' different scales (at λ_Q = 1 the learned region is one smooth oval,
# much like the wide Gaussian's).
detectors = {
    "HyperkernelOneClassSVM (learned kernel)": HyperkernelOneClassSVM(nu=0.1, width_scales="ladder", lambda_Q=0.01).fit(
        X
    ),
    "OneClassSVM, γ = 0.1 (wide)": OneClassSVM(nu=0.1, gamma=0.1).fit(X),
    "OneClassSVM, γ = 5 (narrow)": OneClassSVM(nu=0.1, gamma=5.0).fit(X),
}
for name, det in detectors.items():
    outside = np.mean(det.predict(X) == -1)
    caught = np.mean(det.predict(novel) == -1)
    print(f"{name:<40} training points outside: {outside:.2f} (ν = 0.1)   far points flagged: {caught:.2f}")

# %%
# The decision functions' contours: the zero level (black) is the estimated support of the data.
gx, gy = np.meshgrid(np.linspace(-5, 5, 150), np.linspace(-5, 5, 150))
grid = np.column_stack([gx.ravel(), gy.ravel()])
fig, axes = plt.subplots(1, 3, figsize=(14, 4.6), sharex=True, sharey=True)
for ax, (name, det) in zip(axes, detectors.items()):
    Z = det.decision_function(grid).reshape(gx.shape)
    ax.contourf(gx, gy, Z, levels=15, cmap="Blues_r")
    ax.contour(gx, gy, Z, levels=[0.0], colors="k", linewidths=1.5)
    ax.scatter(X[:, 0], X[:, 1], s=10, color="w", edgecolors="k", linewidths=0.5, label="training")
    ax.scatter(novel[:, 0], novel[:, 1], s=12, color="C3", marker="x", label="far points")
    ax.set_title(name, fontsize="medium")
axes[0].legend(loc="lower left", fontsize="small")
fig.tight_layout()
plt.show()

# %%
# The learned kernel is a weighted sum of the basis kernels, with weights β found by the same
# convex program (non-negative and summing to one): the fitted detector keeps a few of them.
learned = detectors["HyperkernelOneClassSVM (learned kernel)"]
print(
    f"basis kernels: {learned.beta_.size}, with weight > 1e-6: {int(np.sum(learned.beta_ > 1e-6))}, "
    f"status {learned.status_}"
)
