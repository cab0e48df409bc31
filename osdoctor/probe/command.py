"""``osdoctor probe LOG``: explain the log, then ask the cloud if the findings still hold.

Nothing is sent before the user has seen every host and said yes (or given
``--yes``); without a terminal and without ``--yes`` the command refuses.
"""

from __future__ import annotations

import argparse
import sys

from osdoctor.console import Exit, ask, fail, load_kb, outcome_exit, use_colour
from osdoctor.diagnose import diagnose
from osdoctor.intake import LogInputError, read_log
from osdoctor.probe.output import probe_json, probe_text
from osdoctor.probe.probe_runner import ProbePlan, ProbeRun, execute, prepare
from osdoctor.probe.scope import MapError, parse_maps


def _consent(prepared: ProbePlan, assume_yes: bool) -> bool:
    lines = ["osdoctor probe will contact, read-only:"]
    for host, what in prepared.hosts.items():
        lines.append(f"  {host}")
        lines += [f"    {w}" for w in what]
    for src, dst in prepared.maps.items():
        lines.append(f"  (the log's {src} is mapped to {dst} by --map)")
    print("\n".join(lines), file=sys.stderr)
    return ask(
        "Send these requests?",
        "probes send requests to the cloud; confirm in a terminal, or add --yes to send them",
        assume_yes,
    )


def cmd_probe(args: argparse.Namespace) -> int:
    try:
        trace = read_log(args.log)
    except LogInputError as exc:
        return fail(str(exc))
    try:
        maps = parse_maps(list(args.map or []))
    except MapError as exc:
        return fail(str(exc))
    kb = load_kb(args.kb, user=not args.no_user_kb)
    report = diagnose(trace, kb)
    prepared = prepare(report, kb, maps, args.os_cloud, insecure=args.insecure)
    run = ProbeRun(prepared.planned)
    if prepared.hosts and not _consent(prepared, args.yes):
        return Exit.USAGE
    if prepared.planned:
        run = execute(prepared, args.timeout)
    if args.format == "json":
        sys.stdout.write(probe_json(report, run))
    else:
        from osdoctor.render.text import render_text

        sys.stdout.write(render_text(report, colour=use_colour(sys.stdout, args.color)))
        sys.stdout.write(probe_text(report, run))
    return outcome_exit(report.outcome)
