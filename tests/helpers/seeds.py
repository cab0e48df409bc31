"""A seed-shaped document of the tests' own, and a scenario written from it.

The seeds (reverse-engineering documents of the clients) are not the project's;
``kb lint --seeds DIR`` checks the real ones where they are. The tests check that
lint, and osdoctor's reading of mermaid, on this small text in the same shape:
prose, numbered sections, each diagram from ``sequenceDiagram`` to a blank line.
"""

from __future__ import annotations

from pathlib import Path

from osdoctor.kb.loader import KnowledgeBase

#: The seed name the tiny scenario refers to (the schema knows the seeds by name).
SEED_NAME = "004_5da9864bde361b9a.txt"

TINY_SEED = """\
Reverse-spec · Clients

A tiny client — Scenarios

1. thing create (T01)

sequenceDiagram
  participant C as openstack
  participant T as Thing API
  C->>T: POST /things
  T-->>C: 201

Diagnostics: a 4xx comes from the service.

2. thing poll --wait (T02, T03)

sequenceDiagram
  autonumber
  actor U as User
  participant C as openstack
  participant T as Thing API
  U->>C: thing poll x
  loop until a final status
    C->>T: GET /things/x#59; then again
    T-->>C: 200 {"status": …}
    Note over C: sleep 5 s #35; between rounds
  end
  alt FAILED
    C-->>U: Thing x FAILED, exit 1
  else otherwise
    C-->>U: table, exit 0
  end

Diagnostics: --debug shows each round.
"""

TINY_SCENARIO = f"""\
kind: scenario
id: tiny.poll
title: "A poll that waits"
seed: {SEED_NAME}
section: 2
clients: [openstackclient]
commands: ['^openstack thing poll\\b']
participants:
  - {{id: U, label: User, actor: true}}
  - {{id: C, label: openstack}}
  - {{id: T, label: "Thing API"}}
diagram:
  - {{from: U, to: C, text: "thing poll x"}}
  - loop: "until a final status"
    steps:
      - {{from: C, to: T, text: "GET /things/x; then again"}}
      - {{from: T, to: C, reply: true, text: "200 {{\\"status\\": …}}"}}
      - {{note: "sleep 5 s # between rounds", over: [C]}}
  - alt:
      - label: "FAILED"
        steps: [{{from: C, to: U, reply: true, text: "Thing x FAILED, exit 1"}}]
      - label: "otherwise"
        steps: [{{from: C, to: U, reply: true, text: "table, exit 0"}}]
branches:
  - id: failed
    title: the thing failed
    outcome: failure
    when: [{{exit_code: 1}}]
"""


def tiny_knowledge(folder: Path, scenario: str = TINY_SCENARIO) -> KnowledgeBase:
    """A knowledge base of the tiny scenario alone (or of ``scenario``), from ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tiny.yaml").write_text(scenario, encoding="utf-8")
    kb = KnowledgeBase()
    kb.add_dir(folder, "user")
    assert [str(i) for i in kb.issues] == []
    return kb


def tiny_seeds(folder: Path, text: str = TINY_SEED) -> Path:
    """A seeds folder holding the tiny seed."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / SEED_NAME).write_text(text, encoding="utf-8")
    return folder
