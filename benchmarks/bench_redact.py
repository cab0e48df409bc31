"""How fast redaction is, against a plain ``for line in f`` loop.

Redaction runs on every line osdoctor reads, and the parser's budget is about
half the speed of the plain loop. This prints lines per second for the
baseline loop and for each way of redacting: line by line (``redact_line``),
batched (``redact_lines``) and whole text (``redact_text``), on a typical
debug log (most lines hold no secret, every request line holds a hashed token)
and on lines with no trigger word at all.

    PYTHONPATH=. python benchmarks/bench_redact.py [LOG ...]

With LOG files, their lines are measured too. First it prints how long one
3 MB line takes (a ``START with options`` line of repeated ``--pass x``, and
other shapes, the safety net's among them): every rule is linear, so each is
well under a second. Then what the safety net (``osdoctor.secrets.keymaterial``) costs:
the same lines redacted with it switched off, in this benchmark only.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from osdoctor.secrets.redact import redact_line, redact_lines, redact_text

SHA = "{SHA256}da0248ded026b8b0709554ec1f7a4347338e4e119eab1095638636b547001d66"
UA = "openstacksdk/4.22.0 keystoneauth1/5.18.1 python-requests/2.34.2 CPython/3.11.7"

#: One exchange as keystoneauth and osc print it, plus the lines around it.
TYPICAL = [
    f'REQ: curl -g -i -X GET http://10.0.0.5:8774/v2.1/servers/detail -H "Accept: '
    f'application/json" -H "User-Agent: {UA}" -H "X-Auth-Token: {SHA}"\n',
    "Starting new HTTP connection (1): 10.0.0.5:8774\n",
    'http://10.0.0.5:8774 "GET /v2.1/servers/detail HTTP/1.1" 200 1766\n',
    "RESP: [200] Connection: keep-alive Content-Length: 1766 Content-Type: application/json "
    "Date: Mon, 30 Nov 2026 02:04:46 GMT OpenStack-API-Version: compute 2.1 "
    "x-openstack-request-id: req-5c1e2b70-8c8a-4d4f-9a55-3d0e8a6f2b11\n",
    'RESP BODY: {"servers": [{"id": "5e5e5e5e-0000-4000-8000-000000000001", "name": "web-1", '
    '"status": "ACTIVE", "tenant_id": "e1b2e1b2e1b2e1b2e1b2e1b2e1b2e1b2", "addresses": '
    '{"private": [{"version": 4, "addr": "192.168.0.12"}]}, "flavor": {"id": "1"}}]}\n',
    "GET call to compute for http://10.0.0.5:8774/v2.1/servers/detail used request id "
    "req-5c1e2b70-8c8a-4d4f-9a55-3d0e8a6f2b11\n",
    "Traceback (most recent call last):\n",
    '  File "/usr/lib/python3/dist-packages/osc_lib/shell.py", line 137, in run\n',
    "    ret_val = super().run(argv)\n",
    "              ^^^^^^^^^^^^^^^^^\n",
    "+--------------------------------------+-------+--------+\n",
    "| 5e5e5e5e-0000-4000-8000-000000000001 | web-1 | ACTIVE |\n",
    "clean_up ListServer: \n",
    "END return value: 0\n",
]
CLEAN = [line for line in TYPICAL if redact_line(line) == line and "Token" not in line]


def _rate(lines: list[str], run: Callable[[list[str]], object], rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        run(lines)
        best = min(best, time.perf_counter() - start)
    return len(lines) / best


def _baseline(lines: list[str]) -> int:
    count = 0
    for line in lines:
        if line.startswith("REQ: "):
            count += 1
    return count


def _per_line(lines: list[str]) -> int:
    count = 0
    for line in lines:
        if redact_line(line).startswith("REQ: "):
            count += 1
    return count


def _batched(lines: list[str]) -> int:
    count = 0
    for line in redact_lines(lines):
        if line.startswith("REQ: "):
            count += 1
    return count


def _whole_text(lines: list[str]) -> int:
    return _baseline(redact_text("".join(lines)).splitlines(keepends=True))


def report(name: str, lines: list[str]) -> None:
    base = _rate(lines, _baseline)
    print(f"{name}: {len(lines)} lines")
    print(f"  baseline loop          {base:12,.0f} lines/s")
    for label, run in (
        ("redact_line per line", _per_line),
        ("redact_lines batched", _batched),
        ("redact_text whole text", _whole_text),
    ):
        rate = _rate(lines, run)
        print(f"  {label:22} {rate:12,.0f} lines/s  ({rate / base:.0%} of baseline)")


#: One-line worst cases, 3 MB each: a ``START with options`` line of repeated
#: options, and the same size of other shapes each rule meets.
HUGE_LINES = {
    "START with options: --pass x ...": " --pass x",
    "START with options: passphrase words": " --os-password a b c network",
    "key=value pairs": " password=x",
    "RESP headers": " X-Auth-Token: {SHA1}x",
    "one word of 'pass'": "pass",
    "query parameters": "&token=x",
    "random-looking runs (safety net)": " Q3hEt3txO68AgZFRty6KMnMqg0dtbfSy",
    "URL userinfos": ",u:p@h",
    "sibling name/value pairs": ' {"name": "db_password", "value": "x"},',
    "console password pairs": "\\nroot:pw chpasswd",
}
HUGE = 3_000_000


def report_huge() -> None:
    """Seconds (CPU) to redact each 3 MB line: linear rules keep it well under one."""
    print(f"one {HUGE / 1e6:.0f} MB line:")
    for label, unit in HUGE_LINES.items():
        line = "START with options: --debug" + unit * (HUGE // len(unit))
        best = float("inf")
        for _ in range(3):
            start = time.process_time()
            redact_line(line)
            best = min(best, time.process_time() - start)
        print(f"  {label:38} {best:6.3f} s")


def report_safety_net(name: str, lines: list[str]) -> None:
    """Lines per second with the safety net and without it, measured in turns
    (with, without, with...) so that a load on the machine weighs on both alike."""
    import osdoctor.secrets.redact as redact

    names = vars(redact)
    saved = {key: names[key] for key in ("key_material_spans", "next_run")}
    off = {"key_material_spans": lambda line: [], "next_run": lambda text, pos: -1}
    best: dict[tuple[str, bool], float] = {}
    for _ in range(5):
        for net in (True, False):
            names.update(saved if net else off)
            try:
                for label, run in (("batched", _batched), ("per line", _per_line)):
                    rate = _rate(lines, run, rounds=1)
                    best[label, net] = max(best.get((label, net), 0.0), rate)
            finally:
                names.update(saved)
    print(f"safety net on {name}:")
    for label in ("batched", "per line"):
        on, without = best[label, True], best[label, False]
        print(
            f"  {label:10} {on:12,.0f} lines/s with, {without:12,.0f} without "
            f"({(without / on - 1) * 100:+5.1f}% time)"
        )


def main(argv: list[str]) -> None:
    report_huge()
    report("typical debug lines", TYPICAL * 20_000)
    report("lines with no trigger word", CLEAN * 20_000)
    report_safety_net("typical debug lines", TYPICAL * 20_000)
    report_safety_net("lines with no trigger word", CLEAN * 20_000)
    for path in argv:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        report(path, text.splitlines(keepends=True) * max(1, 200_000 // (text.count("\n") + 1)))


if __name__ == "__main__":
    main(sys.argv[1:])
