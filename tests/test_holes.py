"""No sentence with a hole: a value a log does not have leaves words that still
read, and ``osdoctor kb lint`` fills every rule on every log it fires on and
rejects what does not (issue 29: "The request carried .", "answered  with
401", ".." after a quoted message)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from osdoctor.kb.loader import load_knowledge
from osdoctor.kb.text_placeholders import fill, render, shown
from osdoctor.lint import default_fixtures_dir, default_log_dirs, lint

FIXTURE = "generic.osc-network-list-403-policy"


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OSDOCTOR_HOME", str(tmp_path / "home"))


def test_an_empty_value_takes_its_space_along() -> None:
    assert fill("{method} {url} was answered 500", {"method": "", "url": "x"}) == (
        "x was answered 500"
    )
    assert fill("It carried {what}. Then", {"what": ""}) == "It carried. Then"
    assert fill("--user {u} --names", {"u": ""}) == "--user --names"
    assert fill("It returned{why?:} {why|}", {"why": ""}) == "It returned"


def test_a_value_that_ends_its_sentence_gets_no_second_period() -> None:
    said = {"fault": "The request you have made requires authentication."}
    assert fill("Keystone said: {fault}. Then", said) == (
        "Keystone said: The request you have made requires authentication. Then"
    )
    assert fill("Keystone said: {fault}.", {"fault": "no period"}) == "Keystone said: no period."


def test_a_value_that_starts_a_sentence_starts_it_with_a_capital() -> None:
    assert fill("Done. {call} was answered", {"call": "the request"}) == (
        "Done. The request was answered"
    )
    assert fill("{call} was answered", {"call": "the request"}) == "The request was answered"
    # names and commands keep their case
    assert fill("{host} refused", {"host": "controller"}) == "controller refused"
    assert fill("{c} failed", {"c": "openstack server list"}) == "openstack server list failed"


def test_a_fallback_stands_in_for_an_empty_value() -> None:
    filled = render("grep {request_id|<request id>}", {"request_id": ""})
    assert filled.text == "grep <request id>"
    assert [s.how for s in filled.slots] == ["fallback"]


def test_reading_without_a_log_leaves_clauses_out() -> None:
    """The runbook and ``lookup`` show what a user substitutes, never a clause's
    name (``<quote>``, ``<installs_note>``)."""
    assert shown("{service_name} forbids this request (403){quote}") == (
        "<service_name> forbids this request (403)"
    )
    assert shown("It crashed.{installs_note}") == "It crashed."


HOLES = """\
id: site.holes
title: "{service_name}  refused it"
severity: error
when:
  - failure: {status: 403}
explanation: |
  The inner call was {inner}. It said: {fault}..
next_steps:
  - "grep '{transport_detail}' <host>"
  - "curl {{ {endpoint}"
references: [{url: "https://example.com/x", title: "x"}]
"""


def _one_fixture(tmp_path: Path) -> Path:
    folder = tmp_path / "fixtures"
    folder.mkdir()
    source = default_fixtures_dir()
    assert source is not None
    for suffix in (".log", ".expected.yaml"):
        shutil.copy(source / f"{FIXTURE}{suffix}", folder / f"{FIXTURE}{suffix}")
    return folder


def test_lint_rejects_every_kind_of_hole(tmp_path: Path) -> None:
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "site.holes.yaml").write_text(HOLES)
    kb = load_knowledge([tmp_path / "kb"], user=False)
    on = f"on {FIXTURE}.log"
    mine = [i for i in lint(kb, _one_fixture(tmp_path)).issues if on in str(i)]
    assert mine and all(i.severity == "error" for i in mine)
    found = "\n".join(str(i) for i in mine)
    assert f"rule site.holes title {on}: doubled spaces" in found
    assert f"rule site.holes explanation {on}: {{inner}} is empty on this log" in found
    assert f"rule site.holes explanation {on}: '..'" in found
    assert f"rule site.holes explanation {on}: a space before a period" not in found  # one slot
    assert f"rule site.holes next step {on}: {{transport_detail}} is empty on this log" in found
    assert f"rule site.holes next step {on}: writes <host> where the log gives it" in found
    assert f"rule site.holes next step {on}: a stray brace" in found


def test_lint_rejects_a_space_before_a_period(tmp_path: Path) -> None:
    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "site.gap.yaml").write_text(
        HOLES.replace("site.holes", "site.gap").replace(
            "The inner call was {inner}. It said: {fault}..", "It carried {inner|} ."
        )
    )
    kb = load_knowledge([tmp_path / "kb"], user=False)
    found = "\n".join(str(i) for i in lint(kb, _one_fixture(tmp_path)).issues)
    assert f"rule site.gap explanation on {FIXTURE}.log: a space before a period" in found


def test_the_knowledge_reads_whole_on_every_fixture_and_public_log() -> None:
    kb = load_knowledge(user=False)
    logs = default_log_dirs()
    assert {d.name for d in logs} == {"public", "public-2", "wild"}
    result = lint(kb, default_fixtures_dir(), logs)
    assert [str(i) for i in result.issues if i.severity == "error"] == []


def test_words_only_some_logs_have_a_reason_for_are_written_when_they_do() -> None:
    template = 'No token.{summary? "Could not find ..." is its summary.} Then'
    assert fill(template, {"summary": "Could not find versioned"}) == (
        'No token. "Could not find ..." is its summary. Then'
    )
    assert fill(template, {"summary": ""}) == fill(template, {}) == "No token. Then"
