"""The ``osdoctor`` command line. Each subcommand imports what it needs when it runs,
so ``osdoctor explain`` never loads Textual, httpx or keystoneauth1; the
interactive screen is handed in (``main(screens=...)``, from ``osdoctor.main``),
never imported: the CLI and the TUI stand side by side."""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from osdoctor import __version__
from osdoctor.console import (
    CLOSED_OUTPUT_EXIT,
    Exit,
    ask,
    fail,
    guard_output,
    last_words,
    load_kb,
    outcome_exit,
    stopped_exit,
    use_colour,
)
from osdoctor.counts import counted

if TYPE_CHECKING:
    from typing import Protocol, TypedDict, Unpack

    from osdoctor.kb.loader import KnowledgeBase
    from osdoctor.model import Report, Trace
    from osdoctor.run.runner import OutputLine
    from osdoctor.servicelog.attach import ServiceLogs


EXPLAIN_EPILOG = """\
examples:
  openstack --debug stack hook poll mystack 2>&1 | osdoctor explain
  openstack server show web-1 2>&1 | osdoctor explain   # plain output is read too
  osdoctor explain debug.log --format markdown > ticket.md
  osdoctor explain debug.log --format json | jq .findings
  osdoctor explain debug.log --why-not     # the nearest other documented paths
  osdoctor explain day.log --run last      # a log of several runs: the last one in full
  osdoctor explain a.log b.log tickets/ 'ci/*.log'   # many logs: one line per log and run
  osdoctor explain tickets/ --format jsonl > runs.jsonl   # one JSON object per run
  osdoctor explain client.log /var/log/nova/nova-api.log  # with the service's own log
  osdoctor explain client.log --service-log sosreport/var/log/   # a folder of service logs

The log is the --debug output of openstack, heat, baremetal or swift (stdout and
stderr together, as 2>&1 gives them), a --log-file, a saved osdoctor session, or
what any OpenStack client printed without --debug (an error, a show or list in any
-f format, several commands pasted one after the other). Pasted logs with '> '
quotes, syslog/journald prefixes, CI wrappers or colour codes are fine.
Exit status:
  0  the command in the log succeeded (or the log ends before it did)
  1  the command in the log failed (with several runs or logs: any of them)
  2  usage error, unreadable input, or input that is not an OpenStack client's
     log (an empty file, another program's log): the report says nothing was found
  141 the reader of the output went away (| head), as for cat or grep
"""


def not_a_client_log(report: Report) -> str | None:
    """Why the input is not a client log, or None: nothing a client prints was found
    (no command, request, traceback or finding). Nothing found is not success."""
    t = report.trace
    if t.openstack_lines or t.exchanges or t.tracebacks or t.command or report.findings:
        return None
    what = "standard input" if t.source == "-" else t.source
    if not t.line_count:
        return (
            f"{what} is empty: give the --debug output of openstack, heat, baremetal "
            "or swift (2>&1 keeps both streams)"
        )
    return (
        f"nothing from an OpenStack client was found in {what} "
        f"({counted(t.line_count, 'line')}): give the --debug output of openstack, heat, "
        "baremetal or swift (2>&1 keeps both streams)"
    )


def _service_logs(words: list[str]) -> ServiceLogs | None:
    """The service logs ``--service-log`` names (None for none); ``ServiceLogError``
    when a word names no file."""
    if not words:
        return None
    from osdoctor.servicelog.attach import ServiceLogs

    return ServiceLogs.of(words)


