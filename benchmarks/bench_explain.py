"""Benchmark: osdoctor explain on large logs built from real fixtures.

Prints figures, asserts nothing (timing goals are not tests):

- explain end to end on logs of about 50, 200 and 400 MB: MB/s and peak RSS;
- the parser alone in this process (no start-up, no report), for reference;
- the floor: a plain Python loop reading the same file line by line with
  ``startswith("REQ: ")``, and the ratio of the two;
- two floors beside it, what any pure-Python explain with today's redaction
  pays whatever its parser: the trigger words searched for in the file at C
  speed, and the stateless redaction of the lines that hold one;
- the safety net's cost (``osdoctor.secrets.keymaterial``: values masked by their shape,
  whatever their name): explain, the parser alone and the stateless redaction
  again with it switched off, in this benchmark only;
- start-up: explain on a small fixture against ``openstack --version``;
- optionally (--tui) the time until the TUI's first screen for the 200 MB log.

Two kinds of big log, both made only of real captures (``--mix``):

- ``waits`` (default): what a log of long waits holds. Long polling runs taken
  from five real captures (stack create and delete events, a stalled stack,
  an Ironic provision wait, a server create wait), each repeated as a long
  wait repeats its round, with a fresh request id every round; every other
  wait as ``--log-file`` writes it (time, pid, level and logger first);
  between two waits, a whole other real run (retries, 4xx, tracebacks, name
  lookups).
- ``restarts``: the harder case of one wait interrupted by another real run
  every 2,000 rounds, so that the parser meets a new run every 6 MB.
- ``runs``: the worst case, no wait at all: every real capture again and again,
  as a ``--log-file`` of many short commands would be. Nothing repeats, so
  every line is read one by one.

    python benchmarks/bench_explain.py [--sizes 50,200,400] [--mix waits|restarts|runs]
                                       [--keep DIR] [--tui] [--safety-net]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "tests" / "fixtures" / "logs"
SMALL = LOGS / "osc.find-by-name.not-found.log"
POLL_SOURCE = "heat.stack-create.create-complete"
#: Real captures with a polling round, and what the request line that starts the
#: round holds (never a host or port: each recapture draws a new port).
WAITS = [
    ("heat.stack-create.create-complete", b"/stacks/web/events"),
    ("ironic.provision-wait.reached", b"/baremetal/v1/nodes/node-1 "),
    ("heat.stack-create.stalled", b"/stacks/web/events"),
    ("osc.server-create.active", b"/compute/v2.1/servers/3f6c2a1e"),
    ("heat.stack-delete.deleted-by-id", b"/events"),
]
_REQUEST_ID = re.compile(rb"req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def split_round(name: str, marker: bytes) -> tuple[list[bytes], list[bytes], list[bytes]]:
    """(lines up to the second round, one round, the rest) of a real capture."""
    lines = (LOGS / f"{name}.log").read_bytes().splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith(b"REQ: curl") and marker in line]
    if len(starts) < 2:
        raise SystemExit(f"{name}.log no longer polls {marker.decode()!r} twice: update WAITS")
    return lines[: starts[1]], lines[starts[0] : starts[1]], lines[starts[1] :]


def rounds(one_round: list[bytes], first: int) -> Iterator[bytes]:
    """The round again and again, each time with its own request ids."""
    block = b"".join(one_round)
    n = first
    while True:
        n += 1
        yield _REQUEST_ID.sub(b"req-%08x-0000-4000-8000-%012x" % (n, n), block)


def as_log_file(data: bytes, first: int) -> bytes:
    """The lines as osc-lib's --log-file writes them."""
    out = []
    for n, line in enumerate(data.splitlines(keepends=True), first):
        logger = b"urllib3.connectionpool" if line.startswith(b"http") else b"keystoneauth.session"
        stamp = b"2026-11-30 %02d:%02d:%02d.%03d" % (
            n // 3600000 % 24,
            n // 60000 % 60,
            n // 1000 % 60,
            n % 1000,
        )
        out.append(stamp + b" 4242 DEBUG " + logger + b" [-] " + line)
    return b"".join(out)


def other_runs() -> list[bytes]:
    polls = {name for name, _marker in WAITS} | {POLL_SOURCE}
    return [p.read_bytes() for p in sorted(LOGS.glob("*.log")) if p.stem not in polls]


