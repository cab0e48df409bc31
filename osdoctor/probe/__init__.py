"""Probes: ask the live cloud, read-only, whether a diagnosis still holds.

Only ``names`` is light: the knowledge schema imports it to validate a rule's
``probe:`` key. Everything else here loads httpx and keystoneauth1 and is
imported by ``osdoctor probe`` (and the TUI's probe key) alone.
"""
