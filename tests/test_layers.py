"""The import contract: every module is listed on a floor, and imports only from
lower floors or from modules listed before it on its own; nothing imports in a
circle; the front ends keep apart; the core, what ``osdoctor explain`` loads, is
found by running it, and never loads Textual, an HTTP library or a front end.

Imports are read from the source with ``ast`` (nothing is imported): every
``import`` counts, at module level, inside a function, and under ``if
TYPE_CHECKING`` alike, since a circle of types is a circle of design too. A new
module fails ``test_every_module_is_listed_on_a_floor`` until it gets a line in
``FLOORS``, which is the point: its place is then decided, not drifted into.
Its line also decides what it may import: modules listed above it on its floor.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "osdoctor"
LOGS = ROOT / "tests" / "fixtures" / "logs"

#: Floors from the bottom up, each module named in full. On its floor, a module
#: may import only the modules listed before it (and any module of a lower floor).
#: probe is a service the CLI and the TUI both use, so it stands below them.
FLOORS: list[tuple[str, tuple[str, ...]]] = [
    (
        "base",
        (
            "osdoctor",
            "osdoctor.counts",
            "osdoctor.paths",
            "osdoctor.progress",
            "osdoctor.regex",
            "osdoctor.servicetable",
            "osdoctor.faultwords",
            "osdoctor.render.next_steps",
            "osdoctor.run",
            "osdoctor.run.programs",
            "osdoctor.run.watcher",
            "osdoctor.runs",
            "osdoctor.runs.forkmap",
            "osdoctor.secrets",
            "osdoctor.headers",
            "osdoctor.run.sessionfile",
            "osdoctor.secrets.passwordlists",
            "osdoctor.secrets.secretnames",
            "osdoctor.secrets.keymaterial",
            "osdoctor.secrets.optiondump",
            "osdoctor.secrets.secretsiblings",
            "osdoctor.secrets.secretstream",
            "osdoctor.secrets.commandsecrets",
            "osdoctor.secrets.redact",
            "osdoctor.run.cmdline",
        ),
    ),
    (
        "model",
        (
            "osdoctor.servicelog.record",
            "osdoctor.model",
        ),
    ),
    (
        "parse",
        (
            "osdoctor.parse",
            "osdoctor.parse.escaped",
            "osdoctor.parse.http_text",
            "osdoctor.parse.legacy",
            "osdoctor.parse.lines",
            "osdoctor.parse.paste",
            "osdoctor.parse.prefixes",
            "osdoctor.parse.retention",
            "osdoctor.parse.sentences",
            "osdoctor.parse.tracebacks",
            "osdoctor.parse.transport_kind",
            "osdoctor.parse.wrappers",
            "osdoctor.parse.line_source",
            "osdoctor.parse.unanswered",
            "osdoctor.parse.httplib_lines",
            "osdoctor.parse.answer_lines",
            "osdoctor.secrets.anonymize",
            "osdoctor.secrets.scrub",
            "osdoctor.servicelog",
            "osdoctor.servicelog.service_names",
            "osdoctor.parse.commands",
            "osdoctor.parse.record_starts",
            "osdoctor.parse.rounds",
            "osdoctor.parse.services",
            "osdoctor.parse.wraps",
            "osdoctor.parse.normaliser",
            "osdoctor.servicelog.shapes",
            "osdoctor.parse.bodies",
            "osdoctor.parse.clients",
            "osdoctor.parse.printed_messages",
            "osdoctor.parse.printed_resources",
            "osdoctor.parse.run_split",
            "osdoctor.servicelog.reader",
            "osdoctor.servicelog.sources",
            "osdoctor.parse.assembler",
            "osdoctor.servicelog.pasted",
            "osdoctor.parse.connections",
            "osdoctor.parse.legacy_records",
            "osdoctor.parse.request_lines",
            "osdoctor.parse.responses",
            "osdoctor.servicelog.join",
            "osdoctor.parse.round_path",
            "osdoctor.parse.run_lines",
            "osdoctor.parse.openings",
            "osdoctor.servicelog.scan",
            "osdoctor.parse.parser",
            "osdoctor.servicelog.attach",
        ),
    ),
    (
        "facts",
        (
            "osdoctor.facts.facts_model",
            "osdoctor.facts.fullest",
            "osdoctor.facts.known_names",
            "osdoctor.facts.quotes",
            "osdoctor.facts.fault_text",
            "osdoctor.facts.no_answer",
            "osdoctor.facts.resource_facts",
            "osdoctor.facts.server",
            "osdoctor.facts.printed",
            "osdoctor.facts.template_values",
            "osdoctor.facts.decisive",
            "osdoctor.facts",
        ),
    ),
    (
        "kb",
        (
            "osdoctor.kb",
            "osdoctor.kb.probes",
            "osdoctor.kb.regex_tree",
            "osdoctor.kb.runbook_pages",
            "osdoctor.kb.targets",
            "osdoctor.kb.yamlfile",
            "osdoctor.kb.cache",
            "osdoctor.kb.conditions",
            "osdoctor.kb.words",
            "osdoctor.kb.schema",
            "osdoctor.kb.text_placeholders",
            "osdoctor.kb.holes",
            "osdoctor.kb.loader",
            "osdoctor.kb.index",
            "osdoctor.kb.matcher",
            "osdoctor.kb.nearest",
        ),
    ),
    (
        "diagnose",
        (
            "osdoctor.intake",
            "osdoctor.runs.fingerprint",
            "osdoctor.runs.runworker",
            "osdoctor.diagnose",
            "osdoctor.runs.log_runs",
        ),
    ),
    (
        "render",
        (
            "osdoctor.render",
            "osdoctor.render.commonmark",
            "osdoctor.render.json_report",
            "osdoctor.render.rows",
            "osdoctor.runbook",
            "osdoctor.runbook.excerpts",
            "osdoctor.runbook.knowledge",
            "osdoctor.runbook.mermaid",
            "osdoctor.runbook.svg",
            "osdoctor.runbook.write",
            "osdoctor.render.common",
            "osdoctor.render.jsonl",
            "osdoctor.render.polls",
            "osdoctor.runbook.html",
            "osdoctor.runbook.lookup",
            "osdoctor.runbook.markdown_pages",
            "osdoctor.runbook.seeds",
            "osdoctor.library",
            "osdoctor.lint",
            "osdoctor.render.decisive_exchange",
            "osdoctor.render.markdown_report",
            "osdoctor.render.runs_report",
            "osdoctor.render.text",
            "osdoctor.runbook.build",
            "osdoctor.runs.batch",
        ),
    ),
    (
        "run",
        (
            "osdoctor.console",
            "osdoctor.run.runner",
            "osdoctor.run.live",
            "osdoctor.run.session",
        ),
    ),
    (
        "probe",
        (
            "osdoctor.probe",
            "osdoctor.probe.cloudconfig",
            "osdoctor.probe.scope",
            "osdoctor.probe.guard",
            "osdoctor.probe.keystone",
            "osdoctor.probe.checks",
            "osdoctor.probe.probe_runner",
            "osdoctor.probe.output",
            "osdoctor.probe.command",
        ),
    ),
    (
        "front ends",
        (
            "osdoctor.lab.case_placeholders",
            "osdoctor.lab.fakes",
            "osdoctor.lab.logspec",
            "osdoctor.lab.serving",
            "osdoctor.lab.tls",
            "osdoctor.lab.forkserver",
            "osdoctor.tui",
            "osdoctor.tui.diagram",
            "osdoctor.tui.linestore",
            "osdoctor.tui.palette",
            "osdoctor.tui.screens",
            "osdoctor.tui.screens.dialogs",
            "osdoctor.tui.screens.keys",
            "osdoctor.tui.steps",
            "osdoctor.tui.widgets",
            "osdoctor.tui.widgets.linelist",
            "osdoctor.tui.widgets.servicelog",
            "osdoctor.lab.config",
            "osdoctor.lab.proxy",
            "osdoctor.lab.servicelogs",
            "osdoctor.tui.widgets.diagnosis",
            "osdoctor.tui.widgets.rawlog",
            "osdoctor.tui.widgets.scenario",
            "osdoctor.tui.widgets.timeline",
            "osdoctor.tui.worker_messages",
            "osdoctor.lab.fault_bodies",
            "osdoctor.lab.formats",
            "osdoctor.lab.wheels",
            "osdoctor.tui.screens.runs_list",
            "osdoctor.tui.widgets.detail",
            "osdoctor.tui.workers",
            "osdoctor.lab.case",
            "osdoctor.lab.cloud",
            "osdoctor.tui.screens.incident",
            "osdoctor.lab.stub",
            "osdoctor.tui.app",
            "osdoctor.lab",
            "osdoctor.lab.forking",
            "osdoctor.lab.capture",
            "osdoctor.tui.launch",
            "osdoctor.lab.__main__",
            "osdoctor.cli",
        ),
    ),
    (
        "program",
        (
            "osdoctor.main",
            "osdoctor.__main__",
        ),
    ),
]


#: What the core never loads: Textual and its Rich, the HTTP libraries, a front end.
CORE_NEVER: tuple[str, ...] = (
    "textual",
    "rich",
    "httpx",
    "keystoneauth1",
    "osdoctor.cli",
    "osdoctor.tui",
    "osdoctor.probe",
    "osdoctor.lab",
    "osdoctor.main",
)
#: The front end that runs ``explain``: loaded with the core, not part of it.
EXPLAIN_FRONT_END = ("osdoctor.main", "osdoctor.__main__", "osdoctor.cli", "osdoctor.console")
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

Floors = list[tuple[str, tuple[str, ...]]]


def placing(floors: Floors) -> dict[str, tuple[int, int]]:
    """Each listed module's (floor, place on its floor)."""
    return {
        name: (rank, place)
        for rank, (_floor, names) in enumerate(floors)
        for place, name in enumerate(names)
    }


