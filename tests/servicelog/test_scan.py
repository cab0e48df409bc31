"""Finding a run's records in folders of service logs: rotated and compressed files,
a sosreport's layout, bounded memory, and only the lines found read.

The big inputs are made here from a fixture the real formatter wrote
(``tests/fixtures/servicelogs/oslo-default.log``), its records repeated under
other request ids: the shape is oslo.log's, the volume the test's."""

from __future__ import annotations

import bz2
import gzip
import lzma
from pathlib import Path

import pytest

from osdoctor.lab import formats, servicelogs
from osdoctor.servicelog import reader as reader_module
from osdoctor.servicelog import scan as scan_module
from osdoctor.servicelog import sources
from osdoctor.servicelog.scan import PER_ID, Wanted, scan
from osdoctor.servicelog.sources import ServiceLogError, expand, looks_like_service_log
from tests.helpers.public_logs import FIXTURES

SAMPLE = (FIXTURES / "servicelogs" / "oslo-default.log").read_text(encoding="utf-8")
WANTED = Wanted(frozenset({formats.REQUEST_ID}))


def other_requests(count: int) -> str:
    """The sample's records again, each copy under a request id of its own."""
    return "".join(
        SAMPLE.replace(formats.REQUEST_ID, f"req-00000000-0000-4000-8000-{n:012x}")
        for n in range(count)
    )


def test_a_folder_is_walked_for_logs_and_their_rotations(tmp_path: Path) -> None:
    (tmp_path / "nova").mkdir()
    (tmp_path / "journal").mkdir()
    for name in ("nova/nova-api.log", "nova/nova-api.log.1", "messages", "journal/system.journal"):
        (tmp_path / name).write_text(SAMPLE, encoding="utf-8")
    (tmp_path / "nova" / "nova-api.log.2.gz").write_bytes(gzip.compress(SAMPLE.encode()))
    (tmp_path / "nova" / "notes.md").write_text("not a log", encoding="utf-8")
    names = [p.relative_to(tmp_path).as_posix() for p in expand([str(tmp_path)])]
    assert names == [
        "messages",
        "nova/nova-api.log",
        "nova/nova-api.log.1",
        "nova/nova-api.log.2.gz",
    ]


def test_a_pattern_and_a_file_are_taken_once(tmp_path: Path) -> None:
    log = tmp_path / "keystone.log"
    log.write_text(SAMPLE, encoding="utf-8")
    assert expand([str(log), str(tmp_path / "*.log")]) == [log]


@pytest.mark.parametrize("word", ["missing.log", "nothing-*.log"])
def test_a_word_naming_no_file_is_said(tmp_path: Path, word: str) -> None:
    with pytest.raises(ServiceLogError, match="no such file|no file matches"):
        expand([str(tmp_path / word)])


@pytest.mark.parametrize(
    "pack", [gzip.compress, bz2.compress, lzma.compress], ids=["gzip", "bzip2", "xz"]
)
def test_compressed_logs_are_read_by_their_first_bytes(tmp_path: Path, pack: object) -> None:
    path = tmp_path / "nova-api.log.3"  # no suffix says how it is packed
    path.write_bytes(pack(SAMPLE.encode()))  # type: ignore[operator]
    found = scan([path], WANTED)
    assert {r.logger for r in found.records} >= {"nova.api.openstack.wsgi"}
    (error,) = [r for r in found.records if r.level == "ERROR" and r.frames]
    assert error.exception == "oslo_db.exception.DBConnectionError"
    assert error.source == str(path) and error.line == 6


def test_the_records_of_one_request_are_found_among_many(tmp_path: Path) -> None:
    path = tmp_path / "nova-api.log"
    path.write_text(other_requests(300) + SAMPLE + other_requests(300), encoding="utf-8")
    found = scan([path], WANTED)
    mine = [r for r in found.records if formats.REQUEST_ID in (r.request_id, r.global_request_id)]
    assert len(mine) == 5
    error = next(r for r in mine if r.frames)
    assert error.line == 300 * 14 + 6 and len(error.frames) == 4


def test_only_the_lines_found_and_their_records_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linear in the size, and most of the size never decoded: a request id's
    lines and their tracebacks are read, not the other requests' lines."""
    fed: list[int] = []
    real = reader_module.RecordReader.feed

    def counting(self: reader_module.RecordReader, number: int, raw: str) -> None:
        fed.append(number)
        real(self, number, raw)

    monkeypatch.setattr(reader_module.RecordReader, "feed", counting)
    path = tmp_path / "nova-api.log"
    path.write_text(other_requests(2000) + SAMPLE, encoding="utf-8")
    scan([path], WANTED)
    assert 12 <= len(fed) <= 14  # the sample's lines, of 28,000


def test_a_record_cut_by_a_block_boundary_stays_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sources, "BLOCK", 300)
    path = tmp_path / "nova-api.log"
    path.write_text(SAMPLE, encoding="utf-8")
    found = scan([path], WANTED)
    (error,) = [r for r in found.records if r.frames]
    assert len(error.frames) == 4 and error.last_line == 13
    (state,) = [r for r in found.records if r.logger == "nova.compute.api"]
    assert state.more == ["vm_state: error, task_state: deleting"]


def test_what_is_kept_is_bounded(tmp_path: Path) -> None:
    """One request id on more lines than are kept: the first PER_ID records, the
    others counted; records without an id near a failed answer, at most LOOSE."""
    one = SAMPLE.replace("req-7f8e9d0c-1b2a-4c3d-8e4f-5a6b7c8d9e0f", formats.REQUEST_ID)
    path = tmp_path / "nova-api.log"
    path.write_text(one * 300, encoding="utf-8")
    found = scan([path], Wanted(frozenset({formats.REQUEST_ID}), (servicelogs.BASE,)))
    with_id = [r for r in found.records if r.request_id == formats.REQUEST_ID]
    assert len(with_id) == PER_ID
    assert found.dropped > 0
    loose = [r for r in found.records if not r.request_id]
    assert 0 < len(loose) <= scan_module.LOOSE


def test_a_service_log_is_told_from_a_client_log() -> None:
    assert looks_like_service_log(FIXTURES / "servicelogs" / "oslo-default.log")
    assert looks_like_service_log(
        FIXTURES / "logs" / "generic.lb-503-html.service" / "haproxy" / "haproxy.log"
    )
    assert not looks_like_service_log(FIXTURES / "logs" / "generic.lb-503-html.log")


def test_nothing_wanted_reads_nothing(tmp_path: Path) -> None:
    path = tmp_path / "nova-api.log"
    path.write_text(SAMPLE, encoding="utf-8")
    assert scan([path], Wanted()).records == []
