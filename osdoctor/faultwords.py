"""How a service words an error, read from ``knowledge/services.yaml``: the shapes of
its fault bodies and the printed words that stand for a status.

Which key of a JSON body holds a service's fault (Neutron's ``NeutronError``,
Keystone's ``error``, Nova's ``itemNotFound``...), which keys hold its message, its
class and its code, which class names stand for which status, and which printed
words stand for a status when a paste lost its ``(HTTP nnn)``: this is knowledge,
not code, and some of it is what rules say too. It lives beside the services and
their refusals, in the same file with the same schema and cache; ``kb lint`` checks
that a rule an entry names still has its words. ``facts.fault_text`` keeps only the
walking (nested JSON text, escaped quotes, HTML pages).

The records are built on first use, from the file ``servicetable`` has already
read and cached: ``osdoctor explain`` must not start slower for them.
"""

import functools
from collections.abc import Mapping
from typing import Any

from osdoctor.servicetable import (
    ServiceTableError,
    check_worded,
    document,
    is_error_status,
    rule_ids,
)

#: What the value of a shape's key is (see ``faults.shapes`` in the file).
VALUES = ("mapping", "list", "json", "any", "flat")
#: A shape's fields, and whether each is a list of keys (else text).
SHAPE_FIELDS: Mapping[str, bool] = {
    "shape": False,
    "key": False,
    "value": False,
    "beside": True,
    "beside_one": True,
    "inside": True,
    "names": True,
    "or_inside": True,
    "message": True,
    "type": True,
    "code": True,
    "detail": True,
    "service": False,
}
#: The fields that name where a part is read ("/key" and "@" allowed).
_READS = ("message", "type", "code", "detail")


def _is_key(name: Any) -> bool:
    """A JSON key as the file names one: a letter or ``_``, then word characters or
    ``-`` (string methods, not a pattern: the check runs at every start)."""
    return (
        isinstance(name, str)
        and name.isascii()
        and not name.startswith("-")
        and name.replace("-", "_").isidentifier()
    )


def _is_read(name: Any) -> bool:
    """Where a part is read: a key, ``/`` and a key of the body, or ``@``."""
    return name == "@" or (isinstance(name, str) and _is_key(name.removeprefix("/")))


class FaultShape:
    """One shape of fault body and where its parts are (``faults.shapes``).

    The records here are plain classes with slots: building a named tuple's class
    costs a quarter of a millisecond at every start, for records only read."""

    __slots__ = tuple(SHAPE_FIELDS)

    def __init__(
        self,
        shape: str,
        key: str,
        value: str,
        beside: tuple[str, ...] = (),
        beside_one: tuple[str, ...] = (),
        inside: tuple[str, ...] = (),
        names: tuple[str, ...] = (),
        or_inside: tuple[str, ...] = (),
        message: tuple[str, ...] = (),
        type: tuple[str, ...] = (),  # noqa: A002 - the file's name for the fault's class
        code: tuple[str, ...] = (),
        detail: tuple[str, ...] = (),
        service: str = "",
    ) -> None:
        self.shape = shape
        """Who answers so: the fault's ``shape`` in the facts and the JSON report."""
        self.key = key
        """The key the body holds, whose value holds the fault ("*": the body's only key)."""
        self.value = value
        """One of ``VALUES``."""
        self.beside = beside
        self.beside_one = beside_one
        self.inside = inside
        self.names = names
        self.or_inside = or_inside
        self.message = message
        self.type = type
        self.code = code
        self.detail = detail
        self.service = service
        """The service type a body of this shape proves, whatever the URL said."""


class StatusWords:
    """Printed words that stand for a status when the paste lost its ``(HTTP nnn)``."""

    __slots__ = ("words", "status", "rules")

    def __init__(self, words: str, status: int, rules: tuple[str, ...] = ()) -> None:
        self.words = words
        """A regular expression."""
        self.status = status
        self.rules = rules
        """The rules whose symptoms say the same (``kb lint`` checks each)."""


class FaultWords:
    """The ``status_words`` and ``faults`` sections of the services file."""

    __slots__ = ("shapes", "openings", "type_status", "status_words", "refusal_status")

    def __init__(
        self,
        shapes: tuple[FaultShape, ...],
        openings: tuple[str, ...],
        type_status: tuple[tuple[str, int], ...],
        status_words: tuple[StatusWords, ...],
        refusal_status: tuple[tuple[str, int], ...] = (),
    ) -> None:
        self.shapes = shapes
        self.openings = openings
        """The keys a fault body quoted inside a printed line opens with."""
        self.type_status = type_status
        """(words an error class's name holds, the status it stands for), first first."""
        self.status_words = status_words
        self.refusal_status = refusal_status
        """(words, status) of the refusals that stand for a status, read after these."""

    def word_statuses(self) -> tuple[tuple[str, int], ...]:
        """(expression, status) for each status words stand for, in the file's order,
        the words of one status joined: the status words, then the refusals'."""
        out: list[tuple[str, int]] = []
        for pairs in ([(w.words, w.status) for w in self.status_words], self.refusal_status):
            grouped: dict[int, list[str]] = {}
            for words, status in pairs:
                grouped.setdefault(status, []).append(words)
            out += [("|".join(words), status) for status, words in grouped.items()]
        return tuple(out)

    def service_of(self, shape: str) -> str:
        """The service type a fault of this shape proves, or ""."""
        return next((s.service for s in self.shapes if s.shape == shape), "")

    def status_of_type(self, fault_type: str) -> int | None:
        """The status a service answers with for its error class (Neutron's names)."""
        for words, status in self.type_status:
            if words in fault_type:
                return status
        return None


