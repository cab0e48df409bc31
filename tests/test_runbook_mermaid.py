"""The runbook's sequence diagrams are real mermaid, and read as mermaid reads them.

Every ```` ```mermaid ```` block of the generated runbook goes through mermaid's own
parser (the npm package, run by node: ``tests/mermaid/check.mjs``). ``kb lint
--seeds`` compares each scenario's diagram with its seed's through osdoctor's own
reader (``runbook.seeds``): here that reader must read every runbook diagram, and a
seed-shaped document of the test's own, exactly as mermaid does. The seeds
themselves are not the suite's (``.ci/run`` lints them where they are).
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
from osdoctor.runbook.mermaid import scenario_mermaid
from osdoctor.runbook.seeds import read_sequence, seed_diagrams
from tests.helpers.seeds import TINY_SEED, tiny_knowledge

ROOT = Path(__file__).resolve().parent.parent
CHECKER = ROOT / "tests" / "mermaid"
#: mermaid's message types that open, split or close a block, or switch autonumbering.
_STRUCTURE = {10, 11, 12, 13, 14, 26}
#: mermaid's message types as written: solid and dotted arrows, a note.
_ARROW = {0: "->>", 1: "-->>", 2: "note", 5: "->", 6: "-->"}
#: One worker runs this module (``--dist loadgroup``): mermaid reads every diagram once.
pytestmark = pytest.mark.xdist_group("mermaid")


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
def checked(
    kb: KnowledgeBase, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, Any], dict[str, str]]:
    """What mermaid read from each diagram, and the diagrams' texts, by name: the
    runbook's, the tiny seed's and the tiny scenario's (its labels hold ``;`` and ``#``)."""
    pages = build_runbook(kb, default_fixtures_dir())
    diagrams: dict[str, str] = {}
    for path, page in sorted(pages.items()):
        for n, block in enumerate(mermaid_blocks(page)):
            diagrams[f"runbook:{path}:{n}"] = block
    for section, block in enumerate(seed_diagrams(TINY_SEED), 1):
        diagrams[f"seed:tiny:{section}"] = block
    tiny = tiny_knowledge(tmp_path_factory.mktemp("tiny-kb")).scenarios["tiny.poll"]
    diagrams["scenario:tiny.poll"] = scenario_mermaid(tiny)
    return run_checker(diagrams), diagrams


@pytest.fixture(scope="module")
def parsed(checked: tuple[dict[str, Any], dict[str, str]]) -> dict[str, Any]:
    return checked[0]


def _signals(entry: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [
        (m["from"], m["to"], m["text"], _ARROW.get(m["type"], m["type"]))
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


def test_the_tiny_seed_holds_two_diagrams(parsed: dict[str, Any]) -> None:
    seeds = {k: v for k, v in parsed.items() if k.startswith("seed:")}
    assert len(seeds) == 2
    assert all(v["ok"] for v in seeds.values())


def test_osdoctors_reader_reads_every_diagram_as_mermaid_does(
    checked: tuple[dict[str, Any], dict[str, str]],
) -> None:
    parsed, texts = checked
    assert len(texts) > 2
    for name, text in texts.items():
        mine = read_sequence(text)
        assert mine.problems == [], name
        assert [[a.id, a.label, a.kind] for a in mine.actors] == parsed[name]["actors"], name
        theirs = _signals(parsed[name])
        assert [(s.source, s.target, s.text, s.arrow) for s in mine.signals] == theirs, name


def test_the_tiny_scenario_carries_its_seeds_participants_and_messages(
    parsed: dict[str, Any],
) -> None:
    """What ``kb lint --seeds`` proves of the real seeds, here by mermaid's own reading."""
    mine, seed = parsed["scenario:tiny.poll"], parsed["seed:tiny:2"]
    assert mine["ok"] and seed["ok"]
    assert mine["actors"] == seed["actors"]
    assert _signals(mine) == _signals(seed)
    assert ("C", "C", "sleep 5 s # between rounds", "note") in _signals(mine)