def cmd_explain(args: argparse.Namespace) -> int:
    with _lasting():
        from osdoctor.diagnose import diagnose
        from osdoctor.runs.batch import Options, explain_logs, parse_choice
        from osdoctor.servicelog.attach import split_words, worth_joining
        from osdoctor.servicelog.sources import ServiceLogError

        try:
            choice = parse_choice(args.run)
        except ValueError as exc:
            return fail(str(exc))
        words, given = split_words(list(args.log))
        if not words:
            return fail(
                "these are all service logs: give the client's log with them "
                "(osdoctor explain client.log " + " ".join(given) + ")"
            )
        try:
            service_logs = _service_logs([*given, *(args.service_log or [])])
        except ServiceLogError as exc:
            return fail(f"--service-log {exc}")
        kb = load_kb(args.kb, user=not args.no_user_kb)
    anon = None
    if args.anonymize:
        from osdoctor.secrets.anonymize import Anonymizer

        anon = Anonymizer()

    def explain(trace: Trace) -> Report:
        if service_logs is not None and worth_joining(trace):
            service_logs.attach(trace)
        if anon is None:
            return diagnose(trace, kb)
        # Anonymise first, then diagnose and render: both shorten values, and a cut
        # id would no longer be recognised.
        anon.learn_from_trace(trace)
        return diagnose(anon.anonymize_trace(trace), kb)

    jobs = args.jobs
    if jobs is None:
        from osdoctor.runs.forkmap import cpus

        jobs = cpus()
    if jobs >= 2 and anon is None:
        from osdoctor.kb.index import index_for

        index_for(kb)  # built once here: the workers forked later inherit it
    options = Options(
        args.format,
        choice,
        lambda r: _render(r, args),
        not_a_client_log,
        fork=anon is None,
        # The anonymisation mapping is learnt log after log, in this process.
        jobs=jobs if anon is None else 1,
    )
    code = explain_logs(words, explain, options, sys.stdout, sys.stderr)
    if anon is not None:
        from osdoctor.paths import PrivateStorageError, exports_dir

        try:
            mapping = anon.save_mapping(exports_dir() / f"anonymize-map-{os.getpid()}.json")
        except PrivateStorageError as exc:
            return fail(f"cannot save the anonymisation mapping: {exc}")
        print(
            f"osdoctor: the mapping back to real names is in {mapping} (keep it private)",
            file=sys.stderr,
        )
    return code


@contextlib.contextmanager
def _lasting() -> Iterator[None]:
    """What is made inside lives as long as the process (the modules, the knowledge):
    the garbage collector neither runs while it is made nor looks at it again after,
    which saves a small log's explain a full collection of some 10 ms."""
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def cmd_kb(args: argparse.Namespace) -> int:
    from osdoctor.kb.loader import load_knowledge
    from osdoctor.lint import default_fixtures_dir, default_log_dirs, lint

    # Not load_kb: lint reports the knowledge's own problems itself.
    kb = load_knowledge([Path(d) for d in (args.kb or [])], user=not args.no_user_kb)
    if args.kb_command == "list":
        for s in sorted(kb.scenarios.values(), key=lambda s: s.id):
            print(f"scenario  {s.id:<32} {s.title}")
            for b in s.branches:
                print(f"            {b.id:<30} {b.title}")
        for r in sorted(kb.rules.values(), key=lambda r: r.id):
            print(f"rule      {r.id:<32} [{r.severity}] {r.title}")
        for gone in sorted(kb.removed.values(), key=lambda g: g.id):
            print(f"removed   {gone.id:<32}{gone.replacement_note()}")
        return Exit.SUCCESS
    if args.kb_command == "show":
        return _kb_show(kb, args.id)
    fixtures = Path(args.fixtures) if args.fixtures else default_fixtures_dir()
    logs = [Path(d) for d in args.logs] if args.logs else default_log_dirs()
    result = lint(kb, fixtures, logs, Path(args.seeds) if args.seeds else None)
    for issue in result.issues:
        print(issue)
    n_branches = sum(len(s.branches) for s in kb.scenarios.values())
    print(f"{len(kb.scenarios)} scenarios, {n_branches} branches, {len(kb.rules)} rules")
    if result.coverage_checked:
        print(
            f"{len(result.fixtures)} fixtures: "
            f"{n_branches - len(result.uncovered_branches)}/{n_branches} branches taken, "
            f"{len(kb.rules) - len(result.silent_rules)}/{len(kb.rules)} rules fire"
        )
    else:
        print("coverage not checked: no fixtures folder (give --fixtures DIR)")
    if result.seeds_checked:
        print(f"{len(kb.scenarios)} scenario diagrams checked against the seeds in {args.seeds}")
    errors = result.errors
    print("OK" if not errors else counted(errors, "error"))
    return Exit.SUCCESS if not errors else Exit.FAILURE


