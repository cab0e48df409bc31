"""Real non-debug pastes of Cinder and Manila failures from public threads
(fixtures/wild/, INDEX.md gives each one's source and established cause): the
first error finding names that cause, and no paste makes a renderer fail.
"""

from __future__ import annotations

import json
from pathlib import Path

from osdoctor.diagnose import parse_path
from tests.helpers.wild_pastes import pinned_cause_tests

WILD = Path(__file__).resolve().parent / "fixtures" / "wild"

# file -> (first error rule, words its title must hold), case-insensitive.
CASES: dict[str, tuple[str, list[str]]] = {
    "velero-gophercloud-2024-snapshot-create-400-in-use": (
        # gophercloud's "Bad request with: [POST URL], error message: {...}",
        # escaped inside a velero log line.
        "known.cinder-snapshot-of-attached-volume",
        ["c91638ec-6362-4e15-b3cd-e2f957e3e6b5", "in-use", "force"],
    ),
    "manila-csi-gophercloud-2020-share-create-400-dhss-needs-share-network": (
        "known.manila-share-network-required",
        ["Manila", "400", "driver_handles_share_servers true", "share network"],
    ),
    "autopilot-2016-boot-new-volume-cinder-az-invalid": (
        # the poster's words before Cinder's: "I get `Failure: cinder.exception...".
        "known.cinder-availability-zone-invalid",
        ["Cinder", "region1-1", "no volume service"],
    ),
    "php-opencloud-2018-volume-delete-400-status-error-deleting": (
        # a library's "Message：" label, no status printed: Cinder's words say 400.
        "known.cinder-volume-status-refused",
        ["Cinder", "400", "the volume is error_deleting"],
    ),
    "terraform-2015-destroy-volume-delete-400-root-disk-already-deleting": (
        "known.cinder-volume-status-refused",
        ["Cinder", "400", "the volume is deleting"],
    ),
    "cinder-csi-2021-ephemeral-attach-400-reserve-volume-still-creating": (
        # Nova's 400 for os-volume_attachments, quoting Cinder's reserve refusal.
        "known.cinder-volume-status-refused",
        ["Cinder", "400", "the volume is creating"],
    ),
    "cinder-csi-2022-snapshot-create-400-in-use-force-not-passed": (
        # Cinder's words alone, in backticks, no status printed.
        "known.cinder-snapshot-of-attached-volume",
        ["5cab8240-20cb-4928-a8ff-7be0dfe445cd", "in-use", "force"],
    ),
    "elektra-2018-volume-delete-400-has-snapshots-wrapped": (
        # the refusal folded over three lines before its "(HTTP 400)".
        "known.cinder-volume-delete-refused",
        ["Cinder", "400", "has snapshots"],
    ),
    "cinder-csi-2023-volume-delete-400-snapshot-restored-to-volume": (
        # Cinder's words without their "Invalid volume: " prefix, in backticks.
        "known.cinder-volume-delete-refused",
        ["Cinder", "400", "has snapshots"],
    ),
}
SUCCESSES: list[str] = []


test_first_finding_names_the_established_cause, test_every_format_renders_without_a_traceback = (
    pinned_cause_tests(CASES, SUCCESSES)
)


def test_gophercloud_default_error_is_read_as_the_exchange_it_reports() -> None:
    name = "manila-csi-gophercloud-2020-share-create-400-dhss-needs-share-network"
    trace = parse_path(WILD / f"{name}.log")
    failed = [ex for ex in trace.exchanges if ex.response is not None and ex.response.status == 400]
    assert [(ex.request.method, ex.request.logged_as) for ex in failed] == [("POST", "gophercloud")]
    assert failed[0].request.url.endswith(":8786/v2/69256af5d9b34113ba70e0c760570040/shares")
    body = failed[0].response.body  # type: ignore[union-attr]
    assert body is not None and body.text is not None
    assert json.loads(body.text)["badRequest"]["code"] == 400
