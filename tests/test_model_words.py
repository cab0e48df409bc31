"""The model's closed sets of words (severity, outcome, message and transport
kinds, failure kinds, step states): a value outside the set is a type error
where it is made and where it is compared, every value has its words and
styles wherever one is shown, and the knowledge may name only known ones."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest

from osdoctor.facts import template_values as placeholders
from osdoctor.facts.facts_model import TRANSPORT_CLASSES
from osdoctor.kb.loader import KnowledgeBase
from osdoctor.model import MESSAGE_KINDS, SEVERITIES, Severity
from osdoctor.render import text

ROOT = Path(__file__).resolve().parent.parent

MISTAKES = """\
from osdoctor.model import Finding, Message, Report, Request, TransportError
from osdoctor.facts.facts_model import Failure


def mistakes(m: Message, r: Report, f: Finding, x: Failure) -> list[bool]:
    Message(1, "unchecked", "a kind the model does not know")
    TransportError("refused", "the facts' word, not the parser's", 3)
    Request("GET", "http://h/", 4, logged_as="REQ")
    return [m.kind == "eror", r.outcome == "failed", f.severity == "fatal", x.kind == "HTTP"]
"""


def test_mypy_refuses_a_value_outside_each_set(tmp_path: Path) -> None:
    snippet = tmp_path / "mistakes.py"
    snippet.write_text(MISTAKES)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--cache-dir", os.devnull, str(snippet)],
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=False,
    )
    said = done.stdout
    wrong = ("'unchecked'", "'refused'", "'REQ'", "'eror'", "'failed'", "'fatal'", "'HTTP'")
    for word in wrong:
        assert f'"Literal[{word}]"' in said, said
    assert f"Found {len(wrong)} errors" in said, said


def test_every_transport_class_has_its_words() -> None:
    assert set(placeholders._REASONS) == set(TRANSPORT_CLASSES)
    assert set(placeholders._TRANSPORT) == set(TRANSPORT_CLASSES)


def test_every_severity_has_its_colour_in_the_terminal_report() -> None:
    assert set(text._SEVERITY_CODE) == set(SEVERITIES) == set(get_args(Severity))
    assert text.Style(colour=True).severity("warning") == "\x1b[1;33mWARNING\x1b[0m"


RULE = """\
id: site.words
title: t
severity: error
when:
  - {cond}
explanation: e
next_steps: [n]
references: [{{seed: 001_d3f831974f3dc6b9.txt, section: 3}}]
"""


@pytest.mark.parametrize(
    "cond,words",
    [
        ("outcome: failed", "outcome 'failed': use one of success, failure, unknown"),
        (
            "message: {text: x, kind: eror}",
            "message kind 'eror': use one of " + ", ".join(MESSAGE_KINDS),
        ),
        ("request: {error: refused}", "error 'refused': use one of any, connection-refused"),
        ("failure: {kind: HTTP}", "failure kind 'HTTP': use one of http, transport"),
        ("request: {logged_as: REQ}", "logged_as 'REQ': use one of curl, auth, urllib3"),
    ],
)
def test_the_knowledge_may_name_only_known_words(tmp_path: Path, cond: str, words: str) -> None:
    (tmp_path / "rule.yaml").write_text(RULE.format(cond=cond))
    kb = KnowledgeBase()
    kb.add_dir(tmp_path, "user")
    assert any(words in i.message for i in kb.issues), [str(i) for i in kb.issues]
    assert "site.words" not in kb.rules
