"""The two checks every real paste in fixtures/wild/ gets, for the modules that pin
them by area (``tests/test_wild_pastes_*.py``): each module keeps only its CASES
and the tests of the readers its pastes brought."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from osdoctor.model import Report
from osdoctor.render.json_report import render_json
from osdoctor.render.markdown_report import render_markdown
from osdoctor.render.text import render_text
from tests.helpers.causes import assert_names_the_cause
from tests.helpers.explained import report_of

WILD = Path(__file__).resolve().parents[1] / "fixtures" / "wild"

Cases = dict[str, tuple[str, list[str]]]


def paste_report(name: str) -> Report:
    """``osdoctor explain``'s report on the paste (one parse per session)."""
    return report_of(WILD / f"{name}.log")


def pinned_cause_tests(
    cases: Cases, successes: Iterable[str] = ()
) -> tuple[Callable[[str], None], Callable[[str], None]]:
    """The test that the first finding names each paste's established cause, and
    the test that every format renders each paste: assign them to test names."""

    @pytest.mark.parametrize("name", sorted(cases))
    def names_the_cause(name: str) -> None:
        rule, words = cases[name]
        assert_names_the_cause(paste_report(name), rule, words)

    @pytest.mark.parametrize("name", sorted([*cases, *successes]))
    def renders(name: str) -> None:
        report = paste_report(name)
        assert render_text(report) and render_markdown(report)
        assert json.loads(render_json(report))["outcome"] == report.outcome

    return names_the_cause, renders
