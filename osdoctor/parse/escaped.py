"""The client's lines inside another tool's escaped report.

Ansible prints a failed task as one line of JSON (``fatal: [host]: FAILED! =>
{"stderr": "line\\nline", "cmd": ...}``; the openstack.cloud modules add the
service's answer body as ``extra_data.response``); openshift-install wraps every line of
terraform's log in ``level=debug msg="..."`` with its quotes escaped. The
client's output is in there, one ``\\n`` per line: it is taken out and read as
lines. A report cut or wrapped by the paste does not parse as JSON; its
escapes are then undone piece by piece, which is linear and never fails.
"""

from __future__ import annotations

import json
import re
from typing import Any

from osdoctor import regex

_ANSIBLE = regex.compile(r"(?:fatal|failed|changed|ok|skipping): \[[^\]]*\]")
_LEVEL_MSG = regex.compile(r'level=(\w+)(?: msg="(.*)"?)?$')
#: Ansible result keys that hold what the task printed, in the order shown.
_OUTPUT_KEYS = ("cmd", "stdout", "stderr", "module_stdout", "module_stderr", "msg", "exception")
# A line break of the escaped text, or the seam between two JSON string values.
_SEAM = regex.compile(r'\\n|(?:(?<!\\)")?, "[\w\-]+": "?')
_ESCAPE = regex.compile(r"\\(u[0-9a-fA-F]{4}|.)")
_SIMPLE = {"n": "\n", "t": "\t", "r": "", '"': '"', "\\": "\\", "/": "/", "'": "'"}
#: The resources the openstack.cloud modules hand back in ``extra_data`` when one
#: failed (``server``: the server in ERROR, its ``fault`` beside its status).
_RESOURCE_KEYS = ("server", "volume", "stack", "image", "node")
#: Lines taken out of one report at most.
MAX_LINES = 2000


def _unescape_match(m: re.Match[str]) -> str:
    code = m.group(1)
    if len(code) == 5:
        try:
            return chr(int(code[1:], 16))
        except ValueError:
            return m.group(0)
    return _SIMPLE.get(code, m.group(0))


def unescape(text: str) -> str:
    """Undo one level of JSON string escapes (``\\"``, ``\\\\``, ``\\t``)."""
    if "\\" not in text:
        return text
    return _ESCAPE.sub(_unescape_match, text)


def looks_escaped(text: str) -> bool:
    """A line of escaped output: an Ansible result, a ``level=... msg=`` line, or
    text holding escaped newlines and quotes."""
    if _ANSIBLE.match(text) and " => " in text:
        return True
    if text.startswith("level="):
        return True
    return text.count("\\n") >= 2 and '\\"' in text


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [" ".join(value)] if value and "\n" not in "".join(value) else list(value)
    return []


def expand(text: str) -> tuple[str | None, list[str], str | None]:
    """(the report's own words, such as ``fatal: [host]: FAILED!``, the lines
    inside it, the command it ran when it says so)."""
    lines: list[str] = []
    command: str | None = None
    m = _LEVEL_MSG.match(text)
    if text.startswith("level="):
        if m is None or m.group(2) is None:
            return text, [], None
        body = m.group(2)
        if body.endswith('"') and not body.endswith('\\"'):
            body = body[:-1]
        return None, _split(body), None
    at = text.find(" => {")
    if at >= 0 and _ANSIBLE.match(text):
        head, report = text[:at], text[at + 4 :]
        try:
            data = json.loads(report)
        except ValueError:
            data = None
        if isinstance(data, dict):
            for key in _OUTPUT_KEYS:
                for value in _strings(data.get(key)):
                    if key == "cmd" and command is None:
                        command = value
                    lines.extend(value.split("\n"))
            extra = data.get("extra_data")
            if isinstance(extra, dict):
                # openstack.cloud's modules: the SDK exception's answer body
                for value in _strings(extra.get("response")):
                    lines.extend(value.split("\n"))
                # ... or the resource that went to ERROR ("Error in creating the
                # server", extra_data.server): read as `-f json` prints one.
                for kind in _RESOURCE_KEYS:
                    resource = extra.get(kind)
                    if isinstance(resource, dict) and resource:
                        lines.append(json.dumps(resource))
            return head, lines[:MAX_LINES], command
        return head, _split(report), None
    return None, _split(text), None


def _split(text: str) -> list[str]:
    """Lines of escaped text that did not parse: its newlines and the seams
    between its string values cut it; each piece is unescaped."""
    out: list[str] = []
    pos = 0
    for m in _SEAM.finditer(text):
        out.append(unescape(text[pos : m.start()]))
        pos = m.end()
        if len(out) >= MAX_LINES:
            return out
    out.append(unescape(text[pos:]))
    return out
