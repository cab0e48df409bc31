"""Masking, in a parsed trace, secret values learnt only after the lines that held them.

Lines are redacted as they are read, so a value that the log names as secret
only later stays in what was kept before: osc-lib echoes ``--parameter
app_setting=S`` in ``START with options`` before the request body whose
template declares ``app_setting`` hidden. When the parser finishes, every
string of the trace is masked once more with all the values learnt
(``osdoctor.secrets.secretstream.Literals``); nothing is walked when none was learnt.

Most traces hold none of the values (each run of a log of many starts with
what the runs before learnt): the strings are first gathered at C speed and
joined, and looked through once for each value; only when one is there is
every string masked.
"""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Callable
from typing import Any, cast

from osdoctor.model import _UNPARSED, Body, Trace
from osdoctor.secrets.secretstream import Literals

__all__ = ["scrub_trace"]


def scrub_trace(trace: Trace, literals: Literals) -> None:
    """Mask every value of ``literals`` in every string ``trace`` holds, in place."""
    if literals and _holds_any(trace, tuple(literals)):
        _scrub(trace, literals.mask, set())


def _holds_any(trace: Trace, values: tuple[str, ...]) -> bool:
    """Whether a string in ``trace`` holds one of ``values``. ``mask`` changes a
    string only if a value is in it, and a value in a string is in a join of
    strings that holds it: when no join holds one, masking would change nothing.
    The strings are every one ``_scrub`` visits and maybe more (dict keys,
    private fields), found level by level with ``gc.get_referents``: every object
    that ``_scrub`` looks into (a list, a dict, a tuple, a dataclass instance) is
    looked into, and its referents hold every string ``_scrub`` reads of it."""
    texts: list[str] = []
    size = 0
    seen = {id(trace)}
    level: list[object] = [trace]
    kinds = _KINDS
    while level:
        inside: list[object] = []
        for item in gc.get_referents(*level):
            kind = kinds.get(type(item))
            if kind is None:
                kind = _kind(type(item))
            if kind == _TEXT:
                text = cast(str, item)
                texts.append(text)
                size += len(text)
                if size > _BATCH:
                    if _any_in("\0".join(texts), values):
                        return True
                    texts.clear()
                    size = 0
            elif kind == _INSIDE and id(item) not in seen:
                seen.add(id(item))
                inside.append(item)
        level = inside
    return _any_in("\0".join(texts), values)


def _any_in(text: str, values: tuple[str, ...]) -> bool:
    """Whether one of ``values`` is in ``text``: a value is there only if its head
    is, and the values learnt share few heads (a value, its URL-encoded forms)."""
    groups = _HEADS.get(values)
    if groups is None:
        if len(_HEADS) >= 16:
            _HEADS.clear()
        heads: dict[str, list[str]] = {}
        for value in values:
            heads.setdefault(value[:_HEAD], []).append(value)
        groups = _HEADS[values] = tuple((head, tuple(group)) for head, group in heads.items())
    return any(head in text and any(value in text for value in group) for head, group in groups)


#: How long a head of a value ``_any_in`` looks for first.
_HEAD = 6
#: The values of the sets last met, by their head.
_HEADS: dict[tuple[str, ...], tuple[tuple[str, tuple[str, ...]], ...]] = {}


#: Characters of strings joined at most before they are looked through.
_BATCH = 1 << 20
_SKIP, _TEXT, _INSIDE = range(3)
#: What each type met is to ``_holds_any``: passed over, a string, or looked into.
_KINDS: dict[type, int] = {}


def _kind(cls: type) -> int:
    if issubclass(cls, str):
        kind = _TEXT
    elif issubclass(cls, (list, dict, tuple)) or (
        dataclasses.is_dataclass(cls) and not issubclass(cls, type)
    ):
        kind = _INSIDE
    else:
        kind = _SKIP
    _KINDS[cls] = kind
    return kind


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
    else:
        names = _FIELDS.get(type(obj))
        if names is None:
            if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
                return
            names = _public_fields(type(obj))
        changed = False
        for name in names:
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


#: Types whose values hold no string: passed over without asking more of them.
_PLAIN = frozenset({int, float, bool, type(None)})


def _scrubbed(item: Any, mask: Callable[[str], str], seen: set[int]) -> Any:
    """``item`` masked: a new string or tuple when something changed, else itself."""
    kind = type(item)
    if kind is str:
        masked = mask(item)
        return masked if masked != item else item
    if kind in _PLAIN:
        return item
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
