"""The fullest copy of a text a paste cut short.

A client that retries prints the same refusal once per attempt, often for
several resources in a loop, and a pasted log is cut where the poster stopped
selecting: the last copy, the one the facts would quote, may end mid-word
("while a state t"). An earlier copy of the same words, differing only in the
ids it names, still holds the end: the facts quote that copy as it stands,
with its own ids. Gluing its end to the cut one would make a sentence the log
does not have, about a resource it was not said of ("Node <the cut one's id>
... Attempt 6 of 6", when the attempts were another node's).
"""

from __future__ import annotations

from collections.abc import Iterable

from osdoctor import regex

# Ids that differ between two copies of one message: UUIDs, hex and request ids,
# numbers. Masked to the same length, so positions in both copies still line up.
_IDS = regex.compile(
    r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}|\b[0-9a-fA-F]{6,}\b|\d+"
)
# A text ending like this was finished by its writer, not cut by a paste.
_FINISHED = regex.compile(r"""[.!?)\]}'"]\s*$|\(HTTP \d{3}\)|\d+ of \d+$""")
_MIN_PREFIX = 24


def _mask(text: str) -> str:
    return _IDS.sub(lambda m: "0" * len(m.group(0)), text)


def looks_cut(text: str) -> bool:
    """True when a text stops where a sentence cannot (mid-word, no closing mark)."""
    return len(text) >= _MIN_PREFIX and not _FINISHED.search(text)


def fullest(cut: str, copies: Iterable[str]) -> str | None:
    """The longest copy that starts with the same words as ``cut`` (ids aside) and
    goes on past it; None when ``cut`` looks finished or no copy does. One pass."""
    if not looks_cut(cut):
        return None
    masked = _mask(cut)
    best: str | None = None
    for copy in copies:
        if len(copy) > max(len(cut), len(best or "")) and _mask(copy[: len(cut)]) == masked:
            best = copy
    return best
