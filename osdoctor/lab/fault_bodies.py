"""Error bodies shaped as each OpenStack service shapes them.

The clients parse these bodies to build their error messages, so a case that
says ``fault: {style: heat, message: ...}`` gets the message printed exactly as
a real Heat would make the client print it.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any

from osdoctor.lab.config import Fault

# webob's explanations, which Heat copies into its fault bodies.
_EXPLANATIONS = {
    400: "The server could not comply with the request since it is either malformed "
    "or otherwise incorrect.",
    401: "This server could not verify that you are authorized to access the document "
    "you requested. Either you supplied the wrong credentials (e.g., bad password), or "
    "your browser does not understand how to supply the credentials required.",
    403: "Access was denied to this resource.",
    404: "The resource could not be found.",
    409: "There was a conflict when trying to complete your request.",
    413: "The request is larger than the server is willing or able to process.",
    500: "The server has either erred or is incapable of performing the requested operation.",
    503: "The server is currently unavailable. Please try again at a later time.",
}

# What the load balancers in front of OpenStack APIs answer by themselves: HAProxy's
# http_err_msgs (src/http.c) and nginx's error pages (ngx_http_special_response.c),
# byte for byte, with their own reason phrases.
_HAPROXY = {
    500: ("Internal Server Error", "An internal server error occurred."),
    502: ("Bad Gateway", "The server returned an invalid or incomplete response."),
    503: ("Service Unavailable", "No server is available to handle this request."),
    504: ("Gateway Time-out", "The server didn't respond in time."),
}
_NGINX_REASONS = {
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Temporarily Unavailable",
    504: "Gateway Time-out",
}

_NOVA_KEYS = {
    400: "badRequest",
    401: "unauthorized",
    403: "forbidden",
    404: "itemNotFound",
    405: "badMethod",
    409: "conflictingRequest",
    413: "overLimit",
    415: "badMediaType",
    429: "overLimit",
    501: "notImplemented",
    503: "serviceUnavailable",
}

JSON = "application/json"
HTML = "text/html"


@dataclass(frozen=True, slots=True)
class FaultReply:
    """A fault's body and the way it is sent."""

    body: Any
    content_type: str
    reason: str | None = None
    """A reason phrase other than the standard one (HAProxy's ``Gateway Time-out``)."""
    server: str | None = None
    """The Server header, when the answer is not the stub's (``nginx``); "" for none."""
    balancer: bool = False
    """Sent by a load balancer: no OpenStack request id, no service headers."""


def reason(status: int) -> str:
    """The standard reason phrase of ``status`` ("Unknown" when there is none)."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def _webob_parts(status: int, explanation: str, detail: str) -> tuple[str, str]:
    """webob's ``status`` line and the body_template fill of an HTTP exception."""
    return f"{status} {reason(status)}", f"{explanation}<br /><br />\n{detail}\n\n"


def _strip_tags(value: str) -> str:
    """webob.exc.strip_tags: newlines to spaces, <br> to newlines, tags dropped."""
    value = value.replace("\n", " ").replace("\r", "")
    value = re.sub(r"<br.*?>", "\n", value, flags=re.I | re.S)
    value = re.sub(r"<!--|-->", "", value)
    return re.sub(r"<.*?>", "", value, flags=re.S)


def _accepts(accept: str) -> str:
    """The format webob picks from an Accept header: html, json or plain."""
    if not accept.strip():
        return "html"
    offers = [part.split(";")[0].strip().lower() for part in accept.split(",")]
    for offer in offers:
        if offer in ("text/html", "text/*", "*/*"):
            return "html"
        if offer in ("application/json", "application/*"):
            return "json"
    return "plain"


def webob_body(status: int, explanation: str, detail: str, accept: str) -> tuple[Any, str]:
    """The body webob gives an HTTPException, chosen by the request's Accept header."""
    line, filled = _webob_parts(status, explanation, detail)
    kind = _accepts(accept)
    if kind == "html":
        _, escaped = _webob_parts(status, html.escape(explanation), html.escape(detail))
        page = (
            f"<html>\n <head>\n  <title>{line}</title>\n </head>\n <body>\n"
            f"  <h1>{line}</h1>\n  {escaped}\n </body>\n</html>"
        )
        return page, "text/html; charset=UTF-8"
    if kind == "json":
        return {"message": filled, "code": line, "title": reason(status)}, JSON
    return f"{line}\n\n{_strip_tags(filled)}", "text/plain; charset=UTF-8"


