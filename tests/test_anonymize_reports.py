"""``explain --anonymize`` on every real client log, in every format: the values
are anonymised before the report shortens them, so no id of the input
survives, whole or cut, and the request table keeps its columns."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest

from osdoctor.diagnose import diagnose
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.model import Report, Trace
from osdoctor.render.json_report import render_json
from osdoctor.render.markdown_report import render_markdown
from osdoctor.render.text import render_text
from osdoctor.runs.log_runs import read_runs_of_path
from osdoctor.secrets.anonymize import Anonymizer
from tests.helpers.explained import report_of, trace_of
from tests.helpers.public_logs import public_log
from tests.helpers.reports import ALL_LOGS

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


_HOST = re.compile(
    r"(?<![\w.@/-])(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+(?:com|net|org|io|lab|local|cz)"
    r"(?![\w-]|\.[A-Za-z0-9])"
)


def _anonymized_runs(log: Path) -> tuple[list[tuple[Report, Report]], Anonymizer]:
    """Each run's report, plain and as ``explain --anonymize`` gives it."""
    anon = Anonymizer()
    pairs: list[tuple[Report, Report]] = []

    def explain(trace: Trace) -> Report:
        plain = diagnose(trace, _kb())
        anon.learn_from_trace(trace)
        pairs.append((plain, diagnose(anon.anonymize_trace(trace), _kb())))
        return pairs[-1][1]

    read_runs_of_path(log, explain)
    return pairs, anon


@pytest.mark.parametrize("log", ALL_LOGS, ids=[f"{p.parent.name}/{p.stem}" for p in ALL_LOGS])
def test_no_host_user_project_or_resource_name_survives(log: Path) -> None:
    """Defect 5: ``ironic-2019 --anonymize`` kept gold-4s-a.tpb.lab.eng.brq.redhat.com
    nine times, and the mapping did not hold it. Every host, user, project and
    resource name the log gives is replaced in every field, and the mapping holds
    each; the findings stay those of the plain report."""
    pairs, anon = _anonymized_runs(log)
    raw = log.read_text(errors="replace")
    hosts = {h for h in _HOST.findall(raw) if not h.endswith(".example")}
    for plain, shown in pairs:
        assert [f.id for f in shown.findings] == [f.id for f in plain.findings]
        doc = json.loads(render_json(shown))
        doc.pop("source")
        said = "\n".join([render_text(shown), render_markdown(shown), json.dumps(doc)])
        names = dict(plain.facts.auth)
        plain_doc = json.loads(render_json(plain))
        plain_doc.pop("source")
        plain_said = "\n".join([render_text(plain), render_markdown(plain), json.dumps(plain_doc)])
        for host in hosts:
            assert host not in said, host
            if host in plain_said:  # not a host a secret's mask already hid
                assert host in anon.mapping, host
        for key in ("user", "project"):
            value = names.get(key)
            if value and value.lower() not in ("admin", "default", "service"):
                assert value in anon.mapping, (key, value)
                assert not re.search(rf"(?<![\w-]){re.escape(value)}(?![\w-])", said), value


def test_the_names_a_service_s_words_and_the_command_give_are_replaced() -> None:
    """A host only Ironic's words name (ironic-2019), and the network the command
    and Neutron's words name (osc-2024's ``--network=private``)."""
    log = public_log("ironic-2019-terraform-gophercloud-409-node-locked")
    ((_plain, shown),), anon = _anonymized_runs(log)
    said = render_json(shown)
    assert "gold-4s-a" not in said
    assert anon.mapping["gold-4s-a.tpb.lab.eng.brq.redhat.com"] in said
    log = public_log("osc-2024-server-create-neutron-networknotfound-unresolved")
    ((_plain, shown),), anon = _anonymized_runs(log)
    said = render_text(shown)
    assert "private" not in said and anon.mapping["private"] in said
