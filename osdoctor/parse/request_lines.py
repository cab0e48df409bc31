"""The reader of request lines: keystoneauth's ``REQ: curl`` line (its method,
URL, headers and data) and its "Making authentication request" line.
"""

from __future__ import annotations

from osdoctor.model import Body, Request, line_quote
from osdoctor.parse.bodies import BodyCollector
from osdoctor.parse.http_text import Curl, parse_curl, split_url
from osdoctor.parse.records import Records

_API_VERSION_HEADERS = (
    "OpenStack-API-Version",
    "X-OpenStack-Nova-API-Version",
    "X-OpenStack-Ironic-API-Version",
)
#: Recent request lines whose reading is remembered.
_REMEMBER_LINES = 512


class RequestReader(Records):
    """Reads request lines."""

    #: The reading of recent request lines: a polling run repeats them.
    _curls: dict[str, Curl | None]

    def _request(self, number: int, text: str, time: float | None) -> None:
        curl = self._curls.get(text)
        if curl is None:
            curl = parse_curl(text)
            if len(self._curls) >= _REMEMBER_LINES:
                self._curls.clear()
            self._curls[text] = curl
        if curl is None:
            self._asm.message(number, "debug", text)
            return
        prev = self._asm.last
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
            ex = self._asm.new_exchange(req, time)
            self._asm.pending.append(ex)
        if curl.data is not None:
            body = Body(number, number, curl.data, len(curl.data), cut=self._asm.line_cut)
            ex.request.body = body
            if curl.data_open:
                self._asm.collector = BodyCollector(body, [curl.data], "'")
        if "API-Version" in curl.headers and ex.service:
            for name in _API_VERSION_HEADERS:
                value = ex.request.header(name)
                if value:
                    self.trace.api_versions[ex.service] = value.split()[-1]

    def _auth_request(self, number: int, url: str, time: float | None) -> None:
        req = Request("POST", url, number, logged_as="auth")
        ex = self._asm.new_exchange(req, time)
        ex.service = "identity"
        self._asm.pending.append(ex)
