"""The service's own error text, from every body shape OpenStack services answer with.

Nova and Cinder wrap it in a key naming the fault (``itemNotFound``), Neutron in
``NeutronError``, Keystone in ``error``, Heat beside an ``explanation``, Ironic
as a JSON string inside ``error_message``, Placement and Magnum in an
``errors`` list, Designate flat with a ``type``, Barbican and pecan services
flat with a ``description``, WSME services (Octavia, Aodh) with
``faultstring``; webob and proxies answer plain text or HTML. Pasted logs
carry the same bodies with their quotes escaped once or more.

Which JSON shape is whose, and which of its keys hold the message, the class and
the code, is knowledge: ``faults`` of ``knowledge/services.yaml``, read through
``osdoctor.faultwords``. What is here is the walking: the shapes tried in order, a
JSON text inside a string, escaped quotes, HTML pages and tracebacks.
"""

from __future__ import annotations

import json
import re
from typing import Any

from osdoctor import regex
from osdoctor.facts.facts_model import Fault
from osdoctor.faultwords import FaultShape, words

_MAX = 600
# HTML markup only: Nova's "<class 'neutronclient...Unauthorized'>" is words, not a tag.
_TAG = regex.compile(
    r"<(?:!DOCTYPE|/?(?:html|head|body|title|h[1-6]|p|br|hr|pre|center|a|div|span|"
    r"b|i|em|strong|address|code|meta|link|style|script|ul|li|table|tr|td))\b[^>]*>",
    re.I,
)
_SPACE = regex.compile(r"\s+")
_TITLE = regex.compile(r"<title>(.*?)</title>", re.I | re.S)
_H1 = regex.compile(r"<h1>(.*?)</h1>", re.I | re.S)
OMITTED = "Omitted, Content-Type is set to"


def _clean(text: Any) -> str:
    value = str(text)
    if "&" in value:  # html.unescape leaves a text without one as it is
        from html import unescape

        value = unescape(value)
    value = _SPACE.sub(" ", _TAG.sub(" ", value)).strip()
    return value if len(value) <= _MAX else value[: _MAX - 1] + "…"


def _text(value: Any) -> str:
    return "" if value is None else _clean(value)


def from_json(data: Any) -> Fault | None:
    """A fault from a parsed JSON body; None when the body is not an error shape.
    The shapes, and the order they are tried in, are ``faults.shapes`` of
    ``knowledge/services.yaml``."""
    if not isinstance(data, dict) or not data:
        return None
    for shape in words().shapes:
        fault = _read(shape, data)
        if fault is not None:
            return fault
    return None


def _read(shape: FaultShape, data: dict[str, Any]) -> Fault | None:
    """The fault of a body in this shape, or None when the body is not in it."""
    if shape.key == "*":
        if len(data) != 1:
            return None
        ((name, value),) = data.items()
    elif shape.key in data:
        name, value = shape.key, data[shape.key]
    else:
        return None
    if not all(key in data for key in shape.beside) or (
        shape.beside_one and not any(key in data for key in shape.beside_one)
    ):
        return None
    inner: Any = value
    if shape.value == "flat":
        inner = data
    elif shape.value == "mapping" and not isinstance(value, dict):
        return None
    elif shape.value == "list":
        if not isinstance(value, list) or not value:
            return None
        inner = value[0]
    elif shape.value == "json" and isinstance(value, str):
        try:
            inner = json.loads(value)
        except ValueError:
            return Fault(_text(value), shape.shape)
    if not isinstance(inner, dict):
        return Fault(_text(inner), shape.shape)
    if not all(key in inner for key in shape.inside) or (
        shape.names and name not in shape.names and not any(k in inner for k in shape.or_inside)
    ):
        return None

    def part(keys: tuple[str, ...]) -> str:
        for key in keys:
            if key == "@":
                return name
            said = _text(data.get(key[1:]) if key[:1] == "/" else inner.get(key))
            if said:
                return said
        return ""

    return Fault(
        part(shape.message), shape.shape, part(shape.type), part(shape.code), part(shape.detail)
    )


