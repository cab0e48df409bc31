"""Logs of many runs: each client invocation is found and diagnosed on its own.

The logs are concatenations of the real clients' fixture logs (every scenario,
healthy and failing, openstack, heat, baremetal and swift), as a ticket with
several attempts pasted one after the other (each behind the prompt it was
typed at) or as one ``--log-file`` that collected them (each with its own
pid). Each run must give what its fixture gives alone, at its own lines.
"""

from __future__ import annotations

import io
import json
import random
import re
import shlex
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from osdoctor.cli import main
from osdoctor.diagnose import diagnose, parse_stream
from osdoctor.intake import parsed_stream
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from osdoctor.model import Report
from osdoctor.parse.wraps import Widths
from osdoctor.render.json_report import render_json
from osdoctor.render.jsonl import runs_document, schema, write_runs_json
from osdoctor.render.markdown_report import render_markdown
from osdoctor.render.text import render_text
from osdoctor.runs.fingerprint import command_names, normalise
from osdoctor.runs.log_runs import KEEP_REPORTS, RunSummary, parse_run, read_runs
from tests.helpers.explained import report_of
from tests.helpers.public_logs import public_log

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"
EXPECTED = {
    p.name.removesuffix(".expected.yaml"): yaml.safe_load(p.read_text())
    for p in sorted(LOGS.glob("*.expected.yaml"))
}
#: The fixtures of one command each (a lab session of several commands is itself a
#: log of several runs).
NAMES = [name for name, expected in EXPECTED.items() if not expected.get("then")]
FILES = [LOGS / f"{name}.log" for name in NAMES]
VALIDATOR = jsonschema.Draft202012Validator(schema())


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


def _typed(name: str) -> bytes:
    """The fixture behind the command line its capture typed (a plain capture
    holds it already)."""
    expected = EXPECTED[name]
    log = (LOGS / f"{name}.log").read_bytes()
    if log.startswith(b"$ "):
        return log
    return b"$ " + shlex.join(expected["command"]).encode() + b"\n" + log


_STAMPED = re.compile(rb"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[.,]\d+ (?:DEBUG|INFO|WARNING|ERROR):? ")
_LEVELLED = re.compile(rb"^(?:DEBUG|INFO|WARNING|ERROR)(?::[\w.]+:| \([\w.:]+\) ?)")


def _log_file(name: str, pid: int) -> bytes:
    """The fixture as osc-lib's ``--log-file`` writes it (``osc_lib.logs._FileFormatter``):
    each line behind ``time.msecs pid LEVEL logger [cloud user project]``, its own
    console prefix, if any, replaced."""
    out = []
    for line in (LOGS / f"{name}.log").read_bytes().splitlines():
        m = _STAMPED.match(line) or _LEVELLED.match(line)
        if m:
            line = line[m.end() :]
        stamp = b"2026-12-01 10:00:00.%03d %d DEBUG " % (pid % 1000, pid)
        out.append(stamp + b"keystoneauth.session [None demo demo] " + line)
    return b"\n".join(out) + b"\n"


def _fake_secrets(text: str | None) -> str | None:
    # A secret one run masked stays masked in the runs after it.
    return None if text is None else re.sub(r"FAKE-lab-secret-\w+", "***", text)


def _gist(report: Report, shift: int = 0, first: int = 0) -> tuple[Any, ...]:
    """What a report says of its run; lines before ``first`` (an earlier run's,
    which a failure may cite: the state a list showed, the lock a command set)
    left out."""
    t = report.trace
    s = report.scenario
    return (
        _fake_secrets(t.command),
        t.exit_code,
        report.outcome,
        s.id if s else None,
        s.branch if s else None,
        [
            (f.id, f.severity, [e.line + shift for e in f.evidence if e.line + shift >= first])
            for f in report.findings
        ],
    )


