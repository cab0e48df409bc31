"""The fast path over a long wait: whole polling rounds matched in the undecoded
block and counted, not read line by line.

When a run of repeating requests has folded (``parse.retention``), the round
that just ended is made a template (``parse.rounds``); from then on, at a
round's start, the line source (``parse.line_source``) asks :meth:`RoundPath.lead`
and matches rounds with :meth:`RoundPath.skip`. Leaving the path
(:meth:`RoundPath._disengage`) accounts for the rounds matched exactly as
reading them would have (stand-in exchanges, the fold's count, the repeated
message) and reads the last ones again line by line, so that the trace is the
one a reading line by line gives.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from osdoctor.model import Exchange, Message, Request, Response
from osdoctor.parse.assembler import BIG_BODIES_KEPT, BIG_BODY, Assembler
from osdoctor.parse.http_text import split_url
from osdoctor.parse.lines import decode_line
from osdoctor.parse.retention import FOLD_KEEP
from osdoctor.parse.rounds import RoundTemplate, build_template, log_prefix
from osdoctor.secrets.redact import redact_line

#: Rounds matched by one call when they are many (fewer calls, same result).
_ROUNDS_AT_ONCE = 4
#: A failed round match this close to a block's end waits for the next block.
_ROUND_WAIT = 256 * 1024


class RoundPath:
    """Matches, counts and replays the rounds of a folded run in ``assembler``.

    ``widths`` is the census of line widths the rounds matched add to, and
    ``recent`` the last lines read (number, as pasted, prefix stripped), which a
    round's template is made from: the normaliser's (``parse.normaliser``).
    ``feed`` reads a line again (the parser's way in); ``idle`` says that no
    line is being gathered from pieces (a wrapped line, a wrapped request line).
    """

    def __init__(
        self,
        assembler: Assembler,
        widths: dict[int, int],
        recent: deque[tuple[int, str, str]],
        feed: Callable[[int, str], None],
        idle: Callable[[], bool],
    ) -> None:
        self._asm = assembler
        self.trace = assembler.trace
        self._widths = widths
        self._recent = recent
        self._feed = feed
        self._idle = idle
        self._template: RoundTemplate | None = None
        self._skipped: deque[tuple[bytes, int, int, int]] = deque()
        self._kept_rounds = 0
        self._skipped_rounds = 0
        self._engaged = False
        self._replaying = False
        self._model: list[Exchange] = []
        self._repeat: Message | None = None
        #: Rounds matched whole rather than read line by line.
        self.matched = 0

    # -- the assembler's run (``parse.assembler.RunWatcher``) ----------------
    def run_goes_on(self, request: Request) -> None:
        if self._template is None and not self._replaying:
            self._learn_round(request)

    def run_broke(self) -> None:
        self._template = None  # the run broke: its round no longer leads

    # -- the line source's blocks (``parse.line_source.RoundSkipper``) -------
    def lead(self, data: bytes, pos: int) -> bool:
        """Whether whole rounds are matched from ``pos`` of a clean block (see
        ``parse.line_source``): on the path already, or at the start of a round
        of the template, where the run's head is read."""
        if self._engaged:
            return True
        template = self._template
        return template is not None and template.leads(data, pos) and self._may_skip(template)

    def leave(self, number: int) -> None:
        """A block to read line by line (folded or to be cleaned) comes: leave the
        path, if on it."""
        if self._engaged:
            self._disengage(number)

    def _may_skip(self, template: RoundTemplate) -> bool:
        """True at a round's start, in a run whose head (kept for good) is read."""
        if template.repeats and (
            not self.trace.messages or self.trace.messages[-1] is not self._repeat
        ):
            return False
        if (
            self._asm.keep.run > FOLD_KEEP
            and self._asm.keep.period == template.exchanges
            and self._asm.collector is None
            and not self._asm.pending
            and self._idle()
        ):
            self._model = self.trace.exchanges[-template.exchanges :]
            return True
        return False

    def _stand_in(self, count: int) -> None:
        """Account for ``count`` exchanges matched as whole rounds, not read, exactly
        as reading them would have: the run's fold grows, the run's kept end moves.

        Each is a stand-in copied from the last round read: it carries the fold
        key, and is itself folded away by the rounds read afterwards (they are
        more than ``FOLD_KEEP`` exchanges). Once the kept end holds only
        stand-ins, the rest only add to the count.
        """
        model = self._model
        period = len(model)
        placed: list[Exchange] = []
        for j in range(count):
            fold = self._asm.keep.fold
            rest = count - j
            if (
                fold is not None
                and len(placed) > FOLD_KEEP + BIG_BODIES_KEPT
                and rest % period == 0
            ):
                fold.count += rest
                self._asm.keep.run += rest
                self._asm.exchange_count += rest
                for ex in placed[-FOLD_KEEP - 1 :]:
                    ex.index += rest
                return
            self._asm.fold_repeats()
            like = model[j % period]
            ex = Exchange(
                self._asm.exchange_count,
                Request(like.request.method, like.request.url, 0, logged_as=like.request.logged_as),
                service=like.service,
                path=like.path,
                query=like.query,
            )
            if like.response is not None:
                ex.response = Response(like.status, 0, raw_headers=like.response.raw_headers)
                body = like.response.body
                if body is not None and body.size > BIG_BODY and 200 <= (like.status or 0) < 300:
                    self._asm.keep_big(ex)  # newer big bodies release older ones' text
            self._asm.exchange_count += 1
            self._asm.keep.append(ex)
            placed.append(ex)
            self._asm.last = ex

    def skip(self, data: bytes, pos: int, number: int, more: bool) -> tuple[int, int, bool]:
        """Match whole rounds from ``pos``: (where matching stopped, the line number
        there, whether to wait for the next block before deciding)."""
        template = self._template
        assert template is not None
        if not self._engaged:
            self._engaged = True
            self._skipped.clear()
            self._kept_rounds = 0
        # The last rounds matched are kept (as spans) to be read again at the end.
        need = FOLD_KEEP // template.exchanges + 1
        skipped = self._skipped
        keep = skipped.append
        kept = self._kept_rounds
        several, one = template.several.match, template.pattern.match
        rounds = extra = 0
        while True:
            m = several(data, pos)
            n = _ROUNDS_AT_ONCE
            if m is None:
                m = one(data, pos)
                n = 1
                if m is None:
                    break
            end = m.end()
            if m.lastindex is not None:
                # Connection lines came with these rounds: count their lines.
                extra += data.count(b"\n", pos, end) - n * template.lines
            keep((data, pos, end, n))
            kept += n
            while kept - skipped[0][3] >= need:
                kept -= skipped.popleft()[3]
            pos = end
            rounds += n
        self._kept_rounds = kept
        if rounds:
            self._skipped_rounds += rounds
            self.matched += rounds
            number += rounds * template.lines + extra
        if more and len(data) - pos < _ROUND_WAIT:
            # The block may end inside a round: decide with the next one.
            return pos, number, True
        self._disengage(number)
        return pos, number, False

    def _disengage(self, number: int) -> None:
        """Leave the fast path: count the rounds matched, except the last ones, which
        are read line by line so that the run's kept end is complete."""
        template = self._template
        assert template is not None
        self._engaged = False
        self._template = None
        replay = list(self._skipped)
        self._skipped.clear()
        counted = self._skipped_rounds - self._kept_rounds
        self._skipped_rounds = 0
        if counted:
            self._stand_in(counted * template.exchanges)
            if template.repeats:
                self.trace.messages[-1].repeats += counted * template.repeats
            self.trace.openstack_lines += counted * template.record_lines
            widths = self._widths
            for width in template.widths:
                widths[width] = widths.get(width, 0) + counted
        lines: list[bytes] = []
        for data, start, end, _rounds in replay:
            lines.extend(data[start : end - 1].split(b"\n"))
        first = number - len(lines) + 1
        self._replaying = True
        try:
            for offset, line in enumerate(lines):
                self._feed(first + offset, decode_line(line))
        finally:
            self._replaying = False

    def _learn_round(self, request: Request) -> None:
        """At the start of a round of a folded run, make the template of the round
        that just ended (see ``parse.rounds``)."""
        period = self._asm.keep.period
        first = self.trace.exchanges[-period]
        if (
            first.request.logged_as != "curl"
            or request.logged_as != "curl"
            or first.request.method != request.method
            or split_url(first.request.url)[1] != split_url(request.url)[1]
        ):
            return
        start, end = first.request.line, request.line
        recent = [(raw, text) for number, raw, text in self._recent if start <= number < end]
        if len(recent) != end - start:
            return
        lines = [text for _raw, text in recent]
        # Either every line is bare, or every line has a --log-file prefix, which
        # must be exactly what the stripper removed.
        prefixes: list[bytes] | None = None
        if any(raw != text for raw, text in recent):
            prefixes = []
            for raw, text in recent:
                prefix = log_prefix(raw, text)
                if prefix is None:
                    return
                prefixes.append(prefix)
        # A message printed in every round (a wait's "Still waiting ...") is one
        # message repeated: the round may hold it, if it holds no other.
        repeats: set[int] = set()
        for message in reversed(self.trace.messages[-4:]):
            if message.last_line < start:
                break
            if message.line >= start or message is not self.trace.messages[-1]:
                return
            repeats = {i for i, text in enumerate(lines) if redact_line(text) == message.text}
        template = build_template(lines, period, frozenset(repeats), prefixes)
        if template is not None and template.repeats:
            self._repeat = self.trace.messages[-1]
        self._template = template