def unplaced(modules: list[str], floors: Floors) -> list[str]:
    """What the listing gets wrong: a module on no floor, a name listed that is no
    module (moved or deleted), a module listed twice."""
    listed = [name for _floor, names in floors for name in names]
    known = set(modules)
    return (
        [f"{name}: on no floor" for name in modules if name not in listed]
        + [f"{name}: listed, but no such module" for name in listed if name not in known]
        + sorted({f"{name}: listed twice" for name in listed if listed.count(name) > 1})
    )


def wrong_imports(edges: dict[str, dict[str, int]], floors: Floors) -> list[str]:
    """Every import of a module on a higher floor, or of a module listed at or after
    the importer on its own floor."""
    place = placing(floors)
    wrong = []
    for name, targets in sorted(edges.items()):
        if name not in place:
            continue
        low, low_at = place[name]
        for target, line in sorted(targets.items()):
            if target not in place:
                continue
            high, high_at = place[target]
            if high > low:
                wrong.append(
                    f"{name}:{line} ({floors[low][0]}) imports {target} ({floors[high][0]})"
                )
            elif high == low and high_at > low_at:
                wrong.append(
                    f"{name}:{line} imports {target}, listed after it on {floors[low][0]!r}"
                )
    return wrong


def test_every_module_is_listed_on_a_floor() -> None:
    wrong = unplaced(list(MODULES), FLOORS)
    assert not wrong, f"fix FLOORS in {Path(__file__).name}:\n" + "\n".join(wrong)


