"""One-line API summaries that end where the sentence ends.

autosummary's summary is the docstring's first sentence, found by splitting at ". " and keeping
the first piece that parses; it knows four abbreviations ("e.g.", "i.e.", "vs.", "et al."), so
"002 eq. (3.8)" or "c.p.d. kernel" ended the summary at "eq." or "c.p.d.". :func:`first_sentence`
ends a sentence only at a full stop outside brackets, after a word that is not an abbreviation
of the papers' style (eq., Ch., Prop., ...), and before a capital, a digit or the end.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["ABBREVIATIONS", "first_sentence", "install"]

#: Words written with a full stop that ends no sentence (compared without case).
ABBREVIATIONS = frozenset(
    "eq eqs e.g i.e vs al cf ch chap sec secs fig figs no nos prop props cor thm def app resp approx "
    "c.p.d p.d s.t w.r.t r.k.h.s s.v.m etc incl ref refs".split()
)

_END = re.compile(r"\.(?=\s+[A-Z0-9(`*\"']|\s*$)")
_OPEN, _CLOSE = "([{", ")]}"


def _last_word(text: str) -> str:
    words = text.split()
    return words[-1].lstrip("(['\"`*").lower() if words else ""


def first_sentence(paragraph: str) -> str:
    """The first sentence of ``paragraph`` (all of it when no full stop ends one)."""
    depth = 0
    for i, ch in enumerate(paragraph):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
        elif ch == "." and depth == 0 and _END.match(paragraph, i):
            if _last_word(paragraph[:i]) in ABBREVIATIONS:
                continue
            before = paragraph[:i]
            if before.count("``") % 2 or before.replace("``", "").count("`") % 2:
                continue  # inside a literal or interpreted text
            return paragraph[: i + 1]
    return paragraph


def _summary(doc: Sequence[str], settings: Any, original: Callable[[Sequence[str], Any], str]) -> str:
    stanza: list[str] = []
    for line in doc:
        if not line.strip():
            if stanza:
                break
            continue
        stanza.append(line.strip())
    if not stanza or stanza[0].startswith((".. ", ":")) or len(stanza) > 1 and re.fullmatch(r"[=\-~^]+", stanza[1]):
        return original(doc, settings)  # a heading, a directive or a field list: autosummary's rule
    return first_sentence(" ".join(stanza)).rstrip(":") if stanza else ""


def install() -> None:
    """Make autosummary use :func:`first_sentence` (it looks ``extract_summary`` up at each call)."""
    from sphinx.ext import autosummary

    original = getattr(autosummary.extract_summary, "__wrapped_original__", autosummary.extract_summary)

    def extract_summary(doc: Sequence[str], settings: Any) -> str:
        return _summary(doc, settings, original)

    extract_summary.__wrapped_original__ = original  # type: ignore[attr-defined]
    autosummary.extract_summary = extract_summary
