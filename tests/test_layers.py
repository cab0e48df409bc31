"""The import contract: every module stands on a floor, and imports only from its own
floor or below; nothing imports in a circle; the front ends keep apart.

Read from the source with ``ast`` (nothing is imported): every ``import`` counts,
at module level, inside a function, and under ``if TYPE_CHECKING`` alike, since a
circle of types is a circle of design too. A new module inside a package takes
the package's floor; a new module at the top of ``osdoctor`` gets a line in
``FLOORS``, which is the point: its place is then decided, not drifted into.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "osdoctor"

#: Floors from the bottom up; a module is placed by its longest matching prefix
#: (a name may be placed before its module exists).
FLOORS: list[tuple[str, tuple[str, ...]]] = [
    (
        "base",
        (
            "osdoctor",
            "osdoctor.regex",
            "osdoctor.runs.forkmap",
            "osdoctor.secrets.secretnames",
            "osdoctor.secrets.keymaterial",
            "osdoctor.secrets.secretsiblings",
            "osdoctor.secrets.passwordlists",
            "osdoctor.secrets.optiondump",
            "osdoctor.run.programs",
            "osdoctor.secrets.secretstream",
            "osdoctor.secrets.commandsecrets",
            "osdoctor.secrets.redact",
            "osdoctor.run.cmdline",
            "osdoctor.paths",
            "osdoctor.progress",
            "osdoctor.headers",
            "osdoctor.run.sessionfile",
            "osdoctor.render.next_steps",
            "osdoctor.counts",
            "osdoctor.runbook.pages",
            "osdoctor.run.watcher",
        ),
    ),
    ("model", ("osdoctor.model", "osdoctor.servicelog.record")),
    (
        "parse",
        (
            "osdoctor.parse",
            "osdoctor.secrets.scrub",
            "osdoctor.secrets.anonymize",
            "osdoctor.servicelog",
        ),
    ),
    ("facts", ("osdoctor.facts",)),
    ("kb", ("osdoctor.kb",)),
    (
        "diagnose",
        (
            "osdoctor.diagnose",
            "osdoctor.intake",
            "osdoctor.runs.runworker",
            "osdoctor.runs.log_runs",
            "osdoctor.runs.fingerprint",
        ),
    ),
    (
        "render",
        (
            "osdoctor.render",
            "osdoctor.lint",
            "osdoctor.runbook",
            "osdoctor.runs.batch",
            "osdoctor.library",
        ),
    ),
    (
        "run",
        ("osdoctor.run.runner", "osdoctor.run.session", "osdoctor.run.live", "osdoctor.console"),
    ),
    ("front ends", ("osdoctor.cli", "osdoctor.probe", "osdoctor.tui", "osdoctor.lab")),
    ("program", ("osdoctor.main", "osdoctor.__main__")),
]
#: The core every front end stands on: never Textual, never a front end.
CORE = (
    "osdoctor.model",
    "osdoctor.servicelog",
    "osdoctor.headers",
    "osdoctor.parse",
    "osdoctor.facts",
    "osdoctor.kb",
    "osdoctor.render",
    "osdoctor.diagnose",
    "osdoctor.intake",
    "osdoctor.run.cmdline",
    "osdoctor.secrets.commandsecrets",
    "osdoctor.run.sessionfile",
)
CORE_NEVER: tuple[str, ...] = (
    "textual",
    "rich",
    "httpx",
    "keystoneauth1",
    "osdoctor.cli",
    "osdoctor.tui",
)
CORE_NEVER += ("osdoctor.probe", "osdoctor.main")
#: Front ends that must not import each other: (importer, imported).
APART = [
    ("osdoctor.tui", "osdoctor.cli"),
    ("osdoctor.cli", "osdoctor.tui"),
    ("osdoctor.probe", "osdoctor.cli"),
    ("osdoctor.probe", "osdoctor.tui"),
]


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imported(name: str, path: Path) -> Iterator[tuple[str, int]]:
    """(module imported, line) for every import in the file, resolved to a module of
    osdoctor where it names one (``from osdoctor.x import y`` is ``osdoctor.x.y``
    when that is a module), else the top-level name of the library."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield _resolve(alias.name), node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package
                for _ in range(node.level - 1):
                    up = up.rpartition(".")[0]
                base = f"{up}.{base}" if node.module else up
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield (full if full in MODULES else _resolve(base)), node.lineno


