"""Facts about how a run ended, between the parser and the rules (see ``facts.model``)."""

from osdoctor.facts.decisive import facts_of as client_facts
from osdoctor.facts.model import Facts
from osdoctor.model import Report, Trace
from osdoctor.servicelog.join import join


def facts_of(trace: Trace, live: bool = False) -> Facts:
    """The facts of one trace: how the client's run ended, and the service records
    tied to it (``Facts.server``)."""
    facts = client_facts(trace, live)
    facts.server = join(trace)
    return facts


def report_facts(report: Report) -> Facts:
    """The facts a report was made from, read again only for a report built by hand."""
    return report.facts if isinstance(report.facts, Facts) else facts_of(report.trace)


__all__ = ["Facts", "facts_of", "report_facts"]
