"""A client already imported, forked for each run: the lab's fast client start.

Most of a lab client's start is Python importing openstackclient, cliff,
openstacksdk and keystoneauth1 (about a second of CPU each time). A fork
server pays it once: it is started as the client would be (the same
interpreter, environment, work dir and home, stdout and stderr on a pipe),
imports the console script's entry point module, and then forks a child for
each run asked of it. The child takes the run's environment (``os.environ``
replaced whole), work dir, arguments, stdin ``/dev/null`` and the run's one
output pipe, leads a process group of its own, and runs the console script
itself in a fresh ``__main__``: the real client code runs, and the interpreter
ends it (exit status, ``SystemExit``, the traceback of an uncaught exception,
Ctrl-C's death by SIGINT, ``atexit`` and the flush of its streams) as it ends
an exec'd client.

Between the server and each client sits one more fork, the client's watcher
(as ``osdoctor.run.watcher`` is for an exec'd client): it reaps the client,
reports its wait status, and ends the client's whole group should the server
go; the server goes when the lab does (its control socket reads the end of
file), however the lab dies.

This file is run as a script by the interpreter the clients are installed
in (``python forkserver.py FD SCRIPT MODULE``) and imports nothing of
osdoctor: the modules loaded in the server are the client's, and the
standard library's few that the fork itself needs. The lab's side of it is
``osdoctor.lab.forking``.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":
    # As for the console script run directly: its folder first on the path, never
    # this file's (the lab's own modules would shadow the client's).
    sys.path[0] = os.path.dirname(sys.argv[2])
    # and its own name while it is imported (cliff's App.NAME is read from it then)
    sys.argv[0] = sys.argv[2]

import array  # noqa: E402
import gc  # noqa: E402
import importlib  # noqa: E402
import json  # noqa: E402
import signal  # noqa: E402
import socket  # noqa: E402
from types import FunctionType, ModuleType, TracebackType  # noqa: E402
from typing import Any  # noqa: E402

#: Largest request (arguments and environment) the server reads.
MAX_REQUEST = 1 << 20
#: The entry point groups whose every plugin a run of the client imports
#: (cliff's command manager loads each command group and formatter group
#: whole, osc-lib every auth plugin to list their options), by the module the
#: server imports; the server imports them once. heat and swift load none.
WARM_GROUPS = {
    "openstackclient.shell": ("openstack.", "cliff.formatter.", "keystoneauth1.plugin"),
    "ironicclient.shell": ("openstack.baremetal.", "cliff.formatter.", "keystoneauth1.plugin"),
}
_PR_SET_PDEATHSIG = 1


def _prctl_death(sig: int) -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)
    except (ImportError, OSError, AttributeError):
        return


def receive(sock: socket.socket) -> tuple[bytes, list[int]]:
    """One message and the file descriptors sent with it."""
    fds = array.array("i")
    data, ancillary, _flags, _address = sock.recvmsg(
        MAX_REQUEST, socket.CMSG_LEN(16 * fds.itemsize)
    )
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - (len(payload) % fds.itemsize)])
    return data, list(fds)


class Run:
    """One run asked of the server: what the client's child becomes."""

    def __init__(self, request: dict[str, Any], report: socket.socket, output: int) -> None:
        self.argv: list[str] = request["argv"]
        self.env: dict[str, str] = request["env"]
        self.cwd: str = request["cwd"]
        self.report = report
        self.output = output


def serve(control: socket.socket) -> Run:
    """Fork a watcher for each request; return only in a client's process."""
    control.sendall(b"ready")
    while True:
        try:
            data, fds = receive(control)
        except InterruptedError:
            continue
        _reap(block=not data)
        if not data:  # the lab has gone, or is done
            os._exit(0)
        if len(fds) != 2:
            for fd in fds:
                os.close(fd)
            continue
        if os.fork() == 0:
            control.close()
            report = socket.socket(fileno=fds[0])
            return _watch(Run(json.loads(data), report, fds[1]))
        for fd in fds:
            os.close(fd)


def _reap(block: bool) -> None:
    """Reap the watchers that have ended (so that their CPU time counts as the
    lab's, as an exec'd client's does); ``block``: all of them, for a few
    seconds at most (each has reported its client's end and is exiting)."""
    if block:
        signal.alarm(5)  # its default action ends the server, and so its watchers
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if not pid:
            return


class _Group:
    pid = 0


