"""The terminal report: short, in the order an engineer under pressure reads it —
what happened, why, what to do, then the proof."""

from __future__ import annotations

import textwrap

from osdoctor.model import Report, Severity
from osdoctor.render.common import (
    WHY_NOT,
    failure_line,
    headline,
    near_count,
    nothing_near,
    request_rows,
    row_count,
    row_status,
    scenario_runbook,
    short_path,
    summary_line,
    user_references,
)

_SEVERITY_CODE: dict[Severity, str] = {"error": "1;31", "warning": "1;33", "info": "1;36"}
_MAX_ROWS = 40
_WIDTH = 88


class Style:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def _c(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.colour else text

    def bold(self, text: str) -> str:
        return self._c("1", text)

    def dim(self, text: str) -> str:
        return self._c("2", text)

    def severity(self, sev: Severity) -> str:
        code = _SEVERITY_CODE[sev]
        return self._c(code, sev.upper())

    def status(self, text: str) -> str:
        if text[:1] == "2":
            return self._c("32", text)
        if text[:1] == "3":
            return self._c("36", text)
        if text[:1] == "4":
            return self._c("33", text)
        return self._c("31", text)


def _wrap(text: str, indent: str, hanging: str | None = None) -> list[str]:
    """``text`` wrapped at the report's width; ``hanging``: the indent of the lines
    after the first, when not ``indent`` (a label's text goes on under itself)."""
    out: list[str] = []
    for para in text.split("\n"):
        if not para.strip():
            out.append("")
            continue
        out.extend(
            textwrap.wrap(
                para,
                _WIDTH,
                initial_indent=indent,
                subsequent_indent=indent if hanging is None else hanging,
                break_on_hyphens=False,
                break_long_words=False,
            )
            or [indent]
        )
    return out


def render_text(
    report: Report, colour: bool = False, why_not: bool = False, show_requests: bool = True
) -> str:
    st = Style(colour)
    t = report.trace
    out: list[str] = [st.bold(headline(report)), summary_line(report), ""]
    s = report.scenario
    if s is not None:
        branch = s.branch or "no documented branch"
        out.append(
            f"{st.bold('Scenario')}  {s.id} › {branch}   "
            + st.dim(f"(runbook {scenario_runbook(s)})")
        )
        out.append(f"          {s.title}" + (f" — {s.branch_title}" if s.branch_title else ""))
        if s.divergence:
            out.extend(_wrap("Diverged: " + s.divergence, "          "))
    elif t.openstack_lines:
        out.append(f"{st.bold('Scenario')}  none of the documented scenarios (generic checks only)")
    where = failure_line(report)
    if where:
        out.extend(_wrap(f"{st.bold('Failed')}    {where}", "", hanging=" " * 10))
    out.append("")
    for f in report.findings:
        out.append(f"{st.severity(f.severity)}  {st.bold(f.title)}  {st.dim('[' + f.id + ']')}")
        out.extend(_wrap(f.explanation, "  "))
        if f.next_steps:
            out.append("  Next:")
            for step in f.next_steps:
                out.extend(_wrap(step, "    • ")[:1] + _wrap(step, "      ")[1:])
        if f.evidence:
            out.append("  Evidence:")
            for ev in f.evidence:
                text = ev.text if len(ev.text) <= 110 else ev.text[:109] + "…"
                out.append(f"    {ev.where:<11} {text}")
        if f.runbook:
            out.append(
                "  "
                + st.dim(
                    "; ".join(["See the runbook page " + f.runbook, *user_references(f.references)])
                )
            )
        out.append("")
    if not report.findings and t.openstack_lines:
        out.append("No finding.")
        out.append("")
    if why_not and report.outranked:
        out.append(st.bold("Also matched, outranked by the findings above"))
        for f in report.outranked:
            out.append(f"  {f.title}  {st.dim('[' + f.id + ']')}")
        out.append("")
    if why_not:
        out.append(st.bold(WHY_NOT))
        for n in report.near:
            out.extend(_wrap(f"{n.scenario} › {n.branch}: {n.title} ({near_count(n)})", "  "))
            out.extend(_wrap("did not happen: " + n.missing, "    "))
        if not report.near:
            out.append("  " + nothing_near(report))
        out.append("")
    if show_requests and t.exchanges:
        rows = request_rows(t.exchanges)
        total = len(t.exchanges) + sum(f.count for f in t.folds)
        out.append(st.bold(f"Requests ({total})"))
        shown = rows if len(rows) <= _MAX_ROWS else rows[: _MAX_ROWS // 2] + rows[-_MAX_ROWS // 2 :]
        for i, row in enumerate(shown):
            if len(rows) > _MAX_ROWS and i == _MAX_ROWS // 2:
                out.append(st.dim(f"  … {len(rows) - _MAX_ROWS} more rows …"))
            ex = row.first
            times = row_count(row)
            service = (ex.service or "?")[:13]
            out.append(
                f"  line {ex.first_line:<6} {ex.request.method:<6} {service:<13} "
                f"{short_path(ex, 52):<52} {st.status(row_status(row))}{times}"
            )
        out.append("")
    if t.problems:
        out.append(st.bold("Could not read everything"))
        for p in t.problems:
            out.append(f"  - {p}")
        out.append("")
    return "\n".join(out).rstrip() + "\n"
