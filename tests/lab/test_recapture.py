"""Every lab case, captured afresh from the real clients, still explains the same.

This is what keeps the committed fixtures honest when a client is upgraded:
the fixture logs are not compared byte for byte (paths and ports move), but
osdoctor's verdict on a fresh run must equal the one recorded beside the
committed log. Cases run a few at a time, each with its own stub on an
ephemeral 127.0.0.1 port; only the cases of the selected tests are captured
(``-k stalled`` runs one client, not all of them).
"""

from __future__ import annotations

import functools
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

from osdoctor.diagnose import diagnose, parse_path
from osdoctor.kb.loader import load_knowledge
from osdoctor.lab.capture import CaptureResult, capture_case, client_bin_dir
from osdoctor.lab.case import Case, select_cases
from osdoctor.lab.forking import ForkServers
from osdoctor.lab.wheels import WheelMissing, find_wheel
from osdoctor.lint import compare, fixture_trace

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"
#: The captures are the suite's largest cost, so they are dealt into GROUPS halves
#: (``--dist loadgroup`` gives each half to one worker): each worker captures its
#: half once, a few at a time, and no case is captured twice.
GROUPS = 2
#: Captures at a time in a group. Most of a capture's time is spent waiting (on
#: the stub's delays, a client's retry interval, its poll of a status): many at
#: a time keep the worker's core busy, each in a slot of its own.
WORKERS = 8
Captured = dict[str, tuple[CaptureResult, Path]]


def _group(case_id: str) -> int:
    return case_ids().index(case_id) % GROUPS


def selected_case_ids(session: pytest.Session) -> set[str]:
    """The case ids of this module's tests that the session runs."""
    ids = set()
    for item in session.items:
        if isinstance(item, pytest.Function) and item.module is not None:
            if item.module.__name__ == __name__ and hasattr(item, "callspec"):
                ids.add(str(item.callspec.params["case_id"]))
    return ids


class Recaptures:
    """The fresh captures of this worker, made a group at a time when a test of
    that group first asks for one."""

    def __init__(self, wanted: set[str], out: Path) -> None:
        self._wanted, self._out = wanted, out
        self._groups: dict[int, Captured] = {}

    def __getitem__(self, case_id: str) -> tuple[CaptureResult, Path]:
        return self.of_group(_group(case_id))[case_id]

    def __contains__(self, case_id: object) -> bool:
        return isinstance(case_id, str) and case_id in self.of_group(_group(case_id))

    def of_group(self, group: int) -> Captured:
        if group not in self._groups:
            self._groups[group] = self._capture(group)
        return self._groups[group]

    def _capture(self, group: int) -> Captured:
        out = self._out
        cases = [
            case
            for case in select_cases([])
            if case.id in self._wanted and _group(case.id) == group and _wheels_here(case)
        ]

        def one(case: Case) -> tuple[str, tuple[CaptureResult, Path]]:
            result = capture_case(
                case, out / "logs", port=0, workroot=out / "work" / case.id, servers=servers
            )
            return case.id, (result, out / "logs" / f"{case.id}.log")

        # The clients are forked by servers that imported them once (the imports
        # were most of each run's cost); test_forkserver.py shows that changes
        # nothing they print.
        with ForkServers(out / f"fork-{group}") as servers, ThreadPoolExecutor(WORKERS) as pool:
            return dict(pool.map(one, cases))


@pytest.fixture(scope="module")
def fresh(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Recaptures:
    if not (client_bin_dir() / "openstack").is_file():
        pytest.fail("the lab needs the real clients: pip install -e '.[lab]'")
    return Recaptures(selected_case_ids(request.session), tmp_path_factory.mktemp("recapture"))


@functools.cache
def case_ids() -> list[str]:
    return [case.id for case in select_cases([])]


def grouped_case_ids() -> list[object]:
    return [
        pytest.param(case_id, marks=pytest.mark.xdist_group(f"recapture-{_group(case_id)}"))
        for case_id in case_ids()
    ]


def _wheels_here(case: Case) -> bool:
    """A case that shadows a library with a real old release is captured again only
    from its wheel already in the lab's wheel folder: a test never downloads."""
    try:
        for requirement in case.wheels:
            find_wheel(requirement)
    except WheelMissing:
        return False
    return True


def test_every_case_has_a_committed_fixture() -> None:
    ids = case_ids()
    assert len(ids) >= 6
    for case_id in ids:
        assert (FIXTURES / f"{case_id}.log").is_file(), case_id
        assert (FIXTURES / f"{case_id}.expected.yaml").is_file(), case_id


@pytest.mark.parametrize("case_id", grouped_case_ids())
def test_fresh_capture_explains_like_the_committed_fixture(case_id: str, fresh: Recaptures) -> None:
    expected = yaml.safe_load((FIXTURES / f"{case_id}.expected.yaml").read_text())
    if case_id not in fresh:
        # Its wheel is not here: the committed capture is checked for what it claims,
        # that it was made with that release shadowing the installed one.
        (case,) = select_cases([case_id])
        assert expected["shadowed_by"] == list(case.wheels)
        log_text = (FIXTURES / f"{case_id}.log").read_text()
        for requirement in case.wheels:
            name = requirement.partition("==")[0].replace("-", "_")
            assert re.search(rf"/\.local/lib/python3\.\d+/site-packages/{name}/", log_text)
            assert f"pip download --no-deps {requirement}" in case.description
        report = diagnose(fixture_trace(FIXTURES / f"{case_id}.log"), load_knowledge(user=False))
        assert compare(expected, report) == [], case_id
        return
    result, log = fresh[case_id]
    assert result.exit_code == expected["exit_code"], (case_id, log.read_text()[-3000:])
    # With the services' logs of the fresh run, as the committed fixture has them.
    report = diagnose(fixture_trace(log), load_knowledge(user=False))
    assert compare(expected, report) == [], case_id
    assert bool(result.service_logs) == (FIXTURES / f"{case_id}.service").is_dir(), case_id
    if result.plain is not None:
        # The same client run without --debug, beside it: its verdict too.
        plain = yaml.safe_load((FIXTURES / f"{case_id}.plain.expected.yaml").read_text())
        assert result.plain.exit_code == plain["exit_code"], case_id
        report = diagnose(parse_path(result.plain.log_path), load_knowledge(user=False))
        assert compare(plain, report) == [], f"{case_id}.plain"
