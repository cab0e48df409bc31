"""The record shapes of clients older or other than keystoneauth's.

- httplib's debug dump (``http.client.HTTPConnection.debuglevel``), which
  clients of 2011-2013 switched on with ``--debug``: ``send: 'GET /v1.1/x
  HTTP/1.1\\r\\nHost: h\\r\\n...'``, ``reply: 'HTTP/1.1 200 OK\\r\\n'``,
  ``header: K: V``, then novaclient's ``RESP:{'status': '200', ...} {body}``.
- requests 1.x's urllib3 line without scheme and host: ``"POST /v2.0/tokens
  HTTP/1.1" 401 116``.
- gophercloud (terraform, openshift-install): ``Expected HTTP response code
  [202] when accessing [PUT URL], but got 409 instead``.
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
    if "Expected HTTP response code" not in text:
        return None
    m = _GOPHER.search(text)
    if m is None:
        return None
    return m.group(1), m.group(2), int(m.group(3))