def fault_body(
    fault: Fault, status: int, request_id: str = "", headers: Mapping[str, str] | None = None
) -> tuple[Any, str]:
    """The body (JSON-able, or text) and Content-Type of ``fault`` answered with ``status``."""
    reply = fault_reply(fault, status, request_id, headers or {})
    return reply.body, reply.content_type


def fault_reply(
    fault: Fault, status: int, request_id: str, headers: Mapping[str, str]
) -> FaultReply:
    """The answer a service (or the balancer in front of it) sends for ``fault``.

    ``request_id`` is the one the answer carries (Placement and Designate repeat it
    in the body); ``headers`` are the request's (webob picks its format by Accept).
    """
    title = reason(status)
    style = fault.style
    if style == "heat":
        return FaultReply({
            "explanation": _EXPLANATIONS.get(status, title),
            "code": status,
            "error": {
                "message": fault.message,
                "traceback": None,
                "type": fault.type or title.replace(" ", ""),
            },
            "title": title,
        }, JSON)  # fmt: skip
    if style == "ironic":
        inner = {
            "faultstring": fault.message,
            "faultcode": "Client" if status < 500 else "Server",
            "debuginfo": None,
        }
        return FaultReply({"error_message": json.dumps(inner)}, JSON)
    if style in ("nova", "cinder"):
        key = fault.type or _NOVA_KEYS.get(status, "computeFault")
        return FaultReply({key: {"code": status, "message": fault.message}}, JSON)
    if style == "keystone":
        return FaultReply(
            {"error": {"code": status, "message": fault.message, "title": title}}, JSON
        )
    if style == "neutron":
        kind = fault.type or f"HTTP{title.replace(' ', '')}"
        return FaultReply(
            {"NeutronError": {"type": kind, "message": fault.message, "detail": ""}}, JSON
        )
    if style == "placement":
        # placement.util.json_error_formatter: webob's default explanation, then the detail.
        _, filled = _webob_parts(status, _EXPLANATIONS.get(status, title), fault.message)
        error = {
            "status": status,
            "title": title,
            "detail": _strip_tags(filled),
            "code": fault.type or "placement.undefined_code",
            "request_id": request_id,
        }
        return FaultReply({"errors": [error]}, JSON)
    if style == "webob":
        # Glance and other plain-webob services: the message is the explanation.
        accept = next((v for k, v in headers.items() if k.lower() == "accept"), "")
        body, content_type = webob_body(status, fault.message, "", accept)
        return FaultReply(body, content_type)
    if style == "designate":
        return FaultReply({
            "code": status,
            "type": fault.type or "unknown",
            "message": fault.message,
            "request_id": request_id,
        }, JSON)  # fmt: skip
    if style == "barbican":
        return FaultReply({"code": status, "title": title, "description": fault.message}, JSON)
    if style == "octavia":
        return FaultReply({
            "faultcode": "Client" if status < 500 else "Server",
            "faultstring": fault.message,
            "debuginfo": None,
        }, JSON)  # fmt: skip
    if style == "haproxy":
        phrase, text = _HAPROXY.get(status, (title, fault.message))
        page = f"<html><body><h1>{status} {phrase}</h1>\n{text}\n</body></html>\n"
        return FaultReply(page, HTML, reason=phrase, server="", balancer=True)
    if style == "nginx":
        phrase = _NGINX_REASONS.get(status, title)
        page = (
            f"<html>\r\n<head><title>{status} {phrase}</title></head>\r\n<body>\r\n"
            f"<center><h1>{status} {phrase}</h1></center>\r\n"
            "<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
        )
        return FaultReply(page, HTML, reason=phrase, server="nginx", balancer=True)
    return FaultReply(f"{status} {title}\n\n{fault.message}\n", "text/plain; charset=UTF-8")
