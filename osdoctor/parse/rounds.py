"""Recognising a polling round at block speed, so that the middle of a long run
costs what reading it costs.

A ``--wait`` that polls for hours writes the same round of records again and
again: the request line, the connection pool's line, the response line and
body, the request id, perhaps the same "Still waiting" message. Once the
parser has read the head of such a run (which it keeps), every further round
only adds to a count. A :class:`RoundTemplate` is built from the lines of
the last round the parser read in full; it compiles into one bytes regular
expression that matches a whole undecoded round whose records lead to the
same fold keys (method, endpoint path, status), whatever their request ids,
dates, query strings and bodies say.

The template is strict on purpose: it accepts only keystoneauth's records
whose effect on the parser is known (an exchange per request line, nothing
kept from the rest), bare or behind a ``--log-file`` prefix. Anything else in
a round (a printed event, a traceback, a multi-line body, a quoted or syslog
line) makes the match fail, and the parser reads that round line by line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from osdoctor import regex
from osdoctor.parse.http_text import parse_curl, split_url

_URLLIB3 = regex.compile(r'(https?://\S+) "([A-Z]+) (\S+) HTTP/[\d.]+" (\d{3}) \S')
_REQUEST_ID = regex.compile(r"[A-Z]+ call to (?:\S+ for )?\S+ used request id \S")
_NOISE_LINES = ("Starting new HTTP", "Resetting dropped connection", "Incremented Retry")
_OMITTED = "RESP BODY: Omitted, Content-Type is set to"
#: Lines at least this long count for the paste-wrap detector (see the parser).
_WRAP_MIN = 60

# The pieces of a round's expression. They run on undecoded bytes and are
# stricter than the parser's own expressions (``[!-~]`` where it has ``\S``,
# ``[0-9]`` for ``\d``), so that whatever they accept the parser reads the same
# way. urllib3 logs its connection lines just before a pool line, any number: a
# pool line is tried alone first (the usual case), then behind such lines, in a
# group that takes part in the match only then (see ``_pool_part``).
_NOISE = rb"(?:Starting new HTTP|Resetting dropped connection|Incremented Retry).*\n"
_ANY_QUERY = rb"(?:\?[!-~]*)?"
_BODY_OBJECT = rb"RESP BODY: \{.*\}[ \t]*\n"
_BODY_LIST = rb"RESP BODY: \[.*\][ \t]*\n"
_ID_LINE = rb"[A-Z]+ call to (?:[!-~]+ for )?[!-~]+ used request id [!-~].*\n"
# osc-lib's --log-file prefix ("2026-11-30 02:00:58.123 12345 DEBUG keystoneauth.session
# [-] "), and the standalone baremetal shell's ("2026-11-30 02:00:58,123 DEBUG: name "),
# as the stripper reads them (``parse.prefixes``).
_LOG_PREFIX = regex.compile(
    r"(?P<time>\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:[+-]\d\d:?\d\d|Z)?) "
    r"(?P<pid>\d+ )?(?P<name>(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|TRACE):? +[\w.\-]+)"
    r"(?P<context> \[[^\]]*\])?(?P<space> ?)"
)
# In bytes, \d is [0-9].
_TIME = rb"\d\d\d\d-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:[+-]\d\d:?\d\d|Z)? "
#: Where a prefixed round's first line shows its fixed start, at the latest.
_PREFIX_REACH = 512


def log_prefix(raw: str, text: str) -> bytes | None:
    """The expression of ``raw``'s --log-file prefix when ``raw`` is ``text`` behind
    it: the time, pid and context may change, the level and logger may not. It is
    stricter than the stripper's, so a line it accepts is stripped the same way."""
    m = _LOG_PREFIX.match(raw)
    if m is None or raw[m.end() :] != text or not m["name"].isascii():
        return None
    return (
        _TIME
        + (rb"\d+ " if m["pid"] else b"")
        + re.escape(m["name"].encode())
        + (rb" \[[^\]\n]*\]" if m["context"] else b"")
        + m["space"].encode()
    )


@dataclass(frozen=True, slots=True)
class RoundTemplate:
    lead: bytes
    """The fixed start of the round's first line: a cheap test before the match."""
    pattern: re.Pattern[bytes]
    several: re.Pattern[bytes]
    """Four rounds in a row: the same, with fewer calls."""
    exchanges: int
    """Exchanges one round adds."""
    lines: int
    """Lines of a round with no connection lines (see ``_NOISE``)."""
    record_lines: int
    """Lines of a round that the parser counts as client records."""
    widths: tuple[int, ...]
    """Lengths of the template's long lines, for the paste-wrap detector."""
    repeats: int = 0
    """Lines per round that repeat the last message."""
    prefixed: bool = False
    """Every line has the --log-file prefix."""

    def leads(self, data: bytes, pos: int) -> bool:
        """Whether the line at ``pos`` may start a round: a cheap test before the match."""
        if not self.prefixed:
            return data.startswith(self.lead, pos)
        at = data.find(self.lead, pos, pos + _PREFIX_REACH)
        return at >= 0 and data.find(b"\n", pos, at) < 0


