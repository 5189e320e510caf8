"""Hyperkernel learning problems (002 §3.1.2, eqs. 3.8-3.13) as SDPs and as equivalent SOCPs.

One module per formulation: :mod:`.csvm` (3.8), :mod:`.nusvm` (3.9), :mod:`.l2svm` (3.10),
:mod:`.one_class` (3.11), :mod:`.nu_regression` (3.12), :mod:`.alignment` (3.13); the SOCP
forms' kernel cones and their shared factor in :mod:`.cones`, constraint generation over them
in :mod:`.generation`, the SDP forms' LMI pieces in ``_sdp`` and the pieces every formulation
uses in ``_common``. Every public name is importable from here. The derivations follow three
steps (written out in full, with the places where the thesis' text is garbled, in
``docs/hyperkernel_derivations.md``; the C-SVM's is in :mod:`.csvm`'s docstring):

1. Write the formulation as the saddle problem of 002 Appendix A.2,
   min_{β ≥ 0, 1ᵀβ = c} max_{α ∈ A}  q(α) − ½ αᵀ M(β) α + (reg. in β),
   with M(β) = Σ_l β_l M_l (+ a constant), A a polyhedron and the regulariser μ‖Lᵀβ‖
   (the thesis' replacement of the squared norm) or (λ_Q/2)‖Lᵀβ‖² for the alignment (3.13).
2. The SDP (form="sdp") is Corollary 15 applied to it: the Wolfe dual of the inner max,
   with ½ zᵀM(β)†z ≤ ½ t₁ as the LMI [[M(β), z], [zᵀ, t₁]] ⪰ 0.
3. The SOCP (form="socp"): the objective is convex in β on the compact simplex and concave
   in α, so min and max exchange (Sion). With μ‖Lᵀβ‖ = max_{‖u‖≤1} μ uᵀLᵀβ the inner
   problem min_{β ∈ cΔ} Σ_l β_l (μ(Lu)_l − ½ αᵀM_lα) equals c·min_l(·) = c·τ, giving one
   cone ½ αᵀM_lα ≤ μ(Lu)_l − τ per basis term; β comes back as the cones' multipliers (the
   stationarity condition in τ makes them sum to c). For the squared regulariser of (3.13)
   the conjugate (λ_Q/2)‖Lᵀβ‖² = max_u λ_Q uᵀLᵀβ − (λ_Q/2)‖u‖² replaces the ball.

DPP: CVXPY cannot divide by a parameter, so wherever the thesis divides by ν or λ the whole
objective is multiplied by that parameter (same minimisers; the objective reported is scaled,
as each docstring says) or the dual variables are rescaled. Every builder here is DPP.
"""

from __future__ import annotations

from ...errors import SingularKernelError
from ._common import ExpansionDecision, Form, HyperkernelData, make_basis
from .alignment import alignment
from .cones import ConeCheck, SharedFactor, cone_beta, shared_factor, socp_cones, term_index
from .csvm import csvm, csvm_active_set
from .generation import ActiveSetTrace, GenerationRoute, cone_generation, cone_violations
from .l2svm import l2svm
from .nu_regression import nu_regression
from .nusvm import nusvm
from .one_class import one_class

__all__ = [
    "csvm",
    "nusvm",
    "l2svm",
    "one_class",
    "nu_regression",
    "alignment",
    "csvm_active_set",
    "cone_generation",
    "cone_violations",
    "cone_beta",
    "ConeCheck",
    "ActiveSetTrace",
    "GenerationRoute",
    "HyperkernelData",
    "make_basis",
    "SharedFactor",
    "shared_factor",
    "socp_cones",
    "term_index",
    "ExpansionDecision",
    "Form",
    "SingularKernelError",
]
