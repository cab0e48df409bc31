"""Probes: ask the live cloud, read-only, whether a diagnosis still holds.

The probes a rule may name are the knowledge's (``osdoctor.kb.probes``).
Everything here but this package's constants loads httpx and keystoneauth1
and is imported by ``osdoctor probe`` (and the TUI's probe key) alone.
"""

#: Seconds each request of a probe may take, unless told otherwise (``--timeout``).
DEFAULT_TIMEOUT = 10.0