def build_template(
    lines: list[str],
    exchanges: int,
    repeats: frozenset[int] = frozenset(),
    prefixes: list[bytes] | None = None,
) -> RoundTemplate | None:
    """The template of a round read in full, or None when a line is not one of the
    records whose effect the template can vouch for.

    ``repeats`` are the indices of lines that only repeated the message before
    them (ironicclient's "Still waiting for node ..."): they must come back
    exactly as they are. With ``prefixes``, ``lines`` are the texts behind a
    --log-file prefix (see :func:`log_prefix`), which the lines of a matched
    round must carry too.
    """
    parts: list[bytes] = []
    pools: set[int] = set()  # parts that are pool lines
    lead = b""
    seen_exchanges = 0
    record_lines = 0
    after_pool = False  # a RESP line must answer a connection-pool line
    asked: tuple[str, str] | None = None  # the request line a pool line would answer
    for index, line in enumerate(lines):
        if index in repeats:
            parts.append(re.escape(line.encode()) + rb"\n")
            continue
        if line.startswith(_NOISE_LINES):
            record_lines += 1
            continue
        if line.startswith("REQ: "):
            if asked is not None:
                return None  # the previous request was not answered by a pool line
            curl = parse_curl(line[5:])
            if curl is None or curl.data_open or not line.endswith(('"', "'")):
                return None
            url_at = line.find(" " + curl.url, 5)
            without_query = curl.url.split("?", 1)[0]
            if url_at < 0 or f" -X {curl.method} " not in line[: url_at + 1]:
                return None
            fixed = line[: url_at + 1 + len(without_query)].encode()
            lead = lead or fixed
            parts.append(re.escape(fixed) + rb"[? ].*\n")
            seen_exchanges += 1
            record_lines += 1
            after_pool = False
            asked = (curl.method, split_url(curl.url)[1])
            continue
        m = _URLLIB3.match(line)
        if m is not None:
            if not parts:
                return None  # a round starts with its request line
            base, method, target, status = m.groups()
            path = target.split("?", 1)[0]
            if asked is not None and asked != (method, path):
                return None  # the request line was not answered by this pool line
            if asked is None:
                # A pool line that answers no logged request line is a redirect hop.
                seen_exchanges += 1
                record_lines += 1
            fixed = f'{base} "{method} {path}'.encode()
            pools.add(len(parts))
            parts.append(
                re.escape(fixed)
                + _ANY_QUERY
                + rb' HTTP/[0-9.]+" '
                + status.encode()
                + rb" [!-~].*\n"
            )
            asked = None
            after_pool = True
            continue
        if line.startswith("RESP: ["):
            if not after_pool or not line[7:10].isdigit() or line[10:11] != "]":
                return None
            parts.append(re.escape(line[:11].encode()) + rb".*\n")
            record_lines += 1
            after_pool = False
            continue
        if line.startswith("RESP BODY: "):
            if line.startswith(_OMITTED):
                parts.append(re.escape(_OMITTED.encode()) + rb".*\n")
            elif line.startswith("RESP BODY: {") and line.endswith("}"):
                parts.append(_BODY_OBJECT)
            elif line.startswith("RESP BODY: [") and line.endswith("]"):
                parts.append(_BODY_LIST)
            else:
                return None
            record_lines += 1
            continue
        if " used request id " in line and _REQUEST_ID.match(line):
            parts.append(_ID_LINE)
            record_lines += 1
            continue
        return None
    if not lead or asked is not None or seen_exchanges != exchanges:
        return None
    noise = _NOISE
    if prefixes is not None:
        if len(prefixes) != len(lines) or len(set(prefixes)) > 8:
            return None
        # Each record behind its own line's prefix; connection lines behind any.
        noise = b"(?:" + b"|".join(sorted(set(prefixes))) + b")" + _NOISE
        shown = [i for i in range(len(lines)) if not lines[i].startswith(_NOISE_LINES)]
        parts = [prefixes[shown[k]] + part for k, part in enumerate(parts)]
    body = b"".join(
        b"(?:" + part + b"|(" + b"(?:" + noise + b")+)" + part + b")" if k in pools else part
        for k, part in enumerate(parts)
    )
    pattern, several = re.compile(body), re.compile(b"(?:" + body + b"){4}")
    widths = tuple(len(line) for line in lines if len(line) >= _WRAP_MIN)
    return RoundTemplate(
        lead,
        pattern,
        several,
        exchanges,
        len(parts),
        record_lines,
        widths,
        len(repeats),
        prefixes is not None,
    )
