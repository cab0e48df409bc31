"""A regular expression of the knowledge read into a tree, to reason about what it
matches: the words every match contains (``conditions.required_words``), the
text a line it matches reads as (``words.regex_words``), the groups it surely
captures (``placeholders.regex_groups``).

``re`` offers no public parser, and its private one changes from release to
release; this one reads Python's syntax into the same shape that parser gives
(literals, classes, groups, repeats, alternatives, lookarounds, anchors),
with the same simplifications, so that the analyses find what they always
found: a group ``(?:...)`` without flags is spliced into what surrounds it, a
prefix common to every alternative is taken out in front of them, alternatives
of one character each are one class, a class of one character is that
character. Only a pattern ``re.compile`` accepts is read; any other gives
None, as does a bytes pattern.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Node", "Tree", "parse", "INFINITE"]

#: The upper bound of ``*``, ``+`` and ``{m,}``.
INFINITE = -1

Node = tuple[str, Any]
"""``(kind, value)``: ``("literal", code point)``, ``("not_literal", code)``,
``("in", items)``, ``("any", None)``, ``("at", where)``, ``("group", (index or
None, added flags, removed flags, nodes))``, ``("repeat", (low, high, nodes))``
(``high`` is ``INFINITE`` when unbounded), ``("branch", [nodes, ...])``,
``("assert", (direction, nodes))``, ``("assert_not", (direction, nodes))``,
``("groupref", index)``, ``("groupref_exists", (index, yes, no or None))``,
``("atomic", nodes)``."""

_FLAGS = {
    "i": re.IGNORECASE,
    "L": re.LOCALE,
    "m": re.MULTILINE,
    "s": re.DOTALL,
    "x": re.VERBOSE,
    "a": re.ASCII,
    "u": re.UNICODE,
}
_SPACE = frozenset(" \t\n\r\v\f")
_DIGITS = frozenset("0123456789")
_OCTAL = frozenset("01234567")
_HEX = frozenset("0123456789abcdefABCDEF")
_SPECIAL = frozenset(".\\[{()*+?^$|")
_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92}
_ANCHORS = {"A": "beginning_string", "b": "boundary", "B": "non_boundary", "Z": "end_string"}
_CATEGORIES = frozenset("dDsSwW")
#: Nodes that compare equal when equal (a common prefix can be taken out of them);
#: the others hold nodes of their own and are each one of a kind, as in ``re``.
_COMPARABLE = frozenset({"literal", "not_literal", "in", "any", "at", "groupref"})


@dataclass(slots=True)
class Tree:
    nodes: list[Node]
    flags: int
    """The flags the pattern sets for itself (``(?i)`` at its start)."""
    groupindex: dict[str, int] = field(default_factory=dict)


class _Unreadable(Exception):
    """Syntax this reader does not know: the analyses then promise nothing."""


def parse(pattern: str, checked: bool = True) -> Tree | None:
    """The tree of ``pattern``, or None when ``re`` refuses it or it cannot be read.
    ``checked=False`` skips asking ``re`` (which compiles it): for a pattern known
    to compile, or one whose tree matters only if it does."""
    if not isinstance(pattern, str):
        return None
    try:
        if checked:
            re.compile(pattern)
    except (re.error, OverflowError, RecursionError, ValueError):
        return None
    reader = _Reader(pattern)
    try:
        nodes = reader.alternatives(0, False)
    except (_Unreadable, IndexError, ValueError, KeyError, RecursionError):
        return None
    if reader.pos != len(pattern):
        return None
    return Tree(nodes, reader.flags, reader.names)


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.flags = 0
        self.groups = 0
        self.names: dict[str, int] = {}

    # -- characters ---------------------------------------------------------
    def peek(self) -> str | None:
        """The next token: a character, or a backslash with the one after it."""
        text, pos = self.text, self.pos
        if pos >= len(text):
            return None
        if text[pos] == "\\":
            return text[pos : pos + 2]
        return text[pos]

    def take(self) -> str | None:
        token = self.peek()
        if token is not None:
            self.pos += len(token)
        return token

    def accept(self, char: str) -> bool:
        if self.peek() == char:
            self.pos += len(char)
            return True
        return False

    def until(self, end: str) -> str:
        stop = self.text.index(end, self.pos)
        word, self.pos = self.text[self.pos : stop], stop + 1
        return word

    def digits(self, allowed: frozenset[str], most: int) -> str:
        start = self.pos
        while self.pos - start < most and self.pos < len(self.text):
            if self.text[self.pos] not in allowed:
                break
            self.pos += 1
        return self.text[start : self.pos]

    # -- structure ------------------------------------------------------------
    def alternatives(self, nested: int, verbose: bool) -> list[Node]:
        """``a|b|c`` up to the ``)`` that closes it, simplified as ``re`` does."""
        items: list[list[Node]] = []
        while True:
            items.append(self.sequence(nested + 1, verbose, first=not nested and not items))
            if not self.accept("|"):
                break
            if not nested:
                verbose = bool(self.flags & re.VERBOSE)
        if len(items) == 1:
            return items[0]
        out: list[Node] = []
        while all(items) and all(_same(item[0], items[0][0]) for item in items[1:]):
            prefix = items[0][0]
            for item in items:
                del item[0]
            out.append(prefix)
        members: list[Any] = []
        for item in items:
            if len(item) != 1:
                break
            kind, value = item[0]
            if kind == "literal":
                members.append(item[0])
            elif kind == "in" and value[:1] != (("negate", None),):
                members.extend(value)
            else:
                break
        else:
            out.append(("in", tuple(dict.fromkeys(members))))
            return out
        out.append(("branch", items))
        return out

    def sequence(self, nested: int, verbose: bool, first: bool) -> list[Node]:
        out: list[Node] = []
        while True:
            token = self.peek()
            if token is None or token in "|)":
                break
            self.take()
            if verbose and token in _SPACE:
                continue
            if verbose and token == "#":
                while (char := self.take()) is not None and char != "\n":
                    pass
                continue
            if token[0] == "\\":
                out.append(self.escape(token))
            elif token not in _SPECIAL:
                out.append(("literal", ord(token)))
            elif token == "[":
                out.append(self.char_class())
            elif token in "*+?{":
                if not self.repeat(token, out):
                    out.append(("literal", ord(token)))
            elif token == ".":
                out.append(("any", None))
            elif token == "^":
                out.append(("at", "beginning"))
            elif token == "$":
                out.append(("at", "end"))
            elif token == "(":
                verbose = self.group(out, nested, verbose, first)
            else:
                raise _Unreadable(token)
        spliced: list[Node] = []
        for node in out:
            kind, value = node
            if kind == "group" and value[0] is None and not value[1] and not value[2]:
                spliced.extend(value[3])
            else:
                spliced.append(node)
        return spliced

    def repeat(self, token: str, out: list[Node]) -> bool:
        """Apply a quantifier to the last node; False when ``{`` is a literal brace."""
        if token == "?":
            low, high = 0, 1
        elif token == "*":
            low, high = 0, INFINITE
        elif token == "+":
            low, high = 1, INFINITE
        else:
            here = self.pos
            if self.peek() == "}":
                return False
            lo = self.digits(_DIGITS, len(self.text))
            hi = self.digits(_DIGITS, len(self.text)) if self.accept(",") else lo
            if not self.accept("}"):
                self.pos = here
                return False
            low = int(lo) if lo else 0
            high = int(hi) if hi else INFINITE
        kind, value = out[-1]
        item = [out[-1]]
        if kind == "group" and value[0] is None and not value[1] and not value[2]:
            item = value[3]
        if not self.accept("?"):  # lazy, or possessive: the same for the analyses
            self.accept("+")
        out[-1] = ("repeat", (low, high, item))
        return True

    def group(self, out: list[Node], nested: int, verbose: bool, first: bool) -> bool:
        """A ``(...)`` of any kind, appended to ``out``; the verbosity after it."""
        index: int | None = None
        name: str | None = None
        added = removed = 0
        capture = atomic = False
        if not self.accept("?"):
            capture = True
        else:
            char = self.take()
            if char == "P":
                if self.accept("<"):
                    name = self.until(">")
                    capture = True
                elif self.accept("="):
                    out.append(("groupref", self.names[self.until(")")]))
                    return verbose
                else:
                    raise _Unreadable("?P")
            elif char == ":":
                pass
            elif char == "#":
                self.until(")")
                return verbose
            elif char in ("=", "!", "<"):
                direction = 1
                if char == "<":
                    char = self.take()
                    direction = -1
                inner = self.alternatives(nested + 1, verbose)
                if not self.accept(")"):
                    raise _Unreadable("lookaround")
                out.append(("assert" if char == "=" else "assert_not", (direction, inner)))
                return verbose
            elif char == "(":
                condition = self.until(")")
                ref = self.names[condition] if condition.isidentifier() else int(condition)
                yes = self.sequence(nested + 1, verbose, False)
                no = self.sequence(nested + 1, verbose, False) if self.accept("|") else None
                if not self.accept(")"):
                    raise _Unreadable("conditional")
                out.append(("groupref_exists", (ref, yes, no)))
                return verbose
            elif char == ">":
                atomic = True
            elif char is not None and (char in _FLAGS or char == "-"):
                self.pos -= 1
                flags = self.flag_letters()
                if flags is None:  # global flags, at the start
                    if not first or out:
                        raise _Unreadable("global flags")
                    return bool(self.flags & re.VERBOSE)
                added, removed = flags
            else:
                raise _Unreadable(f"?{char}")
        if capture:
            self.groups += 1
            index = self.groups
            if name is not None:
                self.names[name] = index
        inner_verbose = (verbose or bool(added & re.VERBOSE)) and not removed & re.VERBOSE
        inner = self.alternatives(nested + 1, inner_verbose)
        if not self.accept(")"):
            raise _Unreadable("group")
        out.append(("atomic", inner) if atomic else ("group", (index, added, removed, inner)))
        return verbose

    def flag_letters(self) -> tuple[int, int] | None:
        """``(?aiLmsux)`` sets the pattern's flags (None); ``(?i-s:`` a group's."""
        added = removed = 0
        while (char := self.take()) in _FLAGS:
            added |= _FLAGS[char]
        if char == ")":
            self.flags |= added
            return None
        if char == "-":
            while (char := self.take()) in _FLAGS:
                removed |= _FLAGS[char]
        if char != ":":
            raise _Unreadable("flags")
        return added, removed

    # -- escapes and classes ------------------------------------------------------
    def escape(self, token: str) -> Node:
        char = token[1:2]
        if char in _ANCHORS:
            return ("at", _ANCHORS[char])
        if char in _CATEGORIES:
            return ("in", (("category", char),))
        if char in _DIGITS and char != "0":
            more = self.peek()
            if more is not None and more in _DIGITS:
                self.take()
                third = self.peek()
                if char in _OCTAL and more in _OCTAL and third is not None and third in _OCTAL:
                    self.take()
                    return ("literal", int(char + more + third, 8))
                return ("groupref", int(char + more))
            return ("groupref", int(char))
        return ("literal", self.code(token))

    def code(self, token: str) -> int:
        """The character an escape outside a category stands for."""
        char = token[1:2]
        if char in _ESCAPES:
            return _ESCAPES[char]
        if char in "xuU":
            return int(self.digits(_HEX, {"x": 2, "u": 4, "U": 8}[char]), 16)
        if char == "N":
            self.accept("{")
            return ord(unicodedata.lookup(self.until("}")))
        if char in _OCTAL:
            return int(char + self.digits(_OCTAL, 2), 8)
        if char.isascii() and char.isalnum():
            raise _Unreadable(token)
        return ord(char)

    def class_item(self, token: str) -> Any:
        if token[0] != "\\":
            return ("literal", ord(token))
        char = token[1:2]
        if char == "b":
            return ("literal", 8)
        if char in _CATEGORIES:
            return ("category", char)
        return ("literal", self.code(token))

    def char_class(self) -> Node:
        negate = self.accept("^")
        members: list[Any] = []
        while True:
            token = self.take()
            if token is None:
                raise _Unreadable("[")
            if token == "]" and members:
                break
            first = self.class_item(token)
            if self.accept("-"):
                that = self.take()
                if that is None:
                    raise _Unreadable("[")
                if that == "]":
                    members += [first, ("literal", ord("-"))]
                    break
                last = self.class_item(that)
                members.append(("range", (first[1], last[1])))
            else:
                members.append(first)
        unique = tuple(dict.fromkeys(members))
        if len(unique) == 1 and unique[0][0] == "literal":
            return ("not_literal" if negate else "literal", unique[0][1])
        return ("in", ((("negate", None),) if negate else ()) + unique)


def _same(a: Node, b: Node) -> bool:
    return a[0] in _COMPARABLE and a == b
