"""Passwords a service's own text lists as ``user:password`` lines.

A server's console (``openstack console log show``) holds what the guest
wrote: cloud-init's ``Set the following 'random' passwords`` followed by one
``root:S`` line a user, and a user-data script echoing the ``chpasswd`` list
it feeds (``chpasswd:`` / ``list: |`` / ``  admin:S``, or ``echo 'admin:S' |
chpasswd``). No key names those passwords: the words before the list do.

``PasswordList`` follows a stream of lines: after such words, the lines that
are a ``user:password`` pair (behind a console's ``[  12.3] cloud-init[812]:``
and a YAML list's ``- ``) have their password masked, until a line that is
neither a pair, a blank line nor a YAML key. ``password_list_spans`` does the
same for one line holding the text with its line breaks escaped (the JSON
string of Nova's answer). A line that names ``chpasswd`` has the pairs in it
masked too. Linear in the line.
"""

from __future__ import annotations

from osdoctor import regex

__all__ = ["PasswordList", "password_list_spans", "starts_a_list"]

#: Lowercase words after which the lines list passwords.
_STARTS = ("set the following 'random' passwords", "chpasswd")
#: Lines a list may wait through (blank lines, ``expire: false``) for a pair.
_REACH = 4
#: What may come before a pair on a console line: a kernel time, a program and
#: its pid, indentation, a YAML list's dash, a quote.
_PAIR = regex.compile(
    r"(?:\[[ \t\d.]+\][ \t]*)?(?:[\w.-]+(?:\[\d+\])?:[ \t]+)?[ \t]*(?:-[ \t]+)?['\"]?"
    r"[a-z_][a-z0-9_.-]{0,31}:(?P<password>[^\s'\":]+)['\"]?[ \t]*"
)
#: A YAML key line in a list's document (``list: |``, ``expire: false``), a blank
#: line, or a console line with nothing after its prefix.
_BETWEEN = regex.compile(
    r"(?:\[[ \t\d.]+\][ \t]*)?(?:[\w.-]+(?:\[\d+\])?:)?[ \t]*(?:[\w-]+:(?:[ \t].*)?)?[ \t]*"
)
#: A pair in a line that feeds ``chpasswd`` (``echo 'deploy:S' | chpasswd``).
_INLINE_PAIR = regex.compile(
    r"(?<![\w/@:.-])[a-z_][a-z0-9_.-]{0,31}:(?P<password>[^\s'\":|/][^\s'\":|]*)"
)


def starts_a_list(low: str) -> bool:
    """Whether a lowercased line says that the lines after it list passwords."""
    return any(start in low for start in _STARTS)


def _inline(text: str, offset: int) -> list[tuple[int, int]]:
    return [
        (offset + match.start("password"), offset + match.end("password"))
        for match in _INLINE_PAIR.finditer(text)
        if match["password"] != "***"
    ]


class PasswordList:
    """The state of one stream: how many more lines a list may go on for."""

    __slots__ = ("_left",)

    def __init__(self) -> None:
        self._left = 0

    @property
    def active(self) -> bool:
        return self._left > 0

    def feed(self, text: str, offset: int = 0) -> list[tuple[int, int]]:
        """The spans (offset by ``offset``) of passwords in ``text``, one line of
        the stream without its line break."""
        low = text.lower()
        if "chpasswd" in low and "chpasswd:" not in low:
            spans = _inline(text, offset)
            self._left = _REACH
            return spans
        if starts_a_list(low):
            self._left = _REACH
            return []
        if not self._left:
            return []
        pair = _PAIR.fullmatch(text)
        if pair is not None:
            self._left = _REACH
            if pair["password"] == "***":
                return []
            return [(offset + pair.start("password"), offset + pair.end("password"))]
        if _BETWEEN.fullmatch(text) is not None:
            self._left -= 1
        else:
            self._left = 0
        return []


def password_list_spans(line: str) -> list[tuple[int, int]]:
    """Passwords listed in one line that holds a text with its line breaks escaped
    (``\\n``), as a JSON string does; or in a line that feeds ``chpasswd``."""
    low = line.lower()
    if "\\n" not in line:
        return _inline(line, 0) if "chpasswd" in low and "chpasswd:" not in low else []
    spans: list[tuple[int, int]] = []
    lines = PasswordList()
    at = 0
    for piece in line.split("\\n"):
        spans.extend(lines.feed(piece, at))
        at += len(piece) + 2
    return spans
