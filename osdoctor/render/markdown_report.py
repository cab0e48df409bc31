"""The Markdown report, for a ticket: the same content as the text report, set so
that it reads as written (``render.commonmark``): prose escaped, commands and
the log's lines as code."""

from __future__ import annotations

from osdoctor.model import Report
from osdoctor.render.common import (
    NO_COMMAND,
    WHY_NOT,
    failure_line,
    headline_parts,
    near_count,
    nothing_near,
    reference_markdown,
    request_rows,
    row_count,
    row_status,
    scenario_runbook,
    short_path,
    summary_line,
    user_references,
)
from osdoctor.render.commonmark import cell, code, step, text

_MAX_ROWS = 60


def render_markdown(report: Report, why_not: bool = False) -> str:
    t = report.trace
    command, rest = headline_parts(report)
    said = (code(command) if command else text(NO_COMMAND)) + text(rest)
    out = [f"## osdoctor: {said}", "", f"**{text(summary_line(report))}**", ""]
    s = report.scenario
    if s is not None:
        out.append(f"- **Scenario:** `{s.id}` — {text(s.title)}")
        title = f" — {text(s.branch_title)}" if s.branch_title else ""
        out.append(
            f"- **Branch:** `{s.branch}`{title}"
            if s.branch
            else "- **Branch:** none of the documented branches"
        )
        out.append(f"- **Runbook:** `{scenario_runbook(s)}`")
        if s.divergence:
            out.append(f"- **Diverged:** {text(s.divergence)}")
    else:
        out.append("- **Scenario:** none of the documented scenarios")
    where = failure_line(report)
    if where:
        out.append(f"- **Failed at:** {text(where)}")
    out.append(
        f"- **Client:** {t.client}; **exit code:** "
        f"{t.exit_code if t.exit_code is not None else 'not in the log'}"
    )
    out.append("")
    for f in report.findings:
        out.append(f"### {f.severity.upper()}: {text(f.title)}")
        out.append("")
        out.append(f"`{f.id}`")
        out.append("")
        out.extend(p for para in f.explanation.split("\n\n") for p in (text(para), ""))
        if f.next_steps:
            out.append("**Next steps**")
            out.append("")
            out.extend(f"- {step(s)}" for s in f.next_steps)
            out.append("")
        if f.evidence:
            out.append("**Evidence**")
            out.append("")
            out.extend(f"- {e.where}: {code(e.text[:200])}" for e in f.evidence)
            out.append("")
        if f.runbook:
            out.append(f"See the runbook page `{f.runbook}`.")
            out.append("")
        if user_references(f.references):
            out.append(
                "References: "
                + "; ".join(reference_markdown(r) for r in user_references(f.references))
            )
            out.append("")
    if why_not:
        out.append(f"### {WHY_NOT}")
        out.append("")
        for n in report.near:
            out.append(
                f"- `{n.scenario}` › `{n.branch}`: {text(n.title)} ({near_count(n)}); "
                f"did not happen: {text(n.missing)}"
            )
        if not report.near:
            out.append(nothing_near(report))
        out.append("")
    if t.exchanges:
        rows = request_rows(t.exchanges)
        total = len(t.exchanges) + sum(f.count for f in t.folds)
        out.append(f"### Requests ({total})")
        out.append("")
        out.append("| line | method | service | path | status |")
        out.append("|---:|---|---|---|---|")
        for row in rows[:_MAX_ROWS]:
            ex = row.first
            times = row_count(row)
            out.append(
                f"| {ex.first_line} | {ex.request.method} | {ex.service or '?'} | "
                f"{cell(code(short_path(ex, 80)))} | {row_status(row)}{times} |"
            )
        if len(rows) > _MAX_ROWS:
            out.append(f"| | | | … {len(rows) - _MAX_ROWS} more rows | |")
        out.append("")
    if t.problems:
        out.append("### Could not read everything")
        out.append("")
        out.extend(f"- {text(p)}" for p in t.problems)
        out.append("")
    return "\n".join(out).rstrip() + "\n"
