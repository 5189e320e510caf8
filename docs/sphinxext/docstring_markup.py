"""Plain-text docstrings read as reStructuredText without surprises.

The docstrings are written for ``help()`` as much as for the site, in plain text with Unicode
formulas: ``|s|`` (a set's size), ``|xᵀPx|`` or ``dual_coef_`` mean what they say, but
reStructuredText reads the first two as substitution references and the last as a link to a
target named ``dual_coef`` (each an error under ``-W``). :func:`escape_plain_markup` escapes
exactly those constructs in running text, before numpydoc reads the docstring; literals
(````...````), interpreted text (```...```, ``:role:`...```), literal blocks, doctest lines,
directives and numpydoc's ``name : type`` lines are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["escape_plain_markup", "escape_line"]

#: Spans left as written: inline literals and interpreted text (with an optional role), which
#: reStructuredText does not scan for substitutions or references.
_PROTECTED = re.compile(r"(?::[\w:.+-]+:)?``.+?``|(?::[\w:.+-]+:)?`[^`]+`_{0,2}")

#: ``|text|`` as reStructuredText would start and end a substitution reference: the opening
#: bar after whitespace, an opening bracket or the line start and before a non-space; the closing
#: one after a non-space and before whitespace, punctuation or the line end.
_SUBSTITUTION = re.compile(r"(?<![^\s(\[{<'\"=+\-/:])\|(?=[^\s|])([^|\n]*?[^\s\\|])\|(?![\w|])")

#: ``name_`` (a reference to the target "name"): a word ending in one underscore, not followed by
#: another word character.
_REFERENCE = re.compile(r"(?<![\w\\])([A-Za-z][\w.+-]*?[A-Za-z0-9])_(?![\w`])")

#: numpydoc's entry lines ("name : type", "a, b : float") and section underlines.
_ENTRY = re.compile(r"^\s*\*{0,2}[A-Za-z_][\w*]*(\s*,\s*\*{0,2}[A-Za-z_][\w*]*)*\s*(:\s.*|:)?$")
_UNDERLINE = re.compile(r"^\s*([-=~^])\1{2,}\s*$")


def escape_line(line: str) -> str:
    """``line`` with its stray substitution and reference markup escaped (protected spans kept)."""
    out = []
    pos = 0
    for m in _PROTECTED.finditer(line):
        out.append(_escape_plain(line[pos : m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_escape_plain(line[pos:]))
    return "".join(out)


def _escape_plain(text: str) -> str:
    text = _SUBSTITUTION.sub(lambda m: "\\|" + m.group(1) + "\\|", text)
    return _REFERENCE.sub(lambda m: m.group(1) + "\\_", text)


def escape_plain_markup(lines: Iterable[str]) -> list[str]:
    """The docstring's lines with :func:`escape_line` applied to its running text only."""
    out: list[str] = []
    literal_indent: int | None = None  # inside a literal block (after "::") or a directive's body
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if literal_indent is not None:
            if not stripped or indent > literal_indent:
                out.append(line)
                continue
            literal_indent = None
        skip = (
            not stripped
            or stripped.startswith((">>>", "... ", "..", "|", "+-", "+="))
            or stripped == "..."
            or _UNDERLINE.match(line) is not None
            or _ENTRY.match(line) is not None
        )
        out.append(line if skip else escape_line(line))
        if stripped.endswith("::") or stripped.startswith(".. "):
            literal_indent = indent
    return out