def _masks_at_least(together: str | None, apart: str | None) -> bool:
    """The command of a run read after others is the one read alone, or masks more
    of it: a value an earlier run masked (osc-lib's START line masks a secret
    option's value up to the next option, ``--user-data cloud.yaml web``) stays
    masked in every run after it."""
    if together is None or apart is None:
        return together == apart
    pattern = ".+?".join(re.escape(part) for part in together.split("***"))
    return re.fullmatch(pattern, apart) is not None


def _diagnose_all(data: bytes, kb: KnowledgeBase) -> list[tuple[RunSummary, Report]]:
    seen: list[tuple[RunSummary, Report]] = []
    read_runs(
        io.BytesIO(data),
        "ticket.log",
        lambda t: diagnose(t, kb),
        "none",
        lambda s, r: seen.append((s, r)),
    )
    return seen


#: Each fixture's piece diagnosed alone, by piece: the typed shape's pieces do not
#: depend on the order they are shuffled into, so each is diagnosed once.
_ALONE: dict[tuple[bytes, str], Report] = {}


def _alone(piece: bytes, name: str, kb: KnowledgeBase) -> Report:
    if (piece, name) not in _ALONE:
        _ALONE[piece, name] = diagnose(parse_stream(io.BytesIO(piece), name), kb)
    return _ALONE[piece, name]


