"""``osdoctor lookup``: an error message, or a piece of it, finds the rule that
explains it first, with the explanation and what to do; pure Python, no log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from osdoctor.cli import main
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.runbook.lookup import CLEAR_FUZZY, lookup, normalise

ROOT = Path(__file__).resolve().parent.parent
KB = load_knowledge(user=False)
#: (rule id, symptom) for every symptom of every rule: the table grows with the knowledge.
SYMPTOMS = sorted((r.id, s) for r in KB.rules.values() for s in r.symptoms)
#: Fragments of the error texts the seeds name, as a user would paste them.
SEED_FRAGMENTS = [
    "list index out of range",
    "Retry-After",
    "locked (HTTP 409)",
    "Location not returned with redirect",
    "Missing value auth-url",
    "public endpoint for ... not found",
    "Stack not found",
    "Unable to delete",
    "StateTransitionTimeout",
    "StateTransitionFailed",
    "ActionInProgress",
    "not IN_PROGRESS",
    "failed to delete",
    "Error creating server",
    "The Bare Metal API endpoint cannot be detected",
    "is not supported",
    "No such file or directory",
    "While validating the resources file",
    "get_token",
]


def _owners(fragment: str) -> set[str]:
    """The rules that list a symptom containing ``fragment`` (``...`` for any text)."""
    from osdoctor.runbook.lookup import _pattern

    rx = _pattern(normalise(fragment))
    return {r.id for r in KB.rules.values() for s in r.symptoms if rx.search(normalise(s))}


PRESENT = [f for f in SEED_FRAGMENTS if _owners(f)]


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KB


def test_table_is_not_empty() -> None:
    assert len(SYMPTOMS) >= 8
    assert len(PRESENT) >= 2


@pytest.mark.parametrize(("rule_id", "symptom"), SYMPTOMS)
def test_each_rule_symptom_finds_its_rule_first(
    kb: KnowledgeBase, rule_id: str, symptom: str
) -> None:
    hits = lookup(kb, symptom)
    if kb.rules[rule_id].severity == "info":
        # What is normal ranks after what is wrong (a 404 is normal before a name
        # lookup, an error otherwise): the info rule is among the hits, matched exactly.
        every = lookup(kb, symptom, limit=len(kb.rules))
        assert [h.how for h in every if h.symptom.rule == rule_id] == ["exact"]
        return
    assert hits and hits[0].how == "exact"
    sharing = {
        r.id
        for r in kb.rules.values()
        if any(normalise(s) == normalise(symptom) for s in r.symptoms)
    }
    assert hits[0].symptom.rule in sharing
    assert rule_id in {h.symptom.rule for h in hits}


BRANCH_TITLES = sorted({b.title for s in KB.scenarios.values() for b in s.branches})


@pytest.mark.parametrize("text", [s for _r, s in SYMPTOMS] + BRANCH_TITLES)
def test_no_weak_fuzzy_match_beside_an_exact_one(kb: KnowledgeBase, text: str) -> None:
    """ "No valid host was found" found its rule, and "404 Not Found (fuzzy)" too: a
    few shared words are noise once an exact match is there."""
    hits = lookup(kb, text)
    assert hits and hits[0].how != "fuzzy"
    weak = [
        (h.symptom.text, round(h.score, 2))
        for h in hits
        if h.how == "fuzzy" and h.score < CLEAR_FUZZY
    ]
    assert weak == []


@pytest.mark.parametrize(("rule_id", "symptom"), SYMPTOMS)
def test_a_pasted_error_line_finds_the_rule(kb: KnowledgeBase, rule_id: str, symptom: str) -> None:
    hits = lookup(kb, f"ERROR: openstack: {symptom} (request-id req-1234)")
    assert hits and hits[0].symptom.rule is not None
    assert rule_id in {h.symptom.rule for h in hits}


@pytest.mark.parametrize("fragment", PRESENT)
def test_seed_symptom_fragment_finds_a_rule_first(kb: KnowledgeBase, fragment: str) -> None:
    """The first hit lists the fragment among its symptoms and, when a rule for a
    scenario lists it, is not a generic rule."""
    owners = _owners(fragment)
    hits = lookup(kb, fragment)
    assert hits and hits[0].symptom.rule in owners, [h.symptom for h in hits[:3]]
    if any(kb.rules[r].scenario for r in owners):
        assert kb.rules[hits[0].symptom.rule].scenario is not None


def test_a_scenario_rule_comes_before_a_generic_one_with_the_same_symptom(tmp_path: Path) -> None:
    (tmp_path / "specific.yaml").write_text(
        "id: site.hook-poll-needs-name\ntitle: poll needs the name\nseverity: error\n"
        "scenario: osc.auth\nsymptoms: [list index out of range]\n"
        "when: [{message: 'list index out of range'}]\nexplanation: x\nnext_steps: [y]\n"
        "references: [{seed: 000_416000e4d6ae2dea.txt, section: 4}]\n"
    )
    (tmp_path / "generic.yaml").write_text(
        "id: aaa.generic\ntitle: generic\nseverity: error\n"
        "symptoms: [list index out of range]\n"
        "when: [{message: 'list index out of range'}]\nexplanation: x\nnext_steps: [y]\n"
        "references: [{seed: 000_416000e4d6ae2dea.txt, section: 4}]\n"
    )
    kb = load_knowledge([tmp_path], user=False)
    assert [str(i) for i in kb.issues if i.severity == "error"] == []
    hits = lookup(kb, "ERROR: list index out of range")
    order = [h.symptom.rule for h in hits]
    assert order[0] is not None and kb.rules[order[0]].scenario is not None
    assert order.index("site.hook-poll-needs-name") < order.index("aaa.generic")


def test_fuzzy_match_survives_a_typo_and_other_words(kb: KnowledgeBase) -> None:
    rule_id, symptom = max(SYMPTOMS, key=lambda rs: len(rs[1]))
    words = symptom.split()
    typo = (
        " ".join(words[:-1] + [words[-1][:-2] + words[-1][-1:]])
        if len(words[-1]) > 4
        else symptom.replace(" ", "  ").upper()
    )
    hits = lookup(kb, typo)
    assert hits and rule_id in {h.symptom.rule for h in hits[:2]}


def test_nothing_matches_nonsense(kb: KnowledgeBase, capsys: pytest.CaptureFixture[str]) -> None:
    assert lookup(kb, "zzqx wibble frobnicate") == []
    assert lookup(kb, "...") == []
    assert main(["lookup", "--no-user-kb", "zzqx", "wibble", "frobnicate"]) == 1
    assert "No rule or scenario branch matches" in capsys.readouterr().out


def test_text_output_has_explanation_and_next_steps(
    kb: KnowledgeBase, capsys: pytest.CaptureFixture[str]
) -> None:
    rule_id, symptom = SYMPTOMS[0]
    assert main(["lookup", "--no-user-kb", *symptom.split()]) == 0
    out = capsys.readouterr().out
    rule = kb.rules[out.split("rule ", 1)[1].split(" ", 1)[0]]
    assert out.startswith("1. ")
    assert "Next steps:" in out
    assert f"See the runbook page rules/{rule.id}.md" in out
    assert not any(str(r) in out for r in rule.references), "a seed file the user lacks"


def test_json_output(kb: KnowledgeBase, capsys: pytest.CaptureFixture[str]) -> None:
    rule_id, symptom = SYMPTOMS[-1]
    assert main(["lookup", "--no-user-kb", "--format", "json", "-n", "3", symptom]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["query"] == symptom and 1 <= len(doc["results"]) <= 3
    first = doc["results"][0]
    assert first["kind"] == "rule" and first["how"] == "exact"
    assert first["explanation"] and first["next_steps"] and first["references"]
    assert "{" not in first["explanation"].replace("{{", "")


def test_a_branch_title_is_found_too(kb: KnowledgeBase, capsys: pytest.CaptureFixture[str]) -> None:
    scenario = sorted(kb.scenarios.values(), key=lambda s: s.id)[0]
    branch = scenario.branches[0]
    hits = lookup(kb, branch.title, limit=20)
    assert f"{scenario.id}/{branch.id}" in {h.symptom.target for h in hits}
    assert main(["lookup", "--no-user-kb", "-f", "json", "-n", "20", branch.title]) == 0
    kinds = {(r["kind"], r["id"]) for r in json.loads(capsys.readouterr().out)["results"]}
    assert ("branch", f"{scenario.id}/{branch.id}") in kinds


def test_lookup_reads_standard_input() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": "/nonexistent-osdoctor-home"}
    proc = subprocess.run(
        [sys.executable, "-m", "osdoctor", "lookup", "--no-user-kb", "-"],
        input=SYMPTOMS[0][1] + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("1. ")


def test_lookup_imports_no_front_end_or_http_library() -> None:
    probe = (
        "import sys, io\nfrom osdoctor.cli import main\nsys.stdout = io.StringIO()\n"
        "main(['lookup', '--no-user-kb', 'list index out of range'])\n"
        "sys.__stdout__.write(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OSDOCTOR_HOME": "/nonexistent-osdoctor-home"}
    loaded = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=60,
    ).stdout.split()
    assert "osdoctor" in loaded
    for name in ("textual", "httpx", "keystoneauth1", "rich"):
        assert name not in loaded, f"osdoctor lookup imported {name}"


SEED_SYMPTOMS = [
    ("list index out of range", {"heat.hook-poll-needs-name", "heat.hook-poll-start-event-gone"}),
    ("Retry-After", {"ironic.retry-after-typeerror"}),
    ("locked (HTTP 409)", {"ironic.retry-loop-exhausted"}),
    (
        "Location not returned with redirect",
        {"heat.hook-redirect-missing", "heat.redirect-without-location"},
    ),
    ("Missing value auth-url", {"osc.auth-not-configured"}),
    ("public endpoint for orchestration service not found", {"osc.endpoint-not-found"}),
    ("Stack not found: web", {"heat.delete-not-found"}),
    ("Unable to delete 1 of the 2 stacks", {"heat.delete-partial"}),
    ("StateTransitionTimeout", {"ironic.wait-timeout-keeps-running"}),
    ("RuntimeError", {"ironic.version-headers-missing"}),
    ("AttributeError get_token", {"heat.deployment-tempurl-attributeerror"}),
    ("Requested API version", {"ironic.pinned-version-unsupported"}),
    ("The Bare Metal API endpoint cannot be detected", {"ironic.standalone-no-endpoint"}),
]


@pytest.mark.parametrize("text,rules", SEED_SYMPTOMS, ids=[s for s, _ in SEED_SYMPTOMS])
def test_each_seed_symptom_finds_its_rule_first(text: str, rules: set[str]) -> None:
    kb = load_knowledge(user=False)
    hits = lookup(kb, text)
    assert hits and hits[0].symptom.rule in rules, [h.symptom.rule for h in hits[:3]]
