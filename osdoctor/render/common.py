"""What every report format shows the same way: the headline, grouped exchanges."""

from __future__ import annotations

from osdoctor import regex
from osdoctor.counts import counted
from osdoctor.facts import report_facts
from osdoctor.kb.runbook_pages import branch_anchor, scenario_page
from osdoctor.model import Exchange, Finding, NearMiss, Report, ScenarioMatch
from osdoctor.render.rows import RowBuilder, TimelineRow, status_text

WHY_NOT = "Why not another documented path"
#: What every view says for a run whose command line the log does not show.
NO_COMMAND = "(command not in the log)"


def nothing_near(report: Report) -> str:
    """What --why-not says when no other documented path came close: "other" when
    the run took one, so that it never reads as if none had matched."""
    if report.scenario is not None and report.scenario.branch is not None:
        return "No other documented path came close."
    if report.scenario is not None:
        return "No documented path of this scenario came close."
    return "No documented scenario came close."


def near_count(miss: NearMiss) -> str:
    return f"{miss.held} of {miss.steps} expected steps happened"


def scenario_runbook(match: ScenarioMatch) -> str:
    """The runbook section of the scenario, and of its branch when one was taken."""
    return branch_anchor(match.id, match.branch) if match.branch else scenario_page(match.id)


def request_rows(exchanges: list[Exchange]) -> list[TimelineRow]:
    """The rows every report shows for the requests (see ``render.rows``)."""
    builder = RowBuilder()
    builder.update(exchanges)
    return builder.rows


def row_status(row: TimelineRow) -> str:
    status = status_text(row.shown)
    return f"{status_text(row.redirect)}→{status}" if row.redirect is not None else status


def row_count(row: TimelineRow) -> str:
    """ "×N" for a counted run, "(+N folded)" for requests the parser folded away."""
    text = f" ×{row.count}" if row.count > 1 else ""
    if row.folded:
        text += f" (+{counted(row.folded, 'request')} folded)"
    if row.not_kept:
        text += f" (then {counted(row.not_kept, 'request')} not kept)"
    return text


def headline(report: Report) -> str:
    command, rest = headline_parts(report)
    return f"{command or NO_COMMAND}{rest}"


def headline_parts(report: Report) -> tuple[str | None, str]:
    """The headline's command (None when the log has none) and what follows it:
    the Markdown report sets the command as code."""
    t = report.trace
    exit_text = f"exit {t.exit_code}" if t.exit_code is not None else "exit code not in the log"
    return t.command, f" — {report.outcome} ({exit_text})"


def failure_line(report: Report) -> str | None:
    """Where the run failed, as the facts read it: the call, its answer, its request id."""
    f = report_facts(report).failure
    if f is None or f.kind not in ("http", "transport"):
        return None
    parts = [f"line {f.line}"]
    call = " ".join(
        p
        for p in (
            f.method,
            f.service_name if f.service_name != "the service" else "",
            f.path or f.url,
        )
        if p
    )
    if call:
        parts.append(call)
    if f.status is not None:
        parts.append(f"→ {f.status}")
    elif f.transport is not None:
        parts.append(f"→ no answer ({f.transport.kind})")
    if f.fault is not None and f.fault.type:
        parts.append(f.fault.type)
    if f.request_id:
        parts.append(f"request id {f.request_id}")
    return "  ".join(parts)


_LINKED = regex.compile(r"^(?P<title>.+?): (?P<url>https?://\S+)$")


_SEED_REFERENCE = regex.compile(r"\S+\.txt section \d+")


def user_references(references: list[str]) -> list[str]:
    """The references a user can open (tracker pages): not the seed documents,
    which only the JSON and the runbook cite."""
    return [r for r in references if not _SEED_REFERENCE.fullmatch(r)]


def reference_markdown(ref: str) -> str:
    """A tracker reference as a Markdown link; a seed reference as it is."""
    m = _LINKED.match(ref)
    if m:
        return f"[{m.group('title')}]({m.group('url')})"
    return f"<{ref}>" if ref.startswith(("http://", "https://")) else ref


def short_path(ex: Exchange, width: int = 60) -> str:
    path = ex.path or ex.request.url
    if ex.query:
        path += "?" + ex.query
    return path if len(path) <= width else path[: width - 1] + "…"


def headline_finding(report: Report) -> Finding | None:
    """The finding every format leads with: the first error, in the order the
    diagnosis gave the findings (front ends do not re-sort them)."""
    return next((f for f in report.findings if f.severity == "error"), None)


def summary_line(report: Report) -> str:
    """One sentence on what happened, for the top of every format."""
    t = report.trace
    first = headline_finding(report)
    if first is not None:
        return first.title  # the cause, even in a paste of the output only
    if not t.openstack_lines:
        return "Nothing from an OpenStack client was found in this input."
    if report.outcome == "success":
        return "The command succeeded."
    if report.outcome == "unknown":
        if t.followed:
            # A run of a longer log (a pasted command's output, then the next
            # prompt): the log goes on, the run says nothing of how it ended.
            return "The log shows no exit code and no error: the outcome is unknown."
        return "The log ends before the command did: the outcome is unknown."
    return "The command failed; no rule explains it yet."
