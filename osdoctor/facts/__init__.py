"""Facts about how a run ended, between the parser and the rules (see ``facts.model``)."""

from osdoctor.facts.decisive import facts_of
from osdoctor.facts.model import Facts

__all__ = ["Facts", "facts_of"]
