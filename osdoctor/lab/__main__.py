"""``python -m osdoctor.lab``: capture fixtures, list cases, or serve a case's stub."""

from __future__ import annotations

import argparse
import shlex
import sys
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

from osdoctor.lab.capture import (
    DEFAULT_WORKROOT,
    FIXTURE_PORT,
    FIXTURES_DIR,
    CaptureError,
    base_env,
    capture,
)
from osdoctor.lab.case import Case, select_cases
from osdoctor.lab.case_placeholders import expand, expand_text
from osdoctor.lab.config import ConfigError
from osdoctor.lab.stub import Stub


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("capture", help="run cases' clients and write fixture logs")
    run.add_argument("cases", nargs="*", metavar="CASE-ID", help="ids, globs or prefixes")
    run.add_argument("--out", type=Path, default=FIXTURES_DIR, help="fixture directory")
    run.add_argument("--port", type=int, default=FIXTURE_PORT, help="stub port (0: any)")
    run.add_argument(
        "--workroot", type=Path, default=DEFAULT_WORKROOT, help="parent of the cases' work dirs"
    )
    run.add_argument(
        "--service-logs-only",
        action="store_true",
        help="write only the services' logs of each run beside its fixture (keep its log)",
    )
    run.add_argument(
        "--plain-only",
        action="store_true",
        help="capture only the runs without --debug of the cases that ask for one (plain:)",
    )
    logs = commands.add_parser(
        "service-logs", help="write the service log fixtures of every format (real oslo.log)"
    )
    logs.add_argument("--out", type=Path, default=None, help="folder (default: the fixtures')")
    listing = commands.add_parser("list", help="list the cases")
    listing.add_argument("cases", nargs="*", metavar="CASE-ID")
    serve = commands.add_parser("serve", help="play one case's stub until interrupted")
    serve.add_argument("case", metavar="CASE-ID")
    serve.add_argument("--port", type=int, default=FIXTURE_PORT)
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "python -m osdoctor.lab") -> int:
    args = _parser(prog).parse_args(argv)
    try:
        if args.command == "list":
            for case in select_cases(args.cases):
                print(f"{case.id}\t{case.scenario} / {case.branch}\t{' '.join(case.command)}")
            return 0
        if args.command == "serve":
            return _serve(args.case, args.port)
        if args.command == "service-logs":
            from osdoctor.lab import formats

            for path in formats.write(args.out or formats.OUT_DIR):
                print(path)
            return 0
        results = capture(
            select_cases(args.cases),
            args.out,
            args.port,
            args.workroot,
            logs_only=args.service_logs_only,
            plain_only=args.plain_only,
        )
    except (ConfigError, CaptureError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    differing = [r.case.id for r in results if r.exit_code_differs]
    if differing:
        print(
            f"exit code differs from the case's expectation: {', '.join(differing)}",
            file=sys.stderr,
        )
        return 1
    return 0


def client_exports(case: Case, values: Mapping[str, str]) -> list[str]:
    """The ``export OS_...`` lines that give a shell the environment a capture gives
    the client (the lab's fake credentials, the case's own variables)."""
    env = {k: v for k, v in base_env(Path("~"), values).items() if k.startswith("OS_")}
    for key, value in case.env.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = expand_text(value, values)
    lines = [f"unset {k}" for k, v in case.env.items() if v is None]
    return lines + [f"export {k}={shlex.quote(v)}" for k, v in env.items()]


def _serve(case_id: str, port: int) -> int:
    cases = select_cases([case_id])
    if len(cases) != 1:
        raise ConfigError(f"{case_id!r} selects {len(cases)} cases; give one id")
    with Stub(cases[0].stub, port=port) as stub:
        try:
            print(f"stub for {cases[0].id} at {stub.base_url}; in another shell, paste:")
            for line in client_exports(cases[0], stub.values):
                print(line)
            argv = [cases[0].command[0], *expand(list(cases[0].command[1:]), stub.values)]
            print(
                f"then: {' '.join(shlex.quote(str(a)) for a in argv)}   (Ctrl-C stops the stub)",
                flush=True,
            )
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
        for request in stub.requests:
            print(f"{request.status} {request.method} {request.path} ({request.answered_by})")
    return 0


if __name__ == "__main__":
    from osdoctor.console import guard_output

    raise SystemExit(guard_output(main))
