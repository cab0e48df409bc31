"""The session file: written as the run goes, redacted, private, parseable."""

from __future__ import annotations

import json
import os
import stat
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from osdoctor import paths
from osdoctor.run.runner import MAX_LINE, PROMPT_NOTE, CommandError, OutputLine, Run, RunResult
from osdoctor.run.session import SessionWriter, redact_command
from osdoctor.run.sessionfile import (
    DataLine,
    MetaLine,
    SessionFormatError,
    parse_session_line,
    read_session_header,
)
from tests.helpers.children import TIMEOUT, child, gate

TOKEN = "gAAAAABfakeFAKEfake1234567890abcdef"
PASSWORD = "FakePassw0rd-not-real"


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(paths.HOME_ENV, str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    return tmp_path / "home"


def records(path: Path) -> list[DataLine | MetaLine | None]:
    return [parse_session_line(line) for line in path.read_text().splitlines()]


def run_recorded(argv: list[str], **kwargs: object) -> tuple[RunResult, Path]:
    writer = SessionWriter.for_command(argv)
    run = Run(argv, session=writer, **kwargs)  # type: ignore[arg-type]
    run.start()
    result = run.wait(TIMEOUT)
    assert writer.closed and result.session_path == writer.path
    return result, writer.path


def test_session_is_private_and_named_without_the_arguments(tmp_path: Path, home: Path) -> None:
    argv = ["/opt/bin/openstack", "--os-password", PASSWORD, "server", "list"]
    writer = SessionWriter.for_command(argv)
    writer.close(None)
    assert writer.path.parent == home / "data" / "sessions"
    assert writer.path.name.endswith("-openstack-" + writer.path.name.split("-")[-1])
    assert writer.path.name.endswith(".session.log") and PASSWORD not in writer.path.name
    assert stat.S_IMODE(writer.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(writer.path.parent.stat().st_mode) == 0o700
    assert [p.name for p in tmp_path.iterdir()] == ["home"]  # nothing in the current folder


def test_a_run_is_recorded_in_the_documented_format() -> None:
    argv = child("exit", "3")
    result, path = run_recorded(argv)
    lines = path.read_text().splitlines()
    assert lines[0] == "#osdoctor-session 1"
    assert lines[1] == "#command " + json.dumps(argv)
    assert lines[2].startswith("#started ") and lines[2].endswith("Z")
    assert lines[3].endswith(" 1 bye")
    assert records(path)[3] == DataLine(float(lines[3].split()[0]), 1, "bye")
    assert lines[-1] == f"#exit 3 {result.duration:.3f}"
    header = read_session_header(lines)
    assert header.version == 1 and header.command == tuple(argv)
    assert header.started is not None and header.started.tzinfo is UTC


def test_session_is_written_while_the_run_goes(tmp_path: Path) -> None:
    with gate(tmp_path) as (fifo, step):
        seen = threading.Event()
        writer = SessionWriter.for_command(["openstack"])
        run = Run(
            child("hold", fifo, "first line", f"X-Auth-Token: {TOKEN}"),
            session=writer,
            on_line=lambda line: seen.set() if "X-Auth-Token" in line.text else None,
        )
        run.start()
        assert seen.wait(TIMEOUT)
        during = writer.path.read_text()
        assert " 2 first line\n" in during and " 2 X-Auth-Token: ***\n" in during
        assert "#exit" not in during
        os.write(step, b".")
        run.wait(TIMEOUT)
        after = writer.path.read_text()
        assert after.startswith(during) and after.endswith("\n") and "\n#exit 0 " in after


def test_no_secret_reaches_the_file() -> None:
    pem_body = "MIIEfakeFAKEfakeNotARealKeyAtAll0123456789"
    printed = [
        f"X-Auth-Token: {TOKEN}",
        "REQ: curl -X POST http://127.0.0.1/v3/users"
        f' -d \'{{"user": {{"password": "{PASSWORD}"}}}}\'',
        "-----BEGIN RSA PRIVATE KEY-----",
        pem_body,
        "-----END RSA PRIVATE KEY-----",
    ]
    argv = [*child("hold", "/dev/null", *printed), "--", "--os-password", PASSWORD]
    result, path = run_recorded(argv)
    text = path.read_text()
    for secret in (TOKEN, PASSWORD, pem_body):
        assert secret not in text
    assert "X-Auth-Token: ***" in text
    assert json.loads(text.splitlines()[1].removeprefix("#command "))[-2:] == [
        "--os-password",
        "***",
    ]
    assert result.exit_code == 0


def test_cancel_and_notes_are_recorded() -> None:
    seen = threading.Event()
    writer = SessionWriter.for_command(["openstack"])
    run = Run(
        child("stubborn", "SIGINT"),
        session=writer,
        on_line=lambda line: seen.set(),
        cancel_grace=0.3,
    )
    run.start()
    assert seen.wait(TIMEOUT)
    run.cancel()
    result = run.wait(TIMEOUT)
    metas = [r for r in records(writer.path) if isinstance(r, MetaLine)]
    cancels = [m.value.split() for m in metas if m.key == "cancelled"]
    assert [name for name, _ in cancels] == ["SIGINT", "SIGTERM"]
    assert float(cancels[0][1]) <= float(cancels[1][1]) <= result.duration
    assert metas[-1] == MetaLine("exit", f"143 {result.duration:.3f}")


def test_a_failed_prompt_leaves_a_note() -> None:
    result, path = run_recorded(child("getpass"))
    lines = path.read_text().splitlines()
    assert lines[-2:] == [f"#note {PROMPT_NOTE}", f"#exit 1 {result.duration:.3f}"]


def test_a_command_that_cannot_start_is_noted_without_exit() -> None:
    writer = SessionWriter.for_command(["osdoctor-no-such-command"])
    with pytest.raises(CommandError):
        Run(["osdoctor-no-such-command"], session=writer).start()
    assert writer.closed
    lines = writer.path.read_text().splitlines()
    assert lines[-1] == "#note osdoctor-no-such-command: command not found"
    assert not any(line.startswith("#exit") for line in lines)


def test_line_breaks_inside_a_line_and_cut_lines_stay_one_record(tmp_path: Path) -> None:
    writer = SessionWriter(tmp_path / "s" / "one.session.log")
    writer.begin(["x"], datetime(2026, 11, 30, 2, 0, 58, tzinfo=UTC))
    writer.write_lines(
        [
            OutputLine(0.0004, 1, "progress 10%\rprogress 20%\u2028end"),
            OutputLine(1.5, 2, "a" * 10, cut=True),
            OutputLine(1.5, 2, "tail"),
            OutputLine(2.0, 1, ""),
        ]
    )
    writer.close(None)
    assert writer.path.read_text().splitlines()[2:] == [
        "#started 2026-11-30T02:00:58Z",
        "0.000 1 progress 10%\\rprogress 20%\\u2028end",
        "1.500 2 aaaaaaaaaa",
        "#split 2",
        "1.500 2 tail",
        "2.000 1 ",
    ]


def test_huge_lines_from_a_run_are_marked_split() -> None:
    _, path = run_recorded(child("huge", str(MAX_LINE + 3)))
    kinds = [
        (r.fd, len(r.text)) if isinstance(r, DataLine) else r.key
        for r in records(path)
        if r is not None
    ]
    assert kinds[3:] == [(1, MAX_LINE), "split", (1, 3), (1, 5), "exit"]


@pytest.mark.parametrize(
    ("line", "record"),
    [
        (
            "0.004 2 REQ: curl -g -i -X GET http://x\n",
            DataLine(0.004, 2, "REQ: curl -g -i -X GET http://x"),
        ),
        ("12.345 1 +--------+", DataLine(12.345, 1, "+--------+")),
        ("1.000 1 ", DataLine(1.0, 1, "")),
        ("1.000 1", DataLine(1.0, 1, "")),
        ("1.000 1  two  spaces ", DataLine(1.0, 1, " two  spaces ")),
        ("1.000 1 # not metadata\r\n", DataLine(1.0, 1, "# not metadata")),
        ("#exit 1 12.345", MetaLine("exit", "1 12.345")),
        ("#note stdin is not a terminal", MetaLine("note", "stdin is not a terminal")),
        ("#future", MetaLine("future", "")),
        ("#", None),
        ("1.000 3 other fd", None),
        ("abc 1 text", None),
        ("nan 1 text", None),
        ("1.000 2", DataLine(1.0, 2, "")),
        ("2026-11-30 02:00:58 DEBUG something", None),
        ("", None),
    ],
)
def test_parse_session_line(line: str, record: DataLine | MetaLine | None) -> None:
    assert parse_session_line(line) == record


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["REQ: curl http://x"], "not an osdoctor session"),
        ([], "not an osdoctor session"),
        (["#osdoctor-session 99"], "newer than this osdoctor reads"),
        (["#osdoctor-session one"], "bad session version"),
        (["#osdoctor-session 1", "#command openstack x"], "not a JSON array"),
        (["#osdoctor-session 1", '#command ["a", 1]'], "array of strings"),
        (["#osdoctor-session 1", "#started yesterday"], "bad #started time"),
    ],
)
def test_read_session_header_rejects_what_is_not_a_session(lines: list[str], message: str) -> None:
    with pytest.raises(SessionFormatError, match=message):
        read_session_header(lines)


