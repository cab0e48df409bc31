"""The runbook's sequence diagrams are real mermaid, and say what the seeds say.

Every ```` ```mermaid ```` block of the generated runbook goes through mermaid's own
parser (the npm package, run by node: ``tests/mermaid/check.mjs``), and so does
each seed's diagram. For every scenario, the participants and the messages (and
notes) that mermaid reads from the generated diagram must equal those it reads
from the seed's diagram for the scenario's seed and section.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.lint import default_fixtures_dir
from osdoctor.runbook.build import build_runbook
from osdoctor.runbook.markdown import scenario_page

ROOT = Path(__file__).resolve().parent.parent
CHECKER = ROOT / "tests" / "mermaid"
#: mermaid's message types that open, split or close a block, or switch autonumbering.
_STRUCTURE = {10, 11, 12, 13, 14, 26}


def _seeds_dir() -> Path:
    """The seeds beside the repository (CI lays shared/ next to the clone)."""
    candidate = ROOT.parent / "shared" / "seeds"
    if candidate.is_dir():
        return candidate
    raise AssertionError("the seeds folder (shared/seeds) is not beside the repository")


def seed_diagrams(text: str) -> list[str]:
    """A seed's sequence diagrams, in section order: from ``sequenceDiagram`` to
    the first blank line."""
    out: list[str] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if current is None:
            if line.strip() == "sequenceDiagram":
                current = [line.strip()]
        elif line.strip():
            current.append(line)
        else:
            out.append("\n".join(current) + "\n")
            current = None
    if current is not None:
        out.append("\n".join(current) + "\n")
    return out


def mermaid_blocks(page: str) -> list[str]:
    return re.findall(r"^```mermaid\n(.*?)^```$", page, flags=re.MULTILINE | re.DOTALL)


def run_checker(diagrams: dict[str, str]) -> dict[str, Any]:
    node = shutil.which("node")
    assert node is not None, "node is needed for the mermaid check (apt-get install nodejs)"
    assert (CHECKER / "node_modules" / "mermaid").is_dir(), (
        "mermaid is not installed for the check: run  npm ci --prefix tests/mermaid"
    )
    payload = json.dumps([{"name": k, "text": v} for k, v in diagrams.items()])
    proc = subprocess.run(
        [node, str(CHECKER / "check.mjs")],
        input=payload,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=CHECKER,
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


@pytest.fixture(scope="module")
def parsed(kb: KnowledgeBase) -> dict[str, Any]:
    pages = build_runbook(kb, default_fixtures_dir())
    diagrams: dict[str, str] = {}
    for path, page in sorted(pages.items()):
        for n, block in enumerate(mermaid_blocks(page)):
            diagrams[f"runbook:{path}:{n}"] = block
    seeds = _seeds_dir()
    for seed in sorted(seeds.glob("*.txt")):
        for section, block in enumerate(seed_diagrams(seed.read_text(encoding="utf-8")), 1):
            diagrams[f"seed:{seed.name}:{section}"] = block
    return run_checker(diagrams)


def _signals(entry: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (m["from"], m["to"], m["text"], m["type"])
        for m in entry["messages"]
        if m["type"] not in _STRUCTURE
    ]


def test_the_checker_rejects_a_broken_diagram() -> None:
    result = run_checker(
        {
            "good": "sequenceDiagram\n  A->>B: hi #59; there\n",
            "bad": "sequenceDiagram\n  A->>B: one; two\n  A->>: x\n",
        }
    )
    assert result["good"]["ok"] and result["good"]["messages"][0]["text"] == "hi ; there"
    assert not result["bad"]["ok"] and "Parse error" in result["bad"]["error"]


def test_every_runbook_diagram_parses(parsed: dict[str, Any], kb: KnowledgeBase) -> None:
    runbook = {k: v for k, v in parsed.items() if k.startswith("runbook:")}
    assert len(runbook) == len(kb.scenarios)
    failures = {k: v["error"] for k, v in runbook.items() if not v["ok"]}
    assert failures == {}
    assert {v["type"] for v in runbook.values()} == {"sequence"}


def test_seeds_hold_fifteen_diagrams(parsed: dict[str, Any]) -> None:
    seeds = {k: v for k, v in parsed.items() if k.startswith("seed:")}
    assert len(seeds) == 15
    assert all(v["ok"] for v in seeds.values())


def test_each_scenario_diagram_carries_the_seeds_participants_and_messages(
    parsed: dict[str, Any], kb: KnowledgeBase
) -> None:
    assert kb.scenarios
    for scenario in sorted(kb.scenarios.values(), key=lambda s: s.id):
        mine = parsed[f"runbook:{scenario_page(scenario.id)}:0"]
        seed = parsed[f"seed:{scenario.seed}:{scenario.section}"]
        assert mine["actors"] == seed["actors"], scenario.id
        assert _signals(mine) == _signals(seed), scenario.id
