"""Case files and the committed fixtures agree (no client run needed)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from osdoctor.lab.capture import FIXTURES_DIR
from osdoctor.lab.case import all_cases, load_case, select_cases
from osdoctor.lab.config import ConfigError


def test_every_case_has_a_fixture_matching_its_declaration() -> None:
    cases = all_cases()
    assert cases
    for case in cases:
        log = FIXTURES_DIR / f"{case.id}.log"
        assert log.is_file(), f"{case.id}: no fixture; run python -m osdoctor.lab capture {case.id}"
        recorded = yaml.safe_load((FIXTURES_DIR / f"{case.id}.expected.yaml").read_text())
        assert recorded["case"] == case.id
        assert recorded["exit_code"] == case.expect.exit_code, f"{case.id}: exit code"
        declared = {k: recorded[k] for k in ("scenario", "branch", "outcome", "findings")}
        assert declared == {
            "scenario": case.scenario,
            "branch": case.branch,
            "outcome": case.expect.outcome,
            "findings": list(case.expect.findings),
        }, f"{case.id}: regenerate the fixture after changing the case"
        then = [argv[0] for argv in recorded.get("then", [])]
        assert then == [c[0] for c in case.then], f"{case.id}: the commands after the first"


def test_every_plain_run_has_its_fixture_beside_the_debug_one() -> None:
    """A case that asks for its run without --debug (plain:) has that capture too,
    recorded as the same case, and it starts with the command line as typed."""
    plain = [case for case in all_cases() if case.plain is not None]
    assert len(plain) >= 20
    for case in plain:
        assert case.plain is not None
        log = FIXTURES_DIR / f"{case.plain_id}.log"
        assert log.is_file(), f"{case.id}: python -m osdoctor.lab capture --plain-only {case.id}"
        recorded = yaml.safe_load((FIXTURES_DIR / f"{case.plain_id}.expected.yaml").read_text())
        assert (recorded["case"], recorded["plain"]) == (case.id, True)
        assert "--debug" not in recorded["command"]
        assert recorded["exit_code"] == case.plain.exit_code, f"{case.plain_id}: exit code"
        assert (recorded["outcome"], recorded["findings"]) == (
            case.plain.outcome,
            list(case.plain.findings),
        ), f"{case.plain_id}: regenerate the fixture after changing the case"
        first = log.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith(f"$ {case.command[0]} "), first


def test_selection_by_id_prefix_and_glob() -> None:
    ids = [case.id for case in select_cases(["heat.stack-hook", "osc.*"])]
    assert "heat.stack-hook.poll-index-error" in ids
    assert "osc.auth.auth-refused" in ids
    assert not [i for i in ids if i.startswith("ironic.")]
    with pytest.raises(ConfigError, match="no case matches"):
        select_cases(["nope.nothing"])


def test_a_faulty_case_is_an_error_naming_the_key(tmp_path: Path) -> None:
    path = tmp_path / "fam" / "bad.yaml"
    path.parent.mkdir()
    path.write_text("command: [openstack, server, list]\nexpect: {outcome: failure}\nwait: 3\n")
    with pytest.raises(ConfigError, match="unknown key"):
        load_case(path)
    path.write_text("command: [openstack]\nexpect: {outcome: maybe}\n")
    with pytest.raises(ConfigError, match="expect.outcome"):
        load_case(path)


def test_a_plain_expectation_takes_the_expectation_keys_and_a_scenario(tmp_path: Path) -> None:
    path = tmp_path / "fam" / "case.yaml"
    path.parent.mkdir()
    base = "command: [openstack, server, list]\nexpect: {outcome: failure}\n"
    path.write_text(base + "plain: {outcome: failure, scenario: osc.auth, findings: [a.b]}\n")
    case = load_case(path)
    assert case.plain is not None and (case.plain.scenario, case.plain.findings) == (
        "osc.auth",
        ("a.b",),
    )
    assert case.plain_id == "fam.case.plain"
    path.write_text(base + "plain: {outcome: failure, wait: 1}\n")
    with pytest.raises(ConfigError, match="unknown key"):
        load_case(path)
    path.write_text(base + "debug: false\nplain: {outcome: failure}\n")
    with pytest.raises(ConfigError, match="already runs without --debug"):
        load_case(path)
    path.write_text(base + "then: [[openstack, server, show, x], [/usr/bin/nova, list]]\n")
    with pytest.raises(ConfigError, match=r"then\[1\]\[0\]"):
        load_case(path)


def test_interrupt_and_network_take_only_their_known_values(tmp_path: Path) -> None:
    path = tmp_path / "fam" / "case.yaml"
    path.parent.mkdir()
    base = "command: [openstack, server, list]\nexpect: {outcome: failure}\n"
    path.write_text(base + "interrupt: term\nnetwork: isolated\n")
    case = load_case(path)
    assert (case.interrupt, case.network) == ("term", "isolated")
    path.write_text(base + "interrupt: kill\n")
    with pytest.raises(ConfigError, match="interrupt"):
        load_case(path)
    path.write_text(base + "network: none\n")
    with pytest.raises(ConfigError, match="network"):
        load_case(path)


def test_a_case_the_user_interrupts_says_when_by_an_answer_not_a_time() -> None:
    """An interrupted client (130: Ctrl-C, 143: SIGTERM) must be interrupted at a
    point of its run, an answer marked ``interrupt``: interrupted by the case's
    timeout, it would have done more or less depending on the machine's load."""
    timed = [
        case.id
        for case in all_cases()
        if case.expect.exit_code in (130, 143)
        and not any(answer.interrupt for route in case.stub.routes for answer in route.answers)
    ]
    assert timed == []
