"""The runbook's diagrams against the seed documents they were written from.

A scenario's ``participants`` and ``diagram`` mirror one diagram of a seed (a
reverse-engineering document of the client, not shipped with osdoctor). Nothing
reads the seeds at run time; ``osdoctor kb lint --seeds DIR`` is how whoever
has them proves that the generated diagrams still say what the seeds say.

Both sides are read as mermaid reads a sequence diagram: who takes part (id,
label, actor or participant) and the messages and notes in order (from, to,
text, arrow). Blocks (``alt``, ``loop``) open and close around them but are
not compared, as a seed's block labels are prose the scenario may reword.
The reader knows the statements seeds use; any other is a problem it names,
never a line it skips.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from osdoctor.kb.loader import KnowledgeBase
from osdoctor.kb.schema import Issue
from osdoctor.runbook.mermaid import scenario_mermaid


@dataclass(frozen=True, slots=True)
class Actor:
    id: str
    label: str
    kind: str
    """``participant`` or ``actor``."""


@dataclass(frozen=True, slots=True)
class Signal:
    source: str
    target: str
    text: str
    arrow: str
    """The arrow as written (``->>``, ``-->>``...), or ``note``."""


@dataclass(slots=True)
class Sequence:
    actors: list[Actor] = field(default_factory=list)
    signals: list[Signal] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def actor(self, name: str) -> None:
        """An actor named in a message before (or without) a declaration, as mermaid adds it."""
        if all(a.id != name for a in self.actors):
            self.actors.append(Actor(name, name, "participant"))


_DECLARATION = re.compile(r"(participant|actor)\s+(\S+?)(?:\s+as\s+(.*))?$")
#: Longest arrows first, so that ``-->>`` is not read as ``--`` then ``>>``.
_ARROWS = ("-->>", "->>", "-->", "->", "--x", "-x", "--)", "-)")
_MESSAGE = re.compile(
    r"([^\s:+-][^:]*?)\s*("
    + "|".join(re.escape(a) for a in _ARROWS)
    + r")\s*[+-]?([^:]+?)\s*:(.*)$"
)
_NOTE = re.compile(r"Note\s+(?:over|left of|right of)\s+([^:]+?)\s*:(.*)$", re.IGNORECASE)
_BLOCK_START = ("alt", "else", "loop", "opt", "par", "and", "rect", "critical", "option", "break")
_IGNORED = ("autonumber", "activate", "deactivate", "title")


def _decoded(text: str) -> str:
    """Label text as mermaid gives it back: entity codes (``#59;``) decoded."""
    text = re.sub(r"#(\d+);", lambda m: chr(int(m.group(1))), text.strip())
    return re.sub(r"#([A-Za-z]\w*);", r"&\1;", text)


def read_sequence(text: str) -> Sequence:
    """A ``sequenceDiagram``'s actors and signals, and the statements it could not read."""
    seq = Sequence()
    depth = 0
    lines = [line.strip() for line in text.splitlines()]
    if not lines or lines[0] != "sequenceDiagram":
        seq.problems.append("it does not start with sequenceDiagram")
    for line in lines[1:]:
        if not line or line.startswith("%%"):
            continue
        word = line.split()[0]
        if declaration := _DECLARATION.match(line):
            kind, name, label = declaration.groups()
            label = _decoded(label) if label else name
            seq.actors = [a for a in seq.actors if a.id != name]
            seq.actors.append(Actor(name, label, kind))
        elif note := _NOTE.match(line):
            over = [name.strip() for name in note.group(1).split(",")]
            for name in over:
                seq.actor(name)
            seq.signals.append(Signal(over[0], over[-1], _decoded(note.group(2)), "note"))
        elif word in _BLOCK_START:
            depth += word not in ("else", "and", "option")
        elif word == "end":
            depth -= 1
            if depth < 0:
                seq.problems.append("an 'end' closes no block")
                depth = 0
        elif word in _IGNORED:
            continue
        elif message := _MESSAGE.match(line):
            source, arrow, target, said = message.groups()
            seq.actor(source)
            seq.actor(target)
            seq.signals.append(Signal(source, target, _decoded(said), arrow))
        else:
            seq.problems.append(f"a statement it cannot read: {line}")
    if depth:
        seq.problems.append(f"{depth} block(s) left open")
    return seq


def seed_diagrams(text: str) -> list[str]:
    """A seed's sequence diagrams, in section order: each from its ``sequenceDiagram``
    line to the first blank line."""
    out: list[str] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if current is None:
            if line.strip() == "sequenceDiagram":
                current = [line.strip()]
        elif line.strip():
            current.append(line)
        else:
            out.append("\n".join(current) + "\n")
            current = None
    if current is not None:
        out.append("\n".join(current) + "\n")
    return out


def _differences(mine: Sequence, seed: Sequence) -> list[str]:
    problems = []
    if mine.actors != seed.actors:
        problems.append(
            "participants differ: "
            f"{[(a.id, a.label, a.kind) for a in mine.actors]} in the scenario, "
            f"{[(a.id, a.label, a.kind) for a in seed.actors]} in the seed"
        )
    for n, (ours, theirs) in enumerate(zip(mine.signals, seed.signals, strict=False), 1):
        if ours != theirs:
            problems.append(f"signal {n} differs: {ours} in the scenario, {theirs} in the seed")
            break
    if len(mine.signals) != len(seed.signals):
        problems.append(
            f"{len(mine.signals)} messages and notes in the scenario, "
            f"{len(seed.signals)} in the seed"
        )
    return problems


def seed_issues(kb: KnowledgeBase, folder: Path) -> list[Issue]:
    """Every seed diagram reads, and every scenario's diagram says what its seed
    section's says; problems are the scenario file's (or the seed's, when unreadable)."""
    issues: list[Issue] = []
    if not folder.is_dir():
        return [Issue(str(folder), 0, "the seeds folder does not exist")]
    diagrams: dict[str, list[Sequence]] = {}
    for seed in sorted(folder.glob("*.txt")):
        read = [read_sequence(d) for d in seed_diagrams(seed.read_text(encoding="utf-8"))]
        diagrams[seed.name] = read
        for section, seq in enumerate(read, 1):
            for problem in seq.problems:
                issues.append(Issue(str(seed), 0, f"section {section}'s diagram: {problem}"))
    for scenario in sorted(kb.scenarios.values(), key=lambda s: s.id):
        where = f"scenario {scenario.id}: seed {scenario.seed} section {scenario.section}"
        sections = diagrams.get(scenario.seed)
        if sections is None:
            issues.append(Issue(scenario.path, 0, f"{where}: no such seed in {folder}"))
            continue
        if not 1 <= scenario.section <= len(sections):
            issues.append(
                Issue(scenario.path, 0, f"{where}: the seed has {len(sections)} diagram(s)")
            )
            continue
        mine = read_sequence(scenario_mermaid(scenario))
        for problem in mine.problems + _differences(mine, sections[scenario.section - 1]):
            issues.append(Issue(scenario.path, 0, f"{where}: {problem}", field="diagram"))
    return issues
