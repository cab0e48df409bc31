"""``osdoctor.library.explain_log``, the function a map over many machines calls:
bytes in, one JSON-ready dict per run out, the same as ``--format jsonl`` prints,
and the same again when Dask's local schedulers (one thread, threads, processes)
map it over logs."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import dask.bag as db
import jsonschema
import pytest

from osdoctor.cli import main
from osdoctor.library import explain_log
from osdoctor.render.jsonl import schema
from tests.test_runs import NAMES, _typed

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
SAMPLE = [
    LOGS / "heat.stack-hook.poll-index-error.log",
    LOGS / "generic.conn-refused.log",
    LOGS / "osc.find-by-name.not-found.log",
    LOGS / "generic.hung.log",
]


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log of many runs, secrets among them."""
    path = tmp_path_factory.mktemp("library") / "day.log"
    path.write_bytes(b"".join(_typed(name) for name in NAMES[:30]))
    return path


def _jsonl(path: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    main(["explain", "--no-user-kb", "--jobs", "1", "--format", "jsonl", str(path)])
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def _explained(path: str) -> list[dict[str, Any]]:
    """What a worker runs: read the log, explain it (a plain, picklable function)."""
    return explain_log(Path(path).read_bytes(), source=path)


def test_a_log_gives_what_explain_prints_in_json_lines(
    day: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    validator = jsonschema.Draft202012Validator(schema())
    for path in [*SAMPLE, day]:
        runs = explain_log(path.read_bytes(), source=str(path))
        assert runs == _jsonl(path, capsys)
        for run in runs:
            validator.validate(run)
    assert len(explain_log(day.read_bytes(), source=str(day))) == 30


def test_it_is_a_plain_function_of_its_arguments(day: Path) -> None:
    data = day.read_bytes()
    first = explain_log(data, source="a")
    assert explain_log(bytearray(data), source="a") == first  # nothing kept between calls
    assert {run["source"] for run in first} == {"a"}
    assert pickle.loads(pickle.dumps(explain_log)) is explain_log
    json.dumps(first)  # JSON-ready as it is
    with pytest.raises(TypeError):
        explain_log(str(day))  # type: ignore[arg-type, unused-ignore]


def test_nothing_it_returns_holds_a_secret_of_the_log(day: Path) -> None:
    from osdoctor.lab.fakes import FAKE_SECRETS

    data = day.read_bytes()
    assert any(secret.encode() in data for secret in FAKE_SECRETS)
    text = json.dumps(explain_log(data), ensure_ascii=False)
    assert not [secret for secret in FAKE_SECRETS if secret in text]


@pytest.mark.parametrize("scheduler", ["sync", "threads", "processes"])
def test_dask_maps_it_over_logs_on_a_local_scheduler(day: Path, scheduler: str) -> None:
    paths = [str(p) for p in [*SAMPLE, day]]
    expected = [run for path in paths for run in _explained(path)]
    bag = db.from_sequence(paths, npartitions=2).map(_explained).flatten()  # type: ignore[no-untyped-call]
    got = bag.compute(scheduler=scheduler, num_workers=2)
    assert got == expected
    assert {run["source"] for run in got} == set(paths)