def test_read_session_header_stops_at_the_first_data_line() -> None:
    header = read_session_header(["#osdoctor-session 1\n", "0.1 1 x\n", '#command ["late"]\n'])
    assert header.command == () and header.started is None


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["openstack", "server", "list"], ["openstack", "server", "list"]),
        (["openstack", "--os-password", PASSWORD], ["openstack", "--os-password", "***"]),
        (["openstack", f"--os-password={PASSWORD}"], ["openstack", "--os-password=***"]),
        (
            ["openstack", "--os-auth-url", f"http://admin:{PASSWORD}@127.0.0.1/v3"],
            ["openstack", "--os-auth-url", "http://admin:***@127.0.0.1/v3"],
        ),
        (
            ["openstack", "user", "create", "--password", "two words"],
            ["openstack", "user", "create", "--password", "***"],
        ),
        (
            ["openstack", "credential", "create", "--type", "totp", "demo", PASSWORD],
            ["openstack", "credential", "create", "--type", "totp", "demo", "***"],
        ),
        (
            [
                "swift",
                "-A",
                "http://127.0.0.1/auth/v1.0",
                "-U",
                "demo:demo",
                "-K",
                PASSWORD,
                "stat",
            ],
            ["swift", "-A", "http://127.0.0.1/auth/v1.0", "-U", "demo:demo", "-K", "***", "stat"],
        ),
        (
            ["swift", "tempurl", "GET", "60", "/v1/AUTH_x/c/o", PASSWORD],
            ["swift", "tempurl", "GET", "60", "/v1/AUTH_x/c/o", "***"],
        ),
        (
            ["openstack", "ec2", "credentials", "delete", PASSWORD],
            ["openstack", "ec2", "credentials", "delete", "***"],
        ),
        (
            [
                "openstack",
                "stack",
                "create",
                "-t",
                "t.yaml",
                "--parameter",
                f"rabbit_creds={PASSWORD}",
                "--parameter",
                "flavor=m1.small",
                "web",
            ],
            [
                "openstack",
                "stack",
                "create",
                "-t",
                "t.yaml",
                "--parameter",
                "rabbit_creds=***",
                "--parameter",
                "flavor=m1.small",
                "web",
            ],
        ),
        (
            ["heat", "stack-create", "-P", f"db_password={PASSWORD};flavor=m1", "s"],
            ["heat", "stack-create", "-P", "db_password=***;flavor=m1", "s"],
        ),
        (
            ["env", f"OS_PASSWORD={PASSWORD}", "openstack", "server", "list"],
            ["env", "OS_PASSWORD=***", "openstack", "server", "list"],
        ),
    ],
)
def test_redact_command(argv: list[str], expected: list[str]) -> None:
    assert json.loads(redact_command(argv)) == expected


def test_many_lines_are_all_recorded_in_order() -> None:
    count = 100_000
    _, path = run_recorded(child("many", str(count)))
    data = [r for r in records(path) if isinstance(r, DataLine)]
    assert [r.text for r in data if r.fd == 1] == [f"out {n}" for n in range(count)]
    assert [r.text for r in data if r.fd == 2] == [f"err {n}" for n in range(count)]
