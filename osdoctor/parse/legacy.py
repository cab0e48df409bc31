"""The record shapes of clients older or other than keystoneauth's.

- httplib's debug dump (``http.client.HTTPConnection.debuglevel``), which
  clients of 2011-2013 switched on with ``--debug``: ``send: 'GET /v1.1/x
  HTTP/1.1\\r\\nHost: h\\r\\n...'``, ``reply: 'HTTP/1.1 200 OK\\r\\n'``,
  ``header: K: V``, then novaclient's ``RESP:{'status': '200', ...} {body}``.
- requests 1.x's urllib3 line without scheme and host: ``"POST /v2.0/tokens
  HTTP/1.1" 401 116``.
- gophercloud (terraform, openshift-install): ``Expected HTTP response code
  [202] when accessing [PUT URL], but got 409 instead``; and the words its
  ``ErrDefault400`` and ``ErrDefault403`` print since 2016 (the Kubernetes CSI
  drivers, velero, terraform), the answer's body on the same line: ``Bad request
  with: [POST URL], error message: {"badRequest": ...}``, ``Request forbidden:
  [GET URL], error message: ...``.
"""

from __future__ import annotations

from dataclasses import dataclass

from osdoctor import regex

BARE_URLLIB3 = regex.compile(r'"([A-Z]+) (/\S*) HTTP/[\d.]+" (\d{3}) (\S+)')
_REPLY = regex.compile(r"""reply: [ub]?['"]HTTP/[\d.]+ (\d{3}) ?([^\\'"]*)""")
_GOPHER = regex.compile(
    r"Expected HTTP response code \[[^\]]*\] when accessing "
    r"\[([A-Z]+) (\S+?)\], but got (\d{3}) instead"
)
_GOPHER_DEFAULT = regex.compile(
    r"(Bad request|Request forbidden) with: \[([A-Z]+) (\S+?)\], error message: "
)
_GOPHER_DEFAULT_STATUS = {"Bad request": 400, "Request forbidden": 403}
_STATUS_KEY = regex.compile(r"""['"]status['"]\s*:\s*['"]?(\d{3})""")


@dataclass(slots=True)
class Sent:
    method: str
    path: str
    host: str | None
    headers: str
    """``K: V`` per line, as ``http_text.curl_headers`` reads them."""
    body: str | None


def parse_send(text: str) -> Sent | str | None:
    """httplib's ``send:`` repr: the request it starts, or the body it carries
    alone (a str), or None when it is neither."""
    quote_at = 0
    while quote_at < len(text) and text[quote_at] in "ub":
        quote_at += 1
    raw = text[quote_at:]
    if raw[:1] in ("'", '"'):
        raw = raw[1:-1] if raw.endswith(raw[0]) else raw[1:]
    head, sep, body = raw.partition("\\r\\n\\r\\n")
    parts = head.split("\\r\\n")
    first = parts[0].split(" ")
    if len(first) == 3 and first[0].isupper() and first[2].startswith("HTTP/"):
        headers = [p for p in parts[1:] if ": " in p]
        host = next((p.partition(": ")[2] for p in headers if p.lower().startswith("host:")), None)
        return Sent(first[0], first[1], host, "\n".join(headers), body if sep and body else None)
    return raw or None


def parse_reply(text: str) -> tuple[int, str | None] | None:
    m = _REPLY.match(text)
    if m is None:
        return None
    return int(m.group(1)), (m.group(2).strip() or None)


def split_dict_resp(text: str) -> tuple[int | None, str, str | None]:
    """A response logged as a dict repr (``{'status': '200', ...} {body}`` or
    ``CaseInsensitiveDict({...}) {body}``): (status from the dict, the dict, the
    body on the same line)."""
    depth = 0
    quote = ""
    end = -1
    for i, c in enumerate(text):
        if quote:
            if c == quote and text[i - 1] != "\\":
                quote = ""
        elif c in "'\"":
            quote = c
        elif c in "{(":
            depth += 1
        elif c in "})":
            depth -= 1
            if depth == 0:
                end = i + 1
                break
    if end < 0:
        return _status_of(text), text, None
    headers, body = text[:end], text[end:].strip()
    return _status_of(headers), headers, body or None


def _status_of(headers: str) -> int | None:
    m = _STATUS_KEY.search(headers)
    return int(m.group(1)) if m else None


def gophercloud(text: str) -> tuple[str, str, int] | None:
    """(method, URL, status) of gophercloud's unexpected-status error."""
    if "Expected HTTP response code" in text:
        m = _GOPHER.search(text)
        if m is not None:
            return m.group(1), m.group(2), int(m.group(3))
    found = gophercloud_default(text)
    return found[:3] if found is not None else None


def gophercloud_default(text: str) -> tuple[str, str, int, str | None] | None:
    """(method, URL, status, body) of gophercloud's ``Bad request with: [M URL],
    error message: BODY`` (400) or ``Request forbidden: ...`` (403): the body is
    the JSON object that follows, unescaped when the line was quoted (a
    ``msg="..."``), or None when none does."""
    if "], error message: " not in text:
        return None
    m = _GOPHER_DEFAULT.search(text)
    if m is None:
        return None
    rest = text[m.end() :]
    if rest.startswith('{\\"') or rest.startswith('{\\\\\\"'):
        while '\\"' in rest:
            rest = rest.replace('\\"', '"')
    return m.group(2), m.group(3), _GOPHER_DEFAULT_STATUS[m.group(1)], _json_object(rest)


def _json_object(text: str) -> str | None:
    """The JSON object ``text`` starts with (braces balanced outside strings)."""
    if not text.startswith("{"):
        return None
    depth = 0
    quoted = False
    for i, c in enumerate(text):
        if quoted:
            if c == '"' and text[i - 1] != "\\":
                quoted = False
        elif c == '"':
            quoted = True
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[: i + 1]
    return None
