"""The lab's side of the fork servers (``osdoctor.lab.forkserver``): clients
started by a fork of one already imported, instead of an exec each.

What a client reads from its environment, work dir or home while it is
imported is read once, by the server: openstacksdk's config loader keeps the
work dir, ``$HOME`` and ``$XDG_CONFIG_HOME`` in its search path
(``openstack.config.loader.CONFIG_SEARCH_PATH``), rich keeps the work dir,
wcwidth, wrapt, psutil and oslo.config read a variable each, and the
interpreter itself reads ``PYTHON*``, the locale and ``TZ`` as it starts. So a
server runs in a slot, a home and work dir of its own that each run it forks
uses too (a case leases a slot for its run, and the slot is emptied for it),
and it is started with the environment of its first run; a run whose
environment differs from that one in anything but what the clients read only
as they run (``RUNTIME_ONLY``: ``OS_*`` and the proxies) gets a server of its
own. A run that imports from elsewhere (a case's ``wheels`` or its own
``PYTHONPATH``) or runs in a network namespace of its own is exec'd as before.

The lab's capture (``osdoctor lab capture``, which writes the fixtures) execs
every client, as a user's shell does; the tests' recapture forks, and
``tests/lab/test_forkserver.py`` checks that both give the same output and
exit status.
"""

from __future__ import annotations

import array
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from osdoctor.lab import forkserver

#: Environment variables the clients read only while they run (after import).
RUNTIME_ONLY = re.compile(r"OS_\w+|(?i:https?_proxy|no_proxy|all_proxy)")
#: What changes where the interpreter imports from: a run with one is exec'd.
IMPORT_PATH = frozenset(
    {"PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONPLATLIBDIR", "PYTHONSTARTUP"}
)
#: Seconds a server gets to import its client.
START_TIMEOUT = 120.0
SERVER = str(Path(forkserver.__file__))


class ForkServerError(RuntimeError):
    """A fork server could not start (its client failed to import)."""


def import_time_env(env: Mapping[str, str]) -> dict[str, str]:
    """What of ``env`` a client may read while it is imported."""
    return {key: value for key, value in env.items() if not RUNTIME_ONLY.fullmatch(key)}


def entry_module(program: str) -> str:
    """The module of a console script's entry point (``openstackclient.shell``)."""
    for entry in metadata.entry_points(group="console_scripts", name=program):
        return entry.module
    raise ForkServerError(f"no console script named {program!r} is installed")


class ForkedProcess:
    """A forked client as ``_run`` waits for it (the parts of ``Popen`` it uses)."""

    def __init__(self, report: socket.socket, pid: int) -> None:
        self._report = report
        self._buffer = b""
        self.pid = pid
        self.returncode: int | None = None

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is not None:
            return self.returncode
        self._report.settimeout(timeout)
        while b"\n" not in self._buffer:
            try:
                chunk = self._report.recv(256)
            except TimeoutError:
                raise subprocess.TimeoutExpired("forked client", timeout or 0) from None
            if not chunk:  # the watcher went without a word: killed with its server
                self._buffer += b"status 9\n"
                break
            self._buffer += chunk
        line = self._buffer.partition(b"\n")[0].split()
        self._report.close()
        self.returncode = os.waitstatus_to_exitcode(int(line[1]))
        return self.returncode


