"""Reading the headers of a logged request or response into a dict.

Below the model (``Request.headers`` and ``Response.headers`` read their raw
text with these, when asked) and so below the parser: nothing here imports
the rest of osdoctor.
"""

from __future__ import annotations

from osdoctor import regex

_HEADER_NAME = regex.compile(r"(?:^|(?<=\s))([A-Za-z][A-Za-z0-9_\-]*): ")
_DICT_PAIR = regex.compile(r"""['"]([^'"]+)['"]\s*:\s*(?:'([^']*)'|"([^"]*)"|([^,}]+))""")


def curl_headers(raw: str) -> dict[str, str]:
    """Headers from ``osdoctor.parse.http_text.Curl.headers`` (one ``K: V`` per line)."""
    out: dict[str, str] = {}
    for item in raw.split("\n"):
        key, sep, value = item.partition(":")
        if sep:
            out[key.strip()] = value.strip()
    return out


def resp_headers(raw: str) -> dict[str, str]:
    """Headers from a ``RESP: [200] K: V K2: V2`` line, or a logged dict repr
    (``{'k': 'v'}``, ``CaseInsensitiveDict({...})``)."""
    raw = raw.strip()
    if raw.startswith(("{", "CaseInsensitiveDict(", "HTTPHeaderDict(")):
        return {
            m.group(1): (m.group(2) or m.group(3) or m.group(4) or "").strip()
            for m in _DICT_PAIR.finditer(raw)
        }
    marks = list(_HEADER_NAME.finditer(raw))
    out: dict[str, str] = {}
    for k, m in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(raw)
        out[m.group(1)] = raw[m.end() : end].strip()
    return out
