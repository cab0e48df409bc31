"""The knowledge base: built-in files are valid and proven; a support engineer's own
rules load after them, are linted the same way, and a broken one is named with
its file and line without stopping the rest."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from osdoctor.kb.loader import load_knowledge
from osdoctor.lint import default_fixtures_dir, lint
from osdoctor.runbook.mermaid import scenario_mermaid
from osdoctor.runbook.svg import scenario_svg

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE_BRANCHES = {
    "heat.stack-create": {
        "local-file-missing",
        "rejected",
        "create-failed",
        "create-complete",
        "stalled",
        "no-wait",
    },
    "heat.stack-update": {
        "update-complete",
        "update-failed",
        "conflict",
        "redirect-missing",
        "dry-run",
        "no-wait",
    },
    "heat.stack-delete": {
        "deleted",
        "not-found",
        "forbidden",
        "delete-failed",
        "gone-but-error",
        "partial",
    },
    "heat.stack-hook": {
        "hook-set",
        "poll-pending",
        "poll-index-error",
        "not-in-progress",
        "clear-signalled",
        "clear-no-match",
        "redirect-missing",
    },
    "heat.software-deployment": {"tempurl-attributeerror", "tempurl-swift", "no-signal"},
    "osc.auth": {
        "no-auth-needed",
        "authenticated",
        "auth-refused",
        "keystone-unreachable",
        "not-configured",
        "endpoint-not-found",
    },
    "osc.find-by-name": {"found-by-id", "found-by-name", "not-found", "ambiguous", "lookup-broken"},
    "osc.server-create": {"local-check-failed", "lookup-failed", "active", "error", "no-wait"},
    "osc.multi-delete": {"all-deleted", "partial-failure"},
    "osc.object-upload": {"missing-local-file", "uploaded"},
    "ironic.version-negotiation": {
        "downgraded",
        "no-version-headers",
        "discovery-failed",
        "pinned-unsupported",
    },
    "ironic.provision-wait": {"reached", "already-there", "failed", "unexpected-stable", "timeout"},
    "ironic.conflict-retry": {
        "exhausted-409",
        "exhausted-503",
        "retry-after-typeerror",
        "recovered",
    },
    "ironic.bulk-create": {"invalid-file", "created", "partial", "port-mismatch"},
    "ironic.standalone": {"endpoint-given", "latest", "no-endpoint"},
}

GOOD_RULE = """\
id: site.quota-exceeded
title: The project is out of quota
severity: error
symptoms: ["Quota exceeded"]
when:
  - message: 'Site quota exceeded for (?P<what>\\w+)'
