"""``explain --anonymize`` on every real client log, in every format: the values
are anonymised before the report shortens them, so no id of the input
survives, whole or cut, and the request table keeps its columns."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest

from osdoctor.anonymize import Anonymizer
from osdoctor.diagnose import diagnose
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.render.json_report import render_json
from osdoctor.render.markdown import render_markdown
from osdoctor.render.text import render_text
from tests.helpers.explained import report_of, trace_of

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "logs").glob("*.log"))
_IDS = re.compile(
    r"(?<![0-9A-Za-z])(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    r"|[0-9a-f]{32})(?![0-9A-Za-z])"
)


_STAND_IN_SHAPE = "00000000-0000-4000-8000-"


@functools.cache
def _kb() -> KnowledgeBase:
    return load_knowledge(user=False)


def _outputs(log: Path) -> tuple[dict[str, str], Anonymizer]:
    trace = trace_of(log)
    report = report_of(log)
    anon = Anonymizer()
    anon.learn_from_trace(trace)
    shown = diagnose(anon.anonymize_trace(trace), _kb())
    assert [f.id for f in shown.findings] == [f.id for f in report.findings]
    return {
        "text": render_text(shown),
        "markdown": render_markdown(shown),
        "json": render_json(shown),
    }, anon


@pytest.mark.parametrize("log", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_no_id_of_the_input_survives(log: Path) -> None:
    outputs, anon = _outputs(log)
    stand_ins = set(anon.mapping.values())
    # The lab's request ids are shaped like stand-ins (req-00000000-0000-4000-8000-...):
    # the output cannot tell them apart.
    ids = {
        i
        for i in _IDS.findall(log.read_text(errors="replace"))
        if not i.startswith(_STAND_IN_SHAPE) and not any(i in s for s in stand_ins)
    }
    for fmt, out in outputs.items():
        for value in ids:
            assert value not in out, (fmt, value)
            # A cut id: the first half of it, where an evidence line or a path ends.
            assert f"{value[:13]}…" not in out and f"{value[:18]}" not in out, (fmt, value)


#: "  line N      METHOD service       path (52 wide)     status": where the status starts.
_STATUS_COLUMN = len("  line ") + 6 + 1 + 6 + 1 + 13 + 1 + 52 + 1


@pytest.mark.parametrize("log", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_request_table_keeps_its_columns(log: Path) -> None:
    outputs, _anon = _outputs(log)
    rows = [
        line
        for line in outputs["text"].splitlines()
        if re.match(r"  line \d+ +[A-Z]+ +\S+ +/", line)
    ]
    for row in rows:
        assert row[_STATUS_COLUMN - 1] == " " and row[_STATUS_COLUMN] != " ", row


def test_json_keeps_its_shape() -> None:
    outputs, _anon = _outputs(FIXTURES[0])
    assert json.loads(outputs["json"])["exchanges"]
