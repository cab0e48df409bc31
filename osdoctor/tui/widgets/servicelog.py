"""The services' own records of the selected exchange: what nova-api or keystone
wrote while it answered it, tied by its request id (or more weakly), each with
the file and line it is in, its level, logger and words, its exception and the
frames it ended in."""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from osdoctor.facts import report_facts
from osdoctor.facts.server import MATCHES
from osdoctor.model import Report
from osdoctor.servicelog.join import Joined

#: Records shown per exchange at most (the strongest ties first).
SHOWN = 40
#: Frames shown per record (the innermost).
FRAMES = 3
_LEVEL_STYLE = {"CRITICAL": "bold red", "ERROR": "red", "WARNING": "yellow"}
NONE_GIVEN = (
    "No service log was given. Its records of each request show here: "
    "osdoctor open LOG --service-log DIR (a sosreport's var/log/, a folder of logs)"
)


def _record(joined: Joined) -> RenderableType:
    r = joined.record
    head = Text()
    head.append(f"{r.where}  ", "bold")
    head.append(r.level, _LEVEL_STYLE.get(r.level, ""))
    head.append(f" {r.service or r.logger or r.format}", "bold")
    if r.logger and r.service:
        head.append(f" {r.logger}", "dim")
    parts: list[RenderableType] = [head, Text(f"  {r.message}")]
    for line in r.more:
        parts.append(Text(f"  {line}"))
    if r.exception and r.exception_line.partition("\n")[0] not in r.message:
        parts.append(Text(f"  {r.exception_line.partition(chr(10))[0]}", "red"))
    for frame in r.frames[-FRAMES:]:
        parts.append(Text(f"    {frame}", "dim"))
    tie = Text(f"  tied by {MATCHES[joined.kind]}", "dim italic")
    parts.append(tie)
    return Group(*parts)


def describe(report: Report | None, exchange: int | None, given: bool) -> RenderableType:
    """The records of the exchange ``exchange`` (its index), then those of the run
    tied to no exchange; what to do when there are none."""
    if report is None:
        return Text("No report yet.", "dim")
    joined = report_facts(report).server
    mine = [j for j in joined if j.exchange == exchange] if exchange is not None else []
    loose = [j for j in joined if j.exchange is None]
    parts: list[RenderableType] = []
    if mine:
        parts.append(Text(f"{len(mine)} service record(s) of this request", "bold underline"))
        parts += [_record(j) for j in mine[:SHOWN]]
        if len(mine) > SHOWN:
            parts.append(Text(f"… {len(mine) - SHOWN} more", "dim"))
    elif joined:
        parts.append(Text("No service record is tied to this request.", "dim"))
    else:
        parts.append(
            Text("No service record was found for this run.", "dim")
            if given
            else Text(NONE_GIVEN, "dim")
        )
    if loose:
        parts.append(Text("\nRecords of the run tied to no request", "bold underline"))
        parts += [_record(j) for j in loose[:SHOWN]]
    return Group(*parts)


class ServiceLogView(VerticalScroll):
    """Scrolls the service records of the exchange under the timeline's cursor."""

    def compose(self) -> ComposeResult:
        yield Static(Text(NONE_GIVEN, "dim"), id="service-body")

    def show(self, report: Report | None, exchange: int | None, given: bool) -> None:
        self.query_one("#service-body", Static).update(describe(report, exchange, given))
        self.scroll_home(animate=False)
