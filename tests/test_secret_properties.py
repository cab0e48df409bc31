"""Property: a random secret, in any shape and position a log holds one, shows in
no output: the parsed trace, explain's text, Markdown and JSON (plain, --why-not
and anonymised), a saved session and its explanation, and the lines of the log
pane, opened from a file or arriving live. (The TUI's screen itself is checked
in tests/tui/test_no_secret_on_screen.py from the same logs.)

Hypothesis draws the seeds; ``derandomize`` makes the examples the same on
every run, so that the test fails on a change, never on a draw."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

from hypothesis import HealthCheck, given, settings

from osdoctor.diagnose import parse_stream
from osdoctor.run.runner import OutputLine
from osdoctor.run.session import SessionWriter
from osdoctor.tui.linestore import MemoryLines
from tests.secret_shapes import ShapedLog, pane_lines, shaped_logs
from tests.test_no_secret_leaks import strings

PROPERTY = settings(
    max_examples=12,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


@contextlib.contextmanager
def _home(log: ShapedLog) -> Iterator[Path]:
    """A folder for one example (Hypothesis runs many per test) holding the log as
    ``shaped.log`` and the private osdoctor home, ``home``."""
    before = os.environ.get("OSDOCTOR_HOME")
    with tempfile.TemporaryDirectory() as folder:
        os.environ["OSDOCTOR_HOME"] = str(Path(folder) / "home")
        (Path(folder) / "shaped.log").write_text(log.text)
        try:
            yield Path(folder)
        finally:
            if before is None:
                del os.environ["OSDOCTOR_HOME"]
            else:
                os.environ["OSDOCTOR_HOME"] = before


def _explain(*args: str) -> str:
    from osdoctor.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["explain", *args, "--no-user-kb", "--color", "never"])
    assert code in (0, 1), err.getvalue()
    return out.getvalue() + err.getvalue()


@PROPERTY
@given(shaped_logs())
def test_no_report_shows_a_generated_secret(log: ShapedLog) -> None:
    with _home(log) as folder:
        path = folder / "shaped.log"
        trace = parse_stream(io.BytesIO(log.text.encode()), "-")
        assert log.leaks("\n".join(strings(trace))) == []
        for fmt in ("text", "markdown", "json"):
            for extra in ((), ("--why-not",), ("--anonymize",)):
                assert log.leaks(_explain(str(path), "--format", fmt, *extra)) == [], (fmt, extra)
        for mapping in (folder / "home").rglob("*.json"):
            assert log.leaks(mapping.read_text()) == []


@PROPERTY
@given(shaped_logs())
def test_no_saved_session_shows_a_generated_secret(log: ShapedLog) -> None:
    with _home(log) as folder:
        session = folder / "shaped.session.log"
        writer = SessionWriter(session)
        writer.begin(["openstack", "stack", "show", "web"], datetime.now())
        writer.write_lines(
            OutputLine(0.0, 2 if line.startswith(("REQ", "RESP")) else 1, line)
            for line in log.text.splitlines()
        )
        writer.close(None)
        assert log.leaks(session.read_text()) == []
        assert log.leaks(_explain(str(session), "--format", "json")) == []


@PROPERTY
@given(shaped_logs())
def test_no_line_of_the_log_pane_shows_a_generated_secret(log: ShapedLog) -> None:
    with _home(log) as folder:
        assert log.leaks("\n".join(pane_lines(folder / "shaped.log"))) == []
        live = MemoryLines()
        for line in log.text.splitlines():
            live.append(2, line)
        assert log.leaks("\n".join(live.text(n) for n in range(1, len(live) + 1))) == []
