"""How ``--service-log`` scales: the records of one request found in a folder of
a gigabyte of service logs, in time linear in the size and in bounded memory.

The folder is made in a temporary directory, laid out as a controller's
``/var/log`` (nova, neutron, keystone, glance, with rotations, one gzipped),
from records the real oslo.log formatter writes (``osdoctor.lab.formats``):
a chunk of a few thousand records of many requests (INFO request lines, their
warnings, an ERROR with its traceback now and then), written again and again
under fresh request ids and spread over a day, as a busy controller's logs
are. The one request looked for is in the middle of one file, and in a
gzipped rotation of another.

    PYTHONPATH=. python benchmarks/bench_servicelog.py [--sizes 250,500,1000] [--keep DIR]

For each size (MB), in a child process of its own: the seconds and MB/s of
the scan for one request id (and the time of its failed answer, so the
warnings and errors near it are kept too), the peak resident memory, and the
records found. Figures only; no test is timed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from osdoctor.lab import formats  # noqa: E402
from osdoctor.lab.formats import Entry  # noqa: E402
from osdoctor.lab.logspec import Raised  # noqa: E402
from osdoctor.lab.servicelogs import BASE  # noqa: E402

MB = 1 << 20
TARGET = "req-0badcafe-0000-4000-8000-00000000beef"
#: The files of the folder, and the share of the size each takes.
LAYOUT = {
    "nova/nova-api.log": 0.30,
    "nova/nova-api.log.1": 0.20,
    "nova/nova-api.log.2.gz": 0.10,
    "neutron/server.log": 0.20,
    "keystone/keystone.log": 0.12,
    "glance/glance-api.log": 0.08,
}
PLACEHOLDER = "req-11111111-2222-4333-8444-555555555555"


def _chunk() -> str:
    """A few thousand records of one made-up request id (replaced per copy)."""
    entries = []
    for n in range(400):
        at = n * 0.01
        entries.append(
            Entry(
                "nova.api.openstack.requestlog",
                "INFO",
                f'10.0.0.{n % 250} "GET /compute/v2.1/servers/detail" status: 200 len: 1893 '
                "microversion: 2.1 time: 0.031234",
                at,
            )
        )
        if n % 20 == 0:
            entries.append(
                Entry("nova.compute.api", "WARNING", "Instance is in an unexpected state", at)
            )
        if n % 100 == 0:
            entries.append(
                Entry(
                    "nova.api.openstack.wsgi",
                    "ERROR",
                    "Unexpected exception in API method",
                    at,
                    exception=Raised(
                        "oslo_db.exception.DBConnectionError",
                        '(pymysql.err.OperationalError) (2003, "Can\'t connect to MySQL server")',
                        (
                            "nova/api/openstack/wsgi.py:658:wrapped",
                            "oslo_db/engines.py:186:_connect",
                        ),
                    ),
                )
            )
    text = formats.oslo_text(tuple(entries))
    return text.replace(formats.REQUEST_ID, PLACEHOLDER).replace(formats.GLOBAL_ID, PLACEHOLDER)


def _request(text: str, serial: int, copies: int) -> str:
    """The chunk under a request id of its own, at its own time of the day the
    folder covers (the target's request is at noon)."""
    seconds = int(serial * 86400 / copies)
    stamp = f"2026-11-01 {seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60 // 10}"
    text = text.replace("2026-11-01 12:00:0", stamp)
    return text.replace(PLACEHOLDER, f"req-00000000-0000-4000-8000-{serial:012x}")


def build(folder: Path, size_mb: int) -> Path:
    chunk = _chunk()
    target = formats.oslo_text(formats.ENTRIES).replace(formats.REQUEST_ID, TARGET)
    copies = max(1, size_mb * MB // len(chunk))
    serial = 0
    for name, share in LAYOUT.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        want = int(size_mb * MB * share)
        opener = gzip.open if name.endswith(".gz") else open
        with opener(path, "wt", encoding="utf-8") as out:
            written = 0
            middle = name in ("nova/nova-api.log", "nova/nova-api.log.2.gz")
            while written < want:
                if middle and written >= want // 2:
                    out.write(target)
                    middle = False
                serial += 1
                piece = _request(chunk, serial, copies)
                out.write(piece)
                written += len(piece)
    return folder


def measure(folder: Path, timed: bool) -> dict[str, float]:
    """Run in the child: one scan for the target request (and, when ``timed``,
    the time of its failed answer), timed, with the peak RSS."""
    from osdoctor.servicelog.scan import Wanted, scan
    from osdoctor.servicelog.sources import expand

    files = expand([str(folder)])
    size = sum(p.stat().st_size for p in files)
    times = (BASE + 0.5,) if timed else ()
    began = time.perf_counter()
    found = scan(files, Wanted(frozenset({TARGET}), times))
    seconds = time.perf_counter() - began
    mine = [r for r in found.records if TARGET in (r.request_id, r.global_request_id)]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "bytes_on_disk": size,
        "bytes_read": found.bytes,
        "seconds": seconds,
        "peak_mib": peak,
        "records": len(found.records),
        "target_records": len(mine),
        "dropped": found.dropped,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="250,500,1000", help="folder sizes in MB")
    parser.add_argument("--keep", type=Path, help="build the folders here and keep them")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--timed", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure is not None:
        print(json.dumps(measure(args.measure, args.timed)))
        return 0
    root = args.keep or Path(tempfile.mkdtemp(prefix="osdoctor-bench-servicelog-"))
    print(
        f"{'size':>8} {'looking for':>16} {'read':>8} {'seconds':>8} {'MB/s':>6} {'peak':>8} "
        f"{'kept':>5} {'of it':>5}"
    )
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            folder = root / f"{size}mb"
            if not folder.exists():
                build(folder, size)
            for timed in (False, True):
                command = [sys.executable, __file__, "--measure", str(folder)]
                done = subprocess.run(
                    command + (["--timed"] if timed else []),
                    capture_output=True,
                    text=True,
                    check=True,
                )
                figures = json.loads(done.stdout)
                read = figures["bytes_read"] / MB
                what = "id + its time" if timed else "the request id"
                print(
                    f"{size:>6}MB {what:>16} {read:>6.0f}MB {figures['seconds']:>8.2f} "
                    f"{read / figures['seconds']:>6.0f} {figures['peak_mib']:>5.0f}MiB "
                    f"{figures['records']:>5.0f} {figures['target_records']:>5.0f}"
                )
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    print(
        "read: bytes decompressed and searched; kept: records kept (the request's, and with "
        "its time the warnings and errors nearest it, bounded); of it: the request's own"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