def _kb_show(kb: KnowledgeBase, item_id: str) -> int:
    if item_id in kb.scenarios:
        s = kb.scenarios[item_id]
        print(f"{s.id}: {s.title}\n  seed {s.seed} section {s.section}\n  file {s.path}")
        if s.summary:
            print(f"\n{s.summary.strip()}")
        for b in s.branches:
            print(f"\n  branch {b.id} ({b.outcome}): {b.title}")
            for cond in b.when:
                print(f"    - {cond.describe()}")
        return Exit.SUCCESS
    if item_id in kb.rules:
        r = kb.rules[item_id]
        print(f"{r.id} [{r.severity}]: {r.title}\n  file {r.path}\n  since {r.since or '?'}")
        if r.scenario:
            print(
                f"  scenario {r.scenario}"
                + (f", branches {', '.join(r.branches)}" if r.branches else "")
            )
        print("  when:")
        for cond in r.when:
            print(f"    - {cond.describe()}")
        print(f"\n{r.explanation.strip()}\n\nNext steps:")
        for s_ in r.next_steps:
            print(f"  - {s_}")
        print("\nReferences: " + "; ".join(str(x) for x in r.references))
        return Exit.SUCCESS
    if item_id in kb.removed:
        gone = kb.removed[item_id]
        print(f"{gone.id}: removed{gone.replacement_note()}\n  file {gone.path}\n\n{gone.why}")
        return Exit.SUCCESS
    return fail(f"no scenario or rule with id '{item_id}' (see: osdoctor kb list)")


def cmd_run(args: argparse.Namespace) -> int:
    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        return fail(
            "give the command to run after --, e.g. osdoctor run -- openstack server show myserver"
        )
    if not args.no_tui:
        return _screen(args, command=cmd, assume_yes=args.yes, service_log=args.service_log or [])
    from osdoctor.diagnose import diagnose
    from osdoctor.run.cmdline import client_name, command_text, destructive_word, insert_debug
    from osdoctor.run.live import LiveTrace
    from osdoctor.run.runner import CommandError, Stopped, run_foreground
    from osdoctor.run.session import SessionFileError, start_session
    from osdoctor.servicelog.attach import worth_joining
    from osdoctor.servicelog.sources import ServiceLogError

    try:
        service_logs = _service_logs(args.service_log or [])
    except ServiceLogError as exc:
        return fail(f"--service-log {exc}")
    argv = insert_debug(cmd)
    word = destructive_word(cmd)
    if word is not None and not ask(
        f"This command changes the cloud ({word}): {command_text(cmd)}\nRun it?",
        f"'{word}' changes the cloud and the client will not ask without a terminal; "
        "add --yes to run it anyway",
        args.yes,
    ):
        return Exit.USAGE
    try:
        session = start_session(argv)
    except SessionFileError as exc:
        return fail(str(exc))
    live = LiveTrace(argv, source=str(session.path))
    show_progress = sys.stderr.isatty()
    client = client_name(cmd) or cmd[0]

    def on_line(out: OutputLine) -> None:
        live.feed(out)
        if show_progress:
            exchanges, lines = live.snapshot()
            sys.stderr.write(
                f"\r\x1b[2Krunning {client}: {counted(lines, 'line')}, "
                f"{counted(exchanges, 'request')}"
            )
            sys.stderr.flush()

    stopped_by: int | None = None
    try:
        result = run_foreground(argv, on_line=on_line, session=session)
    except CommandError as exc:
        session.close(None)
        return fail(str(exc))
    except Stopped as stop:
        # SIGTERM or SIGHUP: the client was stopped and the session closed; the
        # report is still written, as far as a terminal is still there to take it.
        result, stopped_by = stop.result, stop.signum
    trace = live.finish(result)
    if service_logs is not None and worth_joining(trace):
        service_logs.attach(trace)
    kb = load_kb(args.kb, user=not args.no_user_kb)
    report = diagnose(trace, kb)
    end = (
        f"osdoctor: stopped by {signal.Signals(stopped_by).name}, and the command with it; "
        if stopped_by is not None
        else "osdoctor: "
    )
    lost = last_words(
        [
            (sys.stderr, "\r\x1b[2K" if show_progress else ""),
            (sys.stdout, _render(report, args)),
            (
                sys.stderr,
                f"{end}session saved in {session.path}"
                + (
                    " (cancelled: the server-side action may still be running)"
                    if result.cancelled
                    else ""
                )
                + "\n",
            ),
        ]
    )
    if stopped_by is not None:
        return stopped_exit(stopped_by)
    if isinstance(lost, BrokenPipeError):
        return CLOSED_OUTPUT_EXIT
    return outcome_exit(report.outcome)


