"""The reader of request lines: keystoneauth's ``REQ: curl`` line (its method,
URL, headers and data), one a paste wrapped over several lines, the other
clients' ``curl`` lines, the "Making authentication request" line, and the
token body printed after it.

Each request starts an exchange in the assembler (``parse.assembler``); a
request line's body that goes on over the next lines is gathered by the
collector it leaves there.
"""

from __future__ import annotations

import json

from osdoctor.model import Body, Request, Response, line_quote
from osdoctor.parse.assembler import Assembler
from osdoctor.parse.bodies import BodyCollector
from osdoctor.parse.http_text import Curl, parse_curl, split_url
from osdoctor.parse.record_starts import is_record_start
from osdoctor.secrets.redact import redact_line

_API_VERSION_HEADERS = (
    "OpenStack-API-Version",
    "X-OpenStack-Nova-API-Version",
    "X-OpenStack-Ironic-API-Version",
)
#: Recent request lines whose reading is remembered.
_REMEMBER_LINES = 512
#: Pieces of a wrapped request line joined at most.
_MAX_PIECES = 8


class RequestReader:
    """Reads request lines into ``assembler``."""

    def __init__(self, assembler: Assembler) -> None:
        self._asm = assembler
        #: The reading of recent request lines: a polling run repeats them.
        self._curls: dict[str, Curl | None] = {}
        #: A request line a paste wrapped: its line, its text so far, time, pieces.
        self.wrapped: tuple[int, str, float | None, int] | None = None

    def request_line(self, number: int, text: str, time: float | None) -> bool:
        """keystoneauth's ``REQ: `` line; one a paste wrapped is held until its end."""
        if looks_wrapped(text):
            # A paste wrapped the line: the rest follows on the next lines.
            self.wrapped = (number, text[5:], time, 1)
            return True
        self.request(number, text[5:], time)
        return True

    def curl_line(self, number: int, text: str, time: float | None) -> bool:
        """Another client's ``curl -...`` line."""
        self.request(number, text, time)
        return True

    def join_wrapped(self, text: str) -> bool:
        """Join a request line that a paste wrapped mid-word; True when ``text`` was
        its continuation."""
        assert self.wrapped is not None
        number, held, time, parts = self.wrapped
        if (
            text
            and not is_record_start(text)
            and not text.startswith(("  ", "\t"))
            and parts < _MAX_PIECES
        ):
            joined = held + text
            if not looks_wrapped(joined):
                self.wrapped = None
                self.request(number, redact_line(joined), time)
            else:
                self.wrapped = (number, joined, time, parts + 1)
            return True
        self.wrapped = None
        self.request(number, held, time)
        return False

    def release_wrapped(self) -> None:
        """The wrapped request line held, read as it stands (the paste cut it)."""
        if self.wrapped is not None:
            number, held, time, _parts = self.wrapped
            self.wrapped = None
            self.request(number, redact_line(held), time)

    def request(self, number: int, text: str, time: float | None) -> None:
        """A curl command line: the request it logs, or the answer's request when
        the connection pool logged the answer first."""
        asm = self._asm
        curl = self._curls.get(text)
        if curl is None:
            curl = parse_curl(text)
            if len(self._curls) >= _REMEMBER_LINES:
                self._curls.clear()
            self._curls[text] = curl
        if curl is None:
            asm.message(number, "debug", text)
            return
        prev = asm.last
        # swiftclient logs its request after the connection pool logged the answer.
        if (
            prev is not None
            and prev.request.logged_as == "urllib3"
            and number - prev.request.line <= 3
            and prev.request.method == curl.method
            and split_url(prev.request.url)[1] == split_url(curl.url)[1]
        ):
            prev.request.url = curl.url
            prev.request.raw_headers = curl.headers
            prev.request.logged_as = "curl"
            prev.request.line = number
            prev.request.quote = line_quote("REQ: " + text)
            ex = prev
        else:
            req = Request(
                curl.method,
                curl.url,
                number,
                raw_headers=curl.headers,
                quote=line_quote("REQ: " + text),
            )
            ex = asm.request(req, time)
        if curl.data is not None:
            body = Body(number, number, curl.data, len(curl.data), cut=asm.line_cut)
            ex.request.body = body
            if curl.data_open:
                asm.collector = BodyCollector(body, [curl.data], "'")
        if "API-Version" in curl.headers and ex.service:
            for name in _API_VERSION_HEADERS:
                value = ex.request.header(name)
                if value:
                    asm.trace.api_versions[ex.service] = value.split()[-1]

    def auth_request(self, number: int, text: str, time: float | None) -> bool:
        """keystoneauth's "Making authentication request to URL"."""
        req = Request("POST", text[33:].strip(), number, logged_as="auth")
        ex = self._asm.new_exchange(req, time)
        ex.service = "identity"
        self._asm.pending.append(ex)
        return True

    def token_body(self, number: int, text: str, time: float | None) -> bool:
        """The token an authentication request got (``{"token": ...}``): its catalog
        locates the later requests; False when no request came before it."""
        asm = self._asm
        ex = asm.last
        if ex is None:
            return False
        asm.trace.openstack_lines += 1
        if ex.response is None and ex.request.logged_as == "auth":
            # Clients that log no connection-pool line (the heat shell) still print
            # the token, which keystoneauth logs only for a successful answer.
            status = 201 if "/v3/" in ex.request.url else 200
            asm.answer(
                ex,
                Response(
                    status, number, reason="(inferred from the logged token)", last_line=number
                ),
            )
        if ex.response is None:
            return True
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        trace = asm.trace
        if data is not None and not trace.catalog:
            # The first catalog is the one the run used; a later token (a retry,
            # another run pasted after this one) does not move earlier requests.
            catalog = asm.services.learn_catalog(data)
            if catalog:
                trace.catalog = catalog
                for other in trace.exchanges:
                    if other.request.logged_as != "auth":
                        other.service, other.path = asm.services.locate(other.request.url)
        # The token body is long and the catalog is now known: keep a marker only.
        ex.response.body = Body(number, number, None, len(text), dropped=True)
        ex.response.last_line = number
        return True


def looks_wrapped(text: str) -> bool:
    """keystoneauth's and swiftclient's request lines end with a quoted header or
    body; one that stops elsewhere, or with an open quote, was cut by a wrap."""
    if " -d '" in text:
        return False
    return text.count('"') % 2 == 1 or not text.endswith('"')
