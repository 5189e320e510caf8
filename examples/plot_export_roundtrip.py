"""
A problem's life: build, inspect, solve, export, solve elsewhere, read back
===========================================================================

Every sdpkern estimator solves a convex program, and every such program is also an object you
can hold: a :class:`~sdpkern.problem.KernelProblem`. This example follows one, the hyperkernel
C-SVM as a semidefinite program (002 eq. 3.8), from the builder to an external SDP solver and
back, checking at each step that the optimum is the same.
"""

# %%
# Build it. A builder is a pure function of the data and the parameters; nothing is solved
# yet. In a notebook the problem displays as a table: its variables, its constraints by cone
# with their sizes, its parameters, the equation it implements, and the scale at which it is
# solved.
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from sdpkern import export
from sdpkern.builders.hyperkernel import csvm

X_all, y_all = load_breast_cancer(return_X_y=True)
X_all = StandardScaler().fit_transform(X_all)
X, y, X_new = X_all[:30], y_all[:30], X_all[300:400]
problem = csvm(X, y, C=10.0, form="sdp", eta=1e-4)
problem

# %%
# Solve it. ``solve()`` certifies the answer (the solver's residuals and gap against the
# tolerance asked) and recovers the model: the SVM's α and offset and the kernel weights β.
solution = problem.solve()
solution

# %%
# The CVXPY model underneath is an ordinary ``cvxpy.Problem``: solve it yourself with any
# solver. It is the formulation divided by ``objective_scale`` (so the solver sees an objective
# of order 1); ``problem.solution()`` reads your solve back in the formulation's units.
problem.cvxpy.solve(solver="SCS", eps_abs=1e-9, eps_rel=1e-9)
by_hand = problem.solution()
print(
    f"CVXPY reads {problem.cvxpy.value:.6f}; × objective_scale {problem.objective_scale:.6f} "
    f"= {by_hand.objective:.6f}; solve() said {solution.objective:.6f}"
)

# %%
# Export it for external SDP solvers (SDPA sparse, which CSDP and DSDP read), and solve the file
# with CSDP when it is installed (Debian's ``coinor-csdp``). The file states the objective in
# the formulation's units, so CSDP's optimum is directly comparable.
folder = Path(tempfile.mkdtemp())
written = problem.export(folder / "csvm.dat-s")
written

# %%
# Read the file back into CVXPY: the same optimum again, from the file alone.
rebuilt, _ = export.to_cvxpy(export.read(folder / "csvm.dat-s"))
from_file = rebuilt.solve(solver="CLARABEL")
routes = {"solve()": solution.objective, "CVXPY + SCS, read back": by_hand.objective}
routes["file → CVXPY"] = from_file
if export.solvers.available("csdp"):
    external = export.solve_external(problem, "csdp")
    routes["file → CSDP"] = external.objective
for name, value in routes.items():
    relative = abs(value - solution.objective) / abs(solution.objective)
    print(f"{name:<24} {value:.8f}   relative difference {relative:.1e}")

# %%
# Left: how far each route's optimum is from ``solve()``'s, relative (Clarabel and SCS were
# asked for 1e-8 and 1e-9; CSDP stops at its own default tolerances). Right: the model read back from the hand solve
# predicts what ``solve()``'s model predicts, on 100 points neither saw.
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
names = [n for n in routes if n != "solve()"]
diffs = [max(abs(routes[n] - solution.objective) / abs(solution.objective), 1e-16) for n in names]
left.barh(names, diffs, color="C0")
left.set_xscale("log")
left.set_xlabel("relative difference from solve()'s optimum")
left.set_title(f"one optimum, {len(routes)} routes")
f_solve, f_hand = solution.decision_function(X_new), by_hand.decision_function(X_new)
right.scatter(f_solve, f_hand, s=12)
lim = [min(f_solve.min(), f_hand.min()), max(f_solve.max(), f_hand.max())]
right.plot(lim, lim, color="k", lw=0.8)
right.set_xlabel("decision value, solve()")
right.set_ylabel("decision value, hand solve read back")
right.set_title(f"largest difference {np.abs(f_solve - f_hand).max():.1e}")
fig.tight_layout()
plt.show()
