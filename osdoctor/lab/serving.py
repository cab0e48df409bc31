"""Running an HTTP server of the lab (the stub, the refusing proxy) in the background."""

from __future__ import annotations

import threading
from socketserver import BaseServer

#: Seconds between the serving thread's checks for a stop: bounds stopping's latency.
SHUTDOWN_POLL = 0.05


def serve_in_thread(server: BaseServer, name: str) -> threading.Thread:
    """Serve ``server`` in a daemon thread, already started."""
    thread = threading.Thread(
        target=server.serve_forever,
        kwargs={"poll_interval": SHUTDOWN_POLL},
        name=name,
        daemon=True,
    )
    thread.start()
    return thread


def stop_serving(server: BaseServer, thread: threading.Thread) -> None:
    """Stop the loop, free the port and wait for the thread."""
    server.shutdown()
    server.server_close()
    thread.join()