def _line(node: Any) -> int:
    return int(getattr(node, "line", 0))


def check(doc: Any, patterns: bool = True) -> list[tuple[int, str]]:
    """What is wrong with the ``status_words`` and ``faults`` sections of a parsed
    services file, as (line, message); empty when valid. ``patterns=False`` leaves the
    words uncompiled, as ``servicetable.check`` does."""
    if not isinstance(doc, Mapping):
        return []
    problems = _check_status_words(doc.get("status_words") or [], _line(doc), patterns)
    faults = doc.get("faults")
    if faults is None:
        return problems
    if not isinstance(faults, Mapping):
        return [*problems, (_line(doc), "'faults' maps openings, shapes and type_status")]
    at = _line(faults) or _line(doc)
    extra = set(faults) - {"openings", "shapes", "type_status"}
    if extra:
        problems.append((at, f"faults: unknown key '{sorted(extra)[0]}'"))
    openings = faults.get("openings") or []
    if not isinstance(openings, list) or not all(_is_key(k) for k in openings):
        problems.append((at, "faults: 'openings' is a list of key names"))
    types = {str(t) for t in doc.get("services") or {}} | {
        str(a)
        for body in (doc.get("services") or {}).values()
        if isinstance(body, Mapping)
        for a in body.get("aliases") or []
    }
    shapes = faults.get("shapes") or []
    if not isinstance(shapes, list):
        problems.append((at, "faults: 'shapes' is a list of shapes"))
        shapes = []
    for number, shape in enumerate(shapes, 1):
        problems += _check_shape(shape, f"fault shape {number}", _line(shape) or at, types)
    if isinstance(openings, list) and not problems:
        known = {
            str(key).removeprefix("/")
            for shape in shapes
            for field, value in shape.items()
            if field in ("key", "names", "beside", "beside_one", "inside", *_READS)
            for key in ([value] if isinstance(value, str) else value)
        }
        for key in openings:
            if key not in known:
                problems.append((at, f"faults: opening '{key}' is a key no shape reads"))
    for number, item in enumerate(faults.get("type_status") or [], 1):
        where = f"type_status {number}"
        if not (
            isinstance(item, Mapping)
            and set(item) == {"words", "status"}
            and isinstance(item["words"], str)
            and item["words"]
            and is_error_status(item["status"])
        ):
            problems.append((_line(item) or at, f"{where}: a mapping of 'words' and a 'status'"))
    return problems


def _check_status_words(items: Any, doc_line: int, patterns: bool) -> list[tuple[int, str]]:
    return check_worded(items, doc_line, patterns, "status_words", "status words", True)


def _check_shape(shape: Any, where: str, at: int, types: set[str]) -> list[tuple[int, str]]:
    if not isinstance(shape, Mapping):
        return [(at, f"{where}: a mapping of {', '.join(SHAPE_FIELDS)}")]
    problems: list[tuple[int, str]] = []
    where = f"{where} ({shape.get('shape')})" if isinstance(shape.get("shape"), str) else where
    for key in shape:
        if key not in SHAPE_FIELDS:
            problems.append((at, f"{where}: unknown field '{key}'"))
    for key in ("shape", "key", "value", "message"):
        if not shape.get(key):
            problems.append((at, f"{where}: field '{key}' is required"))
    for key, is_list in SHAPE_FIELDS.items():
        value = shape.get(key)
        if value is None:
            continue
        if not is_list and not isinstance(value, str):
            problems.append((at, f"{where}: field '{key}' is text"))
        elif is_list and not (
            isinstance(value, list)
            and all((_is_read if key in _READS else _is_key)(v) for v in value)
        ):
            problems.append((at, f"{where}: field '{key}' is a list of key names"))
    if isinstance(shape.get("key"), str) and not (shape["key"] == "*" or _is_key(shape["key"])):
        problems.append((at, f"{where}: 'key' is a key name or '*'"))
    if shape.get("value") not in (None, *VALUES):
        problems.append((at, f"{where}: 'value' is one of {', '.join(VALUES)}"))
    if (shape.get("names") or shape.get("or_inside")) and shape.get("key") != "*":
        problems.append((at, f"{where}: 'names' and 'or_inside' are for key '*'"))
    service = shape.get("service")
    if isinstance(service, str) and service not in types:
        problems.append((at, f"{where}: service '{service}' is not in the services table"))
    return problems


def build(doc: Any) -> FaultWords:
    """The fault words of a valid parsed services file (see ``check``)."""
    problems = check(doc, patterns=False)
    if problems:
        raise ServiceTableError("; ".join(message for _line, message in problems))
    faults = doc.get("faults") or {}
    shapes = tuple(_shape(item) for item in faults.get("shapes") or [])
    return FaultWords(
        shapes=shapes,
        openings=tuple(faults.get("openings") or ()),
        type_status=tuple((t["words"], t["status"]) for t in faults.get("type_status") or []),
        status_words=tuple(
            StatusWords(item["words"], item["status"], rule_ids(item.get("rule")))
            for item in doc.get("status_words") or []
        ),
        refusal_status=tuple(
            (item["words"], item["status"])
            for item in doc.get("refusals") or []
            if item.get("status") is not None
        ),
    )


def _shape(item: Mapping[str, Any]) -> FaultShape:
    fields: dict[str, Any] = {
        key: (tuple(value) if SHAPE_FIELDS[key] else value) for key, value in item.items()
    }
    return FaultShape(**fields)


@functools.cache
def words() -> FaultWords:
    """The built-in fault words, read once per process (from the services file's cache)."""
    return build(document())
