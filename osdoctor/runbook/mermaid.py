"""A scenario's documented sequence as mermaid ``sequenceDiagram`` text.

The text is generated from the scenario file's ``participants`` and
``diagram``, which mirror the seed's diagram: GitHub, GitLab and MkDocs render
it, and a reviewer can compare it with the seed line by line.
"""

from __future__ import annotations

import re

from osdoctor.kb.schema import DiagramItem, Scenario

_INDENT = "  "
#: What mermaid would read as syntax, and the entity codes written instead.
_CODES = {"#": "#35;", ";": "#59;", "%%": "%#37;"}
_SYNTAX = re.compile("|".join(re.escape(k) for k in _CODES))


def _text(text: str) -> str:
    """One line of label text that mermaid reads back unchanged.

    ``;`` ends a statement and ``#`` starts an entity code, so both are written
    as entity codes (in one pass: the ``;`` of a code is not coded again);
    ``%%`` would start a comment.
    """
    return _SYNTAX.sub(lambda m: _CODES[m.group()], " ".join(text.split()))


def _items(items: list[DiagramItem], depth: int, out: list[str]) -> None:
    pad = _INDENT * depth
    for item in items:
        if item.kind == "message":
            arrow = "-->>" if item.reply else "->>"
            out.append(f"{pad}{item.source}{arrow}{item.target}: {_text(item.text)}")
        elif item.kind == "note":
            over = ",".join(item.over[:2])
            out.append(f"{pad}Note over {over}: {_text(item.text)}")
        elif item.kind in ("alt", "loop"):
            for i, block in enumerate(item.blocks):
                keyword = item.kind if i == 0 else "else"
                label = _text(block.label)
                out.append(f"{pad}{keyword} {label}".rstrip())
                _items(block.items, depth + 1, out)
            out.append(f"{pad}end")


def scenario_mermaid(scenario: Scenario) -> str:
    """The scenario's sequence diagram, one statement a line, ending with a newline."""
    out = ["sequenceDiagram"]
    for p in scenario.participants:
        keyword = "actor" if p.actor else "participant"
        alias = f" as {_text(p.label)}" if p.label and p.label != p.id else ""
        out.append(f"{_INDENT}{keyword} {p.id}{alias}")
    _items(scenario.diagram, 1, out)
    return "\n".join(out) + "\n"
