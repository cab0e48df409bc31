"""The probes a rule may name, and the parsing of a rule's ``probe:`` key.

Part of the knowledge (the schema validates a rule's ``probe:`` against it),
so kept free of any HTTP library and of ``osdoctor.probe``: ``osdoctor kb
lint`` and ``explain`` stay light. The probes themselves live in
``osdoctor.probe.checks``, which runs the ones named here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ProbeInfo:
    summary: str
    params: tuple[str, ...] = ()
    """Parameters a rule may give; values are templates filled from the rule's captures."""


#: Every probe, by the name a rule uses in ``probe:``.
PROBES: Mapping[str, ProbeInfo] = {
    "keystone-reachable": ProbeInfo(
        "Keystone answers at the configured auth URL (GET, no "
        "credentials); confirms when it still cannot be reached"
    ),
    "keystone-credentials": ProbeInfo(
        "Keystone issues a token for the configured credentials; "
        "confirms when it still refuses them (401)"
    ),
    "catalog-endpoint": ProbeInfo(
        "the token's catalog lists the service with that interface; "
        "confirms when it still does not",
        ("service", "interface", "region"),
    ),
    "heat-redirect": ProbeInfo(
        "Heat's name lookup GET /stacks/<name> answers a 302 with a "
        "Location header (redirects off); confirms when it does not",
        ("stack",),
    ),
    "ironic-version-headers": ProbeInfo(
        "Ironic's GET /v1 carries the minimum and maximum API "
        "version headers; confirms when they are missing"
    ),
    "retry-after": ProbeInfo(
        "a GET on the URL that failed with 503 still answers 503 with "
        "Retry-After; confirms when it does",
        ("url",),
    ),
    "tls-certificate": ProbeInfo(
        "the endpoint's TLS certificate verifies (chain, expiry, host "
        "name); confirms when it does not",
        ("url",),
    ),
}


@dataclass(frozen=True, slots=True)
class ProbeRef:
    """A rule's ``probe:``: the probe's name and its parameter templates."""

    name: str
    params: Mapping[str, str] = field(default_factory=dict)


def parse_probe_ref(value: Any) -> ProbeRef | str:
    """A ProbeRef from ``probe: NAME`` or ``probe: {name: NAME, PARAM: VALUE}``; else the error."""
    known = ", ".join(PROBES)
    if isinstance(value, str):
        name, raw = value, {}
    elif isinstance(value, Mapping) and isinstance(value.get("name"), str):
        name, raw = value["name"], {k: v for k, v in value.items() if k != "name"}
    else:
        return f"'probe' is a probe name or a mapping with 'name'; known probes: {known}"
    info = PROBES.get(name)
    if info is None:
        return f"unknown probe '{name}'; known probes: {known}"
    params: dict[str, str] = {}
    for key, item in raw.items():
        if key not in info.params:
            allowed = ", ".join(info.params) or "none"
            return f"probe {name} has no parameter '{key}' (its parameters: {allowed})"
        if not isinstance(item, str | int | float) or isinstance(item, bool):
            return f"probe {name}: parameter '{key}' must be text"
        params[str(key)] = str(item)
    return ProbeRef(name, params)