def _end_group(_signum: int, _frame: object) -> None:
    """The server (so the lab) has gone: the client's group goes too."""
    if _Group.pid:
        try:
            os.killpg(_Group.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _watch(run: Run) -> Run:
    """The watcher: fork the client, report its pid, then its wait status."""
    server = os.getppid()
    signal.signal(signal.SIGHUP, _end_group)
    _prctl_death(signal.SIGHUP)
    if os.getppid() != server:
        os._exit(1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    watcher = os.getpid()
    pid = os.fork()
    if pid == 0:
        _become_client(run, watcher)
        return run
    _Group.pid = pid
    try:
        os.setpgid(pid, pid)  # as the child does: whichever comes first
    except OSError:
        pass
    os.close(run.output)
    try:
        run.report.sendall(f"started {pid}\n".encode())
    except OSError:
        pass
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    try:
        run.report.sendall(f"status {status}\n".encode())
    except OSError:
        pass
    os._exit(0)


def _become_client(run: Run, watcher: int) -> None:
    """What ``start_watched`` gives an exec'd client, here without the exec."""
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    _prctl_death(signal.SIGKILL)
    if os.getppid() != watcher:
        os._exit(128 + signal.SIGKILL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # a fresh interpreter's
    run.report.close()
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(run.output, 1)
    os.dup2(run.output, 2)
    os.closerange(3, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1024)
    os.environ.clear()
    os.environ.update(run.env)
    os.chdir(run.cwd)
    sys.argv[:] = run.argv  # in place: a client may hold the list (swift: from sys import argv)
    sys.orig_argv = [sys.executable, *run.argv]


def _client_frames_only(script: str) -> Any:
    """The excepthook of a client: its traceback starts at the console script,
    as when the interpreter ran the script, not at this file."""
    original = sys.excepthook

    def hook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        while tb is not None and tb.tb_frame.f_code.co_filename != script:
            tb = tb.tb_next
        if tb is not None:
            value = value.with_traceback(tb)
        original(kind, value, tb)

    return hook


def _argv_defaults(entry: ModuleType, server_args: list[str], args: list[str]) -> None:
    """The entry point's defaults read from ``sys.argv`` at import
    (ironicclient: ``def main(argv=sys.argv[1:])``), as the run's import would
    have read them."""
    for function in vars(entry).values():
        defaults = getattr(function, "__defaults__", None)
        if isinstance(function, FunctionType) and defaults:
            function.__defaults__ = tuple(
                list(args) if isinstance(d, list) and d == server_args else d for d in defaults
            )


def _warm(module: str) -> None:
    """Pay in the server what every run would pay again after the fork and that
    comes out the same for every run: the imports of the plugins of the
    client's ``WARM_GROUPS``, stevedore's scan of the entry points (its cache file lives
    in the slot's home, emptied before each run) and cliff's map of modules to
    distributions (read from every installed distribution's file list). Each
    is what the run computes from the same files and ``sys.path``; none reads
    the environment. A plugin that fails to import is left as if never tried
    (the run tries it, and fails, itself)."""
    from importlib import metadata

    points = metadata.entry_points()
    groups = WARM_GROUPS.get(module, ())
    modules = {
        point.module
        for group in sorted(points.groups)
        if groups and group.startswith(groups)
        for point in points.select(group=group)
    }
    for name in sorted(modules):
        before = set(sys.modules)
        try:
            importlib.import_module(name)
        except Exception:  # any failure: the run meets it again
            for added in set(sys.modules) - before:
                del sys.modules[added]
    cache = sys.modules.get("stevedore._cache")
    if cache is not None:
        cache._c._get_data_for_path(None)
    command = sys.modules.get("cliff.command")
    if command is not None:
        command._get_distributions_by_modules()


def main() -> tuple[Any, ModuleType]:
    """Start serving; in a client's process, return the console script's code and
    the fresh ``__main__`` it runs in."""
    control_fd, script, module = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    with open(script, "rb") as handle:
        code = compile(handle.read(), script, "exec", dont_inherit=True)
    server_args = list(sys.argv[1:])
    entry = importlib.import_module(module)
    _warm(module)
    control = socket.socket(fileno=control_fd)
    # What the imports left is kept out of the collector's sight: each child
    # would otherwise walk (and so copy, page by page) all of it again.
    gc.collect()
    gc.freeze()
    sys.stdout.flush()
    sys.stderr.flush()
    run = serve(control)
    _argv_defaults(entry, server_args, run.argv[1:])
    main_module = ModuleType("__main__")
    main_module.__dict__.update(__file__=script, __cached__=None, __builtins__=__builtins__)
    sys.modules["__osdoctor_forkserver__"] = sys.modules[__name__]
    sys.modules["__main__"] = main_module
    sys.excepthook = _client_frames_only(script)
    return code, main_module


if __name__ == "__main__":
    _code, _main = main()
    exec(_code, _main.__dict__)  # noqa: S102  (the console script, as python would run it)
