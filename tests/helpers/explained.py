"""One parse and one diagnosis of each fixture log for the whole test session.

About ten test files go over every fixture log, and each read, parsed and
diagnosed every log again. They take the trace and the report from here
instead: made on first use, kept for the session. Under pytest-xdist each
worker is a process of its own, with a cache of its own: nothing is shared
between workers, and a worker parses only the logs of the tests it runs.

The trace and report are shared by every test that asks: a test reads them and
never changes them (diagnosing a trace again, or rendering a report, changes
neither). A test that must change one parses its own.
"""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

from osdoctor.diagnose import diagnose, parse_path
from osdoctor.intake import parse_fixture
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.model import Report, Trace

#: The lab's fixture logs (tests/fixtures/logs), each beside its .expected.yaml.
LOGS = Path(__file__).resolve().parents[1] / "fixtures" / "logs"


@functools.cache
def builtin_knowledge() -> KnowledgeBase:
    """The built-in knowledge alone (no user folder), loaded once."""
    return load_knowledge(user=False)


@functools.cache
def trace_of(log: Path) -> Trace:
    return parse_path(log)


@functools.cache
def report_of(log: Path) -> Report:
    """``osdoctor explain``'s report on ``log``, with the built-in knowledge."""
    return diagnose(trace_of(log), builtin_knowledge())


@functools.cache
def fixture_report_of(log: Path) -> Report:
    """The report on a lab fixture with the services' logs its capture kept beside it
    (``intake.parse_fixture``): the run as the lab played it, both sides."""
    return diagnose(parse_fixture(log), builtin_knowledge())


def stub_url(name: str) -> str:
    """The stub's address in fixture ``name`` (the port its capture used, which its
    .expected.yaml records: captures take any free port)."""
    expected = yaml.safe_load((LOGS / f"{name}.expected.yaml").read_text(encoding="utf-8"))
    return f"http://127.0.0.1:{expected['stub_port']}"
