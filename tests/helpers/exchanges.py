"""Exchanges and traces for unit tests, built in one line each.

A unit test of the rows, a probe or a renderer needs a few exchanges of a
given shape, not a parsed log; spelling out ``Exchange``, ``Request`` and
``Response`` for each buries what the test is about. Line numbers follow the
index (request on ``10 * index + 1``, the answer on the next line), so that two
exchanges never share a line unless a test says so.
"""

from __future__ import annotations

from osdoctor.model import Body, Exchange, Request, Response, Trace, TransportError, TransportKind


def make_exchange(
    index: int = 0,
    path: str = "/",
    status: int | None = 200,
    method: str = "GET",
    *,
    url: str | None = None,
    service: str | None = None,
    line: int | None = None,
    headers: str = "",
    body: str | None = None,
    error: TransportKind | None = None,
    error_text: str = "no answer",
    redirected_from: int | None = None,
) -> Exchange:
    """One exchange: ``method`` on ``url`` (``http://h`` + ``path`` by default),
    answered ``status`` (None: no answer yet) with the logged ``headers`` and
    ``body``, or failed with the transport ``error``. ``path`` is what the model
    keeps as the service-relative path."""
    at = 10 * index + 1 if line is None else line
    ex = Exchange(
        index,
        Request(method, url if url is not None else f"http://h{path}", at),
        service=service,
        path=path,
        redirected_from=redirected_from,
    )
    if status is not None:
        ex.response = Response(status, at + 1, raw_headers=headers)
        if body is not None:
            ex.response.body = Body(at + 1, at + 1, body, size=len(body))
    if error is not None:
        ex.error = TransportError(error, error_text, at + 1)
    return ex


def make_trace(
    *exchanges: Exchange,
    source: str = "test",
    catalog: dict[str, list[str]] | None = None,
    exit_code: int | None = None,
) -> Trace:
    """A trace holding ``exchanges``, its line count reaching past the last of them."""
    return Trace(
        source=source,
        catalog=dict(catalog or {}),
        exchanges=list(exchanges),
        exit_code=exit_code,
        line_count=max((ex.last_line for ex in exchanges), default=0),
    )
