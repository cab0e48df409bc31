"""What the resources a log shows say of the run: which one failed, and why.

A ``show`` or ``list`` (``parse.resources``) prints a resource's state and the
service's reason for it; a resource in an error state is the failure when the
command that made it returned without one (``server create`` then ``server show``),
and when the paste holds nothing else (a ``node show``'s ``last_error``, a
``cluster show``'s ``status_reason``).
"""

from __future__ import annotations

from collections.abc import Iterable

from osdoctor import regex
from osdoctor.facts.facts_model import AsyncFailure
from osdoctor.model import Resource, ResourceField

#: Fields that hold a resource's state, most telling first.
STATUS_KEYS = (
    "status",
    "stack_status",
    "resource_status",
    "provision_state",
    "provisioning_status",
    "vm_state",
    "provisioning_state",
)
#: Fields that hold the service's reason for that state, most telling first.
REASON_KEYS = (
    "fault",
    "last_error",
    "status_reason",
    "stack_status_reason",
    "resource_status_reason",
    "health_status_reason",
    "maintenance_reason",
)
_FAILED = regex.compile(
    r"^(?:ERROR|error(?:_\w+)?|\w+_FAILED|FAILED|[\w ]*failed|CREATE_FAILED|DEGRADED)$"
)
_SAYS_FAILED = regex.compile(r"(?i)\bfailed\b")
_NONE = frozenset({"", "none", "null", "-", "{}", "[]", "''"})
_FAULT_MESSAGE = regex.compile(r"""['"]message['"]\s*:\s*u?['"](?P<m>.+?)['"]\s*[,}]""")


def failed_status(resource: Resource) -> ResourceField | None:
    """The field that says the resource is in an error state, or None."""
    for key in STATUS_KEYS:
        f = resource.get(key)
        if f is not None and _FAILED.match(f.value.strip()):
            return f
    return None


def reason(resource: Resource) -> ResourceField | None:
    """The field that holds the service's reason, when it says one."""
    for key in REASON_KEYS:
        f = resource.get(key)
        if f is not None and f.value.strip().lower() not in _NONE:
            return f
    return None


def reason_text(field: ResourceField) -> str:
    """The reason's words: a Nova fault's ``message`` (a dict repr or JSON), else all."""
    value = field.value.strip()
    if field.key == "fault":
        m = _FAULT_MESSAGE.search(value)
        if m is not None:
            return m.group("m")
    return value


def _names(resource: Resource) -> set[str]:
    out = set()
    for key in ("name", "id", "uuid", "stack_name"):
        f = resource.get(key)
        if f is not None and f.value:
            out.add(f.value)
    return out


def _about(later: Resource, earlier: Resource) -> bool:
    """Whether ``later`` shows the same resource as ``earlier`` (a ``show`` of a
    resource a ``list`` showed): a name in common, or the show's command names it."""
    names = _names(earlier)
    if names & _names(later):
        return True
    return bool(later.command) and any(n in later.command.split() for n in names)


def async_failure(resources: Iterable[Resource]) -> AsyncFailure | None:
    """The resource shown in an error state, with the reason the service gave for
    it: the first failed one that says why; else the first failed one, with the
    reason a failed ``show`` or event of the same resource gives; else a resource
    whose only word is its ``last_error``."""
    shown = list(resources)
    failed = [(r, status) for r in shown if (status := failed_status(r)) is not None]
    for resource, status in failed:
        why = reason(resource)
        if why is not None:
            return _failure(resource, status, why)
    for resource, status in failed:
        for other, _status in failed:
            if other is not resource and other.type == resource.type and _about(other, resource):
                why = reason(other)
                if why is not None:
                    return _failure(resource, status, why)
    if failed:
        return _failure(failed[0][0], failed[0][1], None)
    for resource in shown:
        why = reason(resource)
        if why is None:
            continue
        if why.key == "last_error" or (
            why.key.endswith("status_reason") and _SAYS_FAILED.search(why.value)
        ):
            # A row the paste kept without the state beside it: its reason says it.
            return _failure(resource, None, why)
    return None


def _failure(
    resource: Resource, status: ResourceField | None, why: ResourceField | None
) -> AsyncFailure:
    name = resource.name or (f"the {resource.type}" if resource.type else "the resource")
    line = status.line if status is not None else why.line if why is not None else resource.line
    return AsyncFailure(
        name,
        status.value if status is not None else "",
        reason_text(why) if why is not None else "",
        line,
        resource.type,
    )


_UUID = regex.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b")


def names_in(*texts: str) -> set[str]:
    """The resource ids a failure's texts name (its URL, its words, its command)."""
    out: set[str] = set()
    for text in texts:
        out.update(_UUID.findall(text))
    return out


def shown_state(
    resources: Iterable[Resource], names: set[str], before: int
) -> list[tuple[int, str]]:
    """Evidence that a resource the failure is about was shown before it in a state:
    the status (and reason) fields of the last show or list row of it printed
    before line ``before``, as (line, text)."""
    if not names:
        return []
    found: Resource | None = None
    for resource in resources:
        if resource.line < before and _names(resource) & names:
            found = resource
    if found is None:
        return []
    out = []
    for key in (*STATUS_KEYS, "task_state", "locked", *REASON_KEYS):
        f = found.get(key)
        if f is not None and f.value.strip().lower() not in _NONE:
            out.append((f.line, f.text or f"{f.name} {f.value}"[:200]))
    return out[:3]
