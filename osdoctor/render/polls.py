"""What a poll read: the state a waiting client saw in its last answer.

A ``--wait`` command (server create, stack create, node deploy) repeats one
GET until the resource settles; while it waits, the state in those answers
(``BUILD``, ``CREATE_IN_PROGRESS``, ``deploying``) is the only sign of
progress, so the front ends show it beside the poll.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from osdoctor.model import Exchange
from osdoctor.render.rows import TimelineRow

#: State fields, most telling first (a stack's ``stack_status`` over a generic ``status``).
_STATE_KEYS = ("stack_status", "provision_state", "provisioning_status", "status")
#: What a server is doing while it builds, shown in brackets.
_TASK = "OS-EXT-STS:task_state"
#: Where a node is heading, shown after an arrow.
_TARGET = "target_provision_state"
#: Bodies longer than this are not read for a state: a poll answer is small.
_MAX_BODY = 1 << 16
#: Answers of one poll read back from its newest, at most.
_LOOK_BACK = 200


def _word(value: Any) -> str | None:
    if isinstance(value, str) and value and len(value) <= 40:
        return value
    return None


def _resource_state(data: dict[str, Any]) -> str | None:
    for key in _STATE_KEYS:
        state = _word(data.get(key))
        if state is not None:
            task, target = _word(data.get(_TASK)), _word(data.get(_TARGET))
            if task:
                state += f" ({task})"
            if target:
                state += f" → {target}"
            return state
    return None


def answer_state(ex: Exchange) -> str | None:
    """The resource state in ``ex``'s answer: ``BUILD (spawning)``, ``r1
    CREATE_IN_PROGRESS`` (the newest Heat event), ``deploying``; or None."""
    body = ex.response.body if ex.response is not None else None
    if body is None or body.text is None or len(body.text) > _MAX_BODY:
        return None
    data = body.json()
    if not isinstance(data, dict) or "version" in data or "versions" in data:
        return None  # not a resource: an API's version document ("stable", "CURRENT")
    events = data.get("events")
    if isinstance(events, list):
        for event in reversed(events):
            if isinstance(event, dict) and _word(event.get("resource_status")):
                name = _word(event.get("resource_name"))
                status = str(event["resource_status"])
                return f"{name} {status}" if name else status
        return None
    if len(data) == 1:
        (inner,) = data.values()
        if isinstance(inner, dict):
            return _resource_state(inner)
    return _resource_state(data)


def poll_state(row: TimelineRow, exchanges: Sequence[Exchange]) -> str | None:
    """The newest state a GET row (a poll, repeated or not) read: Heat's event
    polls mostly answer "no new event", so the row's last answer alone often says
    nothing. ``exchanges`` is the trace's list (ordered by index); at most
    ``_LOOK_BACK`` of the row's answers are read."""
    if row.shown.request.method != "GET":
        return None
    end = bisect_right(exchanges, row.last.index, key=_index)
    start = max(0, end - _LOOK_BACK)
    for position in range(end - 1, start - 1, -1):
        ex = exchanges[position]
        if ex.index < row.first.index:
            break
        state = answer_state(ex)
        if state is not None:
            return state
    return None


def _index(ex: Exchange) -> int:
    return ex.index
