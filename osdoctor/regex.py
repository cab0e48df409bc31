"""The regular expressions written in osdoctor's source and knowledge, compiled
on first use instead of at import.

CPython's ``re`` parses and compiles a pattern in pure Python, and osdoctor
defines a few hundred (the parser's, redaction's, the facts', the rules'): a
small log uses about half of them. ``compile`` gives a :class:`Pattern` that
``re`` compiles the first time it is used, so that ``osdoctor explain`` pays
only for the patterns the log makes it use, with ``re``'s public interface
alone (no engine code of our own kept between runs).

After its first use a pattern answers through the compiled pattern's own
methods, held on the instance, so that a parser's hot loop pays nothing for
the laziness. A pattern with a mistake in it raises ``re.error`` at its first
use, not at import: tests/test_regex_patterns.py compiles every one the
source defines.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, AnyStr, Generic

__all__ = ["Pattern", "compile"]

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split")


class Pattern(Generic[AnyStr]):
    """A ``re.Pattern`` compiled on first use, with the methods osdoctor uses."""

    def __init__(self, pattern: AnyStr, flags: int = 0) -> None:
        self.pattern: AnyStr = pattern
        self._flags = int(flags)
        self._compiled: re.Pattern[AnyStr] | None = None

    @property
    def compiled(self) -> re.Pattern[AnyStr]:
        """The pattern ``re.compile`` makes of it (compiled now if not yet)."""
        compiled = self._compiled
        if compiled is None:
            compiled = re.compile(self.pattern, self._flags)
            # The instance's own attributes come before the class's methods: from
            # now on ``p.search`` is the compiled pattern's, with no call in between.
            held = self.__dict__
            for name in _METHODS:
                held[name] = getattr(compiled, name)
            self._compiled = compiled
        return compiled

    @property
    def flags(self) -> int:
        return self.compiled.flags

    @property
    def groups(self) -> int:
        return self.compiled.groups

    @property
    def groupindex(self) -> dict[str, int]:
        return dict(self.compiled.groupindex)

    def search(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[AnyStr] | None:
        return self.compiled.search(string, pos, endpos)

    def match(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[AnyStr] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[AnyStr] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(
        self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[AnyStr]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled.findall(string, pos, endpos)

    def sub(
        self,
        repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr],
        string: AnyStr,
        count: int = 0,
    ) -> AnyStr:
        return self.compiled.sub(repl, string, count)

    def subn(
        self,
        repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr],
        string: AnyStr,
        count: int = 0,
    ) -> tuple[AnyStr, int]:
        return self.compiled.subn(repl, string, count)

    def split(self, string: AnyStr, maxsplit: int = 0) -> list[AnyStr | Any]:
        return self.compiled.split(string, maxsplit)

    def __repr__(self) -> str:
        return f"regex.compile({self.pattern!r}, {self._flags})"

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as what it was made of: the copy compiles on its own first use.
        return (Pattern, (self.pattern, self._flags))


def compile(pattern: AnyStr, flags: int = 0) -> Pattern[AnyStr]:  # noqa: A001 - as re's
    """``re.compile(pattern, flags)``, done the first time the pattern is used."""
    return Pattern(pattern, flags)
