"""The heat shell's TempURL fixtures carry a signature; no report may show it.

``heat deployment-create`` logs the Swift TempURL it hands to the server
(``deploy_signal_id`` in the POST /software_configs body), signed with the
account's Temp-URL key. The fixtures must hold only the lab's fake key, and
osdoctor must print ``temp_url_sig=***`` wherever the URL appears.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from osdoctor.diagnose import diagnose, parse_path
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.lab import FAKE_SECRETS
from osdoctor.render.json_report import render_json
from osdoctor.render.markdown_report import render_markdown
from osdoctor.render.text import render_text

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
TEMPURL_FIXTURES = [
    "heat.software-deployment.tempurl-swift",
    "heat.software-deployment.tempurl-swift-prefixed",
]
_SIG = re.compile(r"temp_url_sig=([0-9a-f]{40,})")
_KEY_HEADER = re.compile(r"'X-Account-Meta-Temp-Url-Key': '([^']*)'", re.IGNORECASE)


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


@pytest.mark.parametrize("name", TEMPURL_FIXTURES)
def test_the_fixture_holds_only_the_labs_fake_key(name: str) -> None:
    raw = (LOGS / f"{name}.log").read_text(encoding="utf-8")
    keys = _KEY_HEADER.findall(raw)
    assert keys, "the account HEAD with the Temp-URL key is in the log"
    # swiftclient prints 16 characters then '...': a prefix of the fake secret.
    assert all(any(s.startswith(k.removesuffix("...")) for s in FAKE_SECRETS) for k in keys)
    assert _SIG.search(raw), "the signed TempURL is in the request body"


@pytest.mark.parametrize("name", TEMPURL_FIXTURES)
def test_no_report_shows_the_signature(name: str, kb: KnowledgeBase) -> None:
    path = LOGS / f"{name}.log"
    signatures = set(_SIG.findall(path.read_text(encoding="utf-8")))
    trace = parse_path(path)
    bodies = [
        ex.request.body.text
        for ex in trace.exchanges
        if ex.request.body is not None and ex.request.body.text
    ]
    assert any("temp_url_sig=***" in body for body in bodies)
    report = diagnose(trace, kb)
    for output in (render_text(report), render_markdown(report), render_json(report)):
        for secret in [*signatures, *FAKE_SECRETS]:
            assert secret not in output


def test_the_prefix_rule_names_the_dropped_prefix(kb: KnowledgeBase) -> None:
    prefixed = diagnose(parse_path(LOGS / f"{TEMPURL_FIXTURES[1]}.log"), kb)
    plain = diagnose(parse_path(LOGS / f"{TEMPURL_FIXTURES[0]}.log"), kb)
    found = {f.id: f for f in prefixed.findings}
    assert "heat.tempurl-swift-prefix-dropped" in found
    assert "/swift prefix" in found["heat.tempurl-swift-prefix-dropped"].title
    assert "heat.tempurl-swift-prefix-dropped" not in {f.id for f in plain.findings}