def _resolve(name: str) -> str:
    probe = name
    while probe:
        if probe in MODULES:
            return probe
        probe = probe.rpartition(".")[0]
    return name.partition(".")[0]


EDGES: dict[str, dict[str, int]] = {
    name: {target: line for target, line in _imported(name, path) if target != name}
    for name, path in MODULES.items()
}


def floor_of(name: str) -> int | None:
    best: tuple[int, int] | None = None
    for rank, (_floor, prefixes) in enumerate(FLOORS):
        for prefix in prefixes:
            if _within(name, prefix) and (best is None or len(prefix) > best[1]):
                best = (rank, len(prefix))
    return best[0] if best is not None else None


def test_every_module_has_a_floor() -> None:
    unplaced = [name for name in MODULES if floor_of(name) is None]
    assert not unplaced, f"add these modules to FLOORS in {Path(__file__).name}: {unplaced}"


def test_no_module_imports_from_a_higher_floor() -> None:
    wrong = []
    for name, targets in EDGES.items():
        low = floor_of(name)
        for target, line in targets.items():
            high = floor_of(target) if target in MODULES else None
            if low is not None and high is not None and high > low:
                wrong.append(
                    f"{MODULES[name].relative_to(ROOT)}:{line} ({FLOORS[low][0]}) imports "
                    f"{target} ({FLOORS[high][0]})"
                )
    assert not wrong, "\n".join(wrong)


def test_the_core_never_imports_textual_or_a_front_end() -> None:
    wrong = [
        f"{MODULES[name].relative_to(ROOT)}:{line} imports {target}"
        for name, targets in EDGES.items()
        if any(_within(name, core) for core in CORE)
        for target, line in targets.items()
        if any(_within(target, never) for never in CORE_NEVER)
    ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(("importer", "imported"), APART, ids=[f"{a}-{b}" for a, b in APART])
def test_front_ends_keep_apart(importer: str, imported: str) -> None:
    wrong = [
        f"{MODULES[name].relative_to(ROOT)}:{line} imports {target}"
        for name, targets in EDGES.items()
        if _within(name, importer)
        for target, line in targets.items()
        if _within(target, imported)
    ]
    assert not wrong, "\n".join(wrong)


def find_cycle(edges: dict[str, dict[str, int]]) -> list[str] | None:
    """One import circle as ``[a, b, ..., a]``, or None: a depth-first search that
    meets a module still on its path has gone round."""
    state: dict[str, int] = {}  # 1 on the path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(edges.get(node, {})):
            if target not in edges:
                continue
            if state.get(target) == 1:
                return path[path.index(target) :] + [target]
            if target not in state:
                found = visit(target)
                if found is not None:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(edges):
        if start not in state:
            found = visit(start)
            if found is not None:
                return found
    return None


def test_no_import_circle() -> None:
    cycle = find_cycle(EDGES)
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_the_circle_finder_reports_a_circle() -> None:
    """The check above can fail: a made-up circle of three is found and named."""
    edges = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}}
    assert find_cycle(edges) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b": 1}, "b": {}}) is None


def test_the_floor_check_sees_an_upward_import() -> None:
    """An import of the TUI from the model would be caught: the floors order them."""
    model, tui = floor_of("osdoctor.model"), floor_of("osdoctor.tui.app")
    assert model is not None and tui is not None and model < tui


def shared_basenames(paths: list[Path]) -> dict[str, list[str]]:
    """Module file names held by more than one module (``__init__`` and ``__main__``
    excepted): a name says what its module holds, so two modules never share one."""
    seen: dict[str, list[str]] = {}
    for path in paths:
        if path.stem not in ("__init__", "__main__"):
            seen.setdefault(path.name, []).append(path.relative_to(ROOT).as_posix())
    return {name: sorted(where) for name, where in seen.items() if len(where) > 1}


def test_no_two_modules_share_a_name() -> None:
    shared = shared_basenames(list(MODULES.values()))
    assert not shared, f"rename so that each name says what it holds: {shared}"


def test_the_name_check_sees_a_shared_name() -> None:
    paths = [PACKAGE / "parse" / "runs.py", PACKAGE / "render" / "runs.py", PACKAGE / "a.py"]
    assert shared_basenames(paths) == {
        "runs.py": ["osdoctor/parse/runs.py", "osdoctor/render/runs.py"]
    }
