"""A number with its noun, as a reader says it: "1 request", "3 requests",
"1,204 lines"; never "1 requests" or "3 run(s)"."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, singular for one; ``plural`` when adding an s will
    not do (``1 entry``, ``2 entries``)."""
    word = noun if count == 1 else (plural or f"{noun}s")
    return f"{count:,} {word}"
