"""One way in: the whole-log path (explain, probe) and the stepwise reader (the TUI)
read the same lines alike, know a session by the same format, and word an
unreadable file the same way (``osdoctor.intake``, ``osdoctor.run.sessionfile``)."""

from __future__ import annotations

from array import array
from pathlib import Path

import pytest

from osdoctor.intake import LogInputError, LogReader, open_log, parse_path, read_log
from osdoctor.model import Trace
from osdoctor.parse.prefixes import PrefixStripper
from osdoctor.run.sessionfile import DataLine, parse_session_line

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "tests" / "fixtures" / "logs"


class Index:
    """The reader's view of the TUI's ``FileLines``: offsets only."""

    def __init__(self) -> None:
        self.offsets = array("q")
        self.session = False
        self.end = 0

    def add_offset(self, offset: int) -> None:
        self.offsets.append(offset)

    def set_end(self, offset: int) -> None:
        self.end = offset


def read_all(path: Path, index: Index) -> LogReader:
    """Read as the TUI does: a first screenful line by line, then blocks."""
    reader = open_log(path, index)
    try:
        reader.read_available(final=True, budget=10)
        while reader.read_blocks(budget=1000) or reader.read_available(final=True, budget=1000):
            reader.settle()
        reader.settle()
    finally:
        reader.close()
    return reader


@pytest.mark.parametrize("kind", ["missing", "folder"])
def test_explain_and_the_screen_word_an_unreadable_log_alike(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "debug.log"
    if kind == "folder":
        path.mkdir()
    with pytest.raises(LogInputError) as explain:
        read_log(str(path))
    with pytest.raises(LogInputError) as screen:
        open_log(path, Index())
    assert str(explain.value) == str(screen.value)
    assert str(explain.value) == (
        f"{path}: no such file" if kind == "missing" else f"{path} is a folder, not a log file"
    )


def _damaged(tmp: Path) -> Path:
    """A real log pasted badly: CRLF endings, colours, a 3 MiB line without a break."""
    text = (LOGS / "heat.stack-hook.poll-index-error.log").read_bytes()
    lines = text.split(b"\n")
    lines[5] = b"\x1b[31m" + lines[5] + b"\x1b[0m\r"
    lines.insert(12, b"x" * (3 << 20))
    path = tmp / "damaged.log"
    path.write_bytes(b"\n".join(lines))
    return path


def _shape(trace: Trace) -> tuple[object, ...]:
    return (
        trace.line_count,
        trace.exit_code,
        trace.command,
        [(e.request.line, e.request.url, e.status) for e in trace.exchanges],
        [(m.line, m.kind, m.text) for m in trace.messages],
    )


@pytest.mark.parametrize(
    "name",
    [
        "heat.stack-hook.poll-index-error",
        "heat.stack-create.stalled",
        "osc.server-create.active",
        "damaged",
    ],
)
def test_the_stepwise_reader_gives_the_same_trace_as_explain(name: str, tmp_path: Path) -> None:
    log = _damaged(tmp_path) if name == "damaged" else LOGS / f"{name}.log"
    index = Index()
    reader = read_all(log, index)
    stepwise, whole = reader.parser.finish(), parse_path(log)
    assert reader.number == whole.line_count == len(index.offsets)
    assert _shape(stepwise) == _shape(whole)


SESSION = """\
#osdoctor-session 1
#command ["openstack", "--debug", "server", "list"]
#started 2026-11-30T02:00:58Z
0.004 2 REQ: curl -g -i -X GET http://127.0.0.1:5000/v3
0.010 1 +----+
12 1 not a record: no decimals
0.020 1 | id |
#exit 0 0.100
"""


def test_a_session_reads_the_same_to_every_reader(tmp_path: Path) -> None:
    path = tmp_path / "run.session.log"
    path.write_text(SESSION, encoding="utf-8")
    index = Index()
    reader = read_all(path, index)
    assert index.session
    assert reader.stdout == [5, 7]  # the stdout records; "12 1 ..." is none
    stripper = PrefixStripper()
    for line in SESSION.splitlines():
        record = parse_session_line(line)
        stripped = stripper.strip(line)
        assert isinstance(record, DataLine) == (stripped.stream is not None), line
        if isinstance(record, DataLine):
            assert (record.fd, record.text) == (stripped.stream, stripped.text)
    assert reader.parser.finish().exit_code == 0