def test_no_module_imports_above_its_place() -> None:
    wrong = wrong_imports(EDGES, FLOORS)
    assert not wrong, "\n".join(wrong)


def test_the_listing_check_sees_a_new_module_and_a_stale_name() -> None:
    """The check above can fail: a module added and not placed is reported, and so
    is a name left on a floor after its module went."""
    floors: Floors = [("base", ("osdoctor", "osdoctor.gone", "osdoctor")), ("top", ("osdoctor.b",))]
    assert unplaced(["osdoctor", "osdoctor.b", "osdoctor.new"], floors) == [
        "osdoctor.new: on no floor",
        "osdoctor.gone: listed, but no such module",
        "osdoctor: listed twice",
    ]
    assert unplaced(list(MODULES), FLOORS + [("extra", ("osdoctor.made_up",))]) == [
        "osdoctor.made_up: listed, but no such module"
    ]


def test_the_import_check_sees_an_upward_and_an_out_of_order_import() -> None:
    floors: Floors = [("low", ("osdoctor.a", "osdoctor.b")), ("high", ("osdoctor.c",))]
    edges = {
        "osdoctor.a": {"osdoctor.b": 3, "json": 1},  # b is listed after a
        "osdoctor.b": {"osdoctor.a": 4, "osdoctor.c": 5},  # c is a floor up
        "osdoctor.c": {"osdoctor.a": 1, "osdoctor.b": 2},
    }
    assert wrong_imports(edges, floors) == [
        "osdoctor.a:3 imports osdoctor.b, listed after it on 'low'",
        "osdoctor.b:5 (low) imports osdoctor.c (high)",
    ]
    # and on the real floors: the model importing the TUI, a parser stage importing
    # the parser that is listed after it
    edges = {
        "osdoctor.model": {"osdoctor.tui.app": 9},
        "osdoctor.parse.lines": {"osdoctor.parse.parser": 2},
    }
    assert wrong_imports(edges, FLOORS) == [
        "osdoctor.model:9 (model) imports osdoctor.tui.app (front ends)",
        "osdoctor.parse.lines:2 imports osdoctor.parse.parser, listed after it on 'parse'",
    ]


