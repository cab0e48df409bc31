"""A rule's ``probe:`` key: a known probe is kept, anything else is a lint error in words."""

from __future__ import annotations

from pathlib import Path

from osdoctor.kb.loader import KnowledgeBase
from osdoctor.kb.probes import PROBES

RULE = """\
id: test.with-probe
title: A rule that names a probe
severity: error
when:
  - request: {status: 503}
explanation: The service answered 503.
next_steps: ["wait"]
references:
  - {seed: 004_5da9864bde361b9a.txt, section: 3}
"""


def load(tmp_path: Path, probe: str) -> KnowledgeBase:
    (tmp_path / "rule.yaml").write_text(RULE + probe, encoding="utf-8")
    kb = KnowledgeBase()
    kb.add_dir(tmp_path, "user")
    return kb


def test_a_probe_name_is_kept(tmp_path: Path) -> None:
    kb = load(tmp_path, "probe: retry-after\n")
    assert not kb.issues
    probe = kb.rules["test.with-probe"].probe
    assert probe is not None and probe.name == "retry-after" and dict(probe.params) == {}


def test_a_probe_with_parameters_is_kept(tmp_path: Path) -> None:
    kb = load(
        tmp_path, "probe: {name: catalog-endpoint, service: '{service_type}', interface: public}\n"
    )
    assert not kb.issues
    probe = kb.rules["test.with-probe"].probe
    assert probe is not None
    assert dict(probe.params) == {"service": "{service_type}", "interface": "public"}


def test_an_unknown_probe_names_the_known_ones(tmp_path: Path) -> None:
    kb = load(tmp_path, "probe: heat-redirects\n")
    assert "test.with-probe" not in kb.rules
    (issue,) = kb.issues
    assert "unknown probe 'heat-redirects'" in issue.message
    for name in PROBES:
        assert name in issue.message
    assert issue.line == 1


def test_an_unknown_parameter_is_an_error(tmp_path: Path) -> None:
    kb = load(tmp_path, "probe: {name: heat-redirect, host: evil.example}\n")
    assert "test.with-probe" not in kb.rules
    assert "has no parameter 'host'" in kb.issues[0].message


def test_a_rule_without_probe_has_none(tmp_path: Path) -> None:
    kb = load(tmp_path, "")
    assert kb.rules["test.with-probe"].probe is None
