"""Text set in CommonMark so that it reads as it was written, on GitHub, GitLab or
any other renderer: the report's Markdown and the runbook's pages share it.

A log's words and the knowledge's prose are full of what Markdown means
something by: ``<network>`` and ``/etc/<service>/`` are HTML tags (which
GitHub hides), ``'^\\[keystone_authtoken\\]'`` loses its backslashes, ``*`` and
``_`` start emphasis, ``[...]`` a link. Prose is escaped; a word holding angle
brackets, and a next step's command, are set as code, which needs no escaping
and is ready to copy.
"""

from __future__ import annotations

import re

from osdoctor.render.next_steps import split_step

#: A word holding angle brackets (``/servers/<id>``, ``2>&1``, ``<resource name>``).
_ANGLED = re.compile(r"(?:[^\s`<>]*(?:<[^<>`\n]{1,60}>|[<>]))+[^\s`<>]*")
_OPEN, _CLOSE = "(\"'", ".,;:!?)\"'"
#: Characters Markdown reads inline: escaped wherever they are (a tilde starting a
#: home folder, ``~/.config``, opens no strikethrough).
_INLINE = re.compile(r"[\\`*\[\]&]|~(?!/)")
#: An underscore that could open or close emphasis: not inside a word (``auth_url``).
_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
#: What makes a line a heading, a quote, a list item or a rule when it starts one.
_BLOCK_START = re.compile(r"^(?:[-+*](?=\s|$)|#{1,6}(?=\s|$)|>|\d{1,9}[.)](?=\s|$))")


def _plain(value: str) -> str:
    value = _INLINE.sub(lambda m: "\\" + m.group(0), value)
    return _UNDERSCORE.sub(r"\\_", value)


def text(value: str) -> str:
    """Prose for Markdown, read back as written. Angle brackets would be HTML, and
    their entities are unreadable in the source: a word that holds one is set as
    code (``GET `/servers/<id>` ``, `` `2>&1` ``); the rest is escaped."""
    out: list[str] = []
    pos = 0
    for m in _ANGLED.finditer(value):
        start, end = m.start(), m.end()
        while start < end and value[start] in _OPEN and value[start] != "<":
            start += 1
        while (
            end > start
            and value[end - 1] in _CLOSE
            and not (value[end - 1] == ")" and "(" in value[start : end - 1])
        ):
            end -= 1
        out.append(_plain(value[pos:start]))
        out.append(code(value[start:end]))
        pos = end
    out.append(_plain(value[pos:]))
    said = "".join(out)
    return "\\" + said if _BLOCK_START.match(said) else said


def cell(value: str) -> str:
    """A table cell's text: a pipe would end the cell."""
    return value.replace("|", "\\|").replace("\n", " ")


def code(value: str) -> str:
    """An inline code span that survives backticks in the text."""
    longest = max((len(m) for m in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def step(value: str) -> str:
    """A next step for Markdown: its command as code, ready to copy; the comment
    after it (``   # why``) as prose."""
    before, command, after = split_step(value)
    if not command:
        return text(value)
    command, hash_, comment = command.partition("   # ")
    tail = f"   # {comment}" if hash_ else ""
    return text(before) + code(command.rstrip()) + text(tail + after)
