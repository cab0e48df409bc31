"""Run a real client with ``--debug`` against the stub and keep what it printed.

The output is the one a user gets with ``cmd --debug > file 2>&1``: stdout and
stderr share one pipe, so their interleaving (stdout arrives in blocks) is the
real one. The environment is clean and fixed (no inherited ``OS_*``, a private
HOME, ``PYTHONHASHSEED=0``, a fixed work dir and port) so that a regenerated
fixture differs from the last one only where a client changed.

What the client printed names the capturing machine's folders: the virtualenv
the clients are installed in (tracebacks, the executable), the Python it was
made from, the case's scratch work dir and home. The capture writes those as
the same neutral paths on every machine (``/opt/openstack-cli``, ``/usr``,
``/home/user/work``, ``/home/user``): a user's own paths differ from the
capturer's anyway, and a fixture must not depend on, or tell, where it was made.

A case may ask for the same run without ``--debug`` too (``plain:``): the
client runs again against a fresh stub scripted the same way, and its output
is kept beside the debug one as ``<id>.plain.log``, behind the command line
typed at a ``$`` prompt, as a terminal shows it and a ticket holds it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import functools
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import IO, Any

import yaml

from osdoctor.counts import counted
from osdoctor.lab import fakes
from osdoctor.lab.case import Case, Expectation
from osdoctor.lab.case_placeholders import expand, expand_text
from osdoctor.lab.config import BALANCER_STYLES
from osdoctor.lab.forking import ForkedProcess, ForkServerError, ForkServers, Server, Slot
from osdoctor.lab.stub import RecordedRequest, Stub
from osdoctor.lab.wheels import WheelMissing, find_wheel, unpack, user_site
from osdoctor.run.runner import start_watched

#: The port fixtures are generated on, so that URLs in them stay the same.
FIXTURE_PORT = 47391
FIXTURES_DIR = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "logs"
#: Fixed parent of each case's work dir: local paths in the logs stay the same too.
DEFAULT_WORKROOT = Path(tempfile.gettempdir()) / "osdoctor-lab"
#: Seconds a client gets to finish after the SIGINT of a timeout.
INTERRUPT_GRACE = 10.0
CLIENT_DISTRIBUTIONS = (
    "python-openstackclient",
    "python-heatclient",
    "python-ironicclient",
    "python-swiftclient",
    "openstacksdk",
    "osc-lib",
    "keystoneauth1",
)


#: The neutral paths the capture writes for the capturing machine's own.
NEUTRAL_PREFIX = "/opt/openstack-cli"
"""The virtualenv the clients are installed in (``sys.prefix``)."""
NEUTRAL_PYTHON = "/usr"
"""The Python that virtualenv was made from (``sys.base_prefix``)."""
NEUTRAL_HOME = "/home/user"
"""The case's home, and the capturing user's own."""
NEUTRAL_WORK = "/home/user/work"
"""The case's work dir, where its files are and the client runs."""


class CaptureError(RuntimeError):
    """The capture could not run (client missing, port taken...): never a client failure."""


@dataclass(frozen=True, slots=True)
class CaptureResult:
    case: Case
    argv: tuple[str, ...]
    """The command as recorded: the client's bare name, ``--debug``, expanded arguments."""
    exit_code: int | None
    interrupted: bool
    """True when the capture interrupted the client (an ``interrupt`` answer, or the timeout)."""
    output: bytes
    requests: tuple[RecordedRequest, ...]
    log_path: Path
    expected_path: Path
    service_logs: tuple[Path, ...] = ()
    """The services' own logs written beside the fixture (see ``service_dir``)."""
    plain: CaptureResult | None = None
    """The same case run without ``--debug``, when the case asks for it."""
    then: tuple[tuple[str, ...], ...] = ()
    """The commands run after the first, as recorded; ``exit_code`` is the last one's."""

    @property
    def is_plain(self) -> bool:
        return self.log_path.name.endswith(".plain.log")

    @property
    def expectation(self) -> Expectation:
        """What the case declares for this run (its ``plain`` one for a plain run)."""
        if self.is_plain and self.case.plain is not None:
            return self.case.plain
        return self.case.expect

    @property
    def exit_code_differs(self) -> bool:
        differs = self.exit_code != self.expectation.exit_code
        return differs or (self.plain is not None and self.plain.exit_code_differs)


