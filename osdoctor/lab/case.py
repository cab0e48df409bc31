"""Lab cases: one YAML file per client run to capture (see the lab README for every key).

A case lives at ``cases/<family>/<name>.yaml`` and its id is ``<family>.<name>``
(``cases/heat.stack-hook/poll-index-error.yaml`` is ``heat.stack-hook.poll-index-error``),
so ids are unique by construction and name their fixture files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from osdoctor.lab.config import ConfigError, StubConfig, check_keys, parse_stub_config
from osdoctor.lab.wheels import parse_requirement

CASES_DIR = Path(__file__).resolve().parent / "cases"
OUTCOMES = ("success", "failure", "unknown")
#: How the timeout ends a client: Ctrl-C (SIGINT) or a supervisor's SIGTERM.
INTERRUPTS = ("int", "term")
#: Where the client runs: beside the stub, or in a network namespace of its own.
NETWORKS = ("host", "isolated")
DEFAULT_TIMEOUT = 120.0

_KEYS = {
    "description",
    "scenario",
    "branch",
    "command",
    "debug",
    "env",
    "files",
    "timeout",
    "interrupt",
    "network",
    "wheels",
    "expect",
    "plain",
    "then",
    "stub",
    "routes",
}
_EXPECT_KEYS = {"exit_code", "outcome", "findings"}
#: A plain run's expectation may also name the scenario and branch its output
#: alone shows (it has no requests, so it may not be the debug run's).
_PLAIN_KEYS = _EXPECT_KEYS | {"scenario", "branch"}


@dataclass(frozen=True, slots=True)
class Expectation:
    """What the case declares; recorded in the fixture's ``.expected.yaml``."""

    exit_code: int | None
    outcome: str
    findings: tuple[str, ...] = ()
    scenario: str | None = None
    branch: str | None = None
    """For a plain run only: what its output shows (None: not checked)."""


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    path: Path
    scenario: str | None
    branch: str | None
    command: tuple[str, ...]
    expect: Expectation
    stub: StubConfig
    description: str = ""
    debug: bool = True
    """Insert ``--debug`` right after the executable."""
    env: Mapping[str, str | None] = field(default_factory=dict)
    """Added to the clean environment; None removes a default variable."""
    files: Mapping[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    """Seconds after which the client is interrupted (SIGINT, as Ctrl-C would) at the
    latest; a case says when the user interrupts with an answer's ``interrupt``."""
    interrupt: str = "int"
    """``int`` (Ctrl-C: the client may print its clean-up) or ``term`` (as ``timeout(1)``
    or a CI job ends it: killed mid-request, the log stops where it waited)."""
    network: str = "host"
    """``isolated``: the client runs in a network namespace with only a loopback that
    is down (``unshare -rn``), so it cannot even reach the stub, and a name lookup
    fails at once ("Temporary failure in name resolution") with no packet sent."""
    wheels: tuple[str, ...] = ()
    """Real releases (``osc-lib==2.6.0``) unpacked into the client's user
    site-packages and put first on its path: an old library shadowing the
    installed one (see ``osdoctor.lab.wheels``)."""
    then: tuple[tuple[str, ...], ...] = ()
    """Commands run after ``command``, in order, against the same stub and work dir:
    a session of several commands, as a ticket pastes them one after the other
    (each behind its prompt), the later ones showing what the earlier did."""
    plain: Expectation | None = None
    """When set, the client also runs without ``--debug`` against a fresh stub,
    and what it printed is kept beside the debug capture (``<id>.plain.log``):
    the output most tickets hold, from the same real client and answers."""

    @property
    def plain_id(self) -> str:
        """The fixture name of the run without ``--debug``."""
        return f"{self.id}.plain"


def _optional_str(raw: Mapping[str, Any], key: str) -> str | None:
    value = raw.get(key)
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{key}: expected a string or null")
    return value


def _expectation(raw: Any, key: str = "expect") -> Expectation:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{key}: required mapping (exit_code, outcome, findings)")
    check_keys(raw, _PLAIN_KEYS if key == "plain" else _EXPECT_KEYS, key)
    code = raw.get("exit_code")
    if code is not None and (isinstance(code, bool) or not isinstance(code, int)):
        raise ConfigError(f"{key}.exit_code: expected an integer or null")
    outcome = raw.get("outcome")
    if outcome not in OUTCOMES:
        raise ConfigError(f"{key}.outcome: expected one of {', '.join(OUTCOMES)}")
    findings = raw.get("findings") or []
    if not isinstance(findings, list) or not all(isinstance(f, str) for f in findings):
        raise ConfigError(f"{key}.findings: expected a list of finding ids")
    return Expectation(
        exit_code=code,
        outcome=outcome,
        findings=tuple(findings),
        scenario=_optional_str(raw, "scenario"),
        branch=_optional_str(raw, "branch"),
    )


def _files(raw: Any) -> dict[str, str]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ConfigError("files: expected a mapping of relative path to content")
    files = {}
    for name, content in raw.items():
        rel = PurePosixPath(str(name))
        if rel.is_absolute() or ".." in rel.parts:
            raise ConfigError(f"files: {name!r} must be a relative path inside the work dir")
        if not isinstance(content, str):
            raise ConfigError(f"files.{name}: expected text")
        files[str(rel)] = content
    return files


def _env(raw: Any) -> dict[str, str | None]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ConfigError("env: expected a mapping")
    env: dict[str, str | None] = {}
    for key, value in raw.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, str | int)):
            raise ConfigError(f"env.{key}: expected a string or null")
        env[str(key)] = None if value is None else str(value)
    return env


