"""``osdoctor explain --jobs N``: many logs shared among forked workers, and a big
log of many runs diagnosed beside its reading, print what one process prints,
byte for byte, with the same exit status, whatever N."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from osdoctor.cli import main
from osdoctor.runs import forkmap
from tests.test_runs import NAMES, _typed

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
#: Failures of many kinds, a success, a log of no client, a hang.
SAMPLE = [
    "generic.auth-no-role",
    "generic.conn-refused",
    "generic.hung",
    "heat.stack-hook.poll-index-error",
    "osc.find-by-name.not-found",
    "generic.lb-503-html",
]


@pytest.fixture
def logs(tmp_path: Path) -> list[str]:
    """Fixture logs, a log of many runs, an empty file and a missing one."""
    day = tmp_path / "day.log"
    day.write_bytes(b"".join(_typed(name) for name in NAMES[:40]))
    empty = tmp_path / "empty.log"
    empty.write_bytes(b"")
    some = [str(LOGS / f"{name}.log") for name in SAMPLE if (LOGS / f"{name}.log").exists()]
    assert len(some) >= 4
    return [*some[:3], str(day), str(empty), str(tmp_path / "missing.log"), *some[3:]]


@pytest.fixture
def pools(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many workers each pool had: the test must not pass by never forking."""
    started: list[int] = []
    real = forkmap.map_in_order

    def counted(work: Any, items: Any, jobs: int) -> Any:
        started.append(jobs)
        return real(work, items, jobs)

    monkeypatch.setattr(forkmap, "map_in_order", counted)
    return started


def _explain(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["explain", "--no-user-kb", *argv])
    printed = capsys.readouterr()
    return code, printed.out, printed.err


@pytest.mark.parametrize("form", ["text", "markdown", "json", "jsonl"])
def test_many_logs_print_the_same_with_any_number_of_jobs(
    logs: list[str], pools: list[int], capsys: pytest.CaptureFixture[str], form: str
) -> None:
    alone = _explain(["--jobs", "1", "--format", form, *logs], capsys)
    assert pools == []
    for jobs in ("2", "3"):
        shared = _explain(["--jobs", jobs, "--format", form, *logs], capsys)
        assert shared[:2] == alone[:2]
        # The same messages, each log's where it was read.
        assert sorted(shared[2].splitlines()) == sorted(alone[2].splitlines())
    assert pools == [2, 3]
    assert alone[0] == 1  # a run failed
    assert multiprocessing.active_children() == []


def test_a_big_log_of_many_runs_prints_the_same_with_one_job_or_two(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "day.log"
    log.write_bytes(b"".join(_typed(name) for name in NAMES))
    monkeypatch.setattr("osdoctor.runs.log_runs.FORK_AFTER", 0)  # big from the first run on
    monkeypatch.setattr("osdoctor.runs.runworker.can_fork", lambda: True)
    forks: list[object] = []
    monkeypatch.setattr("osdoctor.runs.log_runs._fork", _counting(forks))
    for form in ("text", "json"):
        alone = _explain(["--jobs", "1", "--format", form, str(log)], capsys)
        assert forks == []
        beside = _explain(["--jobs", "2", "--format", form, str(log)], capsys)
        assert len(forks) == 1
        forks.clear()
        assert beside == alone and alone[0] == 1


def test_a_big_log_streams_the_same_json_lines_with_one_job_or_two(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Once forked, the child writes the runs' lines where this process would have,
    in the same order (a file descriptor both share: capfd, not capsys)."""
    log = tmp_path / "day.log"
    log.write_bytes(b"".join(_typed(name) for name in NAMES))
    monkeypatch.setattr("osdoctor.runs.log_runs.FORK_AFTER", 0)
    monkeypatch.setattr("osdoctor.runs.runworker.can_fork", lambda: True)
    forks: list[object] = []
    monkeypatch.setattr("osdoctor.runs.log_runs._fork", _counting(forks))
    printed = []
    for jobs in ("1", "2"):
        code = main(["explain", "--no-user-kb", "--jobs", jobs, "--format", "jsonl", str(log)])
        printed.append((code, capfd.readouterr().out))
    assert len(forks) == 1
    assert printed[0] == printed[1]
    assert printed[0][0] == 1 and printed[0][1].count("\n") == len(NAMES)


def test_an_in_memory_output_is_written_here_not_in_a_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "day.log"
    log.write_bytes(b"".join(_typed(name) for name in NAMES[:20]))
    monkeypatch.setattr("osdoctor.runs.log_runs.FORK_AFTER", 0)
    monkeypatch.setattr("osdoctor.runs.runworker.can_fork", lambda: True)
    forks: list[object] = []
    monkeypatch.setattr("osdoctor.runs.log_runs._fork", _counting(forks))
    main(["explain", "--no-user-kb", "--jobs", "2", "--format", "jsonl", str(log)])
    assert forks == [] and capsys.readouterr().out.count("\n") == 20


def _counting(forks: list[object]) -> Any:
    from osdoctor.runs import log_runs as runs

    real = runs._fork

    def fork(receiver: Any) -> Any:
        forks.append(receiver)
        return real(receiver)

    return fork


def test_jobs_must_be_a_number_from_one(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["explain", "--jobs", "0", "-"])
    assert stop.value.code == 2
    assert "a number of processes from 1" in capsys.readouterr().err


def test_the_default_is_the_number_of_cpus(
    logs: list[str],
    pools: list[int],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert forkmap.cpus() >= 1
    monkeypatch.setattr(forkmap, "cpus", lambda: 3)
    _explain(logs, capsys)
    assert pools == [3]
    monkeypatch.setattr(forkmap, "cpus", lambda: 1)
    _explain(logs, capsys)
    assert pools == [3]  # one CPU: no worker at all


def test_the_map_keeps_the_order_of_the_items() -> None:
    mapped = forkmap.map_in_order(lambda n: n * n, list(range(40)), 3)
    assert mapped is not None
    assert list(mapped) == [n * n for n in range(40)]
    assert multiprocessing.active_children() == []
