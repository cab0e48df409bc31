"""Error bodies shaped as each OpenStack service shapes them.

The clients parse these bodies to build their error messages, so a case that
says ``fault: {style: heat, message: ...}`` gets the message printed exactly as
a real Heat would make the client print it.
"""

from __future__ import annotations

import json
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
    500: "The server has either erred or is incapable of performing the requested operation.",
    503: "The server is currently unavailable. Please try again at a later time.",
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


def reason(status: int) -> str:
    """The standard reason phrase of ``status`` ("Unknown" when there is none)."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def fault_body(fault: Fault, status: int) -> tuple[Any, str]:
    """The body (JSON-able, or text) and Content-Type of ``fault`` answered with ``status``."""
    title = reason(status)
    if fault.style == "heat":
        return {
            "explanation": _EXPLANATIONS.get(status, title),
            "code": status,
            "error": {
                "message": fault.message,
                "traceback": None,
                "type": fault.type or title.replace(" ", ""),
            },
            "title": title,
        }, JSON
    if fault.style == "ironic":
        inner = {
            "faultstring": fault.message,
            "faultcode": "Client" if status < 500 else "Server",
            "debuginfo": None,
        }
        return {"error_message": json.dumps(inner)}, JSON
    if fault.style == "nova":
        key = fault.type or _NOVA_KEYS.get(status, "computeFault")
        return {key: {"code": status, "message": fault.message}}, JSON
    if fault.style == "keystone":
        return {"error": {"code": status, "message": fault.message, "title": title}}, JSON
    if fault.style == "neutron":
        kind = fault.type or f"HTTP{title.replace(' ', '')}"
        return {"NeutronError": {"type": kind, "message": fault.message, "detail": ""}}, JSON
    return f"{status} {title}\n\n{fault.message}\n", "text/plain; charset=UTF-8"
