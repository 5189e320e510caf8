"""
Probabilities from SVMs: calibration
====================================

An SVM's decision value f(x) is not a probability. Platt scaling turns it into one: a sigmoid
P(y = 1 | f) = 1 / (1 + exp(A f + B)) fitted to decision values that each training point gets
from a model fitted without it. scikit-learn's ``CalibratedClassifierCV`` with
``ensemble=False`` does exactly that (an internal 5-fold cross-validation, then the classifier
refitted on all the data); scikit-learn 1.9 recommends it in place of ``SVC(probability=True)``,
and it works on every sdpkern classifier. This example calibrates
:class:`~sdpkern.estimators.PrimalSVC` and :class:`~sdpkern.estimators.ThinPlateSVC` and checks
their probabilities on held-out data with a reliability diagram, beside scikit-learn's ``SVC``
calibrated the same way.
"""

# %%
# Pima diabetes: 400 training points, the other 368 for testing.
import matplotlib.pyplot as plt
import numpy as np
from sklearn.calibration import CalibratedClassifierCV, calibration_curve
from sklearn.metrics import brier_score_loss, log_loss
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from sdpkern.datasets import load_keel
from sdpkern.estimators import PrimalSVC, ThinPlateSVC

ds = load_keel("pima")
idx = np.random.default_rng(0).permutation(ds.y.shape[0])
scaler = StandardScaler().fit(ds.X[idx[:400]])
X, y = scaler.transform(ds.X[idx[:400]]), ds.y[idx[:400]]
X_test, y_test = scaler.transform(ds.X[idx[400:]]), ds.y[idx[400:]]

# %%
# Three classifiers, each wrapped the same way. The fitted sigmoid of a binary model is in
# ``calibrated_classifiers_[0].calibrators[0]`` (its ``a_`` and ``b_`` are Platt's A and B).
models = {
    "PrimalSVC (rbf)": PrimalSVC(C=1.0),
    "ThinPlateSVC": ThinPlateSVC(C=0.1),
    "SVC (rbf)": SVC(C=1.0),
}
proba = {}
for name, model in models.items():
    cal = CalibratedClassifierCV(model, method="sigmoid", cv=5, ensemble=False).fit(X, y)
    sigmoid = cal.calibrated_classifiers_[0].calibrators[0]
    proba[name] = cal.predict_proba(X_test)[:, 1]
    scores = f"log loss {log_loss(y_test, proba[name]):.3f}, Brier score {brier_score_loss(y_test, proba[name]):.3f}"
    print(f"{name:<16} A = {sigmoid.a_:+.3f}, B = {sigmoid.b_:+.3f}   {scores}")

# %%
# The reliability diagram: test points grouped by predicted probability, against the share of
# them that are positive. Calibrated probabilities lie on the diagonal.
fig, ax = plt.subplots(figsize=(5.5, 5))
ax.plot([0, 1], [0, 1], color="k", lw=0.8, ls=":")
for name, p in proba.items():
    frac, mean = calibration_curve(y_test, p, n_bins=8, strategy="quantile")
    ax.plot(mean, frac, marker="o", label=name)
ax.set_xlabel("predicted probability of diabetes")
ax.set_ylabel("fraction of test points with diabetes")
ax.set_title(f"reliability on {y_test.shape[0]} held-out points")
ax.legend(fontsize="small")
fig.tight_layout()
plt.show()
