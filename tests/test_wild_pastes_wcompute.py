"""Real Nova pastes without --debug from public threads (fixtures/wild/, INDEX.md
gives each one's source and established cause): the first error finding names
that cause, and every renderer takes the report."""

from __future__ import annotations

from pathlib import Path

import pytest

from osdoctor.diagnose import diagnose, parse_path
from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from tests.helpers.causes import assert_names_the_cause
from tests.helpers.wild_pastes import pinned_cause_tests

WILD = Path(__file__).resolve().parent / "fixtures" / "wild"

# file -> (first error rule, words its title must hold), case-insensitive.
CASES: dict[str, tuple[str, list[str]]] = {
    "gophercloud-2018-server-delete-409-locked-acceptance": (
        "known.instance-locked",
        ["23a3dbf8-2f04-4f1a-b515-bd96f4e80543", "is locked", "unlocked first"],
    ),
    "novaclient-2013-reboot-409-vm-state-error-after-resize-japanese": (
        "known.instance-in-error-state",
        ["vm_state error", "refuses to reboot", "state is reset"],
    ),
    "openstack4j-2014-confirm-resize-409-still-resizing": (
        "known.resize-not-ready",
        ["not waiting for confirmation", "vm_state active", "confirmResize"],
    ),
    "terraform-2019-server-create-400-invalid-key-name-other-user": (
        "known.invalid-key-name",
        ["no key pair", "for this user", "Invalid key_name provided"],
    ),
    "novaclient-2015-boot-413-400-user-data-too-large": (
        "known.user-data-too-large",
        ["user data is too large", "111572 bytes", "65535"],
    ),
    "rust-osc-2026-server-fault-volume-az-mismatch-box-table": (
        "known.volume-az-mismatch",
        ["availability zone nbg1", "server in nbg6", "cross_az_attach"],
    ),
    "osc-2016-keypair-create-400-public-key-with-comment-lines": (
        "known.keypair-data-invalid",
        ["authorized_keys", "one OpenSSH public key line"],
    ),
    "bosh-cpi-2014-create-vm-400-multiple-possible-networks": (
        "known.multiple-networks",
        ["Nova needs a network", "Multiple possible networks found"],
    ),
    "libcloud-2016-resume-409-server-stopped-needs-start": (
        "known.instance-action-wrong-state",
        ["cannot resume a server that is stopped", "409"],
    ),
    "vagrant-openstack-2014-reload-409-stop-already-stopped": (
        "known.instance-action-wrong-state",
        ["cannot stop a server that is stopped", "409"],
    ),
    "libcloud-im-2021-create-node-409-multiple-possible-networks": (
        "known.multiple-networks",
        ["Nova needs a network", "Multiple possible networks found"],
    ),
    "novaclient-2016-resize-400-no-valid-host-single-compute": (
        "known.resize-no-host",
        ["No compute host can take the resize", "besides its own"],
    ),
    "openstack4j-2016-keypair-create-400-additional-property-deleted": (
        "known.schema-additional-properties",
        ["fields the API does not take", "deleted"],
    ),
    "openstack4j-2015-boot-from-image-volume-400-no-volume-size": (
        "known.bdm-image-volume-size",
        ["boot volume made from an image needs a size"],
    ),
    "osc-2017-server-create-volume-400-bdm-invalid-cross-az-attach": (
        "known.bdm-volume-unusable",
        ["43ada3f3-0af3-42ff-a8dc-b961a0543f2a", "failed to get volume", "cross_az_attach"],
    ),
}
SUCCESSES: list[str] = []


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


test_first_finding_names_the_established_cause, test_every_format_renders_without_a_traceback = (
    pinned_cause_tests(CASES, SUCCESSES)
)


# A show as the Rust osc prints it (comfy-table's UTF8_FULL_CONDENSED preset), and
# the same show as python-openstackclient's ASCII table: one reading.
_BOX_SHOW = """\
$ osc compute server show web
┌────────────┬──────────────────────────────────────────────────────────────┐
│ Attribute  ┆ Value                                                        │
╞════════════╪══════════════════════════════════════════════════════════════╡
│ fault      ┆ {"code":500,"message":"No valid host was found. There are    │
│            ┆ not enough hosts available."}                                │
│ name       ┆ web                                                          │
│ status     ┆ ERROR                                                        │
└────────────┴──────────────────────────────────────────────────────────────┘
"""


def test_a_box_drawn_show_reads_as_the_ascii_one(kb: KnowledgeBase, tmp_path: Path) -> None:
    from osdoctor.parse.paste import unbox

    box = tmp_path / "box.log"
    box.write_text(_BOX_SHOW, encoding="utf-8")
    ascii_ = tmp_path / "ascii.log"
    ascii_.write_text("\n".join(unbox(line) for line in _BOX_SHOW.splitlines()) + "\n")
    assert "+------------+" in ascii_.read_text() and "| fault      |" in ascii_.read_text()
    shown = [
        [(f.key, f.value) for r in parse_path(p).resources for f in r.fields] for p in (box, ascii_)
    ]
    assert shown[0] == shown[1]
    assert ("status", "ERROR") in shown[0]
    report = diagnose(parse_path(box), kb)
    assert_names_the_cause(report, "known.no-valid-host", ["No valid host was found"])


# BOSH's OpenStack CPI, openstack4j and libcloud wrap the service's refusal in their own errors:
# lines of real outputs (cloudfoundry/bosh#437, openstack4j#221, grycap/im#1211) and the CPI's own
# spec of its message read as the refusal with its status.
@pytest.mark.parametrize(
    ("line", "status", "words"),
    [
        (
            "  debian_nfs_server/3: OpenStack API Request Entity Too Large error. "
            "Check task debug log for details. (00:00:56)",
            413,
            "OpenStack API Request Entity Too Large",
        ),
        (
            # openstack4j, from a real paste (ContainX/openstack4j#221)
            'Exception in thread "main" ClientResponseException{message=Multiple possible '
            "networks found, use a Network ID to be more specific., status=400, "
            "status-code=BAD_REQUEST}",
            400,
            "Multiple possible networks found, use a Network ID to be more specific.",
        ),
        (
            # libcloud's OpenStack driver, from a real IM log (grycap/im#1211)
            "libcloud.common.exceptions.BaseHTTPError: 409 Conflict Multiple possible "
            "networks found, use a Network ID to be more specific.",
            409,
            "Multiple possible networks found, use a Network ID to be more specific.",
        ),
        (
            "OpenStack API Bad Request (Invalid volume: Volume still has 1 "
            "dependent snapshots). Check task debug log for details.",
            400,
            "Invalid volume: Volume still has 1 dependent snapshots",
        ),
    ],
)
def test_a_wrapped_refusal_reads_with_its_status(line: str, status: int, words: str) -> None:
    from osdoctor.facts.printed import read_line

    printed = read_line(1, line)
    assert printed is not None and printed.role == "refusal"
    assert (printed.status, printed.words) == (status, words)
