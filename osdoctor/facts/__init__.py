"""Facts about how a run ended, between the parser and the rules (see ``facts.model``)."""

from osdoctor.facts.decisive import facts_of as client_facts
from osdoctor.facts.facts_model import Facts, Failure
from osdoctor.model import Report, Trace
from osdoctor.servicelog.join import Joined, join
from osdoctor.servicelog.record import at_least
from osdoctor.servicelog.service_names import FAMILIES, family


def facts_of(trace: Trace, live: bool = False) -> Facts:
    """The facts of one trace: how the client's run ended, and the service records
    tied to it (``Facts.server``)."""
    facts = client_facts(trace, live)
    facts.server = join(trace)
    if facts.failure is None and not live:
        facts.failure = _told_by_the_service(trace, facts.server)
    return facts


def _told_by_the_service(trace: Trace, server: list[Joined]) -> Failure | None:
    """A paste of a typed command and, instead of what the client printed, the
    service's own ERROR records written while it ran ("Here are the relevant
    logs"), or those records pasted alone: the run failed on the service's side,
    as those records say."""
    if trace.exit_code is not None or trace.exchanges:
        return None
    start = trace.command_line or 0
    for joined in server:
        r = joined.record
        if joined.kind == "pasted" and r.line > start and at_least(r.level, "ERROR"):
            if trace.command is None and not r.service:
                continue  # alone, a record must name an OpenStack service to be one's
            catalog = FAMILIES.get(family(r.service), ("",))[0]
            failure = Failure(kind="client", line=r.line, service=catalog)
            failure.evidence.append((r.line, r.text.strip()[:200]))
            return failure
    return None


def report_facts(report: Report) -> Facts:
    """The facts a report was made from, read again only for a report built by hand."""
    return report.facts if isinstance(report.facts, Facts) else facts_of(report.trace)


__all__ = ["Facts", "facts_of", "report_facts"]
