"""The process between osdoctor and the client it runs: it puts the client at
the head of a process group and ends that whole group when osdoctor dies,
even by SIGKILL.

Linux tells a process that its parent died (the parent-death signal,
``prctl(PR_SET_PDEATHSIG)``), but not that process's own children: a client run
directly died with a SIGKILLed osdoctor, and what it had started (the ``sleep``
of a ``bash -c``, a plugin's helper) lived on under init. The watcher gets that
signal instead (``DEATH_SIGNAL``, armed by the runner between fork and exec)
and answers it with SIGKILL to the client's group.

The watcher stays out of that group, so that no signal sent to the group (the
cancel's SIGINT, SIGTERM, SIGKILL) reaches it: it always outlives the client
and reaps it, and no client is ever left a zombie to an init that may never
reap it (in some containers). Its exit status is then the client's, and a
client ended by a signal ends it by the same signal.

It is run by the interpreter alone, as a script (``python -I -S watcher.py FD
-- ARGV...``), and imports nothing of osdoctor nor of site-packages: it starts
in milliseconds whatever is installed, and nothing in the client's environment
(``PYTHONPATH``, a ``sitecustomize``) reaches it. It tells the runner, on the
file descriptor FD, ``started PID`` once the client runs (its pid is its
group's id), or ``failed ERRNO`` when it cannot be started (the runner words
that as it words its own start errors).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable

#: What the runner makes osdoctor's death send the watcher (a hang-up: the one
#: the watcher works for has gone).
DEATH_SIGNAL = signal.SIGHUP
#: Exit status when the client could not be started (after ``failed ERRNO``).
NOT_STARTED = 127

_PR_SET_PDEATHSIG = 1


class _Watch:
    """What the death signal's handler needs: the client's group, once started."""

    group: int | None = None
    orphaned = False


def _end_group(_signum: int, _frame: object) -> None:
    """osdoctor has gone: so goes everything it ran. The client, killed, is
    reaped by ``main``, which then ends the watcher."""
    _Watch.orphaned = True
    if _Watch.group is not None:
        _kill_group(_Watch.group)


def _kill_group(group: int) -> None:
    try:
        os.killpg(group, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _not_for_the_watcher(_signum: int, _frame: object) -> None:
    """A SIGINT or SIGTERM meant for osdoctor's process group (the lab's, on a
    terminal's Ctrl-C): the watcher stays until osdoctor itself goes."""


def _dies_with_watcher() -> Callable[[], None] | None:
    """The client's ``preexec_fn``: killed when the watcher goes, should anyone
    kill the watcher alone."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (ImportError, OSError, AttributeError):
        return None
    watcher, kill = os.getpid(), int(signal.SIGKILL)

    def setup() -> None:
        prctl(_PR_SET_PDEATHSIG, kill, 0, 0, 0)
        if os.getppid() != watcher:
            os._exit(128 + kill)

    return setup


def _say(fd: int, words: str) -> None:
    os.write(fd, f"{words}\n".encode())
    os.close(fd)


def _end_as(returncode: int) -> int:
    """Exit as the client did: its status, or killed by its signal (with no core
    of our own: the client's, if it dumped one, is the one to read)."""
    if returncode >= 0:
        return returncode
    import resource

    sig = -returncode
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if sig != signal.SIGKILL:  # the one signal whose action cannot be set
        signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
    return 128 + sig  # a signal that does not end a process: as a shell would say


def main(argv: list[str]) -> int:
    report, command = int(argv[1]), argv[3:]
    signal.signal(DEATH_SIGNAL, _end_group)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _not_for_the_watcher)
    if _Watch.orphaned:
        return NOT_STARTED
    try:
        client = subprocess.Popen(
            command, close_fds=True, process_group=0, preexec_fn=_dies_with_watcher()
        )
    except (OSError, subprocess.SubprocessError) as error:
        _say(report, f"failed {getattr(error, 'errno', None) or 0}")
        return NOT_STARTED
    _Watch.group = client.pid
    if _Watch.orphaned:  # osdoctor went while the client was starting
        _kill_group(client.pid)
    _say(report, f"started {client.pid}")
    return _end_as(client.wait())


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
