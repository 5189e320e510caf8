"""Regenerate the instance library: build each instance, solve with Clarabel and SCS, write TOML.

    .venv/bin/python problems/_generate.py            # all
    .venv/bin/python problems/_generate.py NAME ...   # some

The TOML files are written to ``sdpkern/apps/problems/`` (package data, so that an installed
wheel has them; see problems/README.md).

References are measured here, never typed: ``objective`` is Clarabel's optimum, ``scs`` the
SCS one (eps 1e-7), ``rel_diff`` their relative difference |a − b| / max(1, |a|).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from sdpkern.apps.instances import build, rel_diff  # noqa: E402
from sdpkern.errors import SolverError  # noqa: E402

#: Where the instances live: inside the package, so the wheel ships them.
LIBRARY = HERE.parent / "sdpkern" / "apps" / "problems"

BC = {"source": "sklearn:breast_cancer"}
HK = {"C": 10.0, "lambda_Q": 1.0, "eta": 1e-4}


def traj(size: int, degree: int, seed: int, **kw: Any) -> dict[str, Any]:
    return {"source": "synthetic:trajectories", "seed": seed, "size": size, "degree": degree, "n_features": 3, **kw}


# name -> (description, formulation, form, data, parameters, slow)
SPECS: dict[str, tuple[str, str, str | None, dict[str, Any], dict[str, Any], bool]] = {}
for m in (10, 20, 30):
    for form in ("sdp", "socp"):
        SPECS[f"hk_csvm_{form}_m{m}"] = (
            f"hyperkernel C-SVM (002 eq. 3.8), {form.upper()} form, {m} breast-cancer points",
            "hyperkernel.csvm",
            form,
            {**BC, "seed": m, "size": m},
            HK,
            False,
        )
SPECS["hk_csvm_socp_m150"] = (
    "hyperkernel C-SVM, SOCP form, 150 breast-cancer points (benchmark scale)",
    "hyperkernel.csvm",
    "socp",
    {**BC, "seed": 150, "size": 150},
    HK,
    True,
)
SPECS["sdpm_deg0"] = (
    "SDPM (003 eq. 6), degree 0 (a QP), whole line",
    "sdpm",
    "auto",
    traj(16, 0, 0),
    {"C": 1.0},
    False,
)
SPECS["sdpm_deg2"] = (
    "SDPM, degree 2 (SOCP), whole line",
    "sdpm",
    "auto",
    traj(16, 2, 1, curvature=1.0),
    {"C": 1.0},
    False,
)
SPECS["sdpm_deg2_sdp"] = (
    "SDPM, degree 2 as 2x2 LMIs, whole line",
    "sdpm",
    "sdp",
    traj(16, 2, 1, curvature=1.0),
    {"C": 1.0},
    False,
)
SPECS["sdpm_deg2_segment"] = (
    "SDPM, degree 2, segment [-1, 1] (003 Cor. 1)",
    "sdpm",
    "auto",
    traj(16, 2, 2),
    {"C": 1.0, "segment": 1.0},
    False,
)
SPECS["sdpm_deg4"] = (
    "SDPM, degree 4 (SDP), whole line",
    "sdpm",
    "auto",
    traj(16, 4, 3, curvature=1.0),
    {"C": 1.0},
    False,
)
SPECS["sdpm_deg4_segment"] = (
    "SDPM, degree 4 (SDP), segment [-1, 1]",
    "sdpm",
    "auto",
    traj(16, 4, 4),
    {"C": 1.0, "segment": 1.0},
    False,
)
SPECS["sdpm_hard_infeasible"] = (
    "SDPM, degree 2, hard margin on overlapping classes: infeasible (for exit-code tests)",
    "sdpm",
    "auto",
    traj(16, 2, 5, separation=0.0, noise=1.0),
    {},
    False,
)
CPD_DATA = {**BC, "seed": 7, "size": 30, "standardize": True, "columns": [1, 4, 8, 9]}
for name in ("squared_hinge", "squared_hinge_beta_zero", "hinge_dual", "hinge_primal"):
    SPECS[f"cpd_{name}"] = (
        f"c.p.d. SVM (000 sec. 6), {name.replace('_', ' ')}, r^2 log r kernel, 30 standardised points, 4 weak features",
        f"cpd.{name}",
        None,
        CPD_DATA,
        {"lam": 0.1, "kernel": {"name": "thin_plate", "order": 2, "formula_dimension": 2}},
        False,
    )


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(x)}" for k, x in v.items()) + " }"
    return str(v)


def _table(name: str, d: dict[str, Any]) -> list[str]:
    return [f"\n[{name}]"] + [f"{k} = {_toml_value(v)}" for k, v in d.items()]


def _measure(meta: dict[str, Any], backend: str) -> tuple[str, float | None, float]:
    problem = build(meta)
    t0 = time.perf_counter()
    try:
        sol = problem.solve(backend)
    except SolverError as exc:
        return exc.status, None, time.perf_counter() - t0
    return sol.status, sol.objective, time.perf_counter() - t0


def generate(name: str) -> str:
    desc, formulation, form, data, params, slow = SPECS[name]
    meta: dict[str, Any] = {"name": name, "formulation": formulation, "form": form, "data": data, "parameters": params}
    problem = build(meta)
    n_var = int(sum(v.size for v in problem.cvxpy.variables()))
    cd = problem.compiled_data()
    st_c, obj_c, t_c = _measure(meta, "clarabel")
    st_s, obj_s, t_s = _measure(meta, "scs")
    lines = [
        f"# generated by problems/_generate.py on {time.strftime('%Y-%m-%d')}; do not edit by hand",
        f"name = {_toml_value(name)}",
        f"description = {_toml_value(desc)}",
        f"formulation = {_toml_value(formulation)}",
    ]
    if form is not None:
        lines.append(f"form = {_toml_value(form)}")
    lines.append(f"slow = {_toml_value(slow)}")
    lines += _table("data", data)
    lines += _table("parameters", params)
    lines += _table(
        "size",
        {
            "variables": n_var,
            "rows": int(cd["A"].shape[0]),
            "columns": int(cd["A"].shape[1]),
            "nonzeros": int(cd["A"].nnz),
            "psd_cones": len(cd["dims"].psd),
            "soc_cones": len(cd["dims"].soc),
        },
    )
    ref: dict[str, Any] = {"status": st_c}
    if st_c != st_s:
        raise RuntimeError(f"{name}: Clarabel says {st_c}, SCS says {st_s}")
    if obj_c is not None and obj_s is not None:
        rd = rel_diff(obj_s, obj_c)
        tol = float(f"{max(1e-5, 10.0 * rd):.1e}")
        ref.update(objective=obj_c, clarabel=obj_c, scs=obj_s, rel_diff=float(f"{rd:.3e}"), tolerance=tol)
    ref.update(clarabel_time=round(t_c, 3), scs_time=round(t_s, 3))
    lines += _table("reference", ref)
    text = "\n".join(lines) + "\n"
    (LIBRARY / f"{name}.toml").write_text(text, encoding="utf-8")
    print(f"{name:<28} {st_c:<11} clarabel={obj_c!s:<22} scs={obj_s!s:<22} t=({t_c:.2f}s, {t_s:.2f}s)", flush=True)
    return text


if __name__ == "__main__":
    for n in sys.argv[1:] or list(SPECS):
        generate(n)
