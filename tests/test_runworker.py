"""A big log's runs diagnosed in a forked child give what this process gives.

``read_runs(..., fork=True)`` forks once a log of many runs has read
``FORK_AFTER`` bytes; here that is made 0 (and the machine made to look like it
has two cores), so that the fork happens at the first run's end, on logs made of
the real fixtures. Every result must be the one of reading without a fork, the
child must be gone when the reading returns, and a failure in the child must
come back as an error, not a hang.
"""

from __future__ import annotations

import io
import multiprocessing
from pathlib import Path
from typing import Any

import pytest

from osdoctor.cli import main
from osdoctor.diagnose import diagnose
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.model import Trace
from osdoctor.render.text import render_text
from osdoctor.runs.log_runs import LogRuns, read_runs
from osdoctor.runs.runworker import RunWorker, WorkerFailed
from tests.test_runs import NAMES, _typed

#: Every fixture once, secrets and failures among them (more than KEEP_REPORTS fail).
LOG = b"".join(_typed(name) for name in NAMES)


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


@pytest.fixture
def fork_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("osdoctor.runs.log_runs.FORK_AFTER", 0)
    monkeypatch.setattr("osdoctor.runs.runworker.can_fork", lambda: True)


def _read(kb: KnowledgeBase, choice: Any, fork: bool) -> LogRuns:
    return read_runs(io.BytesIO(LOG), "day.log", lambda t: diagnose(t, kb), choice, fork=fork)


def _gist(result: LogRuns) -> tuple[Any, ...]:
    return (
        result.summaries,
        [s.taught.forms() if s.taught else () for s in result.summaries],
        [s.taught.names if s.taught else frozenset() for s in result.summaries],
        {index: render_text(report) for index, report in result.reports.items()},
        (result.runs, result.failed, result.failed_not_kept, result.summaries_not_kept),
        result.lines,
    )


@pytest.mark.parametrize("choice", ["failed", "last", 3, "none"])
def test_runs_diagnosed_in_a_child_give_what_this_process_gives(
    kb: KnowledgeBase, fork_at_once: None, choice: Any
) -> None:
    forked = _read(kb, choice, fork=True)
    assert forked.runs == len(NAMES) and forked.failed > 20
    assert any(s.taught is not None for s in forked.summaries)
    assert _gist(forked) == _gist(_read(kb, choice, fork=False))
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize("form", ["text", "json", "markdown"])
def test_explain_prints_the_same_report_whether_it_forks_or_not(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    form: str,
) -> None:
    log = tmp_path / "day.log"
    log.write_bytes(LOG)
    argv = ["explain", "--no-user-kb", "--format", form, str(log)]
    printed = []
    for forks in (True, False):
        monkeypatch.setattr("osdoctor.runs.log_runs.FORK_AFTER", 0 if forks else 1 << 60)
        monkeypatch.setattr("osdoctor.runs.runworker.can_fork", lambda: True)
        assert main(argv) == 1
        printed.append(capsys.readouterr())
    assert printed[0].out == printed[1].out and printed[0].err == printed[1].err
    assert f"{log}: {len(NAMES)} runs" in printed[0].out or form == "json"


def test_a_failure_in_the_child_comes_back_as_an_error(
    kb: KnowledgeBase, fork_at_once: None
) -> None:
    done: list[int] = []

    def explain(trace: Trace) -> Any:
        done.append(1)
        if len(done) == 5:  # counted in the child, which carries the count on
            raise ValueError("a rule broke on this run")
        return diagnose(trace, kb)

    with pytest.raises(WorkerFailed, match="a rule broke on this run"):
        read_runs(io.BytesIO(LOG), "day.log", explain, fork=True)
    assert multiprocessing.active_children() == []


def test_the_child_ends_when_the_reader_is_gone(kb: KnowledgeBase) -> None:
    """The reader killed: its end of the pipe closes without a word, and the child,
    which holds no copy of that end, sees the end of its input and exits."""
    result = LogRuns("day.log")

    class Receiver:
        def __init__(self) -> None:
            self.result = result

        def finished(self, trace: Trace, first: int, last: int, taught: object) -> None:
            raise AssertionError("no run was sent")

    worker = RunWorker(Receiver())
    worker._runs_out.close()  # as the end of a killed process closes
    worker._process.join(timeout=120)  # returns as soon as the child has exited
    assert worker._process.exitcode == 0
    worker.stop()
    assert multiprocessing.active_children() == []


def test_a_trace_crosses_the_pipe_whole_and_its_bodies_still_unread() -> None:
    """What the child receives equals what was sent, and a body whose JSON was
    not read here is read there (its mark of "not read yet" is the same object
    in both processes)."""
    import pickle

    from osdoctor.diagnose import parse_path

    for name in NAMES[:12]:
        trace = parse_path(Path("tests/fixtures/logs") / f"{name}.log")
        received = pickle.loads(pickle.dumps(trace))
        assert received == trace
        for sent, got in zip(trace.exchanges, received.exchanges, strict=True):
            body = sent.response.body if sent.response is not None else None
            if body is not None and body.text and body.text.lstrip()[:1] == "{":
                assert got.response is not None and got.response.body is not None
                assert got.response.body.json() == body.json()
