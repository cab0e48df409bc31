"""Real client logs for the TUI tests, made at test time.

The refused log is the real ``openstack`` client's --debug output for a
Keystone on 127.0.0.1 that nothing listens on (port 9, discard): no stub
needed, nothing leaves the machine. Big logs repeat a real log's exchanges.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from osdoctor.diagnose import parse_path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "logs"

#: A printer that plays a log back line by line on stderr, as the client
#: prints its debug output, then exits with the given status.
PRINTER = r"""
import sys, time
path, delay, code = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
with open(path, encoding="utf-8", errors="replace") as f:
    for line in f:
        sys.stderr.write(line)
        sys.stderr.flush()
        time.sleep(delay)
sys.exit(code)
"""

#: A client that stops answering half way: prints a log's first lines on stderr,
#: then waits forever (a run in progress, until the test cancels it).
PRINT_THEN_WAIT = r"""
import sys, threading
path, count = sys.argv[1], int(sys.argv[2])
with open(path, encoding="utf-8", errors="replace") as f:
    for number, line in enumerate(f):
        if number == count:
            break
        sys.stderr.write(line)
sys.stderr.flush()
threading.Event().wait()
"""

#: A command that prints a line and then waits forever: cancelled by the tests.
HANGER = r"""
import threading
print("waiting for the cloud", flush=True)
threading.Event().wait()
"""


def client(name: str = "openstack") -> str:
    path = Path(sys.executable).parent / name
    if not path.exists():
        raise RuntimeError(f"the real {name} client is not installed next to {sys.executable}")
    return str(path)


def refused_env() -> dict[str, str]:
    """The environment of a client pointed at a closed port on this machine."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("OS_") and "proxy" not in k.lower()
    }
    env.update(
        OS_AUTH_URL="http://127.0.0.1:9/v3",
        OS_USERNAME="demo",
        OS_PASSWORD="fake-pass",
        OS_PROJECT_NAME="demo",
        OS_USER_DOMAIN_NAME="Default",
        OS_PROJECT_DOMAIN_NAME="Default",
        OS_CLOUD="",
        PYTHONWARNINGS="ignore",
    )
    return env


def make_refused_log(out: Path) -> Path:
    """Run the real client against a closed port and save its debug output."""
    with out.open("wb") as handle:
        subprocess.run(
            [client(), "--debug", "server", "show", "web-1"],
            stdout=handle,
            stderr=subprocess.STDOUT,
            env=refused_env(),
            cwd=out.parent,
            check=False,
            timeout=120,
        )
    return out


_URL_ROOT = re.compile(rb"(https?://[^/\s\"']+)/")


def make_big_log(source: Path, exchanges: int, out: Path) -> Path:
    """Repeat the lines that hold ``source``'s exchanges until ``exchanges`` are logged.

    Each repeat's URLs get their own first path segment (``/r17/v3/...``), so
    that the parser sees distinct requests rather than a run of repeats (which
    it folds to bound memory): the timeline really holds ``exchanges`` rows.
    """
    trace = parse_path(source)
    if not trace.exchanges:
        raise ValueError(f"{source} holds no exchange")
    lines = source.read_bytes().splitlines(keepends=True)
    first = trace.exchanges[0].first_line - 1
    last = max(ex.last_line for ex in trace.exchanges)
    block = b"".join(lines[first:last])
    per_block = len(trace.exchanges)
    with out.open("wb") as handle:
        handle.write(b"".join(lines[:first]))
        for repeat in range(-(-exchanges // per_block)):
            handle.write(_URL_ROOT.sub(rb"\1/r%d/" % repeat, block))
        handle.write(b"".join(lines[last:]))
    return out