#: Run in a child: ``osdoctor explain``, then every module it loaded, into a file.
_LOADED = """
import sys
from osdoctor.main import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
finally:
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        out.write("\\n".join(sorted(sys.modules)))
"""


def _loaded_by(tmp: Path, *argv: str) -> set[str]:
    listing = tmp / "modules.txt"
    env = {**os.environ, "OSDOCTOR_HOME": str(tmp / "home"), "PYTHONPATH": str(ROOT)}
    subprocess.run(
        [sys.executable, "-c", _LOADED, str(listing), "explain", *argv],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        check=False,
        timeout=120,
    )
    return set(listing.read_text(encoding="utf-8").split())


@pytest.fixture(scope="module")
def explain_loads(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    """Every module ``osdoctor explain`` loads: one run and a log of two, in text and
    JSON, with no knowledge cache yet (the first start reads and checks the YAML)
    and with it."""
    tmp = tmp_path_factory.mktemp("explain")
    two = tmp / "two.log"
    one = LOGS / "heat.stack-hook.poll-index-error.log"
    two.write_bytes(one.read_bytes() + (LOGS / "generic.bad-request.log").read_bytes())
    loaded: set[str] = set()
    for argv in ([str(one)], [str(one)], ["--format", "json", str(two)], [str(two)]):
        loaded |= _loaded_by(tmp, *argv)
    return loaded


def core_of(loaded: set[str]) -> set[str]:
    """The core: the modules of osdoctor that ``explain`` loads, but for the front
    end that runs it."""
    return {
        name
        for name in loaded
        if _within(name, "osdoctor")
        and name in MODULES
        and not any(_within(name, front) for front in EXPLAIN_FRONT_END)
    }


def test_explain_loads_the_core_and_nothing_it_must_not(explain_loads: set[str]) -> None:
    core = core_of(explain_loads)
    assert {"osdoctor.diagnose", "osdoctor.intake", "osdoctor.parse.parser"} <= core
    assert {"osdoctor.runs.log_runs", "osdoctor.render.json_report"} <= core
    wrong = sorted(
        name
        for name in explain_loads
        if any(_within(name, never) for never in CORE_NEVER)
        and not any(_within(name, front) for front in EXPLAIN_FRONT_END)
    )
    assert not wrong, wrong


def test_the_core_never_imports_textual_or_a_front_end(explain_loads: set[str]) -> None:
    """Not even in a function ``explain`` does not call: what the core may load on
    another path is read from its source."""
    wrong = [
        f"{MODULES[name].relative_to(ROOT)}:{line} imports {target}"
        for name in sorted(core_of(explain_loads))
        for target, line in EDGES[name].items()
        if any(_within(target, never) for never in CORE_NEVER)
    ]
    assert not wrong, "\n".join(wrong)


def test_the_core_stands_below_the_front_ends(explain_loads: set[str]) -> None:
    place = placing(FLOORS)
    front = next(rank for rank, (floor, _names) in enumerate(FLOORS) if floor == "front ends")
    high = sorted(name for name in core_of(explain_loads) if place[name][0] >= front)
    assert not high, high


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
