"""A rule's history and proof: every rule says since which version it exists and
which fixtures it fires and stays silent on; a retired rule stays as
``status: removed`` so its id is never given to another. ``kb lint`` names the
file, the line and the field of each gap, in words."""

from __future__ import annotations

from pathlib import Path

import pytest

from osdoctor import __version__
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.lint import lint

RULE = """\
id: site.quota-exceeded
title: The project is out of quota
severity: error
when:
  - message: 'Site quota exceeded for (?P<what>\\w+)'
explanation: The project has no {what} left.
next_steps: ["openstack quota show"]
references: [{seed: 001_d3f831974f3dc6b9.txt, section: 3}]
"""
COMPLETE = RULE + 'since: "0.1.0"\nexamples: {fires: [a], silent: [b]}\n'
REMOVED = """\
id: site.old-quota
status: removed
since: "0.1.0"
why_removed: the quota message changed; site.quota-exceeded reads the new one
replaced_by: site.quota-exceeded
title: The project is out of quota (old wording)
"""


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OSDOCTOR_HOME", str(tmp_path / "home"))


def rules_folder(tmp_path: Path, files: dict[str, str]) -> Path:
    folder = tmp_path / "kb"
    folder.mkdir(parents=True)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def lint_lines(tmp_path: Path, files: dict[str, str], origin: str = "built-in") -> list[str]:
    """What ``kb lint`` prints for a folder of rules loaded as ``origin``, with the
    folder's path cut off."""
    folder = rules_folder(tmp_path, files)
    kb = KnowledgeBase()
    kb.add_dir(folder, origin)
    kb.check_references()
    return [str(i).removeprefix(f"{folder}/") for i in lint(kb, None).issues]


def test_every_built_in_rule_has_its_history_and_its_examples() -> None:
    kb = load_knowledge(user=False)
    for rule in kb.rules.values():
        assert rule.since and rule.fires and rule.silent, rule.id
    assert not (set(kb.removed) & set(kb.rules))


def test_a_complete_rule_has_nothing_to_report(tmp_path: Path) -> None:
    assert lint_lines(tmp_path, {"quota.yaml": COMPLETE}) == []


def test_a_missing_since_and_missing_examples_are_named_by_field(tmp_path: Path) -> None:
    assert lint_lines(tmp_path, {"quota.yaml": RULE}) == [
        "quota.yaml:1: error: field 'since': rule site.quota-exceeded: missing: the osdoctor "
        f'version that introduced it, e.g. since: "{__version__}"',
        "quota.yaml:1: error: field 'examples.fires': rule site.quota-exceeded: missing: "
        "at least one fixture it must fire on",
        "quota.yaml:1: error: field 'examples.silent': rule site.quota-exceeded: missing: "
        "at least one fixture it must stay silent on",
    ]


def test_a_users_own_rule_is_only_warned_about_them(tmp_path: Path) -> None:
    lines = lint_lines(tmp_path, {"quota.yaml": RULE}, origin="user")
    assert len(lines) == 3 and all(": warning: field '" in line for line in lines)


@pytest.mark.parametrize(
    "since,words",
    [
        ("0.1", "field 'since': 0.1 is not a version; write it quoted"),
        ('"first"', "field 'since': 'first' is not a version"),
        ('"99.0.0"', f"field 'since': 99.0.0 is later than this osdoctor ({__version__})"),
    ],
)
def test_a_since_that_is_no_released_version_is_refused(
    tmp_path: Path, since: str, words: str
) -> None:
    text = COMPLETE.replace('since: "0.1.0"', f"since: {since}")
    (line,) = lint_lines(tmp_path, {"quota.yaml": text})
    assert line.startswith(f"quota.yaml:1: error: {words}")


def test_a_removed_rule_keeps_its_id_and_never_fires(tmp_path: Path) -> None:
    folder = rules_folder(tmp_path, {"old.yaml": REMOVED, "quota.yaml": COMPLETE})
    kb = KnowledgeBase()
    kb.add_dir(folder, "built-in")
    kb.check_references()
    assert kb.issues == []
    assert "site.old-quota" not in kb.rules
    gone = kb.removed["site.old-quota"]
    assert gone.replaced_by == "site.quota-exceeded" and "message changed" in gone.why


