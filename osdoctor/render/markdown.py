"""The Markdown report, for a ticket: the same content as the text report."""

from __future__ import annotations

from osdoctor.model import Report
from osdoctor.render.common import (
    NOTHING_NEAR,
    WHY_NOT,
    failure_line,
    headline,
    near_count,
    reference_markdown,
    request_rows,
    row_count,
    row_status,
    scenario_runbook,
    short_path,
    summary_line,
    user_references,
)

_MAX_ROWS = 60


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}"


def render_markdown(report: Report, why_not: bool = False) -> str:
    t = report.trace
    out = [f"## osdoctor: {_cell(headline(report))}", "", f"**{summary_line(report)}**", ""]
    s = report.scenario
    if s is not None:
        out.append(f"- **Scenario:** `{s.id}` — {s.title}")
        title = f" — {s.branch_title}" if s.branch_title else ""
        out.append(
            f"- **Branch:** `{s.branch}`{title}"
            if s.branch
            else "- **Branch:** none of the documented branches"
        )
        out.append(f"- **Runbook:** `{scenario_runbook(s)}`")
        if s.divergence:
            out.append(f"- **Diverged:** {s.divergence}")
    else:
        out.append("- **Scenario:** none of the documented scenarios")
    where = failure_line(report)
    if where:
        out.append(f"- **Failed at:** {_cell(where)}")
    out.append(
        f"- **Client:** {t.client}; **exit code:** "
        f"{t.exit_code if t.exit_code is not None else 'not in the log'}"
    )
    out.append("")
    for f in report.findings:
        out.append(f"### {f.severity.upper()}: {f.title}")
        out.append("")
        out.append(f"`{f.id}`")
        out.append("")
        out.append(f.explanation)
        out.append("")
        if f.next_steps:
            out.append("**Next steps**")
            out.append("")
            out.extend(f"- {step}" for step in f.next_steps)
            out.append("")
        if f.evidence:
            out.append("**Evidence**")
            out.append("")
            out.extend(f"- {e.where}: {_code(e.text[:200])}" for e in f.evidence)
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
                f"- `{n.scenario}` › `{n.branch}`: {n.title} ({near_count(n)}); "
                f"did not happen: {n.missing}"
            )
        if not report.near:
            out.append(NOTHING_NEAR)
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
                f"{_cell(short_path(ex, 80))} | {row_status(row)}{times} |"
            )
        if len(rows) > _MAX_ROWS:
            out.append(f"| | | | … {len(rows) - _MAX_ROWS} more rows | |")
        out.append("")
    if t.problems:
        out.append("### Could not read everything")
        out.append("")
        out.extend(f"- {p}" for p in t.problems)
        out.append("")
    return "\n".join(out).rstrip() + "\n"
