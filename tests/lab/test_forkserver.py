"""A client forked by the lab's fork server prints and exits as the exec'd one.

The recapture forks its clients (``osdoctor.lab.forking``) to pay their
imports once; what it checks is only worth something if a forked client is
the exec'd one. Each case below runs both ways, and the two outputs must be
equal once what differs between any two captures is set aside (the stub's
ephemeral port, object addresses, times, durations), with the same exit status.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from osdoctor.lab.capture import CaptureResult, capture_case, client_bin_dir
from osdoctor.lab.case import select_cases
from osdoctor.lab.forking import ForkServers, Server

#: One of each kind of run: a debug run and its plain one, a client's traceback,
#: a run interrupted by SIGINT and one by SIGTERM, TLS, a proxy, a slow answer,
#: a session of two commands, a clouds.yaml in the work dir, each client.
CASES = (
    "ironic.provision-wait.failed",  # debug and plain, baremetal
    "generic.auth-no-role",  # the client's traceback under --debug
    "generic.hung",  # SIGINT
    "generic.hung-killed",  # SIGTERM, then SIGINT
    "generic.tls-self-signed",
    "osc.auth.keystone-unreachable-tls",
    "generic.proxy-tunnel-403",
    "generic.timeout",
    "heat.software-deployment.tempurl-swift",  # heat
    "generic.swift-list-no-object-store",  # swift
    "generic.locked-server-lock-then-reboot",  # then:
    "osc.auth.secret-configuration-yaml",  # OS_CLOUD and a clouds.yaml
    "generic.osc-command-unknown-removed",  # the program's name, read at import
)

_NEUTRAL = [
    (re.compile(rb"127\.0\.0\.1:\d+"), b"127.0.0.1:PORT"),
    (re.compile(rb"port=\d+"), b"port=PORT"),
    (re.compile(rb"0x[0-9a-f]+"), b"0xADDR"),
    # a TempURL's expiry (now + its lifetime) and so its signature
    (re.compile(rb"temp_url_sig=[0-9a-f]+&temp_url_expires=\d+"), b"TEMPURL"),
    # a client's own uuid4 (heat's deployment names), and the request ids
    (re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), b"UUID"),
    (re.compile(rb"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?"), b"TIME"),
    (re.compile(rb"\b\d+\.\d+ ?(?:s|sec|seconds)\b"), b"SECONDS"),
]


def neutral(data: bytes) -> bytes:
    for pattern, replacement in _NEUTRAL:
        data = pattern.sub(replacement, data)
    return data


def _runs(result: CaptureResult) -> list[CaptureResult]:
    return [result, *([result.plain] if result.plain is not None else [])]


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForkServers]:
    if not (client_bin_dir() / "openstack").is_file():
        pytest.fail("the lab needs the real clients: pip install -e '.[lab]'")
    with ForkServers(tmp_path_factory.mktemp("fork")) as forks:
        yield forks


@pytest.mark.parametrize("case_id", CASES)
def test_a_forked_client_prints_and_exits_as_the_execd_one(
    case_id: str, servers: ForkServers, tmp_path: Path
) -> None:
    (case,) = select_cases([case_id])
    # Both at once, each with its own stub, port and dirs: a run spends most of its
    # time waiting (on the stub's delays, a timeout, a retry interval).
    with ThreadPoolExecutor(2) as pool:
        execd_run = pool.submit(capture_case, case, tmp_path / "exec", workroot=tmp_path / "work")
        forked_run = pool.submit(capture_case, case, tmp_path / "fork", servers=servers)
        execd, forked = execd_run.result(), forked_run.result()
    assert len(_runs(execd)) == len(_runs(forked))
    for one, other in zip(_runs(execd), _runs(forked), strict=True):
        assert (one.exit_code, one.interrupted) == (other.exit_code, other.interrupted)
        assert neutral(one.output).decode() == neutral(other.output).decode()
        paths = [[neutral(r.path.encode()) for r in run.requests] for run in (one, other)]
        assert paths[0] == paths[1]


SCRIPT = """\
import atexit, os, sys, json
atexit.register(lambda: print("atexit ran", flush=True))
print("argv", sys.argv[1:], os.getcwd() == os.environ["WHERE"], sys.stdin.read() == "")
print("pgid is pid", os.getpgid(0) == os.getpid(), "ppid alive", os.getppid() > 1)
sys.stdout.write("buffered, ")
print("to stderr", file=sys.stderr)
how = sys.argv[1]
if how == "exit":
    sys.exit(int(sys.argv[2]))
if how == "message":
    sys.exit("a message")
if how == "raise":
    json.loads("{")
if how == "interrupt":
    raise KeyboardInterrupt
if how == "wait":
    print("waiting", flush=True)
    os.read(0, 1) or __import__("time").sleep(3600)
"""


@pytest.mark.parametrize(
    "args", [["exit", "0"], ["exit", "3"], ["message"], ["raise"], ["interrupt"]]
)
def test_the_interpreter_ends_a_forked_client_as_an_execd_one(
    args: list[str], tmp_path: Path
) -> None:
    script = tmp_path / "bin" / "client"
    script.parent.mkdir()
    script.write_text(f"#!{sys.executable}\n{SCRIPT}")
    script.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    env = {"PATH": "/usr/bin:/bin", "WHERE": str(work), "LC_ALL": "C.UTF-8"}
    execd = subprocess.run(
        [str(script), *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=work,
        process_group=0,  # as start_watched starts a client
        check=False,
    )
    server = Server(script, env, work, (), module="json")
    try:
        process, read = server.start([str(script), *args], env, work)
        with open(read, "rb") as pipe:
            output = pipe.read()
        code = process.wait()
    finally:
        server.close()
    assert output.decode() == execd.stdout.decode()
    assert code == execd.returncode
