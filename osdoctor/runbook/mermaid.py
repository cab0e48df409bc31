"""A scenario's documented sequence as mermaid ``sequenceDiagram`` text.

The text is generated from the scenario file's ``participants`` and
``diagram``, which mirror the seed's diagram: GitHub, GitLab and MkDocs render
it, and a reviewer can compare it with the seed line by line.
"""

from __future__ import annotations

from osdoctor.kb.schema import DiagramItem, Scenario

_INDENT = "  "


def _text(text: str) -> str:
    """One line of label text that mermaid reads back unchanged.

    ``;`` ends a statement and ``#`` starts an entity code, so both are written
    as entity codes; ``%%`` would start a comment.
    """
    flat = " ".join(text.split())
    return flat.replace("#", "#35;").replace(";", "#59;").replace("%%", "%#37;")


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
