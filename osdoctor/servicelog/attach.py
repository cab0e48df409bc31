"""Giving a run the records of the service logs named beside it (``--service-log``,
or service logs among the files of ``osdoctor explain``).

The run is read first, so the scan knows what to look for: its request ids,
and when its failed exchanges were answered (see ``scan.Wanted``). The records
found go into ``Trace.service_records``, where the join (``servicelog.join``)
ties them to the exchanges when the facts are read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from osdoctor.model import Trace
from osdoctor.secrets.secretstream import SecretMemory
from osdoctor.servicelog.join import answer_times, in_error, printed_ids, request_id_of
from osdoctor.servicelog.scan import Found, Wanted, scan
from osdoctor.servicelog.sources import expand, looks_like_service_log

#: Runs of one log given their service records at most: each costs a pass over
#: the service logs (the others are counted).
MAX_SCANS = 20


def wanted_by(trace: Trace) -> Wanted:
    """What the run asks the service logs for: its request ids, and the times of
    its failed answers."""
    ids: set[str] = set()
    times: list[float] = []
    answered = answer_times(trace.exchanges)
    for ex in trace.exchanges:
        rid = request_id_of(ex)
        if rid:
            ids.add(rid)
        if ex.error is not None or (ex.status is not None and ex.status >= 400) or in_error(ex):
            when = answered.get(ex.index)
            if when is not None:
                times.append(when[0])
    ids.update(printed_ids(trace))
    return Wanted(frozenset(ids), tuple(sorted(set(times))))


def worth_joining(trace: Trace) -> bool:
    """Whether a run failed in a way the services' logs may explain: an answer of
    4xx or 5xx, no answer, an error printed, a non-zero exit. A run that went
    well is not worth a pass over gigabytes of logs."""
    if trace.exit_code not in (None, 0) or trace.tracebacks:
        return True
    if any(
        ex.error is not None or (ex.status or 0) >= 400 or in_error(ex) for ex in trace.exchanges
    ):
        return True
    return any(m.kind == "error" for m in trace.messages)


def split_words(words: list[str]) -> tuple[list[str], list[str]]:
    """The words of ``osdoctor explain`` that name client logs, and those that name
    service logs: of several files, a service's own log (``/var/log/nova/nova-api.log``)
    is recognised by its head. Folders and patterns stay logs to explain."""
    if len(words) < 2:
        return words, []
    clients, services = [], []
    for word in words:
        path = Path(word)
        if word != "-" and path.is_file() and looks_like_service_log(path):
            services.append(word)
        else:
            clients.append(word)
    return clients, services


class ServiceLogs:
    """The service log files given for a command line's runs."""

    def __init__(self, files: list[Path], memory: SecretMemory | None = None) -> None:
        self.files = files
        self.memory = memory
        self.scans = 0
        self.skipped = 0

    @classmethod
    def of(cls, words: list[str]) -> ServiceLogs:
        """The files ``--service-log`` words name; ``ServiceLogError`` when one names none."""
        return cls(expand(words))

    def attach(self, trace: Trace, progress: Callable[[int], None] | None = None) -> Found:
        """Scan the files for the run's records and give them to ``trace``."""
        if self.scans >= MAX_SCANS:
            self.skipped += 1
            trace.problems.append(
                f"the service logs were read for the first {MAX_SCANS} runs only: "
                "explain this run alone (--run) to join it to them"
            )
            return Found()
        self.scans += 1
        found = scan(self.files, wanted_by(trace), self.memory, progress)
        trace.service_records = found.records
        trace.problems.extend(found.problems)
        if found.dropped:
            trace.problems.append(
                f"{found.dropped} service log records past the ones kept were counted, not kept"
            )
        return found