def from_html(text: str) -> Fault:
    """An HTML error page: its heading and text, without the markup."""
    title = _TITLE.search(text)
    h1 = _H1.search(text)
    body = _clean(text)
    found = title or h1
    heading = _clean(found.group(1)) if found else ""
    if heading and body.startswith(heading):
        body = body[len(heading) :].strip()
    if h1 and body.startswith(_clean(h1.group(1))):
        body = body[len(_clean(h1.group(1))) :].strip()
    message = f"{heading}: {body}" if heading and body else heading or body
    return Fault(message, "html", heading)


def from_body(text: str | None, parsed: Any = None, omitted: str | None = None) -> Fault | None:
    """The fault of a response body as logged (JSON, HTML, plain text, or omitted)."""
    if omitted:
        kind = "text/html" if "text/html" in omitted else omitted.partition("set to")[2].strip(" .")
        return Fault(
            f"the body was not logged (Content-Type {kind or 'not JSON'}): usually a "
            "proxy's or load balancer's page, not the API's own answer",
            "omitted",
        )
    if not text or not text.strip():
        return None
    if parsed is not None:
        fault = from_json(parsed)
        if fault is not None:
            return fault
    stripped = text.strip()
    if stripped.startswith(OMITTED):
        return from_body(None, None, stripped)
    if stripped[:1] == "{":
        return _decode_prefix(stripped) or in_text(stripped)
    if "<" in stripped and re.search(r"<(html|body|h1|title|!doctype)", stripped, re.I):
        return from_html(stripped)
    if stripped.startswith("Traceback (most recent call last)"):
        # A service that answered with its own traceback (a debug filter, a
        # crashed WSGI app): its last line is the error.
        last = next((ln.strip() for ln in reversed(stripped.splitlines()) if ln.strip()), "")
        kind, sep, _rest = last.partition(": ")
        return Fault(_clean(last), "plain", kind.rpartition(".")[2] if sep else "")
    return Fault(_clean(stripped), "plain")


def _unescape(text: str) -> str:
    """One level of JSON string escaping undone: ``\\"`` -> ``"``, ``\\\\`` -> ``\\``."""
    return text.replace("\\\\", "\x00").replace('\\"', '"').replace("\x00", "\\")


#: A fault body opening inside a printed line, its quotes escaped any levels deep.
_EMBED = regex.compile(r'\{\s*(?:\\*")(?:' + "|".join(words().openings) + r')(?:\\*")\s*:')


#: The flat body of webob, pecan and wsme services (sysinv, keystonemiddleware):
#: ``{"message": ..., "code": "503 Service Unavailable", "title": ...}``. Its keys are
#: common words, so it counts as a fault only with an HTTP status for its code.
_FLAT = regex.compile(r'\{\s*(?:\\*")(?:message|title|code)(?:\\*")\s*:')
_FLAT_CODE = regex.compile(r'"code"\s*:\s*"?[45]\d\d\b')


def starts_fault(text: str) -> bool:
    """Whether a fault body starts in ``text`` (which may not hold all of it)."""
    return _EMBED.search(text) is not None or _FLAT.search(text) is not None


def in_text(text: str) -> Fault | None:
    """A fault body quoted inside a printed line (a ``RESP BODY:`` line on its own,
    a Go or Ansible message with the JSON escaped one or more levels deep)."""
    m = _EMBED.search(text)
    if m is None:
        m = _FLAT.search(text)
        if m is None or _FLAT_CODE.search(text, m.start()) is None:
            return None
    candidate = text[m.start() :]
    for _level in range(4):
        fault = _decode_prefix(candidate)
        if fault is not None:
            return fault
        if '\\"' not in candidate:
            break
        candidate = _unescape(candidate)
    return None


def _decode_prefix(text: str) -> Fault | None:
    try:
        data, _end = json.JSONDecoder(strict=False).raw_decode(text)
    except ValueError:
        return None
    return from_json(data)
