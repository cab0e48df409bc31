"""Secrets whose name stands in a sibling field, not in their own key.

Heat gives a stack output as ``{"output_key": "admin_password", "description":
..., "output_value": S}``; Ironic a BIOS setting as ``{"name": "SetupPassword",
"value": S}``; a list of pairs is ``[{"key": "rabbit_cookie", "value": S}]``; osc
prints the same as Field/Value table rows (``| output_key | admin_password |``
then ``| output_value | S |``), as indented JSON or YAML, one field a line. The
key of the secret is ``output_value`` or ``value``, which names nothing; its
name is the value of the field beside it.

A *name field* is one whose own name ends in key, name, field, setting,
parameter, option, attribute, property, label or variable (``output_key``,
``ParameterKey``, ``name``, ``BIOS setting name``); a *value field* one whose
name ends in value (``output_value``, ``ParameterValue``, ``Value``). When a
name field holds a secret name (``osdoctor.secrets.secretnames``), the value fields of
the same object hold the secret: on the same line (``sibling_spans``), or, for
a stream of lines (``SiblingFields``), on one of the next few lines; when the
value came first, it is handed back to be learnt, so that it is masked from
then on and, by the end-of-run scrub, in what was kept before.

Every function is one pass over the line.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import deque
from dataclasses import dataclass, replace
from functools import lru_cache

from osdoctor import regex
from osdoctor.secrets.secretnames import MASK, is_secret_name, normal_name

__all__ = ["Field", "SiblingFields", "field_role", "fields_of", "names_a_secret", "sibling_spans"]

#: Last words of a field whose value names another field.
_NAME_WORDS = frozenset(
    {
        "key",
        "name",
        "field",
        "setting",
        "parameter",
        "param",
        "option",
        "attribute",
        "property",
        "label",
        "variable",
        "var",
    }
)
_VALUE_WORDS = frozenset({"value"})
#: Lines a name field waits for its value field (indented JSON puts the
#: description between them), and a value field for its name field.
_REACH = 6
#: Values remembered at most while they wait for their name field.
_ORPHANS = 4

_FIELD = regex.compile(
    r"""(?:(?P<q>["'])(?P<qname>[A-Za-z_][\w .-]{0,63})(?P=q)"""
    r"""|(?<![\w.\-"'])(?P<bname>[A-Za-z_][\w.-]{0,63}))[ \t]*(?P<sep>[:=])[ \t]*"""
)
_BRACES = regex.compile(r"[{}]")
_CELL_END = regex.compile(r" \|")
_QUOTED = {quote: regex.compile(r"(?:[^" + quote + r"\\\n\r]|\\.)*") for quote in "'\""}
_BARE = regex.compile(r"[^\s,;}\])'\"]*")
_LAST_WORD = regex.compile(r"[a-z]+(?=[0-9_]*$)")


@dataclass(frozen=True, slots=True)
class Field:
    """A ``name: value`` of a line: its name, where its value is, the object (by
    order of ``{`` on the line, 0 outside any) it belongs to, and whether that
    object ends on the line."""

    name: str
    start: int
    end: int
    group: int
    closed: bool = False

    def value(self, line: str) -> str:
        return line[self.start : self.end]


@lru_cache(maxsize=1024)
def field_role(name: str) -> str:
    """``"name"`` for a name field, ``"value"`` for a value field, else ``""``. A
    field whose own name is secret (``HeatAuthEncryptionKey``) holds a secret, not
    a name, but for ``key`` itself (``{"key": ..., "value": ...}``)."""
    normal = normal_name(name)
    last = _LAST_WORD.search(normal)
    if last is None:
        return ""
    word = last.group()
    if word in _VALUE_WORDS:
        return "value"
    if word not in _NAME_WORDS or (normal != "key" and is_secret_name(name)):
        return ""
    return "name"


def _value_end(
    line: str, start: int, sep: str, yaml: bool, bars: list[int]
) -> tuple[int, int] | None:
    """Where a field's value begins and ends (``bars``: where the line's `` |`` cell
    ends are, in order); None for a structure or nothing."""
    if start >= len(line):
        return None
    first = line[start]
    if first == "u" and line[start + 1 : start + 2] in ("'", '"'):
        start += 1
        first = line[start]
    if first in "{[(":
        return None
    if first in "'\"":
        inside = _QUOTED[first].match(line, start + 1)
        assert inside is not None
        return start + 1, inside.end()
    if yaml and sep == ":":
        # YAML: the rest of the line, or of the table cell.
        at = bisect_left(bars, start)
        end = bars[at] if at < len(bars) else len(line)
        while end > start and line[end - 1] in " \t":
            end -= 1
        return (start, end) if end > start else None
    bare = _BARE.match(line, start)
    assert bare is not None
    return (start, bare.end()) if bare.end() > start else None


def fields_of(line: str) -> list[Field]:
    """The name and value fields of ``line`` (JSON, Python reprs, YAML, ``k=v``,
    YAML in a table cell, and a Field/Value table row), with their objects."""
    found: list[Field] = []
    body = line.rstrip("\r\n")
    if body[:1] == "|" and body.count("|") == 3:
        cells = body.split("|")
        name = cells[1].strip()
        value = cells[2]
        inner = value.strip()
        if name and inner and field_role(name):
            start = len(cells[0]) + 1 + len(cells[1]) + 1 + (len(value) - len(value.lstrip()))
            found.append(Field(name, start, start + len(inner), 0))
    braces = [(match.start(), match.group()) for match in _BRACES.finditer(body)]
    bars = [match.start() for match in _CELL_END.finditer(body)] if "|" in body else []
    stack = [0]
    opened = 0
    brace_at = 0
    closed: set[int] = set()

    def step() -> None:
        nonlocal opened, brace_at
        if braces[brace_at][1] == "{":
            opened += 1
            stack.append(opened)
        elif len(stack) > 1:
            closed.add(stack.pop())
        brace_at += 1

    # Where the line's content begins, past its indentation, a YAML list's dash
    # and a table's bar: a bare key there is YAML's, whose value is the rest.
    content = len(body) - len(body.lstrip(" \t-|"))
    for match in _FIELD.finditer(body):
        while brace_at < len(braces) and braces[brace_at][0] < match.start():
            step()
        name = match["qname"] or match["bname"]
        if not field_role(name):
            continue
        yaml = match["bname"] is not None and (match.start() <= content or body[:1] == "|")
        span = _value_end(body, match.end(), match["sep"], yaml, bars)
        if span is not None:
            found.append(Field(name, span[0], span[1], stack[-1]))
    while brace_at < len(braces):
        step()
    if closed:
        found = [replace(field, closed=field.group in closed) for field in found]
    return found


#: A name field's value longer than this is no name (and is not read: a line of
#: many fields must cost one pass).
_NAME_MAX = 128


def _names_a_secret(line: str, field: Field) -> bool:
    return field.end - field.start <= _NAME_MAX and names_a_secret(field.value(line))


def names_a_secret(text: str) -> bool:
    """Whether a name field's value is the name of a secret (a name: no spaces)."""
    value = text.strip()
    return (
        bool(value)
        and value != MASK
        and not any(c.isspace() for c in value)
        and is_secret_name(value)
    )


def _maskable(line: str, field: Field) -> bool:
    """A value field's value that may be a secret: not empty, null or a small
    number (``END return value: 0`` is a value field too)."""
    if field.end - field.start > _NAME_MAX:
        return True
    value = field.value(line).strip()
    return (
        bool(value)
        and value != MASK
        and value.lower() not in ("none", "null")
        and not (value.isdigit() and len(value) < 6)
    )


def sibling_spans(line: str, fields: list[Field] | None = None) -> list[tuple[int, int]]:
    """Values of ``line`` whose name is in a sibling field of the same object."""
    fields = fields_of(line) if fields is None else fields
    secret_groups = {
        field.group
        for field in fields
        if field_role(field.name) == "name" and _names_a_secret(line, field)
    }
    return sorted(
        (field.start, field.end)
        for field in fields
        if field.group in secret_groups
        and field_role(field.name) == "value"
        and _maskable(line, field)
    )


class SiblingFields:
    """Pairs name and value fields across the lines of one stream (indented JSON,
    YAML, Field/Value table rows), in either order."""

    __slots__ = ("_pending", "_awaiting", "_orphans")

    def __init__(self) -> None:
        # Lines left during which a value field holds the secret named above.
        self._pending = 0
        # Lines left during which a value field pairs with a harmless name above.
        self._awaiting = 0
        # Values seen with no name field before them: (lines left, value).
        self._orphans: deque[tuple[int, str]] = deque(maxlen=_ORPHANS)

    @property
    def active(self) -> bool:
        """True while the next lines depend on this one."""
        return bool(self._pending or self._awaiting or self._orphans)

    def feed(self, line: str) -> tuple[list[tuple[int, int]], list[str]]:
        """(the spans of ``line`` to mask, values learnt to be secret)."""
        stripped = line.strip(" \t|")
        if stripped[:2] == "- " or stripped[-1:] in ("{", "["):
            self._orphans.clear()  # a new item or object: what came before is another's
        fields = fields_of(line)
        spans = sibling_spans(line, fields)
        learnt: list[str] = []
        names = [field for field in fields if field_role(field.name) == "name"]
        values = [field for field in fields if field_role(field.name) == "value"]
        if not fields:
            if stripped[:1] in ("}", "]", "+"):
                self._reset()  # the object, or the table, ended
            else:
                self._age()
            return spans, learnt
        if names and values:
            self._reset()  # a pair on one line (``sibling_spans``)
        elif names:
            open_names = [field for field in names if not field.closed]
            if not open_names:
                self._reset()  # one-line objects: ``sibling_spans`` paired them
            elif any(_names_a_secret(line, field) for field in open_names):
                if self._orphans:
                    learnt.extend(value for _left, value in self._orphans)
                    self._reset()
                else:
                    self._reset()
                    self._pending = _REACH
            else:
                self._reset()
                self._awaiting = _REACH
        elif values:
            if self._pending:
                spans.extend((field.start, field.end) for field in values if _maskable(line, field))
                spans.sort()
                self._reset()
            elif self._awaiting:
                self._reset()
            else:
                self._orphans.extend(
                    (_REACH, field.value(line).strip())
                    for field in values[-_ORPHANS:]  # the deque keeps these alone
                    if _maskable(line, field)
                )
        else:
            self._age()
        return spans, learnt

    def _reset(self) -> None:
        self._pending = self._awaiting = 0
        self._orphans.clear()

    def _age(self) -> None:
        self._pending = max(0, self._pending - 1)
        self._awaiting = max(0, self._awaiting - 1)
        if self._orphans:
            aged = [(left - 1, value) for left, value in self._orphans if left > 1]
            self._orphans.clear()
            self._orphans.extend(aged)