class Server:
    """One client imported, in one slot, waiting for runs."""

    def __init__(
        self,
        script: Path,
        env: Mapping[str, str],
        cwd: Path,
        prefix: Sequence[str],
        module: str | None = None,
    ) -> None:
        """Start the server of ``script``, importing ``module`` (by default its
        entry point's), with ``env`` and in ``cwd`` as its runs will have them."""
        self.script = script
        self.env = import_time_env(env)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self._control = ours
        try:
            self._process = subprocess.Popen(
                [
                    *prefix,
                    sys.executable,
                    SERVER,
                    str(theirs.fileno()),
                    str(script),
                    module or entry_module(script.name),
                ],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                env=dict(env),
                cwd=cwd,
                close_fds=True,
                pass_fds=(theirs.fileno(),),
                process_group=0,  # no terminal's Ctrl-C for it: it ends with the lab
            )
        finally:
            theirs.close()
        self._said = bytearray()
        assert self._process.stdout is not None
        self._reader = threading.Thread(target=self._drain, daemon=True)
        self._reader.start()
        ours.settimeout(START_TIMEOUT)
        try:
            ready = ours.recv(64)
        except TimeoutError:
            ready = b""
        ours.settimeout(None)
        if ready != b"ready":
            self.close()
            raise ForkServerError(
                f"the fork server of {script.name} did not start: "
                + self._said.decode(errors="replace")[-2000:]
            )

    def _drain(self) -> None:
        assert self._process.stdout is not None
        fd = self._process.stdout.fileno()
        while chunk := os.read(fd, 1 << 16):
            self._said += chunk

    def start(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: Path
    ) -> tuple[ForkedProcess, int]:
        """Fork a client; return it and the read end of its output pipe."""
        read, write = os.pipe()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        request = json.dumps({"argv": list(argv), "env": dict(env), "cwd": str(cwd)}).encode()
        try:
            fds = array.array("i", [theirs.fileno(), write])
            self._control.sendmsg([request], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
        except OSError:
            os.close(read)
            ours.close()
            raise
        finally:
            theirs.close()
            os.close(write)
        started = b""
        while not started.endswith(b"\n"):
            chunk = ours.recv(1)
            if not chunk:
                os.close(read)
                ours.close()
                raise ForkServerError("the fork server did not start the client")
            started += chunk
        return ForkedProcess(ours, int(started.split()[1])), read

    def close(self) -> None:
        self._control.close()  # the server reads its end of file and goes
        self._process.wait()
        self._reader.join()


@dataclass
class Slot:
    """A home and work dir, and the servers started in them (one per client)."""

    root: Path
    servers: dict[str, Server] = field(default_factory=dict)

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def work(self) -> Path:
        return self.root / "work"

    def empty(self) -> None:
        """Both dirs empty, the same dirs (a server's work dir stays its own)."""
        for folder in (self.home, self.work):
            folder.mkdir(parents=True, exist_ok=True)
            for entry in folder.iterdir():
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()

    def server(self, script: Path, env: Mapping[str, str], prefix: Sequence[str]) -> Server | None:
        """The server of ``script`` here for what of ``env`` an import may read,
        started for it if there is none yet; None when ``env`` changes where
        the modules are imported from (their files may change from run to run)."""
        if any(key in IMPORT_PATH for key in env):
            return None
        key = json.dumps([str(script), sorted(import_time_env(env).items())])
        if key not in self.servers:
            self.servers[key] = Server(script, env, self.work, prefix)
        return self.servers[key]

    def serves(self, script: Path) -> bool:
        return any(server.script == script for server in self.servers.values())

    def close(self) -> None:
        for server in self.servers.values():
            server.close()
        self.servers.clear()


class ForkServers:
    """The slots of a set of captures, leased one capture at a time."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._free: list[Slot] = []
        self._all: list[Slot] = []
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def slot(self, script: Path | None = None) -> Iterator[Slot]:
        """A free slot, one with a server of ``script`` already when there is one
        (a server's start costs a second or two of imports: the clients run
        least often are then served by one or two slots, not by every one)."""
        with self._lock:
            if self._free:
                serving = [slot for slot in self._free if script and slot.serves(script)]
                leased = serving[-1] if serving else self._free[-1]
                self._free.remove(leased)
            else:
                leased = Slot(self.root / f"slot-{len(self._all)}")
                self._all.append(leased)
        leased.empty()
        try:
            yield leased
        finally:
            with self._lock:
                self._free.append(leased)

    def close(self) -> None:
        with self._lock:
            for slot in self._all:
                slot.close()

    def __enter__(self) -> ForkServers:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
