"""osdoctor as a library: one log in, one JSON-ready dict per run out.

``explain_log`` is a plain function of its arguments, so that a map over many
machines can call it: Dask's ``bag.map`` or ``client.map``, Spark's
``rdd.map``, a ``concurrent.futures`` pool. It reads the log's bytes (nothing
from disk but the knowledge), forks nothing, keeps nothing between calls but
the knowledge it loaded (once per process and set of folders), and returns
what ``osdoctor explain --format jsonl`` prints for the same log, line for
line, as dicts: each follows ``osdoctor/schemas/run.schema.json`` and goes
into a log store or a data frame as it is. Redaction happens while the log is
read, as always: no secret of the log is in what comes back.

    import dask.bag as db
    from osdoctor.library import explain_log

    runs = (
        db.from_sequence(paths)
        .map(lambda p: explain_log(open(p, "rb").read(), source=p))
        .flatten()
    )
"""

from __future__ import annotations

import io
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from osdoctor.kb.loader import KnowledgeBase

__all__ = ["explain_log"]

_loaded: dict[tuple[tuple[str, ...], bool], KnowledgeBase] = {}
_loading = threading.Lock()


def explain_log(
    data: bytes | bytearray | memoryview,
    source: str = "-",
    *,
    knowledge: Sequence[str] = (),
    user_knowledge: bool = False,
) -> list[dict[str, Any]]:
    """Every run of the log in ``data``, diagnosed: one dict per run, in the log's
    order, as ``--format jsonl`` writes them. ``source`` is the name the dicts
    give the log; ``knowledge`` adds folders of knowledge files to the built-in
    knowledge, ``user_knowledge`` the user's own folder (off by default, so that
    every machine of a cluster explains alike)."""
    from osdoctor.diagnose import diagnose
    from osdoctor.render.jsonl import run_dict
    from osdoctor.runs.log_runs import RunSummary, read_runs

    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(f"explain_log reads bytes, not {type(data).__name__}")
    kb = _knowledge(tuple(str(folder) for folder in knowledge), user_knowledge)
    out: list[dict[str, Any]] = []

    def each(summary: RunSummary, report: Any) -> None:
        out.append(run_dict(summary, report, source))

    read_runs(io.BytesIO(bytes(data)), source, lambda t: diagnose(t, kb), "none", each)
    return out


def _knowledge(folders: tuple[str, ...], user: bool) -> KnowledgeBase:
    """The knowledge of these folders, loaded on the first call in this process."""
    key = (folders, user)
    kb = _loaded.get(key)
    if kb is None:
        from osdoctor.kb.loader import load_knowledge

        with _loading:  # a threaded scheduler calls from several threads at once
            kb = _loaded.get(key)
            if kb is None:
                kb = _loaded[key] = load_knowledge([Path(f) for f in folders], user=user)
    return kb