def load_case(path: Path) -> Case:
    """Read and check one case file; a :class:`ConfigError` names the file and the key."""
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None
    try:
        return _parse_case(raw, path)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def _command(command: Any, key: str) -> list[str]:
    if (
        not isinstance(command, list)
        or not command
        or not all(
            isinstance(arg, str | int | float) and not isinstance(arg, bool) for arg in command
        )
    ):
        raise ConfigError(f"{key}: expected a non-empty list of arguments")
    if "/" in str(command[0]):
        raise ConfigError(f"{key}[0]: give the client's name (openstack, heat...), not a path")
    return [str(arg) for arg in command]


def _parse_case(raw: Any, path: Path) -> Case:
    if not isinstance(raw, Mapping):
        raise ConfigError("expected a mapping at the top level")
    check_keys(raw, _KEYS, "case")
    command = _command(raw.get("command"), "command")
    then = raw.get("then") or []
    if not isinstance(then, list):
        raise ConfigError("then: expected a list of commands")
    more = tuple(tuple(_command(c, f"then[{i}]")) for i, c in enumerate(then))
    timeout = raw.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0:
        raise ConfigError("timeout: expected a positive number of seconds")
    interrupt = raw.get("interrupt", "int")
    if interrupt not in INTERRUPTS:
        raise ConfigError(f"interrupt: expected one of {', '.join(INTERRUPTS)}")
    network = raw.get("network", "host")
    if network not in NETWORKS:
        raise ConfigError(f"network: expected one of {', '.join(NETWORKS)}")
    debug = raw.get("debug", True)
    if not isinstance(debug, bool):
        raise ConfigError("debug: expected true or false")
    description = raw.get("description") or ""
    if not isinstance(description, str):
        raise ConfigError("description: expected text")
    wheels = raw.get("wheels") or []
    if not isinstance(wheels, list) or not all(isinstance(w, str) for w in wheels):
        raise ConfigError("wheels: expected a list of NAME==VERSION")
    for wheel in wheels:
        parse_requirement(wheel)
    stub = parse_stub_config(raw.get("stub"), raw.get("routes"))
    plain = _expectation(raw["plain"], "plain") if raw.get("plain") is not None else None
    if plain is not None and not debug:
        raise ConfigError("plain: the case already runs without --debug (debug: false)")
    return Case(
        id=f"{path.parent.name}.{path.stem}",
        path=path,
        scenario=_optional_str(raw, "scenario"),
        branch=_optional_str(raw, "branch"),
        command=tuple(command),
        then=more,
        expect=_expectation(raw.get("expect")),
        stub=stub,
        description=description.strip(),
        debug=debug,
        env=_env(raw.get("env")),
        files=_files(raw.get("files")),
        timeout=float(timeout),
        interrupt=interrupt,
        network=network,
        wheels=tuple(wheels),
        plain=plain,
    )


def all_cases(root: Path = CASES_DIR) -> list[Case]:
    """Every case under ``root``, sorted by id."""
    return sorted((load_case(p) for p in root.glob("*/*.yaml")), key=lambda c: c.id)


def select_cases(patterns: Iterable[str], root: Path = CASES_DIR) -> list[Case]:
    """Cases whose id equals, globs (``heat.*``) or starts with (``heat.stack-hook``) a pattern.

    No pattern selects every case; a pattern that selects nothing is an error.
    """
    cases = all_cases(root)
    wanted = list(patterns)
    if not wanted:
        return cases
    chosen: dict[str, Case] = {}
    for pattern in wanted:
        hits = [
            case
            for case in cases
            if case.id == pattern
            or fnmatchcase(case.id, pattern)
            or case.id.startswith(pattern.rstrip(".") + ".")
        ]
        if not hits:
            raise ConfigError(f"no case matches {pattern!r} (see: python -m osdoctor.lab list)")
        chosen.update((case.id, case) for case in hits)
    return sorted(chosen.values(), key=lambda c: c.id)
