"""Facts about how a run ended, between the parser and the rules (see ``facts.model``)."""

from osdoctor.facts.decisive import facts_of
from osdoctor.facts.model import Facts
from osdoctor.model import Report


def report_facts(report: Report) -> Facts:
    """The facts a report was made from, read again only for a report built by hand."""
    return report.facts if isinstance(report.facts, Facts) else facts_of(report.trace)


__all__ = ["Facts", "facts_of", "report_facts"]
