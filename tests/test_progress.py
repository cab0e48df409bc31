"""A progress line while a big log is read: on a terminal only, after half a
second, throttled, and erased before the report."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from osdoctor import cli, progress
from osdoctor.progress import Progress

FIXTURE = Path(__file__).parent / "fixtures" / "logs" / "heat.stack-create.create-complete.log"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_line_waits_half_a_second_then_redraws_at_most_four_times_a_second() -> None:
    out, clock = io.StringIO(), Clock()
    show = Progress(out, "osdoctor: reading big.log", 420_000_000, clock=clock)
    show(1_000_000)
    clock.now += 0.4
    show(50_000_000)
    assert out.getvalue() == ""  # a small log shows nothing
    clock.now += 0.2
    show(60_000_000)
    assert out.getvalue() == "\r\x1b[Kosdoctor: reading big.log: 60 of 420 MB read"
    clock.now += 0.1
    show(70_000_000)
    assert out.getvalue().count("\r\x1b[K") == 1
    clock.now += 0.2
    show(90_000_000)
    assert out.getvalue().endswith("90 of 420 MB read")
    show.close()
    assert out.getvalue().endswith("\r\x1b[K")


def test_nothing_is_drawn_or_erased_for_a_quick_read() -> None:
    out = io.StringIO()
    show = Progress(out, "osdoctor: reading standard input", None, clock=Clock())
    show(5_000)
    show.close()
    assert out.getvalue() == ""


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("terminal", [True, False])
def test_explain_shows_the_line_on_a_terminal_only_and_erases_it(
    terminal: bool,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("OSDOCTOR_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(progress, "SHOW_AFTER", 0.0)
    monkeypatch.setattr(progress, "REDRAW_EVERY", 0.0)
    err = Terminal() if terminal else io.StringIO()
    monkeypatch.setattr("sys.stderr", err)
    code = cli.main(["explain", str(FIXTURE), "--no-user-kb"])
    assert code == 0
    report = capsys.readouterr().out
    assert "stack create" in report and "\x1b[K" not in report
    if terminal:
        assert f"osdoctor: reading {FIXTURE.name}: 0 of 0 MB read" in err.getvalue()
        assert err.getvalue().endswith("\r\x1b[K")
    else:
        assert err.getvalue() == ""
