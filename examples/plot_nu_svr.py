"""
ν-support vector regression with a learned kernel
=================================================

ν-SVR fits a function inside a tube of half-width ε around the data, paying only for the
points outside it; instead of fixing ε it fixes ν, an upper bound on the fraction of points
outside the tube and a lower bound on the fraction of support vectors, and learns ε (002 eq.
3.12). :class:`~sdpkern.estimators.HyperkernelNuSVR` also learns the kernel, from a hyperkernel
over Gaussian kernels of many widths (002 §3.1.2; ``width_scales="ladder"`` adds widths down to
4⁻⁵ of the thesis' one), so neither ε nor a width is chosen by hand.
Here it fits a noisy curve that bends sharply on the left and slowly on the right, beside
scikit-learn's ``NuSVR``, which learns ε the same way but with a Gaussian kernel of a fixed
width (its default ``gamma="scale"``).
"""

# %%
# Noisy samples of a chirp-like curve on [0, 4].
import matplotlib.pyplot as plt
import numpy as np
from sklearn.svm import NuSVR

from sdpkern.estimators import HyperkernelNuSVR

rng = np.random.default_rng(0)
X = np.sort(rng.uniform(0.0, 4.0, 80))[:, None]
truth = lambda x: np.sin(3.0 / (0.6 + x))  # noqa: E731
y = truth(X[:, 0]) + rng.normal(0.0, 0.08, X.shape[0])
grid = np.linspace(0.0, 4.0, 400)[:, None]

# %%
# Both regressors with ν = 0.3: at most 30 % of the points outside the tube.
learned = HyperkernelNuSVR(nu=0.3, C=10.0, width_scales="ladder").fit(X, y)
fixed = NuSVR(nu=0.3, C=10.0).fit(X, y)
coef = np.abs(learned.dual_coef_)
sv = learned.support_[coef > 1e-6 * coef.max()]  # the points with a nonzero coefficient
rmse = lambda model: float(np.sqrt(np.mean((model.predict(grid) - truth(grid[:, 0])) ** 2)))  # noqa: E731
print(
    f"HyperkernelNuSVR: ε = {learned.epsilon_:.3f}, {len(sv)} support vectors, "
    f"RMS distance to the true curve {rmse(learned):.3f} (status {learned.status_})"
)
print(
    f"NuSVR (Gaussian kernel, gamma='scale'): {len(fixed.support_)} support vectors, "
    f"RMS distance to the true curve {rmse(fixed):.3f}"
)

# %%
# The fits, the learned tube f ± ε, and the support vectors (circled): the points on or outside
# the tube. The fraction outside stays below ν, as 002 eq. (3.12) promises.
f = learned.predict(grid)
fig, ax = plt.subplots(figsize=(9, 4.5))
ax.plot(grid, truth(grid[:, 0]), color="0.6", lw=1, label="true curve")
ax.scatter(X, y, s=12, color="k", label="data")
ax.plot(grid, f, color="C0", lw=2, label="HyperkernelNuSVR")
eps = learned.epsilon_
ax.fill_between(grid[:, 0], f - eps, f + eps, color="C0", alpha=0.15, label="learned tube f ± ε")
ax.scatter(X[sv], y[sv], s=60, facecolors="none", edgecolors="C0", label="support vectors")
ax.plot(grid, fixed.predict(grid), color="C3", lw=1.2, ls="--", label="NuSVR, Gaussian kernel")
ax.set_xlabel("x")
ax.set_ylabel("y")
ax.legend(fontsize="small", ncol=2)
fig.tight_layout()
plt.show()

outside = np.abs(y - learned.predict(X)) > learned.epsilon_ + 1e-6
print(f"fraction of points outside the tube: {outside.mean():.2f} (ν = 0.3 bounds it)")
print(f"fraction of support vectors: {len(sv) / len(y):.2f} (ν = 0.3 bounds it from below)")
