"""The reports the tests read: the built-in knowledge loaded once, and every run of
a log diagnosed as ``osdoctor explain`` does."""

from __future__ import annotations

import functools
from pathlib import Path

from osdoctor.diagnose import diagnose
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.model import Report
from osdoctor.runs.log_runs import read_runs_of_path
from tests.helpers.public_logs import FIXTURES, all_public_logs

#: Every real log the project keeps: the lab's fixtures, both sets of public logs
#: and the wild pastes.
ALL_LOGS = [
    *sorted((FIXTURES / "logs").glob("*.log")),
    *all_public_logs(),
    *sorted((FIXTURES / "wild").glob("*.log")),
]


@functools.cache
def builtin_kb() -> KnowledgeBase:
    return load_knowledge(user=False)


def run_reports(log: Path) -> list[Report]:
    """The report of each run of ``log``, in order."""
    reports: list[Report] = []
    read_runs_of_path(
        log, lambda t: diagnose(t, builtin_kb()), on_run=lambda _s, r: reports.append(r)
    )
    return reports
