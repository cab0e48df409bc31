"""Run the user's real client command and capture everything it prints.

The command runs from an argv list (never a shell) at the head of its own
process group, so that cancelling reaches the client and anything it started,
and in a session of its own, so that a password prompt cannot reach the
user's terminal: stdin is /dev/null and there is no controlling terminal, so
a client that wants to prompt fails at once instead of hanging (the result
then carries a note). A small watcher process (``osdoctor.run.watcher``) stands
between osdoctor and the client: when osdoctor dies, even by SIGKILL, it ends
the client's whole group, so nothing the client started is left behind.

stdout and stderr are read from two pipes by one thread with ``selectors``:
each line keeps its stream and its arrival time, nothing blocks, and no output
is lost however fast the child writes. Bytes are decoded as UTF-8 with
replacement, so broken output still arrives; a line longer than ``MAX_LINE``
characters is delivered in pieces marked ``cut``.

Use from a Textual thread worker or a plain loop alike::

    run = Run(insert_debug(argv), on_line=print_line, session=writer)  # a Recorder
    run.start()            # raises CommandError if it cannot start
    result = run.wait()    # RunResult; run.cancel() from any thread stops it

``on_line`` is called on the reader thread, in arrival order.
"""

from __future__ import annotations

import codecs
import os
import re
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, cast

from osdoctor.run import watcher

#: Longest line delivered whole (characters); longer ones come in cut pieces.
MAX_LINE = 1 << 20
#: Seconds between the signals of a cancel: SIGINT, then SIGTERM, then SIGKILL.
CANCEL_GRACE = 2.0
#: After the client exits, how long to wait for silence on pipes that something
#: it left behind still holds open, and how long to read such output at most.
DRAIN_IDLE = 0.5
DRAIN_LIMIT = 2.0

#: Signals that tell osdoctor itself to stop: ``timeout`` or a service manager
#: (SIGTERM), the terminal closing (SIGHUP). The client runs in its own session
#: and never receives them: osdoctor must stop it before going.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)

PROMPT_NOTE = "stdin is not a terminal: the client could not prompt"
LEFT_OPEN_NOTE = (
    "output after the command ended was not read: a process it started still holds its output"
)
_PROMPT_FAILURE = re.compile(
    r"EOFError|GetPassWarning|Can not control echo on the terminal"
    r"|No password entered, or found via|No terminal detected attempting to read password"
    r"|Input stream incompatible with --prompt option"
    r"|[Pp]assword: ?Traceback \(most recent call last\)"
)
_PROMPT_AT_END = re.compile(r"[Pp]assword: ?$")

_READ_SIZE = 1 << 16


class CommandError(Exception):
    """The command could not be started; the message is one line for the user."""


class Stopped(Exception):
    """osdoctor was told to stop (SIGTERM, SIGHUP) while the command ran: the
    command was cancelled like a Ctrl-C and has ended, as ``result`` says."""

    def __init__(self, signum: int, result: RunResult) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum
        self.result = result


class _Signalled(BaseException):
    """Raised in the main thread by a stop signal, to leave a blocking wait."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextmanager
def on_stop_signals(react: Callable[[int], object]) -> Iterator[None]:
    """While inside, a stop signal calls ``react(signum)`` in the main thread
    instead of ending osdoctor at once (which would leave the client running).

    Only the main thread may set signal handlers: elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, _frame: object) -> None:
        react(signum)

    previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@dataclass(frozen=True, slots=True)
class OutputLine:
    """One line the command printed, without its line ending."""

    time: float
    """Seconds since the start (monotonic clock) when the line arrived."""
    fd: int
    """1 for stdout, 2 for stderr."""
    text: str
    cut: bool = False
    """True when the line was longer than MAX_LINE: the next line of the
    same stream continues it."""


@dataclass(frozen=True, slots=True)
class RunResult:
    """How the command ended."""

    argv: tuple[str, ...]
    exit_code: int
    """The client's exit status; 128+N when signal N ended it, as a shell says."""
    signal: int | None
    """The signal that ended the client, if one did."""
    duration: float
    """Seconds from start to exit."""
    cancelled: bool
    """True when cancel() was called before the client exited."""
    notes: tuple[str, ...] = ()
    """Things the user should know that the output does not say."""
    stdout_lines: int = 0
    stderr_lines: int = 0
    session_path: Path | None = None


class Recorder(Protocol):
    """What a run writes its record to, as it goes (``osdoctor.run.session.SessionWriter``:
    the runner knows the calls, not the file format)."""

    @property
    def path(self) -> Path: ...

    def begin(self, argv: Sequence[str], started: datetime) -> None: ...

    def write_lines(self, lines: Iterable[OutputLine]) -> None: ...

    def note(self, text: str) -> None: ...

    def cancelled(self, signal_name: str, seconds: float) -> None: ...

    def close(self, result: RunResult | None) -> None: ...


