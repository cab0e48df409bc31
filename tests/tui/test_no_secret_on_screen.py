"""No pane shows a secret: the log pane reads raw lines back from the file (or
keeps a live run's), so it redacts them itself, private key blocks included."""

from __future__ import annotations

from pathlib import Path

import pytest

from osdoctor.tui.linestore import FileLines, MemoryLines
from tests.secret_corpus import ALL_SECRETS, CASES
from tests.tui.conftest import steady_app, wait_until

KEY_BODY = ["MIIEowIBAAKCAQEAfakeKeyBodyLineNumberOne0123456789abcdefghij",
            "fakeKeyBodyLineNumberTwo0123456789abcdefghijklmnopqrstuvwxyzAB",
            "fakeKeyBodyLineNumberThree0123456789abcdefghijklmnopqrstuv=="]
LINES = [case.line for case in CASES] + [
    "+-------------+------------------------------------------+",
    "| private_key | -----BEGIN RSA PRIVATE KEY-----          |",
    *KEY_BODY,
    "-----END RSA PRIVATE KEY-----",
    "END return value: 0",
]
SECRETS = set(ALL_SECRETS) | set(KEY_BODY)


def leaks(text: str) -> list[str]:
    return [s for s in SECRETS if s in text]


def write_log(path: Path) -> Path:
    path.write_text("\n".join(LINES) + "\n")
    return path


def test_file_lines_are_redacted_when_drawn(tmp_path: Path) -> None:
    log = write_log(tmp_path / "secrets.log")
    store = FileLines(log)
    offset = 0
    for line in log.read_bytes().splitlines(keepends=True):
        store.add_offset(offset)
        offset += len(line)
    store.set_end(offset)
    shown = [store.text(n) for n in range(1, len(store) + 1)]
    assert len(shown) == len(LINES)
    for text in shown:
        assert leaks(text) == [], text
    assert shown[-2] == "-----END RSA PRIVATE KEY-----"


def test_live_lines_are_redacted_as_they_arrive() -> None:
    store = MemoryLines()
    for text in LINES:
        store.append(2, text)
    for n in range(1, len(store) + 1):
        assert leaks(store.text(n)) == []


@pytest.mark.anyio
async def test_opened_log_shows_no_secret_in_any_pane(tmp_path: Path) -> None:
    log = write_log(tmp_path / "secrets.log")
    app = steady_app(log=log)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = app.main
        await wait_until(pilot, lambda: screen.state == "read" and screen.final)
        for key in ("1", "2", "3", "4", "5"):
            await pilot.press(key)
            await pilot.pause()
            assert leaks(app.export_screenshot()) == []
        lines = screen.lines
        assert lines is not None
        for n in range(1, len(lines) + 1):
            assert leaks(lines.text(n)) == []
