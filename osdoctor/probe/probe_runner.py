"""Probing a report: plan every finding's probe, show what will be contacted, run.

Planning sends nothing: it finds each probe's target in the log, so that the
user can be shown every host (and whether the credentials go there) before
answering yes. ``prepare`` and ``execute`` are the whole of it for both front
ends: ``osdoctor probe`` asks on the terminal, the TUI's probe key in a dialog.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from osdoctor.kb.loader import KnowledgeBase
from osdoctor.kb.text_placeholders import fill
from osdoctor.model import Report
from osdoctor.probe import DEFAULT_TIMEOUT
from osdoctor.probe.checks import COULD_NOT_CHECK, ProbeContext, Target, plan_probe, run_probe
from osdoctor.probe.cloudconfig import CloudAuth, CloudConfigError, load_cloud_auth
from osdoctor.probe.guard import Sent
from osdoctor.probe.scope import Scope, host_key


@dataclass(slots=True)
class PlannedProbe:
    finding: int
    """Index of the finding in ``report.findings``."""
    finding_id: str
    probe: str
    params: dict[str, str]
    target: Target | None
    problem: str | None = None
    """Why it cannot run, when ``target`` is None."""


@dataclass(slots=True)
class ProbeResult:
    probe: str
    status: str
    """``confirmed``, ``not-reproduced`` or ``could-not-check``."""
    detail: str


@dataclass(slots=True)
class ProbePlan:
    """What a probe of a report will do, decided before anything is sent."""

    report: Report
    scope: Scope
    cloud: CloudAuth | None
    """The credentials found (clouds.yaml, ``OS_CLOUD``, ``OS_*``), if any."""
    cloud_error: str | None
    """Why none were found, for the probes that need them."""
    planned: list[PlannedProbe]
    hosts: dict[str, list[str]]
    """Host -> what will be sent there (``contacts``): what the user agrees to."""
    maps: dict[str, str] = field(default_factory=dict)
    """``--map``: the log's host:port -> the one contacted instead."""


@dataclass(slots=True)
class ProbeRun:
    planned: list[PlannedProbe]
    results: dict[int, ProbeResult] = field(default_factory=dict)
    """By finding index; a finding without a probe has no entry."""
    sent: list[Sent] = field(default_factory=list)


def _param(template: str, values: Mapping[str, str]) -> str | None:
    value = fill(template, values).strip()
    return None if not value or "{" in value else value


def plan(
    report: Report, kb: KnowledgeBase, scope: Scope, cloud: CloudAuth | None
) -> list[PlannedProbe]:
    """The probe of each finding whose rule names one, with its target; nothing is sent."""
    out = []
    for index, finding in enumerate(report.findings):
        rule = kb.rules.get(finding.id)
        if rule is None or rule.probe is None:
            continue
        values = {"command": report.trace.command or "", **finding.captures}
        params = {
            k: v
            for k, v in ((k, _param(t, values)) for k, t in rule.probe.params.items())
            if v is not None
        }
        target = plan_probe(rule.probe.name, params, report.trace, scope, cloud)
        if isinstance(target, str):
            out.append(PlannedProbe(index, finding.id, rule.probe.name, params, None, target))
        else:
            out.append(PlannedProbe(index, finding.id, rule.probe.name, params, target))
    return out


def contacts(
    planned: list[PlannedProbe], cloud: CloudAuth | None, scope: Scope
) -> dict[str, list[str]]:
    """Host -> what will be sent there, in words: the consent prompt's content. A host the
    log does not name is listed as not contacted (the guard would refuse it anyway)."""
    out: dict[str, list[str]] = {}
    needs_token = any(p.target is not None and p.target.credentials for p in planned)
    if needs_token and cloud is not None and cloud.auth_url:
        out.setdefault(host_key(cloud.auth_url) or cloud.auth_url, []).append(
            f"Keystone: version discovery and the token request with the credentials of "
            f"{cloud.source}"
        )
    for p in planned:
        t = p.target
        if t is None or t.method == "TOKEN":
            continue
        what = "TLS handshake only" if t.method == "TLS" else f"{t.method} {t.url}"
        if t.credentials:
            what += " with the token"
        out.setdefault(host_key(t.url) or t.url, []).append(f"{what}  [{p.probe}]")
    return {
        (
            host
            if host in scope.allowed
            else f"{host} (NOT contacted: the log does not name it; see --map)"
        ): what
        for host, what in out.items()
    }


def prepare(
    report: Report,
    kb: KnowledgeBase,
    maps: Mapping[str, str] | None = None,
    os_cloud: str | None = None,
    insecure: bool = False,
) -> ProbePlan:
    """Find the credentials and every probe's target, and what will be contacted;
    nothing is sent."""
    cloud: CloudAuth | None = None
    cloud_error: str | None = None
    try:
        cloud = load_cloud_auth(os_cloud, insecure=insecure)
    except CloudConfigError as exc:
        cloud_error = str(exc)
    scope = Scope.from_trace(report.trace, dict(maps or {}))
    planned = plan(report, kb, scope, cloud)
    hosts = contacts(planned, cloud, scope)
    return ProbePlan(report, scope, cloud, cloud_error, planned, hosts, dict(maps or {}))


def execute(prepared: ProbePlan, timeout: float = DEFAULT_TIMEOUT) -> ProbeRun:
    """Run the planned probes (the user has agreed); every call has ``timeout`` seconds."""
    planned = prepared.planned
    run = ProbeRun(planned)
    ctx = ProbeContext(
        prepared.report.trace, prepared.scope, prepared.cloud, prepared.cloud_error, timeout
    )
    # Two findings may name the same check (a redirect rule and the generic one):
    # it is sent once and its answer serves both.
    done: dict[tuple[str, tuple[tuple[str, str], ...]], ProbeResult] = {}
    try:
        for p in planned:
            if p.target is None:
                run.results[p.finding] = ProbeResult(
                    p.probe, COULD_NOT_CHECK, p.problem or "no target"
                )
                continue
            key = (p.probe, tuple(sorted(p.params.items())))
            if key not in done:
                outcome = run_probe(p.probe, ctx, p.target, p.params)
                done[key] = ProbeResult(p.probe, outcome.status, outcome.detail)
            run.results[p.finding] = done[key]
    finally:
        ctx.close()
    run.sent = ctx.sent
    return run
