"""Reading the curl commands and header dumps that the clients log.

Each client logs requests its own way: keystoneauth (``curl -g -i -X GET URL
-H "K: V" -d '...'``), heatclient's own HTTP client (URL last, single-quoted
headers), swiftclient (``curl -i URL -X GET``, a bare ``DELETE``, ``-I`` for
HEAD), and requests-era clients (``curl -i`` without ``-g``). These readers are
tolerant: a cut or wrapped line yields what it holds, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass

METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "COPY"})


@dataclass(slots=True)
class Curl:
    method: str
    url: str
    headers: str
    """The ``-H`` arguments, kept as logged; see ``osdoctor.headers.curl_headers``."""
    data: str | None
    data_open: bool = False
    """True when ``-d '`` is not closed on this line (a multi-line body follows)."""


def _tokens(text: str) -> list[str]:
    """Split on spaces, keeping quoted strings whole; an unclosed quote runs to the end."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == " ":
            i += 1
            continue
        if c in "\"'":
            j = text.find(c, i + 1)
            if j < 0:
                out.append(text[i + 1 :])
                break
            out.append(text[i + 1 : j])
            i = j + 1
            continue
        j = text.find(" ", i)
        if j < 0:
            j = n
        out.append(text[i:j])
        i = j
    return out


def parse_curl(text: str) -> Curl | None:
    """Read a logged curl command (the text after ``REQ: ``)."""
    data: str | None = None
    data_open = False
    cut = text.find(" -d '")
    if cut >= 0:
        rest = text[cut + 5 :]
        text = text[:cut]
        if rest.endswith("'"):
            data = rest[:-1]
        else:
            close = rest.rfind("' ")
            tail = rest[close + 2 :] if close >= 0 else ""
            if close >= 0 and tail.startswith(("http://", "https://")) and " " not in tail:
                data, text = rest[:close], text + " " + tail
            else:
                data, data_open = rest, True
    method = ""
    url = ""
    headers: list[str] = []
    tokens = _tokens(text)
    skip = False
    for i, tok in enumerate(tokens):
        if skip:
            skip = False
            continue
        if tok == "-X" and i + 1 < len(tokens):
            method = tokens[i + 1].upper()
            skip = True
        elif tok == "-H" and i + 1 < len(tokens):
            headers.append(tokens[i + 1])
            skip = True
        elif tok in ("--cacert", "--key", "--cert"):
            skip = True
        elif tok == "-I":
            method = method or "HEAD"
        elif tok.startswith(("http://", "https://")):
            url = url or tok
        elif tok in METHODS and not method:
            method = tok
    if not url:
        return None
    method = method or ("POST" if data is not None else "GET")
    return Curl(method, url, "\n".join(headers), data, data_open)


def split_url(url: str) -> tuple[str, str, str]:
    """(scheme://host:port, path, query) of a URL, tolerating cut URLs."""
    scheme_end = url.find("://")
    start = scheme_end + 3 if scheme_end >= 0 else 0
    slash = url.find("/", start)
    if slash < 0:
        base, rest = url, "/"
    else:
        base, rest = url[:slash], url[slash:]
    path, _, query = rest.partition("?")
    return base, path or "/", query


def header_location(raw_headers: str) -> str | None:
    """The Location header of a logged response, without parsing all headers."""
    at = raw_headers.find("Location: ")
    if at < 0:
        at = raw_headers.lower().find("location: ")
        if at < 0:
            return None
    value = raw_headers[at + 10 :]
    end = value.find(" ")
    return value if end < 0 else value[:end]