def test_a_removed_rule_still_with_conditions_is_reported(tmp_path: Path) -> None:
    text = REMOVED + "when:\n  - message: 'Quota exceeded'\n"
    assert lint_lines(tmp_path, {"old.yaml": text, "quota.yaml": COMPLETE}) == [
        "old.yaml:1: error: field 'when': rule site.old-quota is removed "
        "but still has conditions: delete 'when'"
    ]


def test_a_removed_rule_says_why_and_names_a_rule_in_service(tmp_path: Path) -> None:
    text = REMOVED.replace("why_removed: the quota message changed; ", "why_removed: ''\n# ")
    assert lint_lines(tmp_path, {"old.yaml": text}) == [
        "old.yaml:1: error: field 'why_removed': a removed rule says why it was removed",
        "old.yaml:1: error: field 'replaced_by': rule site.old-quota: replaced_by names no "
        "rule in service 'site.quota-exceeded'",
    ]


@pytest.mark.parametrize("first", ["a-old.yaml", "z-old.yaml"])
def test_an_id_is_never_reused_whichever_file_comes_first(tmp_path: Path, first: str) -> None:
    reuse = COMPLETE.replace("site.quota-exceeded", "site.old-quota")
    lines = lint_lines(
        tmp_path, {first: REMOVED.replace("site.quota-exceeded", "null"), "m-new.yaml": reuse}
    )
    assert len(lines) == 1, lines
    if first == "a-old.yaml":  # the removed rule holds the id: the new one is refused
        assert lines[0] == (
            f"m-new.yaml:1: error: field 'id': rule id 'site.old-quota' reuses the id of the "
            f"rule removed in {tmp_path}/kb/a-old.yaml; an id is never reused: choose a new one"
        )
    else:  # the live rule came first: the removal is what clashes
        assert lines[0].startswith(
            "z-old.yaml:1: error: field 'id': rule id 'site.old-quota' is already defined in "
        )


def test_a_rule_cannot_name_a_removed_rule_as_what_suppresses_it(tmp_path: Path) -> None:
    text = COMPLETE + "suppressed_by: [site.old-quota]\n"
    assert lint_lines(tmp_path, {"old.yaml": REMOVED, "quota.yaml": text}) == [
        "quota.yaml:1: error: field 'suppressed_by': rule site.quota-exceeded: suppressed_by "
        "names the removed rule 'site.old-quota' (replaced by site.quota-exceeded)"
    ]


def test_only_a_removed_rule_has_removal_fields(tmp_path: Path) -> None:
    text = COMPLETE + "why_removed: no reason\n"
    assert lint_lines(tmp_path, {"quota.yaml": text}) == [
        "quota.yaml:1: error: field 'why_removed': only a rule with status: removed has it"
    ]


def test_kb_show_says_why_a_rule_was_removed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from osdoctor.cli import main

    folder = rules_folder(tmp_path, {"old.yaml": REMOVED, "quota.yaml": COMPLETE})
    assert main(["kb", "show", "site.old-quota", "--kb", str(folder), "--no-user-kb"]) == 0
    said = capsys.readouterr().out
    assert said.startswith("site.old-quota: removed (replaced by site.quota-exceeded)\n")
    assert "the quota message changed" in said
    assert main(["kb", "show", "site.quota-exceeded", "--kb", str(folder), "--no-user-kb"]) == 0
    assert "  since 0.1.0\n" in capsys.readouterr().out


def test_a_removed_rule_says_what_replaces_it_even_if_nothing(tmp_path: Path) -> None:
    text = REMOVED.replace("replaced_by: site.quota-exceeded\n", "")
    assert lint_lines(tmp_path, {"old.yaml": text}) == [
        "old.yaml:1: error: field 'replaced_by': missing: the id of the rule that replaces it, "
        "or null"
    ]
    nothing = REMOVED.replace("replaced_by: site.quota-exceeded", "replaced_by: null")
    assert lint_lines(tmp_path / "null", {"old.yaml": nothing}) == []


def test_kb_list_names_removed_rules_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from osdoctor.cli import main

    folder = rules_folder(tmp_path, {"old.yaml": REMOVED, "quota.yaml": COMPLETE})
    assert main(["kb", "list", "--kb", str(folder), "--no-user-kb"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].split() == [
        "removed",
        "site.old-quota",
        "(replaced",
        "by",
        "site.quota-exceeded)",
    ]
    assert not [line for line in lines if line.startswith("rule") and "site.old-quota" in line]