explanation: The project has no {what} left.
next_steps: ["openstack quota show"]
references: [{seed: 001_d3f831974f3dc6b9.txt, section: 3}]
"""


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OSDOCTOR_HOME", str(tmp_path / "home"))


def test_catalogue_ids_are_all_there_and_none_renamed() -> None:
    kb = load_knowledge(user=False)
    assert [str(i) for i in kb.issues] == []
    for scenario_id, branches in CATALOGUE_BRANCHES.items():
        have = {b.id for b in kb.scenarios[scenario_id].branches}
        assert branches <= have, (scenario_id, branches - have)


def test_built_in_knowledge_is_fully_proven_on_the_fixtures() -> None:
    kb = load_knowledge(user=False)
    result = lint(kb, default_fixtures_dir())
    assert result.coverage_checked
    assert [str(i) for i in result.issues if i.severity == "error"] == []
    assert result.uncovered_branches == [] and result.silent_rules == []


def test_every_rule_cites_its_seed_and_says_what_to_do() -> None:
    kb = load_knowledge(user=False)
    for rule in kb.rules.values():
        assert rule.references and rule.next_steps and rule.explanation.strip(), rule.id


def test_user_rules_load_after_the_built_in_ones(tmp_path: Path) -> None:
    user = tmp_path / "kb"
    user.mkdir()
    (user / "quota.yaml").write_text(GOOD_RULE)
    kb = load_knowledge([user], user=False)
    assert kb.rules["site.quota-exceeded"].origin == "user"
    assert "heat.hook-poll-needs-name" in kb.rules


@pytest.mark.parametrize(
    "content,line,words",
    [
        (
            "id: site.x\ntitle: t\nseverity: error\nwhen:\n  - mesage: 'x'\n",
            5,
            "unknown condition 'mesage'",
        ),
        ("id: site.x\ntitle: [unclosed\n", 3, "not valid YAML"),
        (GOOD_RULE.replace("severity: error", "severity: fatal"), 1, "severity must be one of"),
        (GOOD_RULE.replace("section: 3", "section: 9"), 1, "section must be 1 to 5"),
        (GOOD_RULE.replace("(?P<what>\\w+)", "(?P<what>\\w+"), 6, "not a valid regular"),
        (
            GOOD_RULE.replace("site.quota-exceeded", "heat.hook-poll-needs-name"),
            1,
            "already defined",
        ),
        ("!!python/object/apply:os.system ['echo pwned']\n", 1, "not valid YAML"),
    ],
    ids=["typo", "yaml", "severity", "seed-section", "regex", "duplicate-id", "unsafe-tag"],
)
def test_a_broken_user_file_is_named_with_its_line(
    tmp_path: Path, content: str, line: int, words: str
) -> None:
    user = tmp_path / "kb"
    user.mkdir()
    (user / "broken.yaml").write_text(content)
    (user / "quota.yaml").write_text(GOOD_RULE)
    kb = load_knowledge([user], user=False)
    issues = [i for i in kb.issues if i.path.endswith("broken.yaml")]
    assert issues, kb.issues
    assert any(words in i.message and i.line == line for i in issues), [str(i) for i in issues]
    # Everything else still loads: the built-in knowledge and the good user rule.
    assert len(kb.scenarios) == 15 and "site.quota-exceeded" in kb.rules


def test_kb_lint_command_reports_a_user_rule_that_fires_nowhere(tmp_path: Path) -> None:
    user = tmp_path / "kb"
    user.mkdir()
    # The lab's fixtures do contain "Quota exceeded for": this rule's words are in none.
    (user / "quota.yaml").write_text(GOOD_RULE.replace("Quota exceeded for", "Site quota gone for"))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": str(tmp_path / "h")}
    proc = subprocess.run(
        [sys.executable, "-m", "osdoctor", "kb", "lint", "--kb", str(user), "--no-user-kb"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "quota.yaml:1: warning: rule site.quota-exceeded fires on no fixture" in proc.stdout
    assert "branches taken" in proc.stdout and proc.stdout.rstrip().endswith("OK")


def test_kb_show_explains_a_rule_in_words(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": str(tmp_path / "h")}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "osdoctor",
            "kb",
            "show",
            "heat.hook-poll-needs-name",
            "--no-user-kb",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0
    assert "a ^IndexError$ traceback whose message matches" in proc.stdout
    assert "000_416000e4d6ae2dea.txt section 4" in proc.stdout


def test_cached_knowledge_is_trusted_only_once_it_validated(tmp_path: Path) -> None:
    """A folder with a broken file is never cached, so a later load still reports it."""
    user = tmp_path / "kb"
    user.mkdir()
    (user / "bad.yaml").write_text(GOOD_RULE.replace("(?P<what>\\w+)", "(?P<what>\\w+"))
    for _ in range(2):
        kb = load_knowledge([user], user=False)
        assert any("not a valid regular" in i.message for i in kb.issues)
    (user / "bad.yaml").write_text(GOOD_RULE)
    first = load_knowledge([user], user=False)
    second = load_knowledge([user], user=False)
    assert first.issues == [] and second.issues == []
    assert "site.quota-exceeded" in second.rules


def test_knowledge_from_the_cache_is_the_knowledge_validated() -> None:
    """Cached knowledge skips the checks it passed and draws its diagrams when first
    asked: the scenarios, their diagrams, the rules and the issues stay the same."""
    from osdoctor.kb import cache, loader

    cache._SEEN.clear()  # as a new process: nothing read yet, in memory or on disk
    loader._BUILT.clear()
    first = load_knowledge(user=False)  # validated, then cached
    loader._BUILT.clear()  # as a new process again, whose cache is now there
    second = load_knowledge(user=False)  # trusted: from the cache
    assert first.issues == second.issues == []
    assert list(first.scenarios) == list(second.scenarios)
    for sid, scenario in first.scenarios.items():
        cached = second.scenarios[sid]
        assert isinstance(scenario.diagram_items, list)
        assert callable(cached.diagram_items)
        # The request patterns are new objects: their addresses aside, the same.
        assert re.sub(" at 0x[0-9a-f]+", "", repr(cached.diagram)) == re.sub(
            " at 0x[0-9a-f]+", "", repr(scenario.diagram)
        )
        assert scenario_mermaid(cached) == scenario_mermaid(scenario)
        assert scenario_svg(cached) == scenario_svg(scenario)
        assert cached.diagram is cached.diagram  # built once
        assert (cached.participants, cached.path) == (scenario.participants, scenario.path)
    assert list(first.rules) == list(second.rules)
    for rid, rule in first.rules.items():
        assert (rule.path, rule.line, rule.since) == (second.rules[rid].path, rule.line, rule.since)


def test_knowledge_loaded_again_in_one_process_is_built_once_and_each_callers_own() -> None:
    """A library caller (a dask map) loading the knowledge again gets the one built
    before, as a copy: what one caller adds is not in another's."""
    from osdoctor.kb.schema import Issue

    first = load_knowledge(user=False)
    second = load_knowledge(user=False)
    assert list(first.rules) == list(second.rules) and first.rules is not second.rules
    assert all(first.rules[rid] is second.rules[rid] for rid in first.rules)
    rid = next(iter(first.rules))
    del first.rules[rid]
    first.issues.append(Issue("x.yaml", 1, "a caller's own issue"))
    third = load_knowledge(user=False)
    assert rid in third.rules and third.issues == []


def test_the_knowledge_cache_is_keyed_on_the_code_that_checked_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cached documents are trusted unchecked: a change to the checking code (an
    edit, an upgrade) must make a new key, so that a stricter check sees every
    file again."""
    from osdoctor.kb import cache

    checker = tmp_path / "schema.py"
    checker.write_text("# the checks\n")
    monkeypatch.setattr(cache, "_CHECKERS", (checker,))
    files = [tmp_path / "rule.yaml"]
    files[0].write_text("id: x\n")
    before = cache._key(files)
    assert cache._key(files) == before
    checker.write_text("# stricter checks\n")
    assert cache._key(files) != before
