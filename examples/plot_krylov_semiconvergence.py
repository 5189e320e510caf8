"""
Krylov methods regularise by stopping early: semi-convergence
=============================================================

Kernel regression without a ridge solves K α = y, which on noisy y fits the noise. Run a Krylov
method (CG, MR-II, CGNE) on it instead and stop after k iterations: the early iterates fit the
smooth part of y, the late ones the noise. The test error first falls, then rises again, the
*semi-convergence* of 002 Ch. 5; the iteration count is the regulariser. Each iterate is a
filtered solution x_k = Σ_i φ_k(λ_i) ⟨y, u_i⟩/λ_i u_i whose filter factors φ_k(λ) are near 1 on
the large eigenvalues and near 0 on the small ones, and k moves the cut (002 §5.3, Figures
5.3-5.10). This example draws both and compares two ways of choosing k: the discrepancy
principle (stop when ‖y − Kα‖ reaches the noise level) and cross-validation
(:class:`~sdpkern.estimators.KrylovRegressor`).
"""

# %%
# Noisy samples of a smooth function; a Gaussian kernel matrix on them.
import matplotlib.pyplot as plt
import numpy as np

from sdpkern.apps.plotting import plot_filter_factors
from sdpkern.estimators import KrylovRegressor
from sdpkern.kernels import Gaussian
from sdpkern.native import cgne, discrepancy_stop, mr_ii

rng = np.random.default_rng(0)
X = np.sort(rng.uniform(-3.0, 3.0, 150))[:, None]
X_test = np.linspace(-3.0, 3.0, 500)[:, None]
truth = lambda x: np.sin(2.0 * x) * np.exp(-0.1 * x**2)  # noqa: E731
sigma = 0.3
noise = rng.normal(0.0, sigma, X.shape[0])
y = truth(X[:, 0]) + noise
kernel = Gaussian(gamma=2.0)
K, K_test = kernel(X, X), kernel(X_test, X)

# %%
# Thirty iterations of MR-II and CGNE, every iterate kept, and the test error of each. (A Gaussian
# kernel matrix is numerically singular, condition number ~1e18 here: plain CG, made for
# positive definite systems, breaks down on it; the minimal-residual methods do not.)
iters = 30
solvers = (("MR-II", mr_ii), ("CGNE", cgne))
runs = {name: solver(K, y, max_iter=iters, rtol=1e-14, return_iterates=True) for name, solver in solvers}
rms = lambda x: float(np.sqrt(np.mean((K_test @ x - truth(X_test[:, 0])) ** 2)))  # noqa: E731
errors = {name: [rms(x) for x in res.iterates] for name, res in runs.items()}
best = {name: int(np.argmin(e)) for name, e in errors.items()}

# %%
# Two choices of k without the test set: the discrepancy principle with the noise's norm
# (‖y − Kα_k‖ ≤ 1.1·‖noise‖, Morozov), and 5-fold cross-validation.
stop = discrepancy_stop(K, y, noise_level=float(np.linalg.norm(noise)), method="mr_ii", tau=1.1)
reg = KrylovRegressor(kernel=kernel, method="mr_ii", max_iter=iters, cv=5).fit(X, y)
print(f"best k on the test set: MR-II {best['MR-II']}, CGNE {best['CGNE']}")
print(f"discrepancy principle (MR-II): k = {stop.iterations}; cross-validation (MR-II): k = {reg.n_iter_}")

# %%
# Left: semi-convergence, the test error against k. Right: the MR-II filter factors at a few k,
# against the eigenvalues of K (log scale): iteration by iteration the filter lets more of the
# small eigenvalues (the noisy directions) through.
fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
for name, e in errors.items():
    left.plot(range(len(e)), e, marker="o", ms=3, label=name)
left.axvline(stop.iterations, color="k", ls="--", lw=1, label=f"discrepancy principle (k = {stop.iterations})")
left.axvline(reg.n_iter_, color="C2", ls=":", lw=1.5, label=f"cross-validation (k = {reg.n_iter_})")
left.set_yscale("log")
left.set_xlabel("iteration k")
left.set_ylabel("RMS error against the true function")
left.set_title("semi-convergence")
left.legend(fontsize="small")
eigenvalues = np.linalg.eigvalsh(K)
plot_filter_factors(runs["MR-II"], eigenvalues, iterations=[1, 2, 4, 8, 16], ax=right, title="MR-II filter factors")
right.set_xscale("log")
right.set_xlim(1e-4 * eigenvalues.max(), 1.5 * eigenvalues.max())
right.set_ylim(-0.5, 1.8)
plt.show()

# %%
# The fits themselves: the iterates the discrepancy principle and cross-validation pick, and the
# last one, which has begun to follow the noise.
fig, ax = plt.subplots(figsize=(9, 4))
ax.scatter(X, y, s=8, color="0.5", label="data")
ax.plot(X_test, truth(X_test[:, 0]), color="k", lw=1, label="true function")
ax.plot(X_test, K_test @ runs["MR-II"].iterates[stop.iterations], lw=2, label=f"MR-II, k = {stop.iterations}")
ax.plot(X_test, reg.predict(X_test), lw=2, ls="--", label=f"KrylovRegressor (cross-validated, k = {reg.n_iter_})")
ax.plot(X_test, K_test @ runs["MR-II"].iterates[-1], lw=1, label=f"MR-II, k = {iters}")
ax.legend(fontsize="small")
ax.set_xlabel("x")
fig.tight_layout()
plt.show()
