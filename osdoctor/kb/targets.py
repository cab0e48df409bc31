"""The exchanges of one target of a command: a stack, a server, a node named on
the command line.

A command that names several targets (``stack delete app-1 app-2 app-3``)
handles each in turn, and the log interleaves their exchanges: app-1's wait
may end on a 404 that is its success while app-2's DELETE answered 404 as a
failure. A rule about one target (``target: stack`` in its file) sees only
that target's exchanges, so its evidence and placeholders cannot come from
another's.

An exchange is the target's when its URL names the target (a path segment or
a query value), when its request body holds the name as a JSON string, or
when it names an id the target's own answers gave (the ``Location`` of a
redirect, the ``id`` of the one object an answer holds), or follows a
redirect of the target's.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from osdoctor.model import Exchange, Trace

_ID_KEYS = ("id", "uuid")
_ROUNDS = 4


def _path_segments(url: str) -> list[str]:
    return [unquote(s) for s in urlsplit(url).path.split("/") if s]


def _mentions(ex: Exchange, names: set[str]) -> bool:
    parts = urlsplit(ex.request.url)
    if any(unquote(s) in names for s in parts.path.split("/") if s):
        return True
    if parts.query and any(v in names for _k, v in parse_qsl(parts.query)):
        return True
    body = ex.request.body.text if ex.request.body is not None else None
    if body:
        return any(f'"{n}"' in body for n in names)
    return False


def _single_object_id(doc: Any) -> str | None:
    """The id of the one object an answer is about: ``{"server": {"id": ...}}``,
    ``{"id": ...}``, or a list of exactly one such object."""
    for _depth in range(3):
        if isinstance(doc, dict):
            for key in _ID_KEYS:
                if isinstance(doc.get(key), str):
                    return str(doc[key])
            if len(doc) != 1:
                return None
            doc = next(iter(doc.values()))
        elif isinstance(doc, list):
            if len(doc) != 1:
                return None
            doc = doc[0]
        else:
            return None
    return None


def _ids_in_answer(ex: Exchange, names: set[str]) -> set[str]:
    out: set[str] = set()
    if ex.response is None:
        return out
    location = ex.response.header("Location")
    if location:
        segments = _path_segments(location)
        for i, segment in enumerate(segments[:-1]):
            if segment in names:
                out.add(segments[i + 1])
    if ex.response.body is not None:
        found = _single_object_id(ex.response.body.json())
        if found:
            out.add(found)
    return out


def target_exchanges(trace: Trace, name: str) -> list[Exchange]:
    """The exchanges of the target ``name``, in log order."""
    names = {name}
    chosen: set[int] = set()
    for _round in range(_ROUNDS):
        grew = False
        for ex in trace.exchanges:
            if ex.index in chosen:
                continue
            if _mentions(ex, names) or (
                ex.redirected_from is not None and ex.redirected_from in chosen
            ):
                chosen.add(ex.index)
                names |= _ids_in_answer(ex, names)
                grew = True
        if not grew:
            break
    return [ex for ex in trace.exchanges if ex.index in chosen]