def child_setup(parent: int, death: int = signal.SIGKILL) -> Callable[[], None] | None:
    """What a process osdoctor starts runs between fork and exec (``preexec_fn``):

    - the kernel sends it ``death`` when ``parent`` goes, even by SIGKILL, which
      leaves osdoctor no chance to stop it (Linux's parent-death signal): by
      default the end, and for the watcher (``start_watched``) its cue to end
      the client's whole group. The signal comes when the thread that started
      the process ends: a run's thread waits for its end.
    - SIGINT reaches it as in a terminal. A signal ignored stays ignored across
      exec, and osdoctor may have been started with SIGINT ignored (a background
      job of a script, a CI runner): its client would then sit out a cancel's
      Ctrl-C and end only by the SIGTERM after the grace period, reporting 143
      where the user pressed Ctrl-C.

    Everything it calls is looked up here, before the fork (libc's ``signal``,
    as a Python handler can't be set between fork and exec)."""
    prctl = _prctl()
    reset = _libc_signal() if signal.getsignal(signal.SIGINT) == signal.SIG_IGN else None
    if prctl is None and reset is None:
        return None
    getppid, exit_now, kill = os.getppid, os._exit, int(signal.SIGKILL)
    sigint, death = int(signal.SIGINT), int(death)

    def setup() -> None:
        if reset is not None:
            reset(sigint, 0)  # SIG_DFL
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, death, 0, 0, 0)
            if getppid() != parent:
                exit_now(128 + kill)  # osdoctor went before the signal was armed

    return setup


@dataclass(frozen=True, slots=True)
class Watched:
    """A client started under its watcher (``osdoctor.run.watcher``)."""

    process: subprocess.Popen[bytes]
    """The watcher: its exit status is the client's, once the client has ended."""
    pid: int
    """The client's pid, which is also the id of its process group."""


def start_watched(
    argv: Sequence[str],
    *,
    stdout: int,
    stderr: int,
    env: Mapping[str, str],
    cwd: str | Path | None,
    session: bool = True,
) -> Watched:
    """Start ``argv`` (never through a shell) with stdin /dev/null, at the head
    of a process group of its own, under a watcher that ends the whole group
    when osdoctor dies, however it dies. The watcher runs in a session of its
    own (``session``: no terminal for the client to prompt on) or in
    osdoctor's. Whatever the client starts stays in the group unless it leaves
    on purpose: signal the group (``os.killpg(watched.pid, ...)``). Raises what
    ``subprocess.Popen`` would raise for the client itself (``OSError``,
    ``ValueError``), and ``CommandError`` when the watcher cannot run."""
    report_r, report_w = os.pipe()
    try:
        process = subprocess.Popen(
            [sys.executable, "-I", "-S", WATCHER, str(report_w), "--", *argv],
            shell=False,
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            env=env,
            cwd=cwd,
            start_new_session=session,
            close_fds=True,
            pass_fds=(report_w,),
            preexec_fn=child_setup(os.getpid(), watcher.DEATH_SIGNAL),
        )
    except (OSError, ValueError) as error:
        os.close(report_r)
        if isinstance(error, ValueError):  # in argv (a NUL byte): the client's own
            raise
        raise CommandError(
            f"cannot start {sys.executable or 'Python'} to watch the command: "
            f"{error.strerror or error}"
        ) from None
    finally:
        os.close(report_w)
    with os.fdopen(report_r, "rb") as report:
        words = report.read().split()
    if words[:1] == [b"started"] and len(words) == 2 and words[1].isdigit():
        return Watched(process, int(words[1]))
    process.wait()
    for pipe in (process.stdout, process.stderr):
        if pipe is not None:
            pipe.close()
    if words[:1] == [b"failed"] and len(words) == 2 and words[1].isdigit() and int(words[1]):
        code = int(words[1])
        raise OSError(code, os.strerror(code))
    raise CommandError(f"the command did not start (its watcher exited {process.returncode})")


#: The watcher, run as a script.
WATCHER = str(Path(watcher.__file__))


def _libc_signal() -> Callable[..., int] | None:
    function = _libc("signal")
    if function is not None and not function.argtypes:
        import ctypes

        function.argtypes = [ctypes.c_int, ctypes.c_void_p]
        function.restype = ctypes.c_void_p
    return cast(Callable[..., int] | None, function)


_PR_SET_PDEATHSIG = 1


