"""Anonymisation: consistent stand-ins, reversible through the mapping, private mapping file."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from osdoctor.secrets.anonymize import Anonymizer, anonymize_text

STACK_ID = "3f2a1b4c-5d6e-4f70-8a9b-0c1d2e3f4a5b"
PROJECT_ID = "e1b2c3d4e5f60718293a4b5c6d7e8f90"
USER_ID = "8a3f0c1d2e3f4a5b6c7d8e9f0a1b2c3d"

HEAT = f"https://heat.corp.example.net:8004/v1/{PROJECT_ID}/stacks/web"
LOG = "".join(
    line + "\n"
    for line in (
        "START with options: --debug --os-username alice --os-project-name payroll-prod "
        "stack show web",
        "Using parameters {'auth_url': 'https://keystone.corp.example.net:5000/v3', "
        "'project_name': 'payroll-prod', 'username': 'alice', 'user_domain_name': 'Corp', "
        "'password': '***'}",
        "REQ: curl -g -i -X POST https://keystone.corp.example.net:5000/v3/auth/tokens "
        '-H "Accept: application/json"',
        "Starting new HTTPS connection (1): keystone.corp.example.net:5000",
        f'{{"token": {{"user": {{"id": "{USER_ID}", "name": "alice", "domain": '
        '{"id": "default", "name": "Default"}}, '
        f'"project": {{"id": "{PROJECT_ID}", "name": "payroll-prod"}}}}}}',
        f'REQ: curl -g -i -X GET {HEAT} -H "X-Auth-Token: {{SHA256}}0123"',
        f"RESP: [302] Location: {HEAT}/{STACK_ID} x-openstack-request-id: req-1",
        f'REQ: curl -g -i -X GET {HEAT}/{STACK_ID} -H "Accept: application/json"',
        f'RESP BODY: {{"stack": {{"id": "{STACK_ID}", "stack_name": "web", '
        '"stack_status": "CREATE_FAILED", "parent": null}}',
        f"REQ: curl -g -i -X GET http://10.20.30.40:6385/v1/nodes/{STACK_ID} "
        '-H "X-OpenStack-Ironic-API-Version: 1.80"',
        "Failed to connect to 10.20.30.40 on port 6385 after 127.0.0.1 and [::1] were tried",
    )
)

IDENTIFYING = (
    "alice",
    "payroll-prod",
    "Corp",
    "keystone.corp.example.net",
    "heat.corp.example.net",
    STACK_ID,
    PROJECT_ID,
    USER_ID,
    "10.20.30.40",
)


def _anonymized() -> tuple[Anonymizer, str]:
    anonymizer = Anonymizer()
    anonymizer.learn("stack", "web")
    return anonymizer, anonymize_text(LOG, anonymizer)


def test_identifying_values_are_gone() -> None:
    _, text = _anonymized()
    for value in IDENTIFYING:
        assert value not in text
    assert "stacks/web" not in text


def test_same_value_gets_the_same_stand_in_everywhere() -> None:
    anonymizer, text = _anonymized()
    stack = anonymizer.mapping[STACK_ID]
    project = anonymizer.mapping[PROJECT_ID]
    assert text.count(stack) == LOG.count(STACK_ID) == 4
    assert text.count(project) == LOG.count(PROJECT_ID)
    # The redirect and the request it causes still line up.
    location = f"/v1/{project}/stacks/stack-1/{stack}"
    assert f"Location: https://host-2.example:8004{location}" in text
    assert f"GET https://host-2.example:8004{location} " in text
    assert '"stack_name": "stack-1"' in text
    assert anonymizer.mapping["alice"] == "user-1"
    assert anonymizer.mapping["payroll-prod"] == "project-1"
    assert anonymizer.mapping["keystone.corp.example.net"] == "host-1.example"
    assert anonymizer.mapping["10.20.30.40"] == "192.0.2.1"


def test_stand_ins_keep_the_shape_of_ids() -> None:
    anonymizer, _ = _anonymized()
    stack = anonymizer.mapping[STACK_ID]
    assert [len(part) for part in stack.split("-")] == [8, 4, 4, 4, 12]
    assert len(anonymizer.mapping[PROJECT_ID]) == 32
    assert anonymizer.mapping[STACK_ID] != anonymizer.mapping[PROJECT_ID]


def test_structure_and_non_identifying_values_are_kept() -> None:
    _, text = _anonymized()
    for kept in (
        "REQ: curl -g -i -X GET",
        "RESP: [302] Location:",
        "/v3/auth/tokens",
        "X-OpenStack-Ironic-API-Version: 1.80",
        "/v1/nodes/",
        '"stack_status": "CREATE_FAILED"',
        '"name": "Default"',
        "{SHA256}0123",
        "127.0.0.1",
        "[::1]",
        "'password': '***'",
        "req-1",
    ):
        assert kept in text
    assert len(text.splitlines()) == len(LOG.splitlines())


def test_mapping_reverses_the_anonymisation() -> None:
    anonymizer, text = _anonymized()
    assert anonymizer.reverse(text) == LOG


def test_mapping_file_is_private_and_reloads(tmp_path: Path) -> None:
    anonymizer, text = _anonymized()
    target = anonymizer.save_mapping(tmp_path / "new-folder" / "mapping.json")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert stat.S_IMODE(target.parent.stat().st_mode) == 0o700
    document = json.loads(target.read_text(encoding="utf-8"))
    assert document["mapping"][STACK_ID] == anonymizer.mapping[STACK_ID]
    reloaded = Anonymizer.load_mapping(target)
    assert reloaded.reverse(text) == LOG
    assert reloaded.learn("project", "another-project") == "project-2"


def test_an_existing_mapping_file_is_made_private(tmp_path: Path) -> None:
    target = tmp_path / "mapping.json"
    target.write_text("old", encoding="utf-8")
    target.chmod(0o644)
    Anonymizer().save_mapping(target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_a_bad_mapping_file_is_a_clear_error(tmp_path: Path) -> None:
    target = tmp_path / "mapping.json"
    target.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ValueError, match="not an osdoctor anonymisation mapping"):
        Anonymizer.load_mapping(target)


def test_learn_keeps_loopback_well_known_and_stand_ins() -> None:
    anonymizer = Anonymizer()
    assert anonymizer.learn("ip", "127.0.0.1") is None
    assert anonymizer.learn("ip", "::1") is None
    assert anonymizer.learn("host", "localhost") is None
    assert anonymizer.learn("domain", "Default") is None
    assert anonymizer.learn("user", "admin") is None
    assert anonymizer.learn("ip", "192.0.2.7") is None
    assert anonymizer.learn("node", "n1") == "node-1"
    assert anonymizer.learn("node", "node-1") is None
    assert anonymizer.learn("node", "n1") == "node-1"
    assert anonymizer.learn("ip", "fd00::5") == "2001:db8::1"
    with pytest.raises(ValueError, match="unknown kind"):
        anonymizer.learn("planet", "mars")


def test_names_inside_longer_words_are_left_alone() -> None:
    anonymizer = Anonymizer()
    anonymizer.learn("project", "web")
    assert anonymizer.apply("web webhook web-1 web.tier /web/ 'web'") == (
        "project-1 webhook web-1 web.tier /project-1/ 'project-1'"
    )


def test_explain_anonymize_hides_names_and_saves_a_private_mapping(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    log = (
        "START with options: --debug stack show prod-db\n"
        "REQ: curl -g -i -X GET https://cloud.acme.com:8004/v1/p1/stacks/prod-db\n"
        'https://cloud.acme.com:8004 "GET /v1/p1/stacks/prod-db HTTP/1.1" 404 10\n'
        "END return value: 1\n"
    )
    env = {**os.environ, "PYTHONPATH": str(root), "OSDOCTOR_HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "osdoctor", "explain", "-", "--anonymize", "--format", "json"],
        input=log,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stderr
    assert "acme" not in proc.stdout and "prod-db" not in proc.stdout
    (mapping,) = (tmp_path / "data" / "exports").glob("anonymize-map-*.json")
    assert mapping.stat().st_mode & 0o777 == 0o600
    assert "prod-db" in mapping.read_text() and str(mapping) in proc.stderr


def test_every_folder_the_mapping_needs_is_created_private(tmp_path: Path) -> None:
    """``--anonymize`` may be the first thing to create osdoctor's data folder: the
    parents it creates are 0700 too, not the default mode."""
    target = tmp_path / "home" / "data" / "exports" / "mapping.json"
    Anonymizer().save_mapping(target)
    for folder in (tmp_path / "home", tmp_path / "home" / "data", target.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_explain_anonymize_creates_the_data_folder_private(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from osdoctor.cli import main

    log = tmp_path / "debug.log"
    log.write_text(LOG, encoding="utf-8")
    home = tmp_path / "fresh-home"
    monkeypatch.setenv("OSDOCTOR_HOME", str(home))
    assert main(["explain", str(log), "--anonymize", "--no-user-kb"]) in (0, 1)
    capsys.readouterr()
    (mapping,) = (home / "data" / "exports").glob("anonymize-map-*.json")
    for folder in (home / "data", home / "data" / "exports"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE(mapping.stat().st_mode) == 0o600
