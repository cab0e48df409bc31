"""Sentences with a hole: what a filled template shows when a value it counted on
is missing from a log ("The request carried .", "answered  with 401", a period
after a quoted message that had its own, a ``{name}`` left standing).

``osdoctor kb lint`` fills every rule on every log it fires on and asks this
module what reads wrong. Only what the template made counts: a log's own words
(a fault message with two spaces in it, a brace in a JSON body) are quoted as
they are, so a pattern that lies wholly inside one value is not a hole.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from osdoctor.facts.template_values import CLAUSES
from osdoctor.kb.text_placeholders import Filled

#: What reads wrong, and how to say it.
_PATTERNS = [
    (re.compile(r"(?<!\.)\.\.(?!\.)"), "'..'"),
    (re.compile(r"\s[.,;](?![.\w/])"), "a space before a period or comma"),
    (re.compile(r"\{\w+(?:\|[^{}]*)?\}"), "a placeholder left unfilled"),
]
#: Doubled spaces, except those that set a comment apart in a next step (``   # why``).
_DOUBLED = re.compile(r"(?<=\S)[^\S\n]{2,}(?=[^\s#])")
#: How a next step writes what the user substitutes (``grep <port>``).
_SUBSTITUTE = re.compile(r"<(?P<name>[a-z][a-z_ ]{0,30})>")


def _owners(filled: Filled) -> list[int]:
    """For each character of the text, the slot its text came from (-1: the template)."""
    owner = [-1] * len(filled.text)
    for index, slot in enumerate(filled.slots):
        for at in range(slot.start, slot.end):
            owner[at] = index
    return owner


def _made(owner: list[int], start: int, end: int) -> bool:
    """Whether the template had a hand in ``text[start:end]``: it is not all one value."""
    span = owner[start:end]
    return not span or span[0] < 0 or any(o != span[0] for o in span)


def _braces(filled: Filled, owner: list[int]) -> bool:
    """An unmatched brace among the template's own characters."""
    depth = 0
    for at, char in enumerate(filled.text):
        if owner[at] >= 0 or char not in "{}":
            continue
        depth += 1 if char == "{" else -1
        if depth < 0:
            return True
    return depth != 0


def holes(filled: Filled, values: Mapping[str, str], prose: bool = False) -> list[str]:
    """What reads wrong in a filled template, in words. ``prose``: an explanation,
    whose line breaks and runs of spaces are joined when it is shown."""
    found: list[str] = []
    for slot in filled.slots:
        if slot.how == "empty" and slot.name not in CLAUSES:
            found.append(
                f"{{{slot.name}}} is empty on this log: write {{{slot.name}|words that still read}}"
            )
        elif slot.how == "unknown":
            found.append(f"{{{slot.name}}} has no value on this log and shows as <...>")
    text = filled.text
    owner = _owners(filled)
    for rx, what in _PATTERNS:
        for m in rx.finditer(text):
            if _made(owner, m.start(), m.end()):
                found.append(f"{what}: {_around(text, m.start(), m.end())!r}")
                break
    if not prose:
        for m in _DOUBLED.finditer(text):
            if _made(owner, m.start() - 1, m.end() + 1):
                found.append(f"doubled spaces: {_around(text, m.start(), m.end())!r}")
                break
    if _braces(filled, owner):
        found.append("a stray brace")
    for m in _SUBSTITUTE.finditer(text):
        name = m.group("name").replace(" ", "_")
        if owner[m.start()] < 0 and values.get(name):
            found.append(
                f"writes <{m.group('name')}> where the log gives it ({values[name]!r}): "
                f"write {{{name}|<{m.group('name')}>}}"
            )
    return found


def _around(text: str, start: int, end: int) -> str:
    return text[max(0, start - 30) : end + 30]
