"""Undoing what a web page or a ticket did to a pasted log, line by line.

Blogs wrap each line in ``<code>`` tags (and leave empty ``<code><code></code>``
lines), chat and Markdown put each line in backticks, a forum mirrored as
Markdown turns every URL into a link to itself (``[http://x](http://x)``), reStructuredText
indents a code block by two or four spaces, posters cut the middle out with
``...`` or a note of their own. None of it is the client's: what is left is
the line the client printed. Indentation is only removed in front of what
plainly starts a client's line, since a traceback's frames are indented by
nature.
"""

from __future__ import annotations

import re

from osdoctor import regex

_TAGS_HEAD = regex.compile(r"(?:\s*</?(?:code|pre|tt|samp|kbd)>)+")
_TAGS_TAIL = regex.compile(r"(?:</?(?:code|pre|tt|samp|kbd)>\s*)+$")
#: How osc-lib's and keystoneauth's own debug lines begin.
DEBUG_PREFIXES = (
    "START with options",
    "options: ",
    "Auth plugin",
    "auth_config_hook",
    "defaults: ",
    "cloud cfg:",
    "Using auth plugin",
    "Using parameters",
    "Get auth_ref",
    "command: ",
    "Failed to discover",
    "Making authentication",
    "Request returned failure status",
    "Failed to redirect",
    "run(Namespace",
    "take_action(Namespace",
    "boot_kwargs",
    "Negotiated API version",
    "No version header",
    "Remote API version",
    "Loading",
    "Attempting",
    "Failure: ",
    "Instantiating",
    "Connection pool",
    "Starting new",
    "Resetting dropped",
    "The above exception",
    "During handling of the above",
)
#: How the lines of a client's log (and of the tools around it) begin.
RECORD_STARTS = (
    r"REQ: |RESP(?: BODY)?:|RESP STATUS|RESP HEADERS|https?://\S+ \"[A-Z]+ |\"[A-Z]+ /|"
    r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|TRACE)\b|Traceback \(most recent|"
    r"Starting new HTTP|Resetting dropped|Making authentication|[A-Z]+ call to |"
    r"START with options|command: |clean_up |END return value|curl -|send: |reply: |header: |"
    r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d|\[[\w.\-]+@|[\w.\-]+@[\w.\-]+:|[$#] |"
    r"level=\w+ |fatal: \[|\{\"token\": "
)
#: What an indented line must start with to lose its indentation: a record, or a
#: table's border or row (a show or list pasted inside an indented block).
_DEINDENT = regex.compile(f"(?:{RECORD_STARTS}|\\+-|\\| )")
#: A poster's elision: "...", "......", "...(omitted)...", "[... collector: ...]", "--- (...) ---".
_ELISION = regex.compile(
    r"(?:\.{3,}|\u2026)(?:\S{0,24}(?:\.{3,}|\u2026))?|\[(?:\.\.\.|\u2026)[^\]]*\]?|"
    r"-{3,} .*-{3,}|\((?:\.\.\.|\u2026|snip|omitted|truncated)[^)]*\)|<snip>|\[snip\]"
)


#: A Markdown link whose text is its own target, as a mirror writes a bare URL.
_SELF_LINK = regex.compile(r"\[(?P<text>[^\[\]\s]{1,2000})\]\((?P<target>[^()\s]{1,2000})\)")


def unlink(text: str) -> str:
    """``text`` with every Markdown link to itself (``[http://x](http://x)``,
    ``[a@b.c](mailto:a@b.c)``) back to the bare URL or address it was; a link
    whose text says something else is the poster's and stays."""
    if "](" not in text:
        return text

    def bare(m: re.Match[str]) -> str:
        shown, target = m["text"], m["target"]
        if target in (shown, f"mailto:{shown}", f"http://{shown}", f"https://{shown}"):
            return shown
        return m[0]

    return _SELF_LINK.sub(bare, text)


def unpaste(raw: str) -> tuple[str, int]:
    """(the line without tags, backticks and block indentation, the indentation
    removed)."""
    text = raw
    if "<" in text and (">" in text):
        head = _TAGS_HEAD.match(text)
        if head:
            text = text[head.end() :]
        tail = _TAGS_TAIL.search(text)
        if tail:
            text = text[: tail.start()]
    if text[:1] == "`":
        if text.startswith("```"):
            return "", 0  # a Markdown fence
        inner = text.rstrip()
        if len(inner) > 1 and inner.endswith("`") and "`" not in inner[1:-1]:
            text = inner[1:-1]
    indent = 0
    if text[:1] in (" ", "\t"):
        body = text.lstrip(" \t")
        depth = len(text) - len(body)
        if depth <= 8 and body and _DEINDENT.match(body):
            text, indent = body, depth
    return text, indent


#: A table drawn with box characters (comfy-table's UTF-8 presets, which the Rust
#: ``osc`` prints with UTF8_FULL_CONDENSED: ``│ name ┆ value │``, a ``╞═╪═╡`` under
#: the header, ``┌─┬─┐`` and ``└─┴─┘`` around it) reads as cliff's ASCII table.
#: Every box character becomes one ASCII character, so the line keeps its width.
BOX_FIRST = frozenset("│┃║┆┊┌┏╔╭├┣╠╞╟└┗╚╰")
_BOX_ROW = str.maketrans(dict.fromkeys("│┃║┆┇┊┋╎╏", "|"))
_BOX_BORDER = str.maketrans(
    {
        **dict.fromkeys("─━╌╍┄┅┈┉", "-"),
        **dict.fromkeys("═", "="),
        **dict.fromkeys("┌┐└┘╭╮╰╯├┤┬┴┼┏┓┗┛┣┫┳┻╋╔╗╚╝╠╣╦╩╬╞╡╪╤╧╟╢╥╨╫", "+"),
    }
)
_BORDER_CHARS = frozenset("─━╌╍┄┅┈┉═┌┐└┘╭╮╰╯├┤┬┴┼┏┓┗┛┣┫┳┻╋╔╗╚╝╠╣╦╩╬╞╡╪╤╧╟╢╥╨╫ ")


def unbox(text: str) -> str:
    """A line of a box-drawn table as the same line of an ASCII one (``+---+``,
    ``| a | b |``); any other line as it is."""
    if text[:1] not in BOX_FIRST:
        return text
    body = text.rstrip()
    if all(c in _BORDER_CHARS for c in body):
        return text.translate(_BOX_BORDER)
    if text[0] in "│┃║" and body[-1:] in ("│", "┃", "║"):
        # A row is closed on the right; terraform's "│ Error: ..." box is not a table.
        return text.translate(_BOX_ROW)
    return text


def is_elision(text: str) -> bool:
    """Whether a line is a gap the poster left rather than output."""
    body = text.strip()
    if not body or body[0] not in ".[-(<\u2026":
        return False
    m = _ELISION.fullmatch(body)
    return m is not None
