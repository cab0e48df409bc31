"""The terminal conventions every command-line front end shares: colour, the yes/no
question, exit codes (``osdoctor.console``)."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pytest

from osdoctor.cli import main
from osdoctor.console import Exit, ask, outcome_exit, use_colour

ROOT = Path(__file__).resolve().parent.parent
FAILING = ROOT / "tests" / "fixtures" / "logs" / "generic.auth-no-role.log"


class Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("mode", "tty", "no_color", "expected"),
    [
        ("always", False, True, True),
        ("never", True, False, False),
        ("auto", True, False, True),
        ("auto", True, True, False),
        ("auto", False, False, False),
    ],
)
def test_the_colour_decision(
    mode: str, tty: bool, no_color: bool, expected: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    stream = Terminal() if tty else io.StringIO()
    assert use_colour(stream, mode) is expected


@pytest.fixture
def no_cloud(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No clouds.yaml and no OS_* variables: nothing the probe could contact."""
    for name in list(os.environ):
        if name.startswith("OS_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("command", ["explain", "probe"])
@pytest.mark.parametrize("no_color", [False, True])
def test_explain_and_probe_follow_no_color_alike(
    command: str, no_color: bool, no_cloud: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a terminal both colour the report, unless NO_COLOR is set: the probe once
    coloured whatever NO_COLOR said."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    out = Terminal()
    monkeypatch.setattr(sys, "stdout", out)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # no terminal: nothing is sent
    code = main([command, str(FAILING), "--no-user-kb"])
    assert code in (Exit.FAILURE, Exit.USAGE)
    assert ("\x1b[" in out.getvalue()) is not no_color


def test_without_a_terminal_the_question_is_not_asked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))
    assert ask("Send?", "confirm in a terminal, or add --yes", assume_yes=False) is False
    err = capsys.readouterr().err
    assert err == "osdoctor: confirm in a terminal, or add --yes\n"
    assert ask("Send?", "never said", assume_yes=True) is True
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("answer", ["y\n", "yes\n", "n\n", "\n"])
def test_on_a_terminal_the_answer_decides(
    answer: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Keyboard(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Keyboard(answer))
    assert ask("Run it?", "unused", assume_yes=False) is (answer.strip() in ("y", "yes"))
    assert capsys.readouterr().err == "Run it? [y/N] "


def test_exit_codes_of_outcomes() -> None:
    assert outcome_exit("failure") == 1
    assert outcome_exit("success") == outcome_exit("unknown") == 0
