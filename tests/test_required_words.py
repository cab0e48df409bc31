"""A message condition looks for its pattern's required words in all of a run's
lines at once before it searches them one by one: every text a pattern matches
must contain one of those words, or a finding would be lost."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from osdoctor.kb.conditions import Condition, required_words
from osdoctor.kb.loader import load_knowledge


def _message_patterns(conditions: list[Condition], out: set[str]) -> None:
    for cond in conditions:
        value: Any = cond.value
        if cond.key in ("message", "no_message"):
            out.add(value.get("text", "") if isinstance(value, dict) else value)
        elif cond.key in ("any", "all"):
            _message_patterns([Condition(c) for c in value], out)
        elif cond.key == "not":
            _message_patterns([Condition(value)], out)


def _knowledge_patterns() -> list[str]:
    kb = load_knowledge(user=False)
    out: set[str] = set()
    for scenario in kb.scenarios.values():
        for branch in scenario.branches:
            _message_patterns(branch.when, out)
    for rule in kb.rules.values():
        _message_patterns(rule.when, out)
    return sorted(out)


@pytest.mark.parametrize(
    "pattern,words",
    [
        (r"Stack (?P<stack>\S+) CREATE_FAILED", (" CREATE_FAILED",)),
        (r"^(?P<n>\d+) of (?P=n) stacks failed to delete\.", (" stacks failed to delete.",)),
        (r"(?:abc)+d", ("abc",)),
        (r"(?:abc)?d", ("d",)),
        (r"x(?:foo|)", ("x",)),
        (r"(?:Could not find it|Unable to discover)", ("Could not find it", "Unable to discover")),
        (r"ab(?i:cd)ef", ("ab",)),
        (r"(?i)abc", None),
        (r"a|b", None),
        (r"x{0,2}", None),
        (r"", None),
        (r"(?=abc)", None),
    ],
)
def test_required_words(pattern: str, words: tuple[str, ...] | None) -> None:
    assert required_words(pattern) == words


@pytest.mark.parametrize("pattern", _knowledge_patterns())
def test_every_match_has_a_required_word(pattern: str) -> None:
    words = required_words(pattern)
    if words is None:
        return
    rx = re.compile(pattern)

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.from_regex(rx))
    def check(text: str) -> None:
        if rx.search(text):
            assert any(w in text for w in words), (pattern, words, text)

    check()
