"""No second table of services in Python: ``knowledge/services.yaml`` is the only one.

The tables of service types, project names and ports were once kept in four
modules, and the copies disagreed (8776 was ``block-storage`` in one and
``volume`` in another). Read from the source with ``ast``: a literal dict, set,
tuple or list that holds three or more of the table's service types and
aliases, of its project names, or of its ports (as text or number), as keys,
values or elements, or across a list of pairs (``[(pattern, "compute"), ...]``),
is a second table. The project's own lowercase names (``nova``) are left out:
they are the client programs' names too, which command-line tables rightly list.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from osdoctor.servicetable import table

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "osdoctor"

#: Literals that hold such words for another reason, by (file, name bound): each says why.
ALLOWED: dict[tuple[str, str], str] = {
    ("osdoctor/parse/commands.py", "_NOUNS"): "the nouns of openstack's commands",
    (
        "osdoctor/parse/printed_resources.py",
        "_LEGACY_TYPES",
    ): "the resource a legacy client acts on",
    ("osdoctor/parse/services.py", "_KNOWN"): "path patterns when no catalog says",
}


def _vocabularies() -> dict[str, set[str]]:
    services = table().services
    return {
        "service types": {name for s in services for name in s.names},
        "project names": {s.project for s in services},
        "ports": {str(p) for s in services for p in s.ports}
        | {str(p) for ports in table().peers.values() for p in ports},
    }


def _constants(nodes: list[ast.expr | None]) -> set[str]:
    return {
        str(n.value)
        for n in nodes
        if isinstance(n, ast.Constant)
        and isinstance(n.value, str | int)
        and not isinstance(n.value, bool)
    }


def _literal_words(node: ast.AST) -> set[str]:
    """The constants a literal holds directly, or across its pairs."""
    if isinstance(node, ast.Dict):
        return _constants([*node.keys, *node.values])
    if isinstance(node, ast.Set | ast.Tuple | ast.List):
        words = _constants(list(node.elts))
        if node.elts and all(isinstance(e, ast.Tuple) for e in node.elts):
            for pair in node.elts:
                assert isinstance(pair, ast.Tuple)
                words |= _constants(list(pair.elts))
        return words
    return set()


def _bound_names(tree: ast.Module) -> dict[int, str]:
    """The name each top-level (or class-level) assignment's value is bound to, by the
    value's position."""
    out: dict[int, str] = {}
    statements = list(tree.body)
    statements += [s for c in tree.body if isinstance(c, ast.ClassDef) for s in c.body]
    for node in statements:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            for inner in ast.walk(node.value):
                if names:
                    out.setdefault(id(inner), names[0])
    return out


VOCABULARIES = _vocabularies()


def second_tables(text: str, where: str) -> Iterator[str]:
    """``file:line name: what it holds`` for each literal in the text that is a table."""
    vocabularies = VOCABULARIES
    tree = ast.parse(text)
    bound = _bound_names(tree)
    for node in ast.walk(tree):
        words = _literal_words(node)
        if len(words) < 3:
            continue
        name = bound.get(id(node), "")
        if (where, name) in ALLOWED:
            continue
        for kind, vocabulary in vocabularies.items():
            hit = sorted(words & vocabulary)
            if len(hit) >= 3:
                line = getattr(node, "lineno", 0)
                yield f"{where}:{line} {name or '(literal)'} holds {kind} {hit[:5]}"


def test_no_module_keeps_a_second_table_of_services() -> None:
    found = [
        problem
        for path in sorted(PACKAGE.rglob("*.py"))
        for problem in second_tables(
            path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix()
        )
    ]
    assert not found, (
        "read these from knowledge/services.yaml (osdoctor.servicetable) instead:\n"
        + "\n".join(found)
    )


def test_the_scan_finds_a_second_table_in_any_shape() -> None:
    """The check can fail: each way the old copies were written is caught."""
    text = (
        '_PORTS = {"8774": "compute", "8776": "volume", "9292": "image"}\n'
        'NAMES = {"compute": "Nova", "network": "Neutron", "image": "Glance"}\n'
        "def f():\n"
        "    return {8774: 1, 9696: 2, 5000: 3}\n"
        '_PAIRS = [(r"^nova", "compute"), (r"^cinder", "volumev3"), (r"^swift", "object-store")]\n'
        'FINE = {"compute": 1, "nova": 2}\n'
    )
    found = sorted(
        second_tables(text, "osdoctor/synthetic.py"), key=lambda f: int(f.split(":")[1].split()[0])
    )
    assert [f.partition(" holds ")[0] for f in found] == [
        "osdoctor/synthetic.py:1 _PORTS",
        "osdoctor/synthetic.py:1 _PORTS",
        "osdoctor/synthetic.py:2 NAMES",
        "osdoctor/synthetic.py:2 NAMES",
        "osdoctor/synthetic.py:4 (literal)",
        "osdoctor/synthetic.py:5 _PAIRS",
    ], found
    assert any("ports ['8774', '8776', '9292']" in f for f in found)


def test_an_allowed_literal_is_allowed_only_where_it_is() -> None:
    nouns = 'X = 1\n_NOUNS = frozenset({"network", "image", "volume", "compute"})\n'
    assert list(second_tables(nouns, "osdoctor/parse/commands.py")) == []
    assert list(second_tables(nouns, "osdoctor/parse/other.py")) != []
