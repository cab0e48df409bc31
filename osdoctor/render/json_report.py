"""The JSON report: the contract in the scenario catalogue, plus extra fields."""

from __future__ import annotations

import json
from typing import Any

from osdoctor import __version__
from osdoctor.facts import report_facts
from osdoctor.facts.template_values import summary
from osdoctor.model import Frame, Report
from osdoctor.servicelog.join import Joined


def report_dict(report: Report) -> dict[str, Any]:
    t = report.trace
    scenario: dict[str, Any] | None = None
    if report.scenario is not None:
        s = report.scenario
        scenario = {
            "id": s.id,
            "title": s.title,
            "branch": s.branch,
            "branch_title": s.branch_title,
            "seed": s.seed,
            "section": s.section,
            "divergence": s.divergence,
            "steps": [
                {"step": st.label, "state": st.state, "lines": st.lines, "note": st.note}
                for st in s.steps
            ],
        }
    return {
        "osdoctor": __version__,
        "source": t.source,
        "command": t.command,
        "client": t.client,
        "exit_code": t.exit_code,
        "outcome": report.outcome,
        "scenario": scenario,
        "exchanges": [
            {
                "index": ex.index,
                "method": ex.request.method,
                "url": ex.request.url,
                "status": ex.status,
                "line": ex.first_line,
                "last_line": ex.last_line,
                "service": ex.service,
                "path": ex.path,
                "error": (
                    {"kind": ex.error.kind, "message": ex.error.message, "line": ex.error.line}
                    if ex.error
                    else None
                ),
                "time": ex.time,
                "redirected_from": ex.redirected_from,
            }
            for ex in t.exchanges
        ],
        "folded": [
            {
                "after": f.after,
                "count": f.count,
                "first_line": f.first_line,
                "last_line": f.last_line,
                "pattern": f.pattern,
            }
            for f in t.folds
        ],
        "findings": [
            {
                "id": f.id,
                "severity": f.severity,
                "title": f.title,
                "explanation": f.explanation,
                "next_steps": f.next_steps,
                "evidence": [
                    {"line": e.line, "text": e.text, **({"source": e.source} if e.source else {})}
                    for e in f.evidence
                ],
                "references": f.references,
                "runbook": f.runbook,
            }
            for f in report.findings
        ],
        "outranked": [{"id": f.id, "title": f.title} for f in report.outranked],
        "facts": facts_dict(report),
        "near": [
            {
                "scenario": n.scenario,
                "branch": n.branch,
                "title": n.title,
                "held": n.held,
                "steps": n.steps,
                "missing": n.missing,
            }
            for n in report.near
        ],
        "candidates": [
            {"scenario": c.scenario, "branch": c.branch, "score": c.score, "reasons": c.reasons}
            for c in report.candidates
        ],
        "api_versions": t.api_versions,
        "commands": [{"line": c.line, "text": c.text, "client": c.client} for c in t.commands],
        "tracebacks": [
            {
                "type": tb.exc_type,
                "message": tb.message,
                "first_line": tb.first_line,
                "last_line": tb.last_line,
                "origin": tb.origin,
                "client_frame": _frame(tb.client_frame),
            }
            for tb in t.tracebacks
        ],
        "log": {"format": t.format, "lines": t.line_count, "problems": t.problems},
    }


def facts_dict(report: Report) -> dict[str, Any]:
    """The decisive failure as the rules saw it (see ``osdoctor.facts``)."""
    facts = report_facts(report)
    f = facts.failure
    failure: dict[str, Any] | None = None
    if f is not None:
        failure = {
            "kind": f.kind,
            "line": f.line,
            "status": f.status,
            "method": f.method,
            "url": f.url,
            "service": f.service or None,
            "service_name": f.service_name or None,
            "request_id": f.request_id or None,
            "inner": f.inner or None,
            "fault": (
                {
                    "message": f.fault.message,
                    "type": f.fault.type or None,
                    "shape": f.fault.shape,
                    "code": f.fault.code or None,
                    "detail": f.fault.detail or None,
                }
                if f.fault
                else None
            ),
            "transport": (
                {
                    "kind": f.transport.kind,
                    "host": f.transport.host,
                    "port": f.transport.port,
                    "detail": f.transport.detail,
                    "url": f.transport.url or None,
                }
                if f.transport
                else None
            ),
            "summary": summary(facts),
            "path": f.path or None,
            "endpoint": f.endpoint or None,
            "resource": f.resource or None,
            "evidence": [{"line": line, "text": text} for line, text in f.evidence],
        }
    error = facts.client_error
    exc = facts.exception
    af = facts.async_failure
    return {
        "failure": failure,
        "client_error": error.text if error else None,
        "client_error_detail": (
            {"text": error.text, "line": error.line, "class": error.error_class or None}
            if error
            else None
        ),
        "exception": (
            {
                "type": exc.type,
                "message": exc.message,
                "frame": exc.frame or None,
                "line": exc.line,
                "package": exc.package or None,
            }
            if exc
            else None
        ),
        "async_failure": (
            {
                "resource": af.resource,
                "status": af.status,
                "fault": af.fault or None,
                "line": af.line,
            }
            if af
            else None
        ),
        "attempts": facts.attempts or None,
        "auth_sent": facts.auth_sent or None,
        "auth": facts.auth,
        "recovered": facts.recovered,
        "versions": facts.versions,
        "server": [server_record(j) for j in facts.server],
    }


def server_record(joined: Joined) -> dict[str, Any]:
    """A service's record tied to the run: where it is, what it says, how it was tied."""
    r = joined.record
    return {
        "source": r.source or None,
        "line": r.line,
        "last_line": r.last_line,
        "format": r.format,
        "level": r.level,
        "service": r.service or None,
        "logger": r.logger or None,
        "message": r.message,
        "exception": r.exception or None,
        "exception_message": r.exception_message or None,
        "frames": r.frames[-3:],
        "request_id": r.request_id or None,
        "global_request_id": r.global_request_id or None,
        "tie": joined.kind,
        "exchange": joined.exchange,
    }


def _frame(frame: Frame | None) -> dict[str, Any] | None:
    """Where in the client's own code a traceback shows (``model.Traceback.client_frame``)."""
    if frame is None:
        return None
    return {
        "file": frame.file,
        "lineno": frame.lineno,
        "function": frame.function,
        "line": frame.line,
    }


def render_json(report: Report) -> str:
    return json.dumps(report_dict(report), indent=2, ensure_ascii=False) + "\n"