def client_bin_dir() -> Path:
    """Where the clients are installed: beside the running interpreter."""
    return Path(sys.executable).parent


def client_versions() -> dict[str, str]:
    versions = {}
    for name in CLIENT_DISTRIBUTIONS:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "absent"
    return versions


def _working_prefix(program: str, *args: str) -> tuple[str, ...]:
    """``program args`` as a command prefix, if it runs ``true`` here (else empty)."""
    found = shutil.which(program)
    if found is None:
        return ()
    prefix = (found, *args)
    try:
        probe = subprocess.run([*prefix, "true"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ()
    return prefix if probe.returncode == 0 else ()


@functools.cache
def no_aslr_prefix() -> tuple[str, ...]:
    """``setarch <arch> -R`` when it works here: object addresses the clients print
    (``<... Proxy object at 0x7f...>``) then stay the same from one capture to the next."""
    return _working_prefix("setarch", platform.machine(), "-R")


@functools.cache
def isolation_prefix() -> tuple[str, ...]:
    """``unshare -rn``: a new user and network namespace, without root. Nothing the
    client sends can leave it (its only interface is a loopback that is down)."""
    return _working_prefix("unshare", "-rn")


def base_env(home: Path, values: Mapping[str, str]) -> dict[str, str]:
    """The clean environment every client starts from (nothing inherited)."""
    bin_dir = client_bin_dir()
    return {
        "PATH": os.pathsep.join([str(bin_dir), "/usr/local/bin", "/usr/bin", "/bin"]),
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "OS_AUTH_TYPE": "password",
        "OS_AUTH_URL": values["auth_url"],
        "OS_IDENTITY_API_VERSION": "3",
        "OS_USERNAME": fakes.USER_NAME,
        "OS_PASSWORD": fakes.PASSWORD,
        "OS_PROJECT_NAME": fakes.PROJECT_NAME,
        "OS_USER_DOMAIN_NAME": fakes.DOMAIN_NAME,
        "OS_PROJECT_DOMAIN_NAME": fakes.DOMAIN_NAME,
        "OS_REGION_NAME": fakes.REGION,
        "OS_INTERFACE": "public",
    }


class NeutralPaths:
    """Rewrites the machine's folders to the neutral ones, each where it is a whole
    path (``/root`` in ``/root/x``, never in ``/rootfs``), the longest first, in one
    pass (a neutral path is never rewritten again)."""

    def __init__(self, home: Path, work: Path) -> None:
        pairs = {
            str(Path.home()): NEUTRAL_HOME,
            sys.base_prefix: NEUTRAL_PYTHON,
            sys.prefix: NEUTRAL_PREFIX,
            str(home): NEUTRAL_HOME,
            str(work): NEUTRAL_WORK,
        }
        # the same folders as the kernel names them (a temp dir behind a symlink)
        pairs.update({os.path.realpath(path): neutral for path, neutral in list(pairs.items())})
        self.pairs = {
            path: neutral for path, neutral in pairs.items() if path.strip("/") and path != neutral
        }
        paths = sorted(self.pairs, key=len, reverse=True)
        alternatives = "|".join(re.escape(path) for path in paths) or r"(?!)"
        self._text = re.compile(rf"(?<![\w.-])(?:{alternatives})(?![\w.-])")
        self._bytes = re.compile(os.fsencode(self._text.pattern))

    def text(self, text: str) -> str:
        return self._text.sub(lambda m: self.pairs[m.group()], text)

    def data(self, data: bytes) -> bytes:
        return self._bytes.sub(lambda m: os.fsencode(self.pairs[os.fsdecode(m.group())]), data)


def _prepare_dirs(case: Case, workroot: Path) -> tuple[Path, Path]:
    root = workroot / case.id
    if root.exists():
        shutil.rmtree(root)
    home, work = root / "home", root / "work"
    home.mkdir(parents=True)
    work.mkdir()
    return home, work


class _Output:
    """What the client has printed so far, read on a thread of its own, with an
    event set at each piece (and at the end) that the capture waits on."""

    def __init__(self, pipe: IO[bytes], wake: threading.Event) -> None:
        self.data = bytearray()
        self.ended = threading.Event()
        self._wake = wake
        self._pipe = pipe
        self._thread = threading.Thread(target=self._read, name="osdoctor-lab-output", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        fd = self._pipe.fileno()
        while chunk := os.read(fd, 1 << 16):
            self.data += chunk
            self._wake.set()
        self.ended.set()
        self._wake.set()

    def finish(self) -> bytes:
        self._thread.join()
        self._pipe.close()
        return bytes(self.data)


def _run(
    argv: list[str],
    env: Mapping[str, str],
    cwd: Path,
    timeout: float,
    interrupt: str = "int",
    until: Callable[[bytearray], bool] | None = None,
    wake: threading.Event | None = None,
    server: Server | None = None,
) -> tuple[int | None, bool, bytes]:
    """Run the client; interrupt it (SIGINT, or SIGTERM for ``term``) once
    ``until(output so far)`` holds, or after ``timeout`` seconds at the latest.
    ``until`` is asked after each piece of output and each time ``wake`` is set
    (by the stub, when a request comes). A client killed by a signal gets the
    status a shell reports, 128+N. With ``server``, the client is forked by it
    (``argv`` then starts with the console script) instead of exec'd."""
    wake = wake or threading.Event()
    process: subprocess.Popen[bytes] | ForkedProcess
    if server is not None:
        process, read = server.start(argv, env, cwd)
        group = process.pid
        pipe: IO[bytes] = open(read, "rb", buffering=0)  # noqa: SIM115 (closed by finish)
    else:
        # As osdoctor runs a client: nothing it starts outlives the lab, and the
        # signals below go to its whole group, as a terminal's Ctrl-C would.
        watched = start_watched(
            argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=cwd, session=False
        )
        process, group = watched.process, watched.pid
        assert watched.process.stdout is not None
        pipe = watched.process.stdout
    output = _Output(pipe, wake)
    deadline = time.monotonic() + timeout
    interrupted = False
    while not output.ended.is_set():
        if until is not None and until(output.data):
            interrupted = True
            break
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            interrupted = True
            break
        wake.wait(remaining)
        wake.clear()
    if interrupted:
        # As a person would: a second Ctrl-C when the first went unanswered (a
        # signal that lands while the client runs a finaliser is only printed as
        # ignored), and the kill only after that.
        for _ in range(2):
            _signal_group(group, signal.SIGTERM if interrupt == "term" else signal.SIGINT)
            try:
                process.wait(timeout=INTERRUPT_GRACE)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            _signal_group(group, signal.SIGKILL)
    process.wait()
    data = output.finish()
    code = process.returncode
    return (128 - code if code is not None and code < 0 else code), interrupted, data


def _signal_group(group: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, sig)


#: What keystoneauth logs last for an exchange: "GET call to <service> for <url>
#: used request id <id>". Once it is in the output, the client has read the answer.
EXCHANGE_END = b"used request id "


def interrupt_due(stub: Stub, output: bytearray) -> bool:
    """True once the client has an answer scripted with ``interrupt``: a request
    held for ever (``hang``, or dropped or reset) as soon as it is recorded, an
    answer once the client's log shows the end of its exchange."""
    for request in stub.requests:
        if not request.interrupt:
            continue
        if request.status is None:
            return True
        if request.request_id and EXCHANGE_END + request.request_id.encode() in output:
            return True
    return False


def service_dir(out_dir: Path, case_id: str) -> Path:
    """The folder of a fixture's service logs: ``<id>.service/`` beside ``<id>.log``,
    laid out as on the hosts (``nova/nova-api.log``, ``haproxy/haproxy.log``)."""
    return out_dir / f"{case_id}.service"


def wants_service_logs(case: Case, requests: Iterable[RecordedRequest]) -> bool:
    """Whether a case's run keeps the services' logs: when it declares records, or
    a service (or the load balancer before it) answered 5xx."""
    answers = [a for r in case.stub.routes for a in r.answers]
    declared = bool(case.stub.log) or any(a.log for a in answers)
    balanced = any(a.fault is not None and a.fault.style in BALANCER_STYLES for a in answers)
    return declared or balanced or any(r.status is not None and r.status >= 500 for r in requests)


def write_service_logs(folder: Path, files: Mapping[str, str]) -> tuple[Path, ...]:
    """Replace ``folder`` with the logs of this run."""
    if folder.exists():
        shutil.rmtree(folder)
    written = []
    for name, text in sorted(files.items()):
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        written.append(target)
    return tuple(written)


def expected_document(result: CaptureResult, port: int) -> dict[str, Any]:
    """The ``.expected.yaml`` beside a fixture: what ran, what came out, what it shows.

    ``exit_code`` is the observed one; scenario, branch, outcome and findings are
    the case's declaration, which osdoctor's report on the log must match.
    """
    case = result.case
    expect = result.expectation
    shown: dict[str, Any] = {"scenario": case.scenario, "branch": case.branch}
    if result.is_plain:
        # Only what the plain run declares is checked: its output alone may not
        # show the debug run's scenario branch.
        shown = {k: getattr(expect, k) for k in ("scenario", "branch") if getattr(expect, k)}
    return {
        "case": case.id,
        **({"plain": True} if result.is_plain else {}),
        "description": case.description,
        "command": list(result.argv),
        **({"then": [list(argv) for argv in result.then]} if result.then else {}),
        "exit_code": result.exit_code,
        "interrupted": result.interrupted,
        **shown,
        "outcome": expect.outcome,
        "findings": list(expect.findings),
        "expected_exit_code": expect.exit_code,
        "clients": client_versions(),
        **({"shadowed_by": list(case.wheels)} if case.wheels else {}),
        "stub_port": port,
    }


def capture_case(
    case: Case,
    out_dir: Path,
    port: int = 0,
    workroot: Path = DEFAULT_WORKROOT,
    plain_only: bool = False,
    servers: ForkServers | None = None,
) -> CaptureResult:
    """Run one case and write ``<id>.log`` and ``<id>.expected.yaml`` into ``out_dir``
    (and its ``<id>.plain.*`` when it asks for a plain run too; ``plain_only``: only
    those, the debug capture left as it is). With ``servers``, the clients are
    forked by fork servers where that is faithful (``osdoctor.lab.forking``), in
    their slots' dirs rather than under ``workroot``."""
    for command in (case.command, *case.then):
        if not (client_bin_dir() / command[0]).is_file():
            raise CaptureError(
                f"{case.id}: the client {command[0]!r} is not installed beside "
                f"{sys.executable} (install osdoctor with its 'lab' extra)"
            )
    wheels = []
    for requirement in case.wheels:
        try:
            wheels.append(find_wheel(requirement))
        except WheelMissing as missing:
            raise CaptureError(f"{case.id}: {missing}") from None
    if case.network == "isolated" and not isolation_prefix():
        raise CaptureError(
            f"{case.id}: the case needs an isolated network, and 'unshare -rn' is not "
            "available or not permitted here"
        )
    with _port_lock(port):
        if plain_only:
            if case.plain is None:
                raise CaptureError(f"{case.id}: the case asks for no plain run (plain:)")
            return _capture_run(case, out_dir, port, workroot, wheels, False, servers)
        return _capture_case(case, out_dir, port, workroot, wheels, servers)


@contextlib.contextmanager
def _port_lock(port: int) -> Iterator[None]:
    """Captures on the same fixed port wait for each other instead of failing."""
    if not port:
        yield
        return
    path = Path(tempfile.gettempdir()) / f"osdoctor-lab-{port}.lock"
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def prepare_run(
    case: Case,
    stub_values: Mapping[str, str],
    home: Path,
    work: Path,
    wheels: list[Path] | None = None,
) -> tuple[list[str], dict[str, str]]:
    """Write the case's files into ``work`` and its wheels into the user
    site-packages of ``home``; return its arguments (after the client's name)
    and its environment, placeholders expanded: the client's run as a capture
    makes it (tests run it the same way through osdoctor)."""
    values = dict(stub_values, workdir=str(work))
    for name, content in case.files.items():
        target = work / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(expand_text(content, values), encoding="utf-8")
    args = [str(arg) for arg in expand(list(case.command[1:]), values)]
    env = base_env(home, values)
    if wheels:
        site = user_site(home)
        unpack(wheels, site)
        env["PYTHONPATH"] = str(site)  # as a user's PYTHONPATH=~/.local/... would
    for key, value in case.env.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = expand_text(value, values)
    return args, env


def _capture_case(
    case: Case,
    out_dir: Path,
    port: int,
    workroot: Path,
    wheels: list[Path] | None = None,
    servers: ForkServers | None = None,
) -> CaptureResult:
    result = _capture_run(case, out_dir, port, workroot, wheels, case.debug, servers)
    if case.plain is not None:
        plain = _capture_run(case, out_dir, port, workroot, wheels, False, servers)
        result = dataclasses.replace(result, plain=plain)
    return result


def plain_transcript(argv: tuple[str, ...], output: bytes) -> bytes:
    """What a terminal shows of a run without ``--debug``: the command typed at a
    prompt, then what the client printed. A ticket holds that, and the command
    line is the only place a plain run names itself."""
    return f"$ {shlex.join(argv)}\n".encode() + output


def _capture_run(
    case: Case,
    out_dir: Path,
    port: int,
    workroot: Path,
    wheels: list[Path] | None,
    debug: bool,
    servers: ForkServers | None = None,
) -> CaptureResult:
    # What cannot be forked faithfully is exec'd: a case's wheels change what is
    # imported, and a server cannot sit in the namespace of an isolated run.
    if servers is None or wheels or case.network == "isolated":
        return _capture_in(case, out_dir, port, workroot, wheels, debug, None)
    with servers.slot(client_bin_dir() / case.command[0]) as slot:
        return _capture_in(case, out_dir, port, workroot, wheels, debug, slot)


def _capture_in(
    case: Case,
    out_dir: Path,
    port: int,
    workroot: Path,
    wheels: list[Path] | None,
    debug: bool,
    slot: Slot | None,
) -> CaptureResult:
    home, work = (slot.home, slot.work) if slot is not None else _prepare_dirs(case, workroot)
    wake = threading.Event()
    stub = Stub(case.stub, port=port, on_request=lambda request: wake.set())
    try:
        stub.start()
    except OSError as error:
        raise CaptureError(f"cannot listen on 127.0.0.1:{port}: {error}") from None
    flags = ["--debug"] if debug else []
    # A session of several commands shows each behind its prompt, as a terminal does.
    session = bool(case.then) or not debug
    transcript = b""
    runs: list[tuple[str, ...]] = []
    neutral = NeutralPaths(home, work)
    try:
        for command in (case.command, *case.then):
            step = dataclasses.replace(case, command=command)
            args, env = prepare_run(step, stub.values, home, work, wheels)
            program = client_bin_dir() / command[0]
            isolation = isolation_prefix() if case.network == "isolated" else ()
            server = _server(slot, program, env)
            exit_code, interrupted, output = _run(
                [*(() if server else (*isolation, *no_aslr_prefix())), str(program), *flags, *args],
                env,
                work,
                case.timeout,
                case.interrupt,
                until=functools.partial(interrupt_due, stub),
                wake=wake,
                server=server,
            )
            argv = (command[0], *flags, *(neutral.text(arg) for arg in args))
            runs.append(argv)
            output = neutral.data(output)
            transcript += plain_transcript(argv, output) if session else output
        requests = tuple(stub.requests)
        port_used = stub.port
    finally:
        stub.stop()
    logs = stub.service_logs() if wants_service_logs(case, requests) else {}
    out_dir.mkdir(parents=True, exist_ok=True)
    # A case run without --debug beside its debug run is kept under its own name.
    name = case.plain_id if case.plain is not None and not debug else case.id
    result = CaptureResult(
        case=case,
        argv=runs[0],
        exit_code=exit_code,
        interrupted=interrupted,
        output=transcript,
        requests=requests,
        log_path=out_dir / f"{name}.log",
        expected_path=out_dir / f"{name}.expected.yaml",
        then=tuple(runs[1:]),
        # The services' logs go beside the debug run's fixture (a plain run is the
        # same run, played again).
        service_logs=write_service_logs(service_dir(out_dir, name), logs) if debug else (),
    )
    result.log_path.write_bytes(result.output)
    result.expected_path.write_text(
        yaml.safe_dump(expected_document(result, port_used), sort_keys=False, width=100),
        encoding="utf-8",
    )
    return result


def _server(slot: Slot | None, program: Path, env: Mapping[str, str]) -> Server | None:
    """The slot's fork server for this run, if it can fork it faithfully."""
    if slot is None:
        return None
    try:
        return slot.server(program, env, no_aslr_prefix())
    except ForkServerError as error:
        raise CaptureError(str(error)) from None


def describe(result: CaptureResult) -> list[str]:
    """Progress lines for one captured case."""
    expected = result.expectation.exit_code
    differs = result.exit_code != expected
    verdict = "ok" if not differs else f"MISMATCH: expected {expected}"
    name = result.case.plain_id if result.is_plain else result.case.id
    lines = [
        f"  $ {' '.join(result.argv)}",
        f"{name}: exit {result.exit_code} ({verdict}), "
        f"{counted(len(result.requests), 'request')}{', interrupted' if result.interrupted else ''}"
        f" -> {result.log_path}"
        + (
            f" (+{counted(len(result.service_logs), 'service log')})" if result.service_logs else ""
        ),
    ]
    for request in result.requests:
        if request.answered_by == "unmatched":
            query = f"?{request.query}" if request.query else ""
            lines.append(f"  note: unscripted 404 for {request.method} {request.path}{query}")
    if result.plain is not None:
        lines.extend(describe(result.plain))
    return lines


def capture(
    cases: Iterable[Case],
    out_dir: Path = FIXTURES_DIR,
    port: int = 0,
    workroot: Path = DEFAULT_WORKROOT,
    report: Callable[[str], None] = print,
    logs_only: bool = False,
    plain_only: bool = False,
) -> list[CaptureResult]:
    """Capture each case in turn, reporting progress line by line. ``logs_only``:
    keep only the services' logs of each run, beside the fixture already there
    (the run is the same one: the stub numbers its requests and dates its answers
    alike every time); ``plain_only``: only the runs without ``--debug`` of the
    cases that ask for one."""
    results = []
    selected = [c for c in cases if c.plain is not None] if plain_only else list(cases)
    for number, case in enumerate(selected, start=1):
        report(f"[{number}/{len(selected)}] {case.id}")
        if logs_only:
            with tempfile.TemporaryDirectory(prefix="osdoctor-lab-logs-") as scratch:
                result = capture_case(case, Path(scratch), port=port, workroot=workroot)
                files = {
                    str(p.relative_to(service_dir(Path(scratch), case.id))): p.read_text("utf-8")
                    for p in result.service_logs
                }
            result = dataclasses.replace(
                result,
                log_path=out_dir / result.log_path.name,
                expected_path=out_dir / result.expected_path.name,
                service_logs=write_service_logs(service_dir(out_dir, case.id), files),
            )
        else:
            result = capture_case(
                case, out_dir, port=port, workroot=workroot, plain_only=plain_only
            )
        for line in describe(result):
            report(line)
        results.append(result)
    return results
