"""
Learning the kernel with a hyperkernel: widths, features and the boundary on banana
===================================================================================

A Gaussian SVM needs a width, and it weighs every feature alike.
:class:`~sdpkern.estimators.HyperkernelSVC` learns the kernel instead: the kernel is sought in a
hyper-reproducing kernel Hilbert space and, by a representer theorem, it is a non-negative
combination k = Σ_l β_l k_l of the terms of a hyperkernel (002 eqs. 2.15 and 2.23), learned with
the SVM by one convex program (002 eq. 3.8).

The default hyperkernel is :class:`~sdpkern.kernels.ARDDictionary`: harmonic ARD kernels
(002 eq. 2.21) over a ladder of widths c·σ_d, c = 1, 1/4, …, 1/4⁵, for every feature and, when an
HSIC independence screen finds features the labels depend on, for those features alone. Each term
is scaled to unit centred trace on the training points, so that no width wins by its scale
alone. The learned β is then readable: ``kernel_weights_`` (relevance vector × width),
``width_weights_`` and ``feature_relevance_``.

This example fits it on the two-dimensional banana data, shows the widths it chose and its
decision boundary beside a Gaussian SVM tuned by grid search, and then appends features of pure
noise to the thyroid data to see which features the learned kernel keeps.
"""

# %%
# Banana: 300 training points, 1000 test points.
import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from sdpkern.apps.plotting import plot_decision_boundary
from sdpkern.datasets import load_keel
from sdpkern.estimators import HyperkernelSVC

ds = load_keel("banana")
idx = np.random.default_rng(0).permutation(ds.y.shape[0])
X, y = ds.X[idx[:300]], ds.y[idx[:300]]
X_test, y_test = ds.X[idx[300:1300]], ds.y[idx[300:1300]]

# %%
# Fit the hyperkernel SVM with its defaults (C = 1, λ_Q chosen from the loss's scale) and a
# Gaussian SVC tuned by a 5-fold grid over C and γ.
t0 = time.process_time()
clf = HyperkernelSVC().fit(X, y)
t_hk = time.process_time() - t0
t0 = time.process_time()
grid = {"C": [1, 10, 100], "gamma": [0.1, 0.3, 1, 3, 10]}
svc = GridSearchCV(SVC(), grid, cv=5).fit(X, y).best_estimator_
t_svc = time.process_time() - t0
print(f"HyperkernelSVC: test error {1 - clf.score(X_test, y_test):.3f}, status {clf.status_} ({t_hk:.1f} s CPU)")
svc_error = 1 - svc.score(X_test, y_test)
print(f"SVC, tuned γ = {svc.gamma:g}, C = {svc.C:g}: test error {svc_error:.3f} ({t_svc:.1f} s CPU)")

# %%
# What was learned: β over the dictionary's terms, one row per relevance vector and one column
# per width. The first vector weighs every feature; the second holds the features the screen
# selected (here x₂ alone, see below). β keeps two narrow widths of the first vector.
scales = clf.hyperkernel_.scale_array()
labels = ["σ" if c == 1 else f"σ/{round(1 / c)}" for c in scales]
print("relevance vectors:", clf.relevances_.tolist())
print("kernel_weights_ (relevance vector × width):")
print(np.array2string(clf.kernel_weights_, precision=3, suppress_small=True))
print("width_weights_:", ", ".join(f"{label} {w:.3f}" for label, w in zip(labels, clf.width_weights_)))

# %%
# Which features? On banana both features matter, and only together: x₁ alone hardly tells the
# classes apart, so a per-feature screen keeps x₂ alone, and β puts no weight on that vector. To
# see the relevances at work, take the thyroid data (5 features, 3 classes, one-vs-rest) and
# append ten standard-normal noise features. The HSIC screen
# (:func:`~sdpkern.kernels.relevance.hsic_screen`) tests each feature's dependence with the
# labels; the features it keeps form a second relevance vector, and β decides how much of the
# kernel uses it. ``feature_relevance_`` is the learned kernel's weight on each feature.
thy = load_keel("thyroid")
Xa, Xb, ya, yb = train_test_split(thy.X, thy.y, train_size=0.6, random_state=0, stratify=thy.y)
rng = np.random.default_rng(1)
Xa = np.hstack([Xa, rng.standard_normal((ya.shape[0], 10))])
Xb = np.hstack([Xb, rng.standard_normal((yb.shape[0], 10))])
scaler = StandardScaler().fit(Xa)
Xa, Xb = scaler.transform(Xa), scaler.transform(Xb)
noisy = HyperkernelSVC().fit(Xa, ya)
svc_noisy = GridSearchCV(SVC(), {"C": [1, 10, 100], "gamma": [0.01, 0.03, 0.1, 0.3]}, cv=5).fit(Xa, ya)
print(f"thyroid + 10 noise features: HyperkernelSVC test error {1 - noisy.score(Xb, yb):.3f}, "
      f"tuned SVC {1 - svc_noisy.score(Xb, yb):.3f}")  # fmt: skip
print("feature_relevance_:", noisy.feature_relevance_.round(3))

# %%
# Left: the learned weights over the width ladder; a mixture of widths is a sharp peak on a
# broad base, a shape no single Gaussian width has. Middle: the decision boundary. Right: the
# learned relevance of thyroid's five features and of the ten noise features.
fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))
axes[0].bar(labels, clf.width_weights_, color="C0")
axes[0].set_ylabel("β summed over relevance vectors")
axes[0].set_xlabel("ladder width")
axes[0].set_title("learned weights over the width ladder")
error = 1 - clf.score(X_test, y_test)
plot_decision_boundary(clf, X, y, ax=axes[1], title=f"HyperkernelSVC: test error {error:.3f}")
names = [f"x{i + 1}" for i in range(5)] + [f"n{i + 1}" for i in range(10)]
axes[2].bar(names, noisy.feature_relevance_, color=["C2"] * 5 + ["C7"] * 10)
axes[2].set_ylabel("feature_relevance_")
axes[2].tick_params(axis="x", labelsize="small")
axes[2].set_title("thyroid + 10 noise features")
plt.show()
