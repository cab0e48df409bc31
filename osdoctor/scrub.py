"""Masking, in a parsed trace, secret values learnt only after the lines that held them.

Lines are redacted as they are read, so a value that the log names as secret
only later stays in what was kept before: osc-lib echoes ``--parameter
app_setting=S`` in ``START with options`` before the request body whose
template declares ``app_setting`` hidden. When the parser finishes, every
string of the trace is masked once more with all the values learnt
(``osdoctor.secretstream.Literals``); nothing is walked when none was learnt.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from osdoctor.model import _UNPARSED, Body, Trace
from osdoctor.secretstream import Literals

__all__ = ["scrub_trace"]


def scrub_trace(trace: Trace, literals: Literals) -> None:
    """Mask every value of ``literals`` in every string ``trace`` holds, in place."""
    if literals:
        _scrub(trace, literals.mask, set())


def _scrub(obj: Any, mask: Callable[[str], str], seen: set[int]) -> None:
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, list):
        for index, item in enumerate(obj):
            replaced = _scrubbed(item, mask, seen)
            if replaced is not item:
                obj[index] = replaced
    elif isinstance(obj, dict):
        for key, item in list(obj.items()):
            replaced = _scrubbed(item, mask, seen)
            if replaced is not item:
                obj[key] = replaced
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changed = False
        for name in _public_fields(type(obj)):
            item = getattr(obj, name)
            replaced = _scrubbed(item, mask, seen)
            if replaced is not item:
                setattr(obj, name, replaced)
                changed = True
        if changed and isinstance(obj, Body):
            obj._json = _UNPARSED  # parsed from the text before it was masked


#: The public fields of each dataclass met, looked up once: a trace holds thousands
#: of exchanges, and asking ``dataclasses.fields`` of each cost more than masking.
_FIELDS: dict[type, tuple[str, ...]] = {}


def _public_fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(
            f.name for f in dataclasses.fields(cls) if not f.name.startswith("_")
        )
    return names


def _scrubbed(item: Any, mask: Callable[[str], str], seen: set[int]) -> Any:
    """``item`` masked: a new string or tuple when something changed, else itself."""
    if isinstance(item, str):
        masked = mask(item)
        return masked if masked != item else item
    if isinstance(item, tuple):
        parts = tuple(_scrubbed(part, mask, seen) for part in item)
        return parts if any(a is not b for a, b in zip(parts, item, strict=True)) else item
    if item is None or isinstance(item, (int, float)):
        return item
    if isinstance(item, (list, dict)) or dataclasses.is_dataclass(item):
        _scrub(item, mask, seen)
    return item
