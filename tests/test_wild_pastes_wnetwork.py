"""Real public pastes of Neutron and Octavia failures without ``--debug``
(fixtures/wild/, INDEX.md gives each one's source and established cause): the
first error finding names that cause, and no paste makes a renderer fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from osdoctor.diagnose import parse_path
from tests.helpers.wild_pastes import pinned_cause_tests

WILD = Path(__file__).resolve().parent / "fixtures" / "wild"
LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"

# file -> (first error rule, words its title must hold), case-insensitive.
CASES: dict[str, tuple[str, list[str]]] = {
    "ansible-2019-server-auto-ip-400-subnet-no-gateway": (
        "known.neutron-floating-ip-subnet-no-gateway",
        ["floating IP", "subnet ad5c-ce6dd61d594e", "no gateway"],
    ),
    "terraform-2018-secgroup-rule-409-default-egress-exists": (
        "known.neutron-secgroup-rule-exists",
        ["already exists", "c18ad3d4-2307-4817-83e0-ded305e90f78"],
    ),
    "heat-2019-port-create-failed-no-more-ip-addresses": (
        "known.neutron-ip-addresses-exhausted",
        ["No IP address left", "be3a70aa-6e55-42f3-9a7e-613267fa78f5"],
    ),
    "neutronclient-2023-octavia-amphora-overquota-security-group": (
        "known.quota-exceeded-for",
        ["Quota exceeded for resources", "security_group"],
    ),
    "capo-2023-listener-create-409-lb-immutable-pending-update": (
        "known.octavia-lb-immutable",
        ["immutable", "7d690fcb-ea67-4462-a49e-dda806c8f792", "PENDING"],
    ),
    "cbspider-2025-floating-ip-associate-400-external-not-reachable": (
        "known.neutron-floating-ip-external-unreachable",
        ["f1ac5f1f-f6cf-4a97-b8e8-5a9f324a5394", "c3c6eeac-73d4-45e1-9173-f449dbb3c8e5", "router"],
    ),
    "ansible-2023-router-interface-delete-409-in-use-by-floating-ip": (
        "known.neutron-router-interface-in-use-by-fip",
        [
            "8511e0ac-7c6a-4ee6-b731-42c0780eb32a",
            "cc4f26e0-c723-4e85-8b05-d9ea86394ef2",
            "floating IPs",
        ],
    ),
    "osc-2026-router-add-subnet-400-address-scope-differs": (
        "generic.bad-request",
        ["Neutron", "400", "Cannot attach subnet", "address scope"],
    ),
    "gophercloud-2018-floating-ip-create-409-no-more-ips": (
        "known.neutron-ip-addresses-exhausted",
        ["No IP address left", "06fb6e98-4e98-4320-9f00-34e028ed53cb"],
    ),
    "vagrant-fog-2015-floating-ip-403-over-quota-in-pool": (
        "generic.quota-exceeded",
        ["Nova quota exceeded", "IP allocation over quota in pool nova"],
    ),
    "gophercloud-2025-floating-ip-create-409-overquota-leaked-bastion-fips": (
        "known.quota-exceeded-for",
        ["Quota exceeded for resources", "floatingip"],
    ),
    "capo-2024-listener-create-409-lb-immutable-after-patch": (
        "known.octavia-lb-immutable",
        ["cb8e830a-6cc8-4a0f-b854-270905bc43d1", "PENDING"],
    ),
    "fog-2013-secgroup-rule-400-already-exists-in-group": (
        "generic.bad-request",
        ["Nova", "400", "This rule already exists in group 3"],
    ),
    "ansible-2020-lb-listener-update-400-read-only-loadbalancer-id": (
        "generic.bad-request",
        ["Neutron", "400", "Cannot update read-only attribute loadbalancer_id"],
    ),
}
SUCCESSES: list[str] = []


test_first_finding_names_the_established_cause, test_every_format_renders_without_a_traceback = (
    pinned_cause_tests(CASES, SUCCESSES)
)


@pytest.mark.parametrize(
    ("path", "name"),
    [
        (
            WILD / "heat-2019-port-create-failed-no-more-ip-addresses.log",
            "overcloud.Controller.0.ExternalPort.ExternalPort",
        ),
        # the real heat plugin's output, captured in the lab
        (LOGS / "generic.stack-failures-list-port-no-more-ips.plain.log", "app.port"),
    ],
)
def test_a_heat_failures_list_names_each_resource_above_its_fields(path: Path, name: str) -> None:
    (resource,) = parse_path(path).resources
    assert (resource.type, resource.name) == ("stack resource", name)
    status, reason = resource.get("status"), resource.get("status_reason")
    assert status is not None and status.value == "CREATE_FAILED"
    assert reason is not None and reason.value.startswith("IpAddressGenerationFailureClient: ")
