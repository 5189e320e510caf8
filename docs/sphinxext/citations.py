"""Every citation of the five papers ("002 eq. (3.8)", "000 §6.2", "(004)") links to the references page.

The docstrings and pages cite the papers by their number in the references list
(``docs/references.md``), followed by where in the paper. :func:`link_citations` runs on each
resolved page (``doctree-resolved``, so it sees docstrings, Markdown pages and gallery pages
alike) and turns each citation in running text into a link to the paper's entry
(``references.html#paper-002``), titled with the paper; code, literals, math, titles and
existing links are left alone.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes

__all__ = ["PAPERS", "CITATION", "link_citations", "setup"]

#: Number -> short description (the link's title); the full entries are in docs/references.md.
PAPERS = {
    "000": "Walder & Chapelle 2007, Learning with Transformation Invariant Kernels",
    "001": "Haasdonk 2003, Feature Space Interpretation of SVMs with non Positive Definite Kernels",
    "002": "Ong 2005, Kernels: Regularization and Optimization (PhD thesis)",
    "003": "Graepel & Herbrich 2003, Invariant Pattern Recognition by Semidefinite Programming Machines",
    "004": "Chi, Support Vector Machines in the Primal (slides after Chapelle 2007)",
}

_LOCATOR = (
    r"eqs?\.|§|Ch\.|Chapters?|Sections?|Sec\.|Tables?|Figures?|Figs?\.|Algorithm|Appendix|App\.|"
    r"Propositions?|Prop\.|Corollary|Cor\.|Definition|Theorem|Lemma|Example"
)
#: A paper number not part of a larger number ("10 000", "0.002"), optionally with its locator:
#: "002 eq. (3.8)", "002 eqs. 3.9-3.12", "000 §6.2", "003 Figure 2b", "001 Prop. 1".
_ITEM = r"(?:\((?:[\dA-Z](?:[\w.]*\w)?)\)|[\dA-Z](?:[\w.]*\w)?)"
CITATION = re.compile(
    r"(?<![\w.,/\\-])(?<!\d )(?P<paper>00[0-4])(?!\w|\.\d|[ \u202f]\d)"
    rf"(?P<where>[ \u00a0](?:{_LOCATOR})[ \u00a0]?{_ITEM}(?:[-–]{_ITEM})?)?"
)

#: Nodes whose text is never linked.
_SKIP = (
    nodes.literal, nodes.literal_block, nodes.math, nodes.math_block, nodes.reference, nodes.title,
    nodes.raw, nodes.target, nodes.doctest_block, nodes.option_string,  # (autosummary tables are comments)
)  # fmt: skip


def _inside(node: nodes.Node, kinds: tuple[type, ...]) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, kinds):
            return True
        # a signature line (desc_signature and its parts) is code too
        if type(parent).__name__.startswith(("desc_signature", "desc_name", "desc_addname", "pending_xref")):
            return True
        parent = parent.parent
    return False


def link_citations(doctree: nodes.document, refuri: str) -> int:
    """Link every citation in ``doctree`` to ``refuri#paper-NNN``; return how many were linked."""
    count = 0
    for text in list(doctree.findall(nodes.Text)):
        if _inside(text, _SKIP):
            continue
        value = str(text)
        matches = list(CITATION.finditer(value))
        if not matches:
            continue
        pieces: list[nodes.Node] = []
        pos = 0
        for m in matches:
            if m.start() > pos:
                pieces.append(nodes.Text(value[pos : m.start()]))
            paper = m.group("paper")
            ref = nodes.reference(
                "", m.group(0), refuri=f"{refuri}#paper-{paper}", reftitle=PAPERS[paper], classes=["sdpkern-cite"]
            )
            pieces.append(ref)
            pos = m.end()
            count += 1
        if pos < len(value):
            pieces.append(nodes.Text(value[pos:]))
        text.parent.replace(text, pieces)
    return count


def _on_doctree_resolved(app: Any, doctree: nodes.document, docname: str) -> None:
    if docname == "references" or app.builder.format != "html":
        return
    link_citations(doctree, app.builder.get_relative_uri(docname, "references"))


def setup(app: Any) -> dict[str, Any]:
    app.connect("doctree-resolved", _on_doctree_resolved)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
