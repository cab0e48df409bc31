"""``python -m osdoctor.lab``: capture fixtures, list cases, or serve a case's stub."""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

from osdoctor.lab.capture import (
    DEFAULT_WORKROOT,
    FIXTURE_PORT,
    FIXTURES_DIR,
    CaptureError,
    capture,
)
from osdoctor.lab.case import select_cases
from osdoctor.lab.config import ConfigError
from osdoctor.lab.stub import Stub


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m osdoctor.lab", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("capture", help="run cases' clients and write fixture logs")
    run.add_argument("cases", nargs="*", metavar="CASE-ID", help="ids, globs or prefixes")
    run.add_argument("--out", type=Path, default=FIXTURES_DIR, help="fixture directory")
    run.add_argument("--port", type=int, default=FIXTURE_PORT, help="stub port (0: any)")
    run.add_argument(
        "--workroot", type=Path, default=DEFAULT_WORKROOT, help="parent of the cases' work dirs"
    )
    listing = commands.add_parser("list", help="list the cases")
    listing.add_argument("cases", nargs="*", metavar="CASE-ID")
    serve = commands.add_parser("serve", help="play one case's stub until interrupted")
    serve.add_argument("case", metavar="CASE-ID")
    serve.add_argument("--port", type=int, default=FIXTURE_PORT)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "list":
            for case in select_cases(args.cases):
                print(f"{case.id}\t{case.scenario} / {case.branch}\t{' '.join(case.command)}")
            return 0
        if args.command == "serve":
            return _serve(args.case, args.port)
        results = capture(select_cases(args.cases), args.out, args.port, args.workroot)
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


def _serve(case_id: str, port: int) -> int:
    cases = select_cases([case_id])
    if len(cases) != 1:
        raise ConfigError(f"{case_id!r} selects {len(cases)} cases; give one id")
    with Stub(cases[0].stub, port=port) as stub:
        print(f"stub for {cases[0].id} at {stub.base_url}")
        print(f"OS_AUTH_URL={stub.values['auth_url']}  (user and password: see fakes.py)")
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
        for request in stub.requests:
            print(f"{request.status} {request.method} {request.path} ({request.answered_by})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