def cmd_open(args: argparse.Namespace) -> int:
    return _screen(args, log=args.log, follow=args.follow, service_log=args.service_log or [])


if TYPE_CHECKING:  # types only: a Protocol and a TypedDict cost every run to create

    class ScreenOptions(TypedDict, total=False):
        command: list[str]
        log: str
        follow: bool
        assume_yes: bool
        service_log: list[str]

    class Screens(Protocol):
        """Starts the interactive screen and returns the exit status: the TUI's
        ``run_tui``, which ``osdoctor.main`` hands in (the CLI never imports the TUI)."""

        def __call__(self, **options: Unpack[ScreenOptions]) -> int: ...


def _screen(args: argparse.Namespace, **options: Unpack[ScreenOptions]) -> int:
    screens: Screens | None = getattr(args, "screens", None)
    if screens is None:
        return fail("no interactive screen here: add --no-tui, or use osdoctor explain LOG")
    return screens(**options)


def _render(report: Report, args: argparse.Namespace) -> str:
    if args.format == "json":
        from osdoctor.render.json_report import render_json

        return render_json(report)
    if args.format == "markdown":
        from osdoctor.render.markdown_report import render_markdown

        return render_markdown(report, why_not=args.why_not)
    from osdoctor.render.text import render_text

    return render_text(report, colour=use_colour(sys.stdout, args.color), why_not=args.why_not)


def cmd_runbook(args: argparse.Namespace) -> int:
    from osdoctor.lint import default_fixtures_dir
    from osdoctor.runbook.build import build_runbook
    from osdoctor.runbook.write import RunbookError, check_folder, write_runbook

    kb = load_kb(args.kb, user=not args.no_user_kb)
    fixtures = Path(args.fixtures) if args.fixtures else default_fixtures_dir()
    if fixtures is not None and not fixtures.is_dir():
        return fail(f"{fixtures}: no such folder of fixture logs")
    try:
        check_folder(Path(args.output))
        result = write_runbook(build_runbook(kb, fixtures, args.format), Path(args.output))
    except RunbookError as exc:
        return fail(str(exc))
    pages = len(result.written) + len(result.unchanged)
    print(
        f"runbook in {result.folder}: {pages} pages, {len(result.written)} written, "
        f"{len(result.unchanged)} unchanged, {len(result.removed)} removed"
    )
    return Exit.SUCCESS


def cmd_lookup(args: argparse.Namespace) -> int:
    from osdoctor.runbook.lookup import lookup, render_json, render_text

    words = list(args.text)
    if words == ["-"]:
        if sys.stdin.isatty():
            return fail("no text given: pass the error message, or pipe it in")
        words = [sys.stdin.read()]
    query = " ".join(words).strip()
    if not query:
        return fail("give the error message, or a piece of it, to look up")
    kb = load_kb(args.kb, user=not args.no_user_kb)
    hits = lookup(kb, query, limit=args.limit)
    render = render_json if args.format == "json" else render_text
    sys.stdout.write(render(kb, query, hits))
    return Exit.SUCCESS if hits else Exit.FAILURE


def cmd_probe(args: argparse.Namespace) -> int:
    from osdoctor.probe.command import cmd_probe as run_probes

    return run_probes(args)


def cmd_lab(args: argparse.Namespace) -> int:
    from osdoctor.lab.__main__ import main as lab_main

    return int(lab_main(args.lab_args, prog="osdoctor lab") or 0)


if TYPE_CHECKING:
    _SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    _SubParsers = argparse._SubParsersAction  # not subscriptable at run time