def _prctl() -> Callable[..., int] | None:
    return (
        cast(Callable[..., int] | None, _libc("prctl"))
        if sys.platform.startswith("linux")
        else None
    )


_LIBC: dict[str, Any] = {}


def _libc(name: str) -> Any:
    """The C library's function ``name`` through ctypes, looked up once, or None
    where there is none."""
    if name not in _LIBC:
        try:
            import ctypes

            _LIBC[name] = getattr(ctypes.CDLL(None, use_errno=True), name)
        except (ImportError, OSError, AttributeError):
            _LIBC[name] = None
    return _LIBC[name]


def exit_status(returncode: int) -> int:
    """A Popen return code as a shell reports it: signal N becomes 128+N."""
    return 128 - returncode if returncode < 0 else returncode


class _LineSplitter:
    """Turns one stream's bytes into lines: incremental UTF-8, bounded lines."""

    __slots__ = ("fd", "_decoder", "_buffer", "count")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self.count = 0

    def feed(self, data: bytes, now: float, final: bool = False) -> list[OutputLine]:
        text = self._decoder.decode(data, final)
        lines: list[OutputLine] = []
        if "\n" in text:
            parts = (self._buffer + text).split("\n")
            self._buffer = parts.pop()
            for part in parts:
                if part.endswith("\r"):
                    part = part[:-1]
                self._emit(part, now, lines, ended=True)
        else:
            self._buffer += text
        while len(self._buffer) >= MAX_LINE:
            self._emit(self._buffer[:MAX_LINE], now, lines, ended=False)
            self._buffer = self._buffer[MAX_LINE:]
        if final and self._buffer:
            self._emit(self._buffer, now, lines, ended=True)
            self._buffer = ""
        return lines

    def _emit(self, text: str, now: float, into: list[OutputLine], ended: bool) -> None:
        while len(text) > MAX_LINE:
            into.append(OutputLine(now, self.fd, text[:MAX_LINE], cut=True))
            text = text[MAX_LINE:]
        into.append(OutputLine(now, self.fd, text, cut=not ended))
        if ended:
            self.count += 1


