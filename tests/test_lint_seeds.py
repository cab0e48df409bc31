"""``osdoctor kb lint --seeds DIR``: each scenario's diagram says what its seed section says.

Checked on the tests' own seed-shaped text (tests/helpers/seeds.py): the seeds
themselves are not the project's, and ``.ci/run`` lints them where they are.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from osdoctor.kb.loader import load_knowledge
from osdoctor.lint import lint
from osdoctor.runbook.seeds import read_sequence, seed_issues
from tests.helpers.seeds import TINY_SCENARIO, TINY_SEED, tiny_knowledge, tiny_seeds


def _messages(kb_dir: Path, seeds: Path, scenario: str = TINY_SCENARIO) -> list[str]:
    return [i.message for i in seed_issues(tiny_knowledge(kb_dir, scenario), seeds)]


def test_a_scenario_that_mirrors_its_seed_passes(tmp_path: Path) -> None:
    assert _messages(tmp_path / "kb", tiny_seeds(tmp_path / "seeds")) == []


def test_a_reworded_message_is_named(tmp_path: Path) -> None:
    seeds = tiny_seeds(tmp_path / "seeds", TINY_SEED.replace("#59; then again", "#59; again"))
    (problem,) = _messages(tmp_path / "kb", seeds)
    assert problem.startswith("scenario tiny.poll: seed 004_5da9864bde361b9a.txt section 2:")
    assert "signal 2 differs" in problem and "'GET /things/x; again'" in problem


def test_a_missing_message_a_relabelled_participant_and_an_arrow_are_named(
    tmp_path: Path,
) -> None:
    seeds = tiny_seeds(tmp_path / "seeds")
    dropped = TINY_SCENARIO.replace('      - {note: "sleep 5 s # between rounds", over: [C]}\n', "")
    dropped_problems = _messages(tmp_path / "a", seeds, dropped)
    assert any("5 messages and notes in the scenario, 6 in the seed" in m for m in dropped_problems)
    relabelled = TINY_SCENARIO.replace('label: "Thing API"', 'label: "Things"')
    assert any("participants differ" in m for m in _messages(tmp_path / "b", seeds, relabelled))
    asked = TINY_SCENARIO.replace('reply: true, text: "200', 'text: "200')
    (problem,) = _messages(tmp_path / "c", seeds, asked)
    assert "arrow='->>') in the scenario" in problem and "arrow='-->>') in the seed" in problem


def test_a_section_or_seed_that_is_not_there_is_named(tmp_path: Path) -> None:
    seeds = tiny_seeds(tmp_path / "seeds")
    (problem,) = _messages(tmp_path / "a", seeds, TINY_SCENARIO.replace("section: 2", "section: 3"))
    assert problem.endswith("section 3: the seed has 2 diagram(s)")
    (tmp_path / "empty").mkdir()
    (problem,) = _messages(tmp_path / "b", tmp_path / "empty")
    assert problem.endswith(f"section 2: no such seed in {tmp_path / 'empty'}")
    (problem,) = _messages(tmp_path / "c", tmp_path / "nowhere")
    assert problem == "the seeds folder does not exist"


def test_a_seed_statement_the_reader_does_not_know_is_a_problem_not_a_skip(
    tmp_path: Path,
) -> None:
    seeds = tiny_seeds(tmp_path / "seeds", TINY_SEED.replace("  T-->>C: 201\n", "  T~~C: 201\n"))
    assert _messages(tmp_path / "kb", seeds) == [
        "section 1's diagram: a statement it cannot read: T~~C: 201"
    ]
    assert read_sequence("A->>B: x\n").problems == ["it does not start with sequenceDiagram"]
    assert read_sequence("sequenceDiagram\n  loop x\n").problems == ["1 block(s) left open"]


def test_lint_checks_the_seeds_only_when_given_them(tmp_path: Path) -> None:
    kb = tiny_knowledge(tmp_path / "kb")
    seeds = tiny_seeds(tmp_path / "seeds", TINY_SEED.replace("exit 0", "exit 2"))
    assert not lint(kb, None).seeds_checked
    result = lint(kb, None, seeds=seeds)
    assert result.seeds_checked and result.errors == 1


def test_the_command_fails_on_seeds_the_built_in_scenarios_do_not_match(tmp_path: Path) -> None:
    seeds = tiny_seeds(tmp_path / "seeds")
    proc = subprocess.run(
        [
            *(sys.executable, "-m", "osdoctor", "kb", "lint", "--no-user-kb"),
            *("--fixtures", str(tmp_path / "no-fixtures"), "--seeds", str(seeds)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    kb = load_knowledge(user=False)
    assert f"{len(kb.scenarios)} scenario diagrams checked against the seeds in {seeds}" in (
        proc.stdout
    )
    assert "scenario heat.stack-hook: seed 000_416000e4d6ae2dea.txt section 4: no such seed" in (
        proc.stdout
    )
