"""What a case says the services write in their own logs, as data.

An answer's ``log:`` lists the records the service writes while it gives that
answer (nova-api's ERROR and traceback for a 500, keystonemiddleware's
CRITICAL for a 503); the stub's ``log:`` lists records written before any
request (a service that failed to start). ``osdoctor.lab.servicelogs`` writes
them with the real oslo.log formatter.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
#: ``oslo``: through oslo.log's formatter; ``plain``: the message and the
#: traceback as a WSGI server (uWSGI, mod_wsgi) writes what the application
#: printed, without any prefix.
FORMATS = ("oslo", "plain")
#: ``request``: with the request's context (its request id, user, project);
#: ``global``: the context of a call another service made for the request
#: (its own request id, the request's as the global one); ``none``: without
#: one (``[-]``), as middleware before the context and start-up code write.
CONTEXTS = ("request", "global", "none")


class LogSpecError(ValueError):
    """A ``log:`` entry that cannot be written; the message names the key."""


@dataclass(frozen=True, slots=True)
class Raised:
    """The exception a record's traceback shows, and the frames it goes through."""

    type: str
    """Dotted, as the service's traceback names it: ``oslo_db.exception.DBConnectionError``."""
    message: str
    frames: tuple[str, ...] = ()
    """``package/module.py:function`` or ``package/module.py:LINE:function``,
    outermost first: the service's own code the exception went through."""


@dataclass(frozen=True, slots=True)
class LogSpec:
    """One record a service writes."""

    message: str
    level: str = "ERROR"
    logger: str | None = None
    """The Python logger; by default the service's API logger."""
    service: str | None = None
    """A catalog type (``compute``) or a daemon (``nova-scheduler``); by default
    the service that answers the request."""
    context: str = "request"
    exception: Raised | None = None
    at: float = 0.0
    """Seconds after the request (negative: before it) the record is written."""
    instance: str | None = None
    """Nova's ``[instance: <uuid>]``."""
    host: str | None = None
    """The host a daemon runs on (its file is then under that host's folder)."""
    file: str | None = None
    """The file written, when not the daemon's own (``keystone/keystone-uwsgi.log``)."""
    format: str = "oslo"


def _str(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise LogSpecError(f"{where}: expected a string, got {type(value).__name__}")
    return str(value)


def _keys(raw: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(raw) - allowed)
    if unknown:
        raise LogSpecError(f"{where}: unknown key(s) {', '.join(unknown)}")


def parse_raised(data: Any, where: str) -> Raised:
    if not isinstance(data, Mapping):
        raise LogSpecError(f"{where}: expected a mapping with type and message")
    _keys(data, {"type", "message", "frames"}, where)
    if "type" not in data:
        raise LogSpecError(f"{where}.type: required")
    frames = data.get("frames") or []
    if not isinstance(frames, list):
        raise LogSpecError(f"{where}.frames: expected a list")
    for index, frame in enumerate(frames):
        parts = _str(frame, f"{where}.frames[{index}]").split(":")
        name = parts[-1]
        if (
            len(parts) not in (2, 3)
            or not parts[0].endswith(".py")
            or not (name.isidentifier() or name == "<module>")
        ):
            raise LogSpecError(
                f"{where}.frames[{index}]: write package/module.py:function "
                "or package/module.py:LINE:function"
            )
    return Raised(
        type=_str(data["type"], f"{where}.type"),
        message=_str(data.get("message", ""), f"{where}.message"),
        frames=tuple(str(f) for f in frames),
    )


def parse_log(data: Any, where: str) -> tuple[LogSpec, ...]:
    """A ``log:`` list."""
    if data is None:
        return ()
    if not isinstance(data, list):
        raise LogSpecError(f"{where}: expected a list of records")
    out = []
    for index, item in enumerate(data):
        at = f"{where}[{index}]"
        if not isinstance(item, Mapping):
            raise LogSpecError(f"{at}: expected a mapping")
        _keys(
            item,
            {"message", "level", "logger", "service", "context", "exception", "at", "instance"}
            | {"host", "file", "format"},
            at,
        )
        if "message" not in item:
            raise LogSpecError(f"{at}.message: required")
        level = _str(item.get("level", "ERROR"), f"{at}.level").upper()
        if level not in LEVELS:
            raise LogSpecError(f"{at}.level: expected one of {', '.join(LEVELS)}")
        context = _str(item.get("context", "request"), f"{at}.context")
        if context not in CONTEXTS:
            raise LogSpecError(f"{at}.context: expected one of {', '.join(CONTEXTS)}")
        form = _str(item.get("format", "oslo"), f"{at}.format")
        if form not in FORMATS:
            raise LogSpecError(f"{at}.format: expected one of {', '.join(FORMATS)}")
        when = item.get("at", 0)
        if isinstance(when, bool) or not isinstance(when, int | float):
            raise LogSpecError(f"{at}.at: expected a number of seconds")
        out.append(
            LogSpec(
                message=_str(item["message"], f"{at}.message"),
                level=level,
                logger=None if item.get("logger") is None else _str(item["logger"], f"{at}.logger"),
                service=None
                if item.get("service") is None
                else _str(item["service"], f"{at}.service"),
                context=context,
                exception=None
                if item.get("exception") is None
                else parse_raised(item["exception"], f"{at}.exception"),
                at=float(when),
                instance=None
                if item.get("instance") is None
                else _str(item["instance"], f"{at}.instance"),
                host=None if item.get("host") is None else _str(item["host"], f"{at}.host"),
                file=None if item.get("file") is None else _str(item["file"], f"{at}.file"),
                format=form,
            )
        )
    return tuple(out)
