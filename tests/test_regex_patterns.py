"""The regular expressions of the source (``osdoctor.regex``): compiled on first use,
then exactly what ``re.compile`` makes, answering through its own methods."""

from __future__ import annotations

import importlib
import pickle
import pkgutil
import re
from collections.abc import Iterator
from typing import Any

import pytest

import osdoctor
from osdoctor import regex

PATTERNS: list[tuple[str | bytes, int]] = [
    (r"(?P<method>GET|POST|PUT) (?P<url>\S+)", 0),
    (r"x-auth-token:\s*\S+", re.IGNORECASE),
    (
        r"""(?x) ^ \s* (?:[a-z]+) # a verbose one
        \d{2,} $""",
        0,
    ),
    (rb"(?m)^REQ: curl -g -i", 0),
    ("[\u2028\u2029\x85]+", 0),
]
TEXTS: dict[type, list[Any]] = {
    str: ["GET https://x/v3 and PUT /y", "X-Auth-Token: {SHA256}abc", "  abc123", "a\u2028b", ""],
    bytes: [b"REQ: curl -g -i -X GET\nREQ: curl -g -i", b"none"],
}


@pytest.mark.parametrize(("pattern", "flags"), PATTERNS)
def test_a_pattern_answers_as_re_compile_does(pattern: str | bytes, flags: int) -> None:
    lazy: Any = regex.compile(pattern, flags)
    want: Any = re.compile(pattern, flags)
    assert lazy._compiled is None  # nothing compiled before the first use
    for text in TEXTS[type(pattern)]:
        for name in ("search", "match", "fullmatch"):
            got, expected = getattr(lazy, name)(text), getattr(want, name)(text)
            assert (got and (got.span(), got.groups())) == (
                expected and (expected.span(), expected.groups())
            )
        assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in want.finditer(text)]
        assert lazy.findall(text) == want.findall(text)
        assert lazy.split(text) == want.split(text)
        empty = type(text)()
        assert lazy.sub(empty, text) == want.sub(empty, text)
        assert lazy.subn(empty, text, 1) == want.subn(empty, text, 1)
    assert lazy.compiled is lazy._compiled
    assert lazy.compiled == want  # the same pattern, flags and engine code
    assert (lazy.flags, lazy.groups, lazy.groupindex) == (
        want.flags,
        want.groups,
        dict(want.groupindex),
    )
    assert lazy.pattern == pattern


def test_after_its_first_use_a_pattern_answers_through_the_compiled_methods() -> None:
    lazy = regex.compile(r"(\d+) rounds")
    assert lazy.search("3 rounds") is not None
    compiled = lazy.compiled
    # The instance holds the compiled pattern's own bound methods: no call between.
    assert lazy.search == compiled.search
    assert lazy.__dict__["search"].__self__ is compiled
    match = lazy.search("after 12 rounds", 2)
    assert match is not None and match.group(1) == "12"


def test_a_mistake_in_a_pattern_raises_at_its_first_use() -> None:
    lazy = regex.compile(r"(unclosed")
    with pytest.raises(re.error):
        lazy.search("text")
    with pytest.raises(re.error):
        lazy.search("text")  # and again: nothing half-made was kept


def test_a_pickled_pattern_is_made_again_from_its_text() -> None:
    lazy = regex.compile(r"req-[0-9a-f]{8}", re.I)
    assert lazy.search("REQ-0123ABCD")
    copy = pickle.loads(pickle.dumps(lazy))
    assert copy.pattern == lazy.pattern and copy.compiled == lazy.compiled


def _patterns(value: Any, depth: int = 0) -> Iterator[regex.Pattern[Any]]:
    if isinstance(value, regex.Pattern):
        yield value
    elif depth < 3 and isinstance(value, list | tuple | set | frozenset):
        for item in value:
            yield from _patterns(item, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for item in value.values():
            yield from _patterns(item, depth + 1)


def _source_patterns() -> list[tuple[str, regex.Pattern[Any]]]:
    found: dict[int, tuple[str, regex.Pattern[Any]]] = {}
    for info in pkgutil.walk_packages(osdoctor.__path__, "osdoctor."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for attr, value in vars(module).items():
            for pattern in _patterns(value):
                found.setdefault(id(pattern), (f"{info.name}.{attr}", pattern))
    return list(found.values())


def test_every_pattern_the_source_defines_compiles_as_re_compile_does() -> None:
    patterns = _source_patterns()
    assert len(patterns) > 200  # the parser's, redaction's, the facts'...
    for where, lazy in patterns:
        assert lazy.compiled == re.compile(lazy.pattern, lazy._flags), where
