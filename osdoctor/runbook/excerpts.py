"""Short real excerpts for the runbook: the lines of a fixture log that prove a branch.

A fixture is a real client's ``--debug`` output captured against the lab stub,
beside its ``.expected.yaml`` naming the scenario and branch it shows. The
excerpt is what ``osdoctor explain`` cites as evidence on that log (its
findings' lines, else the documented steps it observed), redacted like any
log osdoctor shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from osdoctor.diagnose import diagnose
from osdoctor.intake import parse_fixture
from osdoctor.kb.loader import KnowledgeBase
from osdoctor.kb.yamlfile import YamlError, load_yaml
from osdoctor.model import Report, StepState
from osdoctor.secrets.redact import redact_text

MAX_LINES = 8
MAX_WIDTH = 160


@dataclass(frozen=True, slots=True)
class Excerpt:
    fixture: str
    """The fixture's name (its file name without ``.log``)."""
    command: str
    lines: tuple[tuple[int, str], ...]
    """(1-based line number, redacted text), in log order."""
    service: tuple[tuple[str, str], ...] = ()
    """The services' log lines cited, ``(nova-api.log:812, text)``: a server-side
    rule's proof is in the service's log, which the capture kept beside the fixture."""


def _declared(doc: Any) -> tuple[str, str] | None:
    """The scenario and branch a fixture's expectations name (top level or under
    ``expected``)."""
    if not isinstance(doc, dict):
        return None
    inner = doc.get("expected")
    source = inner if isinstance(inner, dict) and "scenario" in inner else doc
    scenario, branch = source.get("scenario"), source.get("branch")
    if isinstance(scenario, str) and isinstance(branch, str):
        return scenario, branch
    return None


@dataclass(slots=True)
class Excerpts:
    branches: dict[tuple[str, str], Excerpt]
    """(scenario, branch) -> the first fixture (by name) that declares it and that
    ``explain`` recognises as it."""
    rules: dict[str, Excerpt]
    """rule id -> the first fixture (by name) on which it fires: its evidence."""


def evidence_lines(report: Report, rule: str | None = None) -> list[int]:
    """The lines ``explain`` cites: its findings' evidence (most severe first; only
    ``rule``'s when given), else the documented steps it saw; at most MAX_LINES, in
    log order."""
    chosen: list[int] = []
    # A rule's own lines even where it was outranked (a fallback under the
    # server-side cause the fixture's service logs name).
    for finding in report.findings + (report.outranked if rule is not None else []):
        if rule is not None and finding.id != rule:
            continue
        for ev in finding.evidence:
            if ev.in_log and ev.line and ev.line not in chosen:
                chosen.append(ev.line)
    if rule is None and not chosen and report.scenario is not None:
        for step in report.scenario.steps:
            if step.state in (StepState.OBSERVED, StepState.DIVERGED):
                chosen.extend(n for n in step.lines if n and n not in chosen)
    chosen = chosen[:MAX_LINES]
    if rule is None and report.trace.exit_line and report.trace.exit_line not in chosen:
        chosen = chosen[: MAX_LINES - 1] + [report.trace.exit_line]
    return sorted(chosen)


def _clip(text: str) -> str:
    """The line cut to the page's width at a word's end, so that no id or value is
    shown in part (half a request id reads as another one)."""
    text = text.rstrip("\r\n")
    if len(text) <= MAX_WIDTH:
        return text
    cut = text[: MAX_WIDTH - 1]
    space = cut.rfind(" ")
    if space > MAX_WIDTH // 2:
        cut = cut[:space]
        last = cut.rpartition(" ")[2]
        if last.endswith((":", "=")) and " " in cut:  # a name whose value is cut off
            cut = cut.rpartition(" ")[0]
    return cut + "…"


def _excerpt(
    name: str, log_lines: list[str], report: Report, numbers: list[int], rule: str | None = None
) -> Excerpt | None:
    lines = tuple((n, _clip(log_lines[n - 1])) for n in numbers if 0 < n <= len(log_lines))
    service = tuple(
        (ev.where, _clip(ev.text))
        for f in report.findings + report.outranked
        if rule is not None and f.id == rule
        for ev in f.evidence
        if not ev.in_log
    )[:MAX_LINES]
    return Excerpt(name, report.trace.command or "", lines, service) if lines else None


def collect(kb: KnowledgeBase, folder: Path | None) -> Excerpts:
    """Run ``explain``'s pipeline on every fixture of ``folder`` once, and keep an
    excerpt per branch and per rule."""
    found = Excerpts({}, {})
    outranked: dict[str, Excerpt] = {}
    if folder is None or not folder.is_dir():
        return found
    for expected in sorted(folder.glob("*.expected.yaml")):
        name = expected.name.removesuffix(".expected.yaml")
        log = expected.with_name(f"{name}.log")
        try:
            declared = _declared(load_yaml(expected))
        except (YamlError, OSError):
            continue
        if not log.is_file():
            continue
        report = diagnose(parse_fixture(log), kb)
        log_lines = redact_text(log.read_text(encoding="utf-8", errors="replace")).splitlines()
        got = (report.scenario.id, report.scenario.branch or "") if report.scenario else None
        if declared is not None and got == declared and declared not in found.branches:
            excerpt = _excerpt(name, log_lines, report, evidence_lines(report))
            if excerpt is not None:
                found.branches[declared] = excerpt
        for finding in report.findings:
            if finding.id not in found.rules:
                excerpt = _excerpt(
                    name, log_lines, report, evidence_lines(report, finding.id), finding.id
                )
                if excerpt is not None:
                    found.rules[finding.id] = excerpt
        for finding in report.outranked:
            if finding.id not in outranked:
                excerpt = _excerpt(
                    name, log_lines, report, evidence_lines(report, finding.id), finding.id
                )
                if excerpt is not None:
                    outranked[finding.id] = excerpt
    # A fallback that leads on no fixture (a server-side cause outranks it on all
    # of its own) is shown where it fired, outranked.
    for rule_id, excerpt in outranked.items():
        found.rules.setdefault(rule_id, excerpt)
    return found
