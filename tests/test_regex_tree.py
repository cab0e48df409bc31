"""Reading a regular expression into a tree without CPython's private parser: the
shape ``re`` itself parses, with its simplifications, so that the knowledge's
analyses (required words, the text a pattern reads as, the groups it surely
captures) find what they always found."""

from __future__ import annotations

import pytest

from osdoctor.kb.regex_tree import INFINITE, parse
from osdoctor.kb.text_placeholders import regex_groups


def lit(text: str) -> list[tuple[str, int]]:
    return [("literal", ord(c)) for c in text]


@pytest.mark.parametrize(
    ("pattern", "nodes"),
    [
        ("ab", lit("ab")),
        # A group without flags is spliced into what surrounds it.
        ("a(?:bc)d", lit("abcd")),
        # A prefix common to every alternative comes out in front of them.
        (
            "Could not find it|Could not discover",
            [*lit("Could not "), ("branch", [lit("find it"), lit("discover")])],
        ),
        # Alternatives of one character each are one class...
        ("a|b", [("in", (("literal", 97), ("literal", 98)))]),
        # ... and a class of one character is that character.
        ("[.]x", lit(".x")),
        ("[^.]", [("not_literal", ord("."))]),
        (r"\d+", [("repeat", (1, INFINITE, [("in", (("category", "d"),))]))]),
        ("(?:ab){2,3}", [("repeat", (2, 3, lit("ab")))]),
        ("a{,2}", [("repeat", (0, 2, lit("a")))]),
        ("a{x", lit("a{x")),  # not a quantifier: a brace
        (
            "(?P<n>x)(?P=n)",
            [("group", (1, 0, 0, lit("x"))), ("groupref", 1)],
        ),
        (r"(?<!\w)x", [("assert_not", (-1, [("in", (("category", "w"),))])), *lit("x")]),
        ("(?i:ab)", [("group", (None, 2, 0, lit("ab")))]),
        ("(?x) a b # a comment\n c", lit("abc")),
        (r"\x41\101\u00e9\N{EM DASH}", lit("AAé—")),
        (r"^a\b$", [("at", "beginning"), *lit("a"), ("at", "boundary"), ("at", "end")]),
    ],
)
def test_the_tree_of_a_pattern(pattern: str, nodes: list[object]) -> None:
    tree = parse(pattern)
    assert tree is not None and tree.nodes == nodes


def test_what_re_refuses_is_not_read() -> None:
    assert parse("(unclosed") is None
    assert parse("a**") is None
    assert parse(b"bytes") is None  # type: ignore[arg-type]


def test_flags_and_names() -> None:
    tree = parse("(?i)(?P<stack>\\S+) (?P<id>\\d+)")
    assert tree is not None
    assert tree.flags & 2  # re.IGNORECASE
    assert tree.groupindex == {"stack": 1, "id": 2}


@pytest.mark.parametrize(
    ("pattern", "sure", "maybe"),
    [
        (r"Stack (?P<stack>\S+) failed", {"stack"}, set()),
        (r"(?:id (?P<id>\w+))? done", set(), {"id"}),
        (r"(?P<a>x)|(?P<b>y)", set(), {"a", "b"}),
        (r"(?=(?P<ahead>\w))(?P<here>.)", {"here"}, {"ahead"}),
        (r"(?P<n>\d+)(?(n) units| none)", {"n"}, set()),
        (r"(?P<many>a)+", {"many"}, set()),
    ],
)
def test_the_groups_a_pattern_surely_captures(
    pattern: str, sure: set[str], maybe: set[str]
) -> None:
    captures = regex_groups(pattern)
    assert (captures.sure, captures.maybe) == (sure, maybe)
