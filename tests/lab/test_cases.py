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