class Run:
    """One execution of a command, captured line by line.

    ``env`` is the child's whole environment (None: osdoctor's own), always
    with ``PYTHONUNBUFFERED=1`` so that its streams interleave as the user
    would see them. Every line goes, redacted, to ``session`` and then to
    ``on_line`` (on the reader thread); ``wait()`` returns the RunResult.
    ``cancel_grace`` is the wait between the signals of a cancel.
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        on_line: Callable[[OutputLine], object] | None = None,
        session: Recorder | None = None,
        cancel_grace: float = CANCEL_GRACE,
    ) -> None:
        self.argv = tuple(argv)
        self._env = dict(os.environ if env is None else env)
        self._env.setdefault("PYTHONUNBUFFERED", "1")
        self._cwd = cwd
        self._grace = cancel_grace
        self._on_line = on_line
        self._session = session
        self._process: subprocess.Popen[bytes] | None = None
        """The client's watcher (``start_watched``)."""
        self._client_pid: int | None = None
        self._start = 0.0
        self._exit_time: float | None = None
        self._exited = threading.Event()
        self._done = threading.Event()
        self._nudge = threading.Event()
        self._lock = threading.Lock()
        self._cancel_time: float | None = None
        self._escalation: threading.Thread | None = None
        self._notes: list[str] = []
        self._prompt_failed = False
        self._wake_r = -1
        self._wake_w = -1
        self._result: RunResult | None = None
        self.callback_error: BaseException | None = None
        """The first exception ``on_line`` raised; later lines skip the callback."""

    # -- public -----------------------------------------------------------

    @property
    def pid(self) -> int | None:
        """The client's pid once started, also the id of the process group that
        the client and what it starts run in."""
        return self._client_pid

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def cancelling(self) -> bool:
        """cancel() was called: the SIGINT, SIGTERM, SIGKILL sequence is under way."""
        return self._escalation is not None

    def start(self) -> None:
        """Start the command; raise CommandError when it cannot be started."""
        if self._process is not None:
            raise RuntimeError("this Run was already started")
        self._check_startable()
        started = datetime.now(UTC)
        if self._session is not None:
            self._session.begin(self.argv, started)
        self._start = time.monotonic()
        try:
            watched = start_watched(
                self.argv,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self._env,
                cwd=self._cwd,
            )
        except (OSError, ValueError, CommandError) as error:
            message = str(error) if isinstance(error, CommandError) else self._start_failure(error)
            if self._session is not None:
                self._session.note(message)
                self._session.close(None)
            raise CommandError(message) from None
        self._process, self._client_pid = watched.process, watched.pid
        self._wake_r, self._wake_w = os.pipe()
        threading.Thread(target=self._wait_exit, name="osdoctor-run-wait", daemon=True).start()
        threading.Thread(target=self._read, name="osdoctor-run-read", daemon=True).start()

    def wait(self, timeout: float | None = None) -> RunResult:
        """Wait for the end of the run; raise TimeoutError if ``timeout`` passes first."""
        if self._process is None:
            raise RuntimeError("this Run was not started")
        if not self._done.wait(timeout):
            raise TimeoutError(f"{self.argv[0]} still running after {timeout} s")
        assert self._result is not None
        return self._result

    def cancel(self) -> None:
        """Stop the command: SIGINT to its process group now, SIGTERM and then
        SIGKILL each CANCEL_GRACE seconds later while anything of it is left.

        Returns at once; wait() returns when the group is gone. Calling it
        again skips the remaining grace period and sends the next signal.
        """
        with self._lock:
            if self._process is None or self._done.is_set():
                return
            if self._escalation is not None:
                self._nudge.set()
                return
            if not self._exited.is_set():
                self._cancel_time = time.monotonic() - self._start
            self._signal_group(signal.SIGINT)
            self._escalation = threading.Thread(
                target=self._escalate, name="osdoctor-run-cancel", daemon=True
            )
            self._escalation.start()

    # -- starting ----------------------------------------------------------

    def _check_startable(self) -> None:
        if not self.argv or not self.argv[0]:
            raise CommandError("no command given")
        if self._cwd is not None and not os.path.isdir(self._cwd):
            raise CommandError(f"cannot run in {self._cwd}: no such folder")

    def _start_failure(self, error: OSError | ValueError) -> str:
        exe = self.argv[0]
        if isinstance(error, ValueError):
            return f"{exe!r}: cannot run: {error}"
        if isinstance(error, FileNotFoundError):
            if os.sep in exe:
                return f"{exe}: no such file"
            return f"{exe}: command not found"
        if isinstance(error, PermissionError):
            if os.path.isdir(exe):
                return f"{exe}: is a folder, not a command"
            return f"{exe}: permission denied (not executable)"
        return f"{exe}: cannot execute: {error.strerror or error}"

    # -- threads -----------------------------------------------------------

    def _wait_exit(self) -> None:
        assert self._process is not None
        self._process.wait()
        self._exit_time = time.monotonic() - self._start
        os.write(self._wake_w, b"x")  # before the event: the reader closes the pipe after it
        self._exited.set()

    def _read(self) -> None:
        process = self._process
        assert process is not None and process.stdout and process.stderr
        splitters = {
            process.stdout.fileno(): _LineSplitter(1),
            process.stderr.fileno(): _LineSplitter(2),
        }
        selector = selectors.DefaultSelector()
        for fd in splitters:
            selector.register(fd, selectors.EVENT_READ)
        selector.register(self._wake_r, selectors.EVENT_READ)
        counted = list(splitters.values())
        try:
            self._pump(selector, splitters)
        except Exception as error:  # never leave wait() hanging on a bug here
            self._notes.append(f"output capture stopped early: {error!r}")
        finally:
            selector.close()
            process.stdout.close()
            process.stderr.close()
        self._exited.wait()
        with self._lock:
            escalation = self._escalation
        if escalation is not None:
            escalation.join()
        os.close(self._wake_r)
        os.close(self._wake_w)
        self._finish(counted[0].count, counted[1].count)

    def _pump(self, selector: selectors.BaseSelector, splitters: dict[int, _LineSplitter]) -> None:
        """Read both pipes until EOF, or until a short while after the client
        exited if something it left behind still holds them open."""
        open_fds = set(splitters)
        drain_deadline: float | None = None
        while open_fds:
            timeout = None
            if drain_deadline is not None:
                timeout = min(DRAIN_IDLE, drain_deadline - time.monotonic())
                if timeout <= 0:
                    break
            events = selector.select(timeout)
            if not events and drain_deadline is not None:
                break
            batch: list[OutputLine] = []
            for key, _ in events:
                fd = int(key.fd)
                if fd == self._wake_r:
                    os.read(fd, 64)
                    selector.unregister(fd)
                    drain_deadline = time.monotonic() + DRAIN_LIMIT
                    continue
                data = os.read(fd, _READ_SIZE)
                now = time.monotonic() - self._start
                if data:
                    batch.extend(splitters[fd].feed(data, now))
                else:
                    batch.extend(splitters[fd].feed(b"", now, final=True))
                    selector.unregister(fd)
                    open_fds.discard(fd)
            self._deliver(batch)
        if open_fds:
            self._notes.append(LEFT_OPEN_NOTE)
        now = time.monotonic() - self._start
        self._deliver([line for fd in open_fds for line in splitters[fd].feed(b"", now, True)])

    def _deliver(self, batch: list[OutputLine]) -> None:
        if not batch:
            return
        # Saved first, shown second: what the user saw is already on disk.
        if self._session is not None:
            try:
                self._session.write_lines(batch)
            except OSError as error:
                self._notes.append(f"session file not written further: {error.strerror}")
                self._session = None
        for line in batch:
            if not self._prompt_failed and (
                _PROMPT_FAILURE.search(line.text)
                or (not line.cut and _PROMPT_AT_END.search(line.text))
            ):
                self._prompt_failed = True
            if self._on_line is not None:
                try:
                    self._on_line(line)
                except Exception as error:  # a broken display must not stall the child
                    self.callback_error = error
                    self._on_line = None

    def _finish(self, stdout_lines: int, stderr_lines: int) -> None:
        process = self._process
        assert process is not None and process.returncode is not None
        returncode = process.returncode
        if self._prompt_failed:
            self._notes.insert(0, PROMPT_NOTE)
        duration = self._exit_time if self._exit_time is not None else 0.0
        session = self._session
        result = RunResult(
            argv=self.argv,
            exit_code=exit_status(returncode),
            signal=-returncode if returncode < 0 else None,
            duration=duration,
            cancelled=self._cancel_time is not None,
            notes=tuple(self._notes),
            stdout_lines=stdout_lines,
            stderr_lines=stderr_lines,
            session_path=session.path if session is not None else None,
        )
        if session is not None:
            try:
                session.close(result)
            except OSError:
                pass
        self._result = result
        self._done.set()

    # -- cancelling --------------------------------------------------------

    def _escalate(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self._group_gone_within(self._grace):
                return
            self._nudge.clear()
            self._signal_group(sig)
        self._group_gone_within(self._grace)

    def _group_gone_within(self, seconds: float) -> bool:
        deadline = time.monotonic() + seconds
        while True:
            if self._exited.is_set() and not self._group_alive():
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if self._nudge.wait(min(remaining, 0.05)):
                return False

    def _group_alive(self) -> bool:
        assert self._client_pid is not None
        return group_alive(self._client_pid)

    def _signal_group(self, sig: signal.Signals) -> None:
        assert self._client_pid is not None
        try:
            os.killpg(self._client_pid, sig)
        except ProcessLookupError:
            return
        if self._session is not None:
            try:
                self._session.cancelled(sig.name, time.monotonic() - self._start)
            except OSError:
                pass


def group_alive(pgid: int) -> bool:
    """True while process group ``pgid`` has a member that is not a zombie.

    Zombies count as gone: they no longer run, and orphans are reaped by init
    (which, in some containers, never happens).
    """
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


def run_foreground(
    argv: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    on_line: Callable[[OutputLine], object] | None = None,
    session: Recorder | None = None,
    cancel_grace: float = CANCEL_GRACE,
) -> RunResult:
    """Run to the end in this thread; Ctrl-C cancels the command (a second
    Ctrl-C skips the grace period) instead of leaving it running.

    The child has its own process group, so the terminal's Ctrl-C reaches
    osdoctor only: this function forwards it. SIGTERM and SIGHUP cancel the
    command the same way (repeating them does not shorten the grace); once it
    has ended (and the session is closed), Stopped is raised with its result.
    """
    run = Run(argv, env=env, cwd=cwd, on_line=on_line, session=session, cancel_grace=cancel_grace)
    received: list[int] = []
    waiting = threading.Event()

    def on_stop(signum: int) -> None:
        received.append(signum)
        if waiting.is_set():  # only a wait is left by an exception, never a start
            raise _Signalled(signum)

    # Set before the start: a signal that comes as the client starts is not lost.
    with on_stop_signals(on_stop):
        run.start()
        stop_cancelled = False
        interrupts = handled = 0
        while True:
            try:
                # The first stop signal cancels; more of them (``timeout`` signals
                # osdoctor and its group alike) must not cut the grace short.
                if received and not stop_cancelled:
                    stop_cancelled = True
                    run.cancel()
                if interrupts > handled:
                    handled = interrupts
                    run.cancel()
                waiting.set()
                result = run.wait()
                break
            except KeyboardInterrupt:
                interrupts += 1
            except _Signalled:
                pass
            finally:
                waiting.clear()
    if received:
        raise Stopped(received[0], result)
    return result
