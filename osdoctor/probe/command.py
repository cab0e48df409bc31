"""``osdoctor probe LOG``: explain the log, then ask the cloud if the findings still hold.

Nothing is sent before the user has seen every host and said yes (or given
``--yes``); without a terminal and without ``--yes`` the command refuses.
"""

from __future__ import annotations

import argparse
import sys

from osdoctor.cli import load_kb
from osdoctor.diagnose import diagnose
from osdoctor.intake import LogInputError, read_log
from osdoctor.probe.cloudconfig import CloudAuth, CloudConfigError, load_cloud_auth
from osdoctor.probe.output import probe_json, probe_text
from osdoctor.probe.runner import ProbeRun, contacts, execute, plan
from osdoctor.probe.scope import MapError, Scope, parse_maps

USAGE, FAILURE, SUCCESS = 2, 1, 0


def _fail(message: str) -> int:
    print(f"osdoctor: {message}", file=sys.stderr)
    return USAGE


def _consent(hosts: dict[str, list[str]], maps: dict[str, str], assume_yes: bool) -> bool:
    lines = ["osdoctor probe will contact, read-only:"]
    for host, what in hosts.items():
        lines.append(f"  {host}")
        lines += [f"    {w}" for w in what]
    for src, dst in maps.items():
        lines.append(f"  (the log's {src} is mapped to {dst} by --map)")
    print("\n".join(lines), file=sys.stderr)
    if assume_yes:
        return True
    if not sys.stdin.isatty():
        print(
            "osdoctor: probes send requests to the cloud; confirm in a terminal, or add "
            "--yes to send them",
            file=sys.stderr,
        )
        return False
    print("Send these requests? [y/N] ", end="", file=sys.stderr, flush=True)
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def cmd_probe(args: argparse.Namespace) -> int:
    try:
        trace = read_log(args.log)
    except LogInputError as exc:
        return _fail(str(exc))
    try:
        maps = parse_maps(list(args.map or []))
    except MapError as exc:
        return _fail(str(exc))
    kb = load_kb(args)
    report = diagnose(trace, kb)
    cloud: CloudAuth | None = None
    cloud_error: str | None = None
    try:
        cloud = load_cloud_auth(args.os_cloud, insecure=args.insecure)
    except CloudConfigError as exc:
        cloud_error = str(exc)
    scope = Scope.from_trace(trace, maps)
    planned = plan(report, kb, scope, cloud)
    run = ProbeRun(planned)
    hosts = contacts(planned, cloud, scope)
    if hosts:
        if not _consent(hosts, maps, args.yes):
            return USAGE
        run = execute(report, planned, scope, cloud, cloud_error, args.timeout)
    elif planned:
        run = execute(report, planned, scope, cloud, cloud_error, args.timeout)
    if args.format == "json":
        sys.stdout.write(probe_json(report, run))
    else:
        from osdoctor.render.text import render_text

        colour = args.color == "always" or (args.color == "auto" and sys.stdout.isatty())
        sys.stdout.write(render_text(report, colour=colour))
        sys.stdout.write(probe_text(report, run))
    return FAILURE if report.outcome == "failure" else SUCCESS
