"""Real non-debug pastes about Heat, Magnum and Ironic from public threads
(fixtures/wild/, INDEX.md gives each one's source and established cause): the
first error finding names that cause, and no paste makes any renderer fail.
"""

from __future__ import annotations

from pathlib import Path

from tests.helpers.wild_pastes import pinned_cause_tests

WILD = Path(__file__).resolve().parent / "fixtures" / "wild"

# file -> (first error rule, words its title must hold), case-insensitive.
CASES: dict[str, tuple[str, list[str]]] = {
    "heat-2016-stack-create-unknown-resource-type-old-words": (
        # Heat's pre-Liberty words for a type no resource_registry maps.
        "known.heat-resource-type-not-found",
        ["OOShift::LoadBalancer", "resource_registry"],
    ),
    "heat-2016-stack-create-type-unavailable-lbaas-v1-pool": (
        "known.heat-resource-type-unavailable",
        ["OS::Neutron::Pool", "neutron", "Service endpoint not in service catalog"],
    ),
    "heat-2016-stack-show-lb-monitor-404-lbaas-missing": (
        "known.heat-neutron-extension-missing",
        ["Neutron", "lb_monitor", "extension is not enabled"],
    ),
    "tripleo-2021-event-lines-property-not-assigned-wrapped": (
        # Event lines without event ids, each folded once by the terminal.
        "known.heat-property-error",
        ["ContainerOvnMetadataImage", "not assigned"],
    ),
    "heat-2016-stack-create-property-not-a-map-contrail": (
        "known.heat-property-error",
        ["network_ipam_refs_data", "template_VirtualNetwork_1", "not a map"],
    ),
    "terraform-ironic-2020-inspect-failed-sushy-attributeerror": (
        "known.ironic-inspection-start-failed",
        ["start inspecting", "'System' object has no attribute 'set_system_boot_options'"],
    ),
    "openshift-install-2025-inspection-power-on-failed-bmc-rights": (
        "known.ironic-inspection-start-failed",
        ["start inspecting", "Failed to set node power state to power on"],
    ),
    "terraform-ironic-2019-inspect-failed-timeout-ramdisk": (
        "known.ironic-inspection-timeout",
        ["inspection ramdisk", "timed out"],
    ),
    "metal3-docs-bmh-events-inspection-timeout": (
        # metal3's events for a host: Ironic's last_error as the event's message.
        "known.ironic-inspection-timeout",
        ["inspection ramdisk", "timed out"],
    ),
    "metal3-docs-bmh-events-inspection-boot-mode-redfish": (
        # The event's message wrapped by the author over three lines.
        "known.ironic-inspection-start-failed",
        ["start inspecting", "Setting boot mode to bios failed", "returned code 500"],
    ),
}
SUCCESSES: list[str] = []


test_first_finding_names_the_established_cause, test_every_format_renders_without_a_traceback = (
    pinned_cause_tests(CASES, SUCCESSES)
)


def test_each_paste_is_indexed_with_its_source() -> None:
    index = (WILD / "INDEX.md").read_text(encoding="utf-8")
    rows = {line.split(" | ")[0].strip("| "): line for line in index.splitlines()}
    for name in CASES:
        assert rows[f"{name}.log"].split(" | ")[1].startswith("http"), name
