"""The probe results added to the report, as text and as JSON; redacted like all output.

The JSON keeps every field of the catalogue's contract and adds a ``probe``
object to each finding (``null`` when its rule names no probe) and a
top-level ``probes`` object with the hosts contacted and the requests sent.
"""

from __future__ import annotations

import json
from typing import Any

from osdoctor.model import Report
from osdoctor.probe.probe_runner import ProbeRun
from osdoctor.render.json_report import report_dict
from osdoctor.secrets.redact import redact_text

WORDS = {
    "confirmed": "confirmed",
    "not-reproduced": "not reproduced",
    "could-not-check": "could not check",
}


def probe_text(report: Report, run: ProbeRun) -> str:
    out = ["", "Probes (asked the cloud just now, read-only):"]
    if not run.planned:
        out.append("  no finding of this report has a probe")
    for index, finding in enumerate(report.findings):
        result = run.results.get(index)
        if result is None:
            continue
        out.append(f"  [{WORDS.get(result.status, result.status)}] {finding.id}: {finding.title}")
        out.append(f"      {result.probe}: {result.detail}")
    if run.sent:
        out.append("  Requests sent:")
        for s in run.sent:
            answer = (
                "NOT SENT: " + (s.error or "")
                if s.blocked
                else str(s.status)
                if s.status is not None
                else (s.error or "no answer")
            )
            out.append(f"    {s.method} {s.url} -> {answer}")
    return redact_text("\n".join(out) + "\n")


def probe_dict(report: Report, run: ProbeRun) -> dict[str, Any]:
    data = report_dict(report)
    for index, finding in enumerate(data["findings"]):
        result = run.results.get(index)
        finding["probe"] = (
            None
            if result is None
            else {"name": result.probe, "status": result.status, "detail": result.detail}
        )
    data["probes"] = {
        "requests": [
            {
                "method": s.method,
                "url": s.url,
                "status": s.status,
                "error": s.error,
                "blocked": s.blocked,
            }
            for s in run.sent
        ],
    }
    return data


def probe_json(report: Report, run: ProbeRun) -> str:
    return redact_text(json.dumps(probe_dict(report, run), indent=2, ensure_ascii=False) + "\n")