def build_log(path: Path, megabytes: int, mix: str = "waits") -> None:
    target = megabytes * 1024 * 1024
    others = other_runs()
    written = 0
    with path.open("wb") as out:
        if mix == "runs":
            while written < target:
                for run in others:
                    out.write(run)
                    written += len(run)
            return
        if mix == "restarts":
            head, one_round, tail = split_round(POLL_SOURCE, b"/events")
            out.writelines(head)
            for n, block in enumerate(rounds(one_round, 0), 1):
                if written >= target:
                    break
                out.write(block)
                written += len(block)
                if n % 2000 == 0:
                    extra = others[(n // 2000) % len(others)]
                    out.write(extra)
                    written += len(extra)
            out.writelines(tail)
            return
        waits = max(1, megabytes // 20)
        for w in range(waits):
            name, marker = WAITS[w % len(WAITS)]
            head, one_round, tail = split_round(name, marker)
            out.writelines(head)
            share = (target - written) // (waits - w)
            start = written
            for n, block in enumerate(rounds(one_round, w << 24)):
                if written - start >= share:
                    break
                if w % 2:
                    block = as_log_file(block, n * len(one_round))
                out.write(block)
                written += len(block)
            out.writelines(tail)
            extra = others[(w * 37) % len(others)]
            out.write(extra)
            written += sum(map(len, head + tail)) + len(extra)


def baseline(path: Path) -> float:
    start = time.perf_counter()
    count = 0
    with path.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("REQ: "):
                count += 1
    return time.perf_counter() - start


def floors(path: Path) -> tuple[float, float]:
    """Seconds of two lower bounds for any pure-Python explain that keeps today's
    redaction guarantees: (the trigger words looked for in the whole file at C
    speed, one ``bytes.count`` pass each over each block; ``redact_line``,
    stateless, on every line that holds one). Nearly every line of a debug log
    names a token, a key or auth data, and redaction rules must read those lines
    whatever the parser does around them. Both read the file in bounded memory:
    a child forked after this process had held a whole file would start with
    that peak RSS, and the explain runs measured after it with it."""
    sys.path.insert(0, str(ROOT))
    from osdoctor.secrets.redact import _TRIGGERS, redact_line

    words = [w.encode() for w in _TRIGGERS]
    start = time.perf_counter()
    with path.open("rb") as f:
        while block := f.read(1 << 20):
            low = block.lower()
            for word in words:
                low.count(word)
    search = time.perf_counter() - start
    start = time.perf_counter()
    with path.open(encoding="utf-8", errors="replace") as f:
        for line in f:
            redact_line(line)
    return search, time.perf_counter() - start


#: ``python -c`` code that runs osdoctor with the safety net switched off: what
#: explain costs without it (the benchmark's own switch, not osdoctor's).
_WITHOUT_NET = (
    "import sys\n"
    "import osdoctor.secrets.redact as r\n"
    "r.key_material_spans = lambda line: []\n"
    "r.next_run = lambda text, pos: -1\n"
    "from osdoctor.main import main\n"
    "raise SystemExit(main(sys.argv[1:]))\n"
)


def without_safety_net() -> Callable[[], None]:
    """Switch the safety net off in this process; returns what turns it on again."""
    sys.path.insert(0, str(ROOT))
    import osdoctor.secrets.redact as redact

    names = vars(redact)
    saved = {name: names[name] for name in ("key_material_spans", "next_run")}
    names["key_material_spans"] = lambda line: []
    names["next_run"] = lambda text, pos: -1
    return lambda: names.update(saved)


def safety_net_cost(log: Path, argv: list[str], env: dict[str, str]) -> None:
    """Explain, the parser alone and the stateless redaction, with and without the
    safety net: each measured in turns (with, without, with...), the best of
    three kept, so that a load on the machine weighs on both alike."""
    mb = log.stat().st_size / 1e6
    off = [sys.executable, "-c", _WITHOUT_NET, *argv[3:]]
    times: dict[str, list[float]] = {}
    for _ in range(3):
        times.setdefault("explain with", []).append(run_measured(argv, env)[0])
        times.setdefault("explain without", []).append(run_measured(off, env)[0])
        times.setdefault("parser with", []).append(parse_only(log))
        times.setdefault("redaction with", []).append(floors(log)[1])
        restore = without_safety_net()
        try:
            times.setdefault("parser without", []).append(parse_only(log))
            times.setdefault("redaction without", []).append(floors(log)[1])
        finally:
            restore()
    best = {name: min(values) for name, values in times.items()}
    with_net, without = best["explain with"], best["explain without"]
    parser_with, parser_without = best["parser with"], best["parser without"]
    redaction_with, redaction_without = best["redaction with"], best["redaction without"]
    print(
        f"{'':8}     safety net: explain {with_net:6.2f} s with, {without:6.2f} s without "
        f"(+{with_net - without:5.2f} s = {(with_net / without - 1) * 100:+5.1f}%)   "
        f"parser alone {parser_with:6.2f} s / {parser_without:6.2f} s   "
        f"stateless redaction {redaction_with:6.2f} s / {redaction_without:6.2f} s "
        f"({mb / redaction_with:5.1f} / {mb / redaction_without:5.1f} MB/s)"
    )


def run_measured(argv: list[str], env: dict[str, str]) -> tuple[float, int, int]:
    """(seconds, peak RSS in KiB, exit status) of a child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _pid, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_maxrss, proc.returncode


def env_for_osdoctor() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    # As after an install, the modules' bytecode is cached (the warm-up run writes it).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("OSDOCTOR_HOME", tempfile.mkdtemp(prefix="osdoctor-bench-home-"))
    return env


def parse_only(log: Path) -> float:
    """Seconds the parser alone takes, in this process."""
    sys.path.insert(0, str(ROOT))
    from osdoctor.diagnose import parse_path

    start = time.perf_counter()
    parse_path(log)
    return time.perf_counter() - start


def warm_up(env: dict[str, str]) -> None:
    """A first run writes the bytecode and the knowledge cache, as any first use
    does: not measured."""
    subprocess.run(
        [sys.executable, "-m", "osdoctor", "explain", str(SMALL)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )


def median_time(argv: list[str], env: dict[str, str], runs: int = 7) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", default="50,200,400", help="log sizes in MB")
    parser.add_argument("--keep", help="keep the generated logs in this folder")
    parser.add_argument("--format", default="json", choices=("text", "json", "markdown"))
    parser.add_argument(
        "--mix",
        default="waits",
        choices=("waits", "restarts", "runs"),
        help="what the big logs hold (see above)",
    )
    parser.add_argument("--tui", action="store_true", help="also time the TUI's first screen")
    parser.add_argument(
        "--safety-net",
        action="store_true",
        help="time the safety net at every size (it is timed at 200 MB always)",
    )
    args = parser.parse_args()
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="osdoctor-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    env = env_for_osdoctor()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, mix {args.mix}")
    small = SMALL
    warm_up(env)
    try:
        for size in [int(s) for s in args.sizes.split(",") if s]:
            log = folder / f"big-{size}mb-{args.mix}.log"
            if not log.exists():
                build_log(log, size, args.mix)
            mb = log.stat().st_size / 1e6
            base = min(baseline(log) for _ in range(2))
            argv = [sys.executable, "-m", "osdoctor", "explain", str(log), "--format", args.format]
            runs = [run_measured(argv, env) for _ in range(2)]
            secs, code = min(r[0] for r in runs), runs[-1][2]
            rss = max(r[1] for r in runs)
            alone = parse_only(log)
            print(
                f"{mb:8.1f} MB  explain {secs:6.2f} s = {mb / secs:7.1f} MB/s  "
                f"peak RSS {rss / 1024:6.1f} MiB  (exit {code})   "
                f"baseline loop {base:5.2f} s = {mb / base:7.1f} MB/s   "
                f"explain / loop {secs / base:6.1f}x   (parser alone {mb / alone:7.1f} MB/s)"
            )
            search, redaction = floors(log)
            print(
                f"{'':8}     floors: trigger search {search:5.2f} s = {search / base:5.1f}x loop   "
                f"stateless redaction {redaction:6.2f} s = {redaction / base:5.1f}x loop"
            )
            if size == 200 or args.safety_net:
                safety_net_cost(log, argv, env)
            if args.tui and size == 200:
                tui_first_screen(log, env)
        t_explain = median_time([sys.executable, "-m", "osdoctor", "explain", str(small)], env)
        print(f"start-up: osdoctor explain on a small fixture {t_explain * 1000:6.0f} ms", end="")
        openstack = Path(sys.executable).parent / "openstack"
        if openstack.exists():
            t_osc = median_time([str(openstack), "--version"], env)
            print(f"   openstack --version {t_osc * 1000:6.0f} ms   ratio {t_explain / t_osc:4.2f}")
        else:
            print("   (openstack not installed: install the lab extra to compare)")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


def tui_first_screen(log: Path, env: dict[str, str]) -> None:
    """Seconds from creating the app until the timeline shows its first rows, and
    until the whole log is read and diagnosed."""
    code = (
        "import asyncio, time, sys\n"
        "from pathlib import Path\n"
        "from osdoctor.tui.app import OsdoctorApp\n"
        "from textual.widgets import OptionList\n"
        "from osdoctor.tui.screens.runs_list import RunsScreen\n"
        "from osdoctor.tui.widgets.timeline import Timeline\n"
        "def shown(app):\n"
        "    # (rows on the first screen, all read): a log of many runs opens on its list\n"
        "    screen = app.screen\n"
        "    if isinstance(screen, RunsScreen):\n"
        "        rows = screen.query_one(OptionList).option_count > 0\n"
        "        return rows, screen.runs.done is not None\n"
        "    rows = app.main.query_one(Timeline).row_count > 0\n"
        "    return rows, app.main.state == 'read' and bool(app.main.final)\n"
        "async def main():\n"
        "    start = time.perf_counter()\n"
        "    app = OsdoctorApp(log=Path(sys.argv[1]))\n"
        "    async with app.run_test(size=(160, 50)) as pilot:\n"
        "        first = None\n"
        "        while True:\n"
        "            rows, read = shown(app)\n"
        "            if first is None and rows:\n"
        "                first = time.perf_counter() - start\n"
        "            if read:\n"
        "                break\n"
        "            await pilot.pause(0.01)\n"
        "        done = time.perf_counter() - start\n"
        "        print(f'{first if first is not None else done:.2f} {done:.2f}')\n"
        "asyncio.run(main())\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(log)], capture_output=True, text=True, env=env, timeout=600
    )
    if proc.returncode == 0:
        first, done = proc.stdout.split()
        print(
            f"          TUI on this log: first screen with rows {first} s, "
            f"fully read and diagnosed {done} s"
        )
    else:
        print(f"          TUI first screen: could not measure ({proc.stderr.strip()[-300:]})")


if __name__ == "__main__":
    raise SystemExit(main())
