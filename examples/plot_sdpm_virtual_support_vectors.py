"""
SDP machines: separating whole trajectories, and their virtual support vectors
==============================================================================

An SVM separates points. If the classes are known to be invariant under a transformation (a
rotation of a digit, say), Graepel and Herbrich's semidefinite programming machine separates
the *trajectory* each point traces under it: the Taylor polynomial
x̃_i(θ) = x_i + θ·x_i' + θ²/2·x_i'' of the transformed example in the transformation's parameter θ
(003 eq. 2). The SDPM asks for a margin y_i f(x̃_i(θ)) ≥ 1 for every θ in a segment
[−τ, τ] (003 eq. 6 and Corollary 1); a non-negative polynomial is a PSD matrix (003
Proposition 1), so this is a semidefinite program. At the optimum each support trajectory
touches the margin at one θ_i*, and x̃_i(θ_i*) is a *truly virtual support vector*: a transformed
example that was never in the training set (003 Proposition 3).
"""

# %%
# Six points of two classes in the plane (three around each of two random centres), each with
# the trajectory of its rotation about the origin: x(θ) = R(θ)x ≈ x + θ·Jx + θ²/2·J²x, with J
# the generator of rotations.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.svm import SVC

from sdpkern.apps.plotting import plot_sdpm_trajectories
from sdpkern.builders.sdpm import sdpm, trajectory_margins

rng = np.random.default_rng(25)
centres = rng.uniform(-2.5, 2.5, (2, 2))
x = np.r_[rng.normal(centres[0], 0.25, (3, 2)), rng.normal(centres[1], 0.25, (3, 2))]
y = np.r_[np.ones(3), -np.ones(3)]
J = np.array([[0.0, -1.0], [1.0, 0.0]])
T = np.stack([x, x @ J.T, 0.5 * x @ (J @ J).T], axis=1)  # (m, r + 1, 2): the Taylor rows
tau = 0.6  # radians: the margin must hold for rotations in [-0.6, 0.6]

# %%
# The SDPM on the trajectories (003 eq. 6 on [−τ, τ]), beside a linear SVM on the points alone.
problem = sdpm(T, y, C=100.0, segment=tau)
solution = problem.solve()
w, b = solution.model.extras["w"], solution.offset or 0.0
support = [int(i) for i in solution.model.extras["support"]]
theta_star = {i: float(solution.model.extras["theta_star"][i]) for i in support}
svm = SVC(kernel="linear", C=100.0).fit(x, y)
print(solution.status, "objective", round(solution.objective, 4))
print("support trajectories:", support, "at θ* =", {i: round(t, 3) for i, t in theta_star.items()})

# %%
# Left: the trajectories over [−τ, τ], the SDPM's boundary and its virtual support vectors (the
# stars), with the SVM's boundary dashed: the SVM separates the points but cuts through the
# rotated versions of some of them. Right: the margins y_i f(x̃_i(θ)) along each trajectory: the
# SDPM's stay ≥ 1 on the whole segment and touch 1 at θ_i* for the support trajectories (at an
# end of the segment, or inside it where the margin polynomial has its minimum).
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
plot_sdpm_trajectories(T, y, w=w, b=b, theta_star=theta_star, theta_range=(-tau, tau), ax=left)
xs = np.linspace(*left.get_xlim(), 2)
left.plot(xs, -(svm.coef_[0, 0] * xs + svm.intercept_[0]) / svm.coef_[0, 1], "k--", lw=1, label="SVM on the points")
left.legend(loc="lower right", fontsize="small")
theta = np.linspace(-tau, tau, 200)
margins = trajectory_margins(T, y, w, b, theta)
svm_margins = trajectory_margins(T, y, svm.coef_[0], svm.intercept_[0], theta)
for i in range(len(y)):
    (line,) = right.plot(theta, margins[i], lw=2 if i in theta_star else 1)
    right.plot(theta, svm_margins[i], ls=":", color=line.get_color())
    if i in theta_star:
        right.plot(theta_star[i], 1.0, "*", ms=14, color=line.get_color())
right.axhline(1.0, color="k", lw=0.8)
right.set_xlabel("θ (radians)")
right.set_ylabel("margin y f(x(θ))")
right.set_title("SDPM margins (solid) and the SVM's (dotted)")
fig.tight_layout()
plt.show()

# %%
# The SDPM's smallest margin over the segment is 1 (to the solver's tolerance); the SVM's
# is what it is on the transformed points it never saw.
print(f"smallest SDPM margin on [-τ, τ]: {margins.min():.6f}; smallest SVM margin: {svm_margins.min():.3f}")
