"""The JSON report: the contract in the scenario catalogue, plus extra fields."""

from __future__ import annotations

import json
from typing import Any

from osdoctor import __version__
from osdoctor.model import Report


def report_dict(report: Report) -> dict[str, Any]:
    t = report.trace
    scenario: dict[str, Any] | None = None
    if report.scenario is not None:
        s = report.scenario
        scenario = {
            "id": s.id, "title": s.title, "branch": s.branch, "branch_title": s.branch_title,
            "seed": s.seed, "section": s.section, "divergence": s.divergence,
            "steps": [{"step": st.label, "state": st.state, "lines": st.lines, "note": st.note}
                      for st in s.steps],
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
                "index": ex.index, "method": ex.request.method, "url": ex.request.url,
                "status": ex.status, "line": ex.first_line, "last_line": ex.last_line,
                "service": ex.service, "path": ex.path,
                "error": ({"kind": ex.error.kind, "message": ex.error.message,
                           "line": ex.error.line} if ex.error else None),
                "time": ex.time,
                "redirected_from": ex.redirected_from,
            }
            for ex in t.exchanges
        ],
        "folded": [
            {"after": f.after, "count": f.count, "first_line": f.first_line,
             "last_line": f.last_line, "pattern": f.pattern}
            for f in t.folds
        ],
        "findings": [
            {
                "id": f.id, "severity": f.severity, "title": f.title,
                "explanation": f.explanation, "next_steps": f.next_steps,
                "evidence": [{"line": e.line, "text": e.text} for e in f.evidence],
                "references": f.references,
            }
            for f in report.findings
        ],
        "candidates": [
            {"scenario": c.scenario, "branch": c.branch, "score": c.score, "reasons": c.reasons}
            for c in report.candidates
        ],
        "api_versions": t.api_versions,
        "tracebacks": [
            {"type": tb.exc_type, "message": tb.message, "first_line": tb.first_line,
             "last_line": tb.last_line}
            for tb in t.tracebacks
        ],
        "log": {"format": t.format, "lines": t.line_count, "problems": t.problems},
    }


def render_json(report: Report) -> str:
    return json.dumps(report_dict(report), indent=2, ensure_ascii=False) + "\n"