class _Subcommands(_SubParsers):
    """The subcommands, each with its options added only when the command line names
    it: the listing of ``osdoctor --help`` needs only the names and their help, and
    building every subcommand's options costs each run more than parsing them does.
    argparse itself picks the subcommand (names, errors, what follows ``--``), so
    parsing and every message stay what they would be with all of them built."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending: dict[
            str, tuple[argparse.ArgumentParser, Callable[[argparse.ArgumentParser], None]]
        ] = {}

    def add_lazy(
        self,
        name: str,
        build: Callable[[argparse.ArgumentParser], None],
        **kwargs: Any,
    ) -> None:
        """Add the subcommand ``name`` now (its help and description); ``build`` adds
        its options the first time the command line names it."""
        self.pending[name] = (self.add_parser(name, **kwargs), build)

    def build_all(self) -> None:
        for name in list(self.pending):
            parser, build = self.pending.pop(name)
            build(parser)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        if values:
            waiting = self.pending.pop(values[0], None)
            if waiting is not None:
                waiting[1](waiting[0])
        super().__call__(parser, namespace, values, option_string)


def _kb_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--kb",
        action="append",
        metavar="DIR",
        help="also load the knowledge files in DIR (repeatable)",
    )
    p.add_argument(
        "--no-user-kb",
        action="store_true",
        help="ignore the knowledge folder in your user config directory",
    )


def _explain_options(ex: argparse.ArgumentParser) -> None:
    ex.add_argument(
        "log",
        nargs="*",
        default=["-"],
        metavar="LOG",
        help="log files, folders (their *.log and *.txt files), quoted patterns ('logs/*.log'), "
        "or - for standard input (the default)",
    )
    ex.add_argument("--format", "-f", choices=("text", "markdown", "json", "jsonl"), default="text")
    ex.add_argument(
        "--run",
        default="failed",
        metavar="N|last|failed",
        help="in a log of several runs, the run whose full report is shown: its number "
        "in the summary, the last, or every failed one (the default)",
    )
    ex.add_argument(
        "--why-not",
        action="store_true",
        help="also show the two or three documented paths the run came "
        "closest to, each with the first expected step that did not happen",
    )
    ex.add_argument(
        "--anonymize",
        action="store_true",
        help="replace host, project, user, stack and node names consistently, "
        "for sharing outside the company; the mapping is saved privately",
    )
    ex.add_argument(
        "--jobs",
        "-j",
        type=_jobs,
        metavar="N",
        help="processes that explain: many logs are shared among N workers, and a big "
        "log of many runs is diagnosed beside its reading from 2 on; the output is the "
        "same for any N (default: the number of CPUs)",
    )
    ex.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    _service_log_option(ex)
    _kb_options(ex)
    ex.set_defaults(func=cmd_explain)


def _service_log_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--service-log",
        action="append",
        metavar="PATH|DIR|GLOB",
        help="the services' own logs to join to the client's requests by request id "
        "(a file, rotated or gzipped; a folder such as a sosreport's var/log/; a quoted "
        "pattern); local files only (repeatable)",
    )


def _jobs(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"a number of processes from 1, not {text!r}")
    return int(text)


def _run_options(run: argparse.ArgumentParser) -> None:
    run.add_argument(
        "--no-tui",
        action="store_true",
        help="no interactive screen: print the report when the command ends",
    )
    run.add_argument(
        "--yes",
        "-y",
        action="store_true",
        help="do not ask before running a command that changes the cloud",
    )
    run.add_argument("--format", "-f", choices=("text", "markdown", "json"), default="text")
    run.add_argument("--why-not", action="store_true")
    run.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    _service_log_option(run)
    _kb_options(run)
    run.add_argument("cmd", nargs=argparse.REMAINDER, metavar="-- COMMAND ...")
    run.set_defaults(func=cmd_run)


def _open_options(op: argparse.ArgumentParser) -> None:
    op.add_argument("log", metavar="LOG")
    op.add_argument("--follow", "-F", action="store_true", help="keep reading the file as it grows")
    _service_log_option(op)
    op.set_defaults(func=cmd_open)


def _kb_actions(kb: argparse.ArgumentParser) -> None:
    kb_sub = kb.add_subparsers(dest="kb_command", metavar="ACTION", required=True)
    lint_p = kb_sub.add_parser(
        "lint",
        help="validate knowledge files and check that every "
        "branch and rule is proven on a fixture log",
    )
    lint_p.add_argument(
        "--fixtures",
        metavar="DIR",
        help="fixture logs with their .expected.yaml files (default: the source "
        "checkout's tests/fixtures/logs; an installed osdoctor has none and checks "
        "no coverage)",
    )
    lint_p.add_argument(
        "--seeds",
        metavar="DIR",
        help="the seed documents the scenarios were written from: check that each "
        "scenario's diagram says what its seed section's says (not checked without it)",
    )
    lint_p.add_argument(
        "--logs",
        metavar="DIR",
        action="append",
        help="a folder of more real logs, without expectations, that every rule's "
        "texts are read on for sentences with a hole (repeatable; default: the source "
        "checkout's public logs)",
    )
    _kb_options(lint_p)
    list_p = kb_sub.add_parser("list", help="list scenarios, branches and rules")
    _kb_options(list_p)
    show_p = kb_sub.add_parser("show", help="show one scenario or rule")
    show_p.add_argument("id")
    _kb_options(show_p)
    kb.set_defaults(func=cmd_kb)


def _runbook_options(rb: argparse.ArgumentParser) -> None:
    rb.add_argument(
        "-o",
        "--output",
        default="runbook",
        metavar="DIR",
        help="the folder to write (default: ./runbook); a folder that holds other files is refused",
    )
    rb.add_argument("--format", "-f", choices=("markdown", "html"), default="markdown")
    rb.add_argument(
        "--fixtures",
        metavar="DIR",
        help="real client logs with .expected.yaml files, for the excerpts "
        "(default: the source checkout's tests/fixtures/logs)",
    )
    _kb_options(rb)
    rb.set_defaults(func=cmd_runbook)


def _lookup_options(lk: argparse.ArgumentParser) -> None:
    lk.add_argument(
        "text",
        nargs="+",
        metavar="TEXT",
        help="the error message or a piece of it (- reads standard input)",
    )
    lk.add_argument("--format", "-f", choices=("text", "json"), default="text")
    lk.add_argument(
        "--limit", "-n", type=int, default=5, metavar="N", help="show at most N matches (default 5)"
    )
    _kb_options(lk)
    lk.set_defaults(func=cmd_lookup)


def _probe_options(pr: argparse.ArgumentParser) -> None:
    from osdoctor.probe import DEFAULT_TIMEOUT

    pr.add_argument("log", metavar="LOG")
    pr.add_argument("--format", "-f", choices=("text", "json"), default="text")
    pr.add_argument(
        "--yes",
        "-y",
        action="store_true",
        help="send the requests without asking (needed without a terminal)",
    )
    pr.add_argument("--os-cloud", metavar="NAME", help="the clouds.yaml entry (default OS_CLOUD)")
    pr.add_argument("--insecure", action="store_true", help="do not verify TLS certificates")
    pr.add_argument(
        "--map",
        action="append",
        metavar="LOGHOST:PORT=HOST:PORT",
        help="contact HOST:PORT where the log names LOGHOST:PORT (repeatable)",
    )
    pr.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"time limit of each request (default {DEFAULT_TIMEOUT:g})",
    )
    pr.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    _kb_options(pr)
    pr.set_defaults(func=cmd_probe)


def _lab_options(lab: argparse.ArgumentParser) -> None:
    lab.add_argument("lab_args", nargs=argparse.REMAINDER)
    lab.set_defaults(func=cmd_lab)


def build_parser(*, everything: bool = False) -> argparse.ArgumentParser:
    """The command line's parser. The subcommands' options are added when
    ``parse_args`` meets the subcommand, or all at once with ``everything``."""
    parser = argparse.ArgumentParser(
        prog="osdoctor",
        description="Explains failing OpenStack client commands from their --debug output.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Start with: osdoctor explain --help",
    )
    parser.add_argument("--version", action="version", version=f"osdoctor {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", action=_Subcommands)
    assert isinstance(sub, _Subcommands)
    sub.add_lazy(
        "explain",
        _explain_options,
        help="explain a saved debug log",
        description="Explain a client's --debug log: the scenario, the branch "
        "it took, what failed, why, and what to do next.",
        epilog=EXPLAIN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub.add_lazy(
        "run",
        _run_options,
        help="run a client command with --debug and explain it (live TUI by default)",
        description="Run an OpenStack client command with --debug inserted, watch its requests, "
        "and get the explanation. The command runs without a shell and with no "
        "terminal on stdin, so a client that would prompt fails at once.",
        epilog="examples:\n  osdoctor run -- openstack stack create -t stack.yaml --wait mystack\n"
        "  osdoctor run --no-tui --format markdown -- openstack server show web-1\n\n"
        "Each run is saved, redacted and private to you, under the osdoctor data folder.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub.add_lazy(
        "open",
        _open_options,
        help="open a saved log or session in the interactive screen",
        description="Open a --debug log or a saved osdoctor session in the "
        "interactive screen. With --follow, keep reading what "
        "another process appends to it, like tail -f.",
    )
    sub.add_lazy(
        "kb",
        _kb_actions,
        help="list, show and lint the knowledge base",
    )
    sub.add_lazy(
        "runbook",
        _runbook_options,
        help="write the support runbook generated from the knowledge base",
        description="Write the support team's runbook: an index (by client, by scenario, and "
        "by the exact error text a user sees), a page per scenario with its "
        "sequence diagram and each branch, and a page per diagnostic rule. The "
        "same knowledge explains logs, so the two never disagree. Running it "
        "again gives identical files, ready to keep in git.",
        epilog="examples:\n  osdoctor runbook -o docs/runbook\n"
        "  osdoctor runbook --format html -o runbook-html   # readable offline",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub.add_lazy(
        "lookup",
        _lookup_options,
        help="find what explains an error message (no log needed)",
        description="Find the rules and scenario branches whose symptoms match an error "
        "message or a piece of one (exact first, then fuzzy), with the "
        "explanation and the next steps.",
        epilog="examples:\n  osdoctor lookup list index out of range\n"
        '  osdoctor lookup "locked (HTTP 409)" --format json\n'
        "  pbpaste | osdoctor lookup -\n\n"
        "Exit status: 0 something matched, 1 nothing did, 2 usage error.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub.add_lazy(
        "probe",
        _probe_options,
        help="explain a log, then ask the live cloud (read-only) if each finding holds",
        description="Explain a --debug log, then run the probes of its findings against the "
        "cloud and mark each confirmed, not reproduced, or could not check. Only "
        "GET/HEAD and Keystone's token request are sent, only to hosts the log "
        "names, with your clouds.yaml / OS_CLOUD / OS_* credentials (sent to "
        "Keystone only), after you agree.",
        epilog="examples:\n  osdoctor probe debug.log\n"
        "  OS_CLOUD=prod osdoctor probe debug.log --format json --yes\n"
        "  osdoctor probe old.log --map keystone.old:5000=keystone.new:5000",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub.add_lazy(
        "lab",
        _lab_options,
        help="the stub cloud and fixture capture (needs the lab extra)",
        add_help=False,
    )
    if everything:
        sub.build_all()
    return parser


def main(argv: list[str] | None = None, screens: Screens | None = None) -> int:
    """``osdoctor ARGS``; ``screens`` starts the interactive screen where a command
    asks for it (``osdoctor.main`` gives the TUI's). A reader of the output that
    goes away (``| head``) ends any command quietly, as it ends ``cat``."""
    return guard_output(lambda: _main(argv, screens))


def _main(argv: list[str] | None, screens: Screens | None) -> int:
    words = sys.argv[1:] if argv is None else argv
    if words[:1] == ["lab"]:
        # argparse gives REMAINDER nothing that starts with '-' in first place, so
        # `osdoctor lab --help` would be refused: the lab parses its own arguments.
        return cmd_lab(argparse.Namespace(lab_args=words[1:]))
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        if argv is None and screens is not None and sys.stdin.isatty() and sys.stdout.isatty():
            return screens()
        parser.print_help()
        return Exit.USAGE
    args.screens = screens
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return stopped_exit(signal.SIGINT)