@pytest.mark.parametrize(("shape", "seed"), [("typed", 1), ("log-file", 2), ("typed", 3)])
def test_concatenated_fixtures_give_one_run_each_as_alone(
    shape: str, seed: int, kb: KnowledgeBase
) -> None:
    order = NAMES[:]
    random.Random(seed).shuffle(order)
    pieces = [
        _typed(n) if shape == "typed" else _log_file(n, 4000 + i) for i, n in enumerate(order)
    ]
    runs = _diagnose_all(b"".join(pieces), kb)
    assert len(runs) == len(pieces)
    first = 1
    for name, piece, (summary, report) in zip(order, pieces, runs, strict=True):
        last = first + piece.count(b"\n") - 1
        alone = _alone(piece, name, kb)
        assert (summary.first, summary.last) == (first, last), name
        together, apart = _gist(report, first=first), _gist(alone, first - 1)
        assert together[1:] == apart[1:], name
        assert _masks_at_least(together[0], apart[0]), name
        # Evidence from before the run is an earlier run's resource or command.
        earlier = {r.line for r in report.trace.earlier_resources}
        earlier |= {f.line for r in report.trace.earlier_resources for f in r.fields}
        earlier |= {c.line for c in report.trace.earlier}
        cited = {e.line for f in report.findings for e in f.evidence if e.line < first}
        assert cited <= earlier, name
        first = last + 1


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_a_single_run_log_reads_exactly_as_before(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = report_of(path)
    expected_of = (
        ("text", render_text(report)),
        ("json", render_json(report)),
        ("markdown", render_markdown(report)),
    )
    for fmt, expected in expected_of:
        code = main(["explain", "--no-user-kb", "--format", fmt, str(path)])
        assert capsys.readouterr().out == expected, path.name
        assert code in (0, 1, 2)
        assert code != 1 or report.outcome == "failure"


def test_jsonl_validates_against_the_schema_for_every_fixture(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["explain", "--no-user-kb", "--format", "jsonl", *map(str, FILES)])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(FILES)
    for line, path in zip(lines, FILES, strict=True):
        data = json.loads(line)
        VALIDATOR.validate(data)
        assert (data["source"], data["run"]) == (str(path), 0)
        assert data["lines"][1] == len(path.read_bytes().splitlines())
        failed = data["outcome"] == "failure"
        assert (data["fingerprint"] is not None) == (
            failed or any(f["severity"] == "error" for f in data["findings"])
        )


def test_many_logs_in_one_call_give_what_separate_calls_give(
    capsys: pytest.CaptureFixture[str],
) -> None:
    chosen = FILES[::7]
    separate: list[str] = []
    codes = []
    for path in chosen:
        codes.append(main(["explain", "--no-user-kb", "--format", "jsonl", str(path)]))
        separate += capsys.readouterr().out.splitlines()
    code = main(["explain", "--no-user-kb", "--format", "jsonl", *map(str, chosen)])
    together = capsys.readouterr().out.splitlines()
    assert together == separate
    assert code == (1 if 1 in codes else 2 if 2 in codes else 0)
    for line in together:
        VALIDATOR.validate(json.loads(line))


def test_many_logs_give_one_line_each_and_go_on_past_an_unreadable_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ok = LOGS / "generic.auth-no-role.log"
    missing = tmp_path / "gone.log"
    folder = tmp_path / "tickets"
    folder.mkdir()
    (folder / "two.log").write_bytes(
        _typed("generic.auth-no-role") + _typed("osc.auth.authenticated")
    )
    (folder / "notes.md").write_text("not a log")
    code = main(["explain", "--no-user-kb", str(ok), str(missing), str(folder)])
    captured = capsys.readouterr()
    assert code == 1
    assert f"{missing}: no such file" in captured.err
    lines = captured.out.splitlines()
    assert lines[0].startswith(f"✗ {ok}  exit 1")
    assert lines[1] == f"✗ {folder / 'two.log'}: 2 runs, 1 failed"
    assert lines[2].lstrip().startswith("✗ run 1") and lines[3].lstrip().startswith("✓ run 2")
    assert "notes.md" not in captured.out
    assert lines[-1] == "3 logs: 2 with a failed run (2 runs), 1 unreadable or not a client log"
    pattern = str(LOGS / "generic.auth-no-*.log")
    assert main(["explain", "--no-user-kb", "--format", "jsonl", pattern]) == 1
    assert [json.loads(x)["source"] for x in capsys.readouterr().out.splitlines()] == [str(ok)]


def test_a_multi_run_report_lists_every_run_then_the_failed_in_full(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "ticket.log"
    parts = ["heat.stack-delete.deleted", "generic.auth-no-role", "osc.auth.authenticated"]
    log.write_bytes(b"".join(_typed(n) for n in parts))
    code = main(["explain", "--no-user-kb", str(log)])
    out = capsys.readouterr().out
    assert code == 1
    head = out.splitlines()[:4]
    assert head[0] == f"{log}: 3 runs, 1 failed"
    assert [h.split()[0] for h in head[1:]] == ["✓", "✗", "✓"]
    assert "[osc.auth-refused]" in head[2]
    assert out.count("── run ") == 1 and "── run 2 of 3, lines " in out
    assert main(["explain", "--no-user-kb", "--run", "last", str(log)]) == 1
    assert "── run 3 of 3" in capsys.readouterr().out
    assert main(["explain", "--no-user-kb", "--run", "9", str(log)]) == 2
    assert "there is no run 9" in capsys.readouterr().err
    assert main(["explain", "--no-user-kb", "--format", "json", str(log)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["outcome"] == "failure" and [r["run"] for r in data["reports"]] == [1]
    assert [r["outcome"] for r in data["runs"]] == ["success", "failure", "success"]
    assert main(["explain", "--no-user-kb", "--format", "jsonl", str(log)]) == 1
    objects = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    for item in objects:
        VALIDATOR.validate(item)
    assert [(o["run"], o["outcome"]) for o in objects] == [
        (0, "success"),
        (1, "failure"),
        (2, "success"),
    ]
    assert [o["lines"] for o in objects] == [[r["lines"][0], r["lines"][1]] for r in data["runs"]]
    assert objects[1]["fingerprint"].startswith("osc.auth-refused:identity:401:")
    assert objects[0]["fingerprint"] is None


def test_only_so_many_failed_runs_are_kept_the_rest_counted(kb: KnowledgeBase) -> None:
    data = _typed("generic.auth-no-role") * (KEEP_REPORTS + 5)
    result = read_runs(io.BytesIO(data), "ci.log", lambda t: diagnose(t, kb))
    assert (result.runs, result.failed) == (KEEP_REPORTS + 5, KEEP_REPORTS + 5)
    assert len(result.reports) == KEEP_REPORTS and result.failed_not_kept == 5
    assert len(result.summaries) == KEEP_REPORTS + 5


def test_the_summaries_of_runs_that_say_the_same_hold_its_words_once(
    kb: KnowledgeBase,
) -> None:
    """Up to ``KEEP_SUMMARIES`` are kept: a log of one command run a thousand times
    must not hold its command and its headline a thousand times."""
    data = _typed("generic.auth-no-role") * 3
    summaries = read_runs(io.BytesIO(data), "ci.log", lambda t: diagnose(t, kb)).summaries
    first, *others = summaries
    assert first.command and first.headline and first.fingerprint
    for other in others:
        assert other.command is first.command and other.headline is first.headline
        assert other.fingerprint is first.fingerprint


@pytest.mark.parametrize(
    ("parts", "choice"),
    [
        (["heat.stack-delete.deleted", "generic.auth-no-role", "osc.auth.authenticated"], "failed"),
        (["osc.auth.authenticated", "osc.auth.authenticated"], "failed"),
        (["generic.auth-no-role", "heat.stack-delete.deleted"], "last"),
        (["generic.auth-no-role", "osc.find-by-name.not-found"], "none"),
    ],
)
def test_the_json_of_many_runs_is_written_as_made_exactly_as_dumped_whole(
    kb: KnowledgeBase, parts: list[str], choice: Any
) -> None:
    data = b"".join(_typed(n) for n in parts)
    result = read_runs(io.BytesIO(data), "ci.log", lambda t: diagnose(t, kb), choice)
    written = io.StringIO()
    write_runs_json(result, written)
    assert (
        written.getvalue() == json.dumps(runs_document(result), indent=2, ensure_ascii=False) + "\n"
    )
    document = json.loads(written.getvalue())
    assert len(document["runs"]) == len(parts)
    assert len(document["reports"]) == len(result.reports)


def test_summaries_past_the_limit_are_counted(
    kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("osdoctor.runs.log_runs.KEEP_SUMMARIES", 3)
    data = _typed("osc.auth.authenticated") * 5
    result = read_runs(io.BytesIO(data), "ci.log", lambda t: diagnose(t, kb))
    assert (result.runs, len(result.summaries), result.summaries_not_kept) == (5, 3, 2)
    assert result.reports == {} and result.failed == 0


def test_a_run_read_again_alone_is_the_run_of_the_whole(tmp_path: Path, kb: KnowledgeBase) -> None:
    log = tmp_path / "ticket.log"
    log.write_bytes(_typed("osc.auth.authenticated") + _typed("heat.stack-hook.poll-index-error"))
    runs = _diagnose_all(log.read_bytes(), kb)
    summary, report = runs[1]
    again = diagnose(parse_run(log, summary.first, summary.last), kb)
    assert _gist(again) == _gist(report)


def test_fingerprints_name_the_cause_not_the_cloud() -> None:
    a = normalise("Quota exceeded for instances: Requested 1, but already used 10 of 10")
    b = normalise("Quota exceeded for instances: Requested 2, but already used 20 of 20")
    assert a == b
    c = normalise("No server with a name or ID of 'web-1' exists (req-1a2b3c4d-0000-4000)")
    d = normalise('No server with a name or ID of "db" exists (req-9f9f9f9f-1111-4000)')
    assert c == d and "web" not in c
    web = normalise("No server found for web-1", command_names("openstack server show web-1"))
    assert web == normalise("No server found for db", command_names("openstack server show db"))
    assert web == "no server found for <name>"
    e = normalise("Unable to connect to http://10.0.0.5:5000/v3: Connection refused")
    assert e == normalise(
        "Unable to connect to https://keystone.example.com/v3: Connection refused"
    )


def _session(name: str, argv: list[str], code: int) -> bytes:
    """The fixture's lines as an osdoctor session records them (stderr, timed)."""
    lines = ["#osdoctor-session 1", "#command " + json.dumps(argv)]
    text = (LOGS / f"{name}.log").read_text().splitlines()
    lines += [f"0.{i % 1000:03d} 2 {t}" for i, t in enumerate(text)]
    lines.append(f"#exit {code} 1.000")
    return ("\n".join(lines) + "\n").encode()


def test_concatenated_sessions_are_one_run_each(kb: KnowledgeBase) -> None:
    one = _session("generic.auth-no-role", ["openstack", "--debug", "server", "list"], 1)
    two = _session("heat.stack-hook.poll-index-error", ["openstack", "--debug", "stack"], 1)
    runs = _diagnose_all(one + two, kb)
    assert [(s.first, s.exit_code, s.headline_id) for s, _r in runs] == [
        (1, 1, "osc.auth-refused"),
        (one.count(b"\n") + 1, 1, "heat.hook-poll-needs-name"),
    ]


def test_a_service_log_pasted_in_a_log_file_is_not_a_new_run(kb: KnowledgeBase) -> None:
    data = _log_file("generic.auth-no-role", 4242).splitlines(keepends=True)
    service = b"2026-12-01 10:00:00.500 777 ERROR keystone.server.flask.application [-] x\n"
    pasted = b"".join(data[:30]) + service + b"".join(data[30:])
    runs = _diagnose_all(pasted, kb)
    assert len(runs) == 1
    assert runs[0][1].outcome == "failure"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_many_logs_show_a_progress_line_on_a_terminal_only(kb: KnowledgeBase) -> None:
    from osdoctor.runs.batch import Options, explain_logs

    ticks = iter(range(0, 10_000, 1))
    logs = [str(p) for p in FILES[:3]]
    options = Options("text", "failed", render_text, lambda r: None)
    out, err = io.StringIO(), _Terminal()
    explain = lambda t: diagnose(t, kb)  # noqa: E731
    explain_logs(logs, explain, options, out, err, clock=lambda: float(next(ticks)))
    assert f"osdoctor: log 3 of 3 ({FILES[2].name})" in err.getvalue()
    assert err.getvalue().endswith("\r\x1b[K")  # erased before the report is read
    assert "\x1b" not in out.getvalue()
    quiet = io.StringIO()
    explain_logs(logs, explain, options, io.StringIO(), quiet)
    assert quiet.getvalue() == ""


def test_a_prompt_whose_host_is_named_like_a_client_still_starts_a_run(kb: KnowledgeBase) -> None:
    body = [
        (LOGS / f"{n}.log").read_bytes() for n in ("generic.auth-no-role", "osc.auth.authenticated")
    ]
    data = b"[root@heat ~]# openstack server list\n" + body[0]
    data += b"[root@heat ~]# openstack catalog list\n" + body[1]
    runs = _diagnose_all(data, kb)
    assert [(s.command, s.outcome) for s, _r in runs] == [
        ("openstack server list", "failure"),
        ("openstack catalog list", "success"),
    ]


def test_coloured_and_crlf_prompts_start_runs(kb: KnowledgeBase) -> None:
    # A traceback alone: only the prompt says where the second run starts.
    crash = (LOGS / "ironic.standalone.openrc-auth-type-none.log").read_bytes()
    prompt = b"\x1b[01;32mstack@undercloud\x1b[00m:\x1b[01;34m~$\x1b[00m "
    data = prompt + b"baremetal node list\n" + crash + prompt + b"baremetal driver list\n" + crash
    runs = _diagnose_all(data.replace(b"\n", b"\r\n"), kb)
    assert [(s.command, s.first) for s, _r in runs] == [
        ("baremetal node list", 1),
        ("baremetal driver list", crash.count(b"\n") + 2),
    ]


def test_the_schema_refuses_a_line_without_where_it_came_from(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["explain", "--no-user-kb", "--format", "jsonl", str(FILES[0])])
    good = json.loads(capsys.readouterr().out)
    VALIDATOR.validate(good)
    for broken in (
        {k: v for k, v in good.items() if k != "fingerprint"},
        {**good, "run": -1},
        {**good, "lines": [1]},
        {**good, "outcome": "maybe"},
        {"source": "x.log"},
    ):
        assert not VALIDATOR.is_valid(broken)


def _taught_then_bare(tmp_path: Path, kb: KnowledgeBase) -> tuple[Path, RunSummary, str]:
    """A log whose first run masks a credential's secret where its key names it,
    and whose second run prints that value bare (as ``-f value -c secret`` would)."""
    first = _typed("generic.secret-credential-create")
    taught = _diagnose_all(first, kb)[0][0]
    assert taught.taught is None
    parser = parsed_stream(io.BytesIO(first), "first.log", Widths())
    value = max((f for f in parser.secrets.literals.forms() if f.encode() in first), key=len)
    log = tmp_path / "ticket.log"
    log.write_bytes(first + _typed("osc.auth.authenticated") + value.encode() + b"\n")
    return log, _diagnose_all(log.read_bytes(), kb)[1][0], value


def test_a_run_read_again_alone_masks_what_the_runs_before_taught(
    tmp_path: Path, kb: KnowledgeBase
) -> None:
    log, second, value = _taught_then_bare(tmp_path, kb)
    assert second.taught is not None and value in second.taught.forms()
    assert value not in repr(second)  # never shown: the summary's repr leaves it out
    alone = parse_run(log, second.first, second.last, second)
    assert value not in repr(alone)
    # Without what the first run taught, the bare value would show.
    assert value in repr(parse_run(log, second.first, second.last))


def test_a_run_followed_by_another_is_not_said_to_end_with_the_log(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A pasted ``role add`` prints nothing before the next prompt: no exit code, no
    error, no result. Its outcome is unknown, but the log goes on after it, and
    the report must not say that the log ends there."""
    log = public_log("osc-2020-user-list-403-identity-list-users-non-admin-role")
    assert main(["explain", "--no-user-kb", "--run", "1", str(log)]) in (0, 1)
    out = capsys.readouterr().out
    report = out.partition("── run 1 of 3")[2].splitlines()
    assert report[2].startswith("openstack role add ") and report[2].endswith(
        " — unknown (exit code not in the log)"
    )
    assert report[3] == "The log shows no exit code and no error: the outcome is unknown."
    assert "log ends" not in out


def test_a_log_cut_before_the_command_ended_says_that_the_log_ends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real capture cut in the middle of its start-up: the one run ends with
    the log, before any answer, and the report says so."""
    cut = tmp_path / "cut.log"
    cut.write_bytes((LOGS / "generic.auth-no-role.log").read_bytes()[:3000])
    main(["explain", "--no-user-kb", str(cut)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "The log ends before the command did: the outcome is unknown."


def test_only_a_run_that_another_follows_is_marked_followed(kb: KnowledgeBase) -> None:
    log = public_log("osc-2022-server-create-rc0-then-ERROR-compute-auth_url")
    kept: dict[int, bool] = {}
    for choice in (0, 1, 2):
        with log.open("rb") as stream:
            runs = read_runs(stream, str(log), lambda t: diagnose(t, kb), choice)
        kept.update((i, r.trace.followed) for i, r in runs.reports.items())
    spans = [(s.first, s.last) for s in runs.summaries]
    assert len(spans) == 3
    assert [parse_run(log, first, last).followed for first, last in spans] == [True, True, False]
    assert [kept[i] for i in sorted(kept)] == [True, True, False]
