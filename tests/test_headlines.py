"""Which finding leads on every real-client fixture, pinned.

The knowledge grows rule by rule, and a new rule of higher priority can take
the lead on a fixture that an older rule explained: the headline then changes
without any expectation saying so (``.expected.yaml`` lists the findings that
must fire, not which one leads). This table is that expectation: the first
error finding of each fixture, or None. A change here is a decision, with its
reason beside the entry.

Leads that differ from the knowledge before the facts layer, and why:
a seed scenario's own rule now outranks the generic crash class; a finer
class of the same failure (an HTML 503 from the load balancer, a connection
closed without an answer, a plain-HTTP port behind https://) outranks the
coarse one, which still fires (``outranked``) with the same facts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from osdoctor.kb.loader import KnowledgeBase, load_knowledge
from tests.helpers.explained import fixture_report_of, report_of

LOGS = Path(__file__).resolve().parent / "fixtures" / "logs"

HEADLINES: dict[str, str | None] = {
    "generic.async-server-create": "known.no-valid-host",
    "generic.auth-no-role": "osc.auth-refused",
    "generic.auth-not-configured": "generic.auth-not-configured",
    "generic.auth-not-configured.plain": "generic.auth-not-configured",
    "generic.auth-password-expired": "known.keystone-password-expired",
    "generic.auth-wrong-domain": "osc.auth-refused",
    "generic.backup-delete-creating": "generic.bad-request",
    "generic.backup-delete-creating.plain": "generic.bad-request",
    # Nova's schema refusal of a field it does not define: the finer class leads.
    "generic.bad-request": "known.schema-additional-properties",
    "generic.baremetal-node-show-inspect-start-failed": "known.ironic-inspection-start-failed",
    "generic.baremetal-node-show-inspect-start-failed.plain": (
        "known.ironic-inspection-start-failed"
    ),
    "generic.baremetal-node-show-inspect-timeout": "known.ironic-inspection-timeout",
    "generic.baremetal-node-show-inspect-timeout.plain": "known.ironic-inspection-timeout",
    "generic.baremetal-node-show-deploy-callback-timeout": "known.ironic-deploy-callback-timeout",
    "generic.baremetal-node-show-deploy-callback-timeout.plain": (
        "known.ironic-deploy-callback-timeout"
    ),
    "generic.baremetal-node-show-last-error": "known.ironic-driver-info-missing",
    "generic.baremetal-node-show-last-error.plain": "known.ironic-driver-info-missing",
    "generic.catalog-missing-interface": "osc.endpoint-not-found",
    "generic.catalog-missing-region": "osc.endpoint-not-found",
    "generic.catalog-missing-service": "osc.endpoint-not-found",
    "generic.catalog-url-no-host": "generic.endpoint-url-no-host",
    "generic.catalog-url-no-host.plain": "generic.endpoint-url-no-host",
    "generic.compute-service-down": "known.compute-service-down",
    "generic.compute-service-down.plain": "known.compute-service-down",
    "generic.conflict-duplicate-name": "generic.conflict",
    "generic.conflict-in-use": "generic.conflict",
    "generic.conflict-in-use-volume": "known.cinder-volume-delete-refused",
    "generic.conflict-in-use.plain": "generic.conflict",
    "generic.conflict-locked-ironic": "ironic.retry-loop-exhausted",
    "generic.conflict-state-transition": "ironic.retry-loop-exhausted",
    "generic.conn-refused": "generic.connection-refused",
    "generic.connection-reset": "generic.connection-reset",
    "generic.container-create-403-no-operator-role": "known.swift-operator-role-missing",
    "generic.container-create-403-no-operator-role.plain": "known.swift-operator-role-missing",
    "generic.discovery-failed": "generic.endpoint-path-not-found",
    "generic.dns-unresolvable": "generic.dns-failure",
    "generic.dns-unresolvable.plain": "generic.dns-failure",
    "generic.forbidden-policy": "generic.forbidden",
    "generic.hung": "generic.hung",
    "generic.hung-killed": "generic.hung",
    "generic.image-upload-410-store-disabled": "known.glance-store-disabled",
    "generic.image-upload-410-store-disabled.plain": "known.glance-store-disabled",
    # its service logs name the cause: keystone's ERROR in its own log.
    "generic.keystone-500": "server.service-error",
    # its service logs name the cause: nginx's log: the upstream refused.
    "generic.lb-502-html": "server.backend-down",
    # its service logs name the cause: HAProxy's log: no server for the backend.
    "generic.lb-503-html": "server.backend-down",
    # its service logs name the cause: HAProxy's log: the server timed out.
    "generic.lb-504-html": "server.backend-down",
    "generic.library-mismatch-osc-lib": "generic.library-mismatch",
    "generic.locked-server-lock-then-reboot": "known.instance-locked-earlier",
    "generic.locked-server-lock-then-reboot.plain": "known.instance-locked-earlier",
    "generic.locked-server-reboot": "known.instance-locked",
    "generic.locked-server-reboot.plain": "known.instance-locked",
    "generic.method-not-allowed": "generic.method-not-allowed",
    "generic.microversion-406": "generic.microversion-unsupported",
    "generic.network-create-no-tenant-network": "known.neutron-no-tenant-network",
    "generic.network-create-no-tenant-network.plain": "known.neutron-no-tenant-network",
    "generic.not-found-resource": "generic.not-found",
    "generic.not-found-resource-image": "generic.not-found",
    "generic.not-found-version-path": "generic.version-path",
    "generic.nova-500-wraps-neutron": "known.nova-neutron-auth-missing",
    "generic.object-create-404-container-missing": "known.swift-container-missing",
    "generic.object-create-404-container-missing.plain": "known.swift-container-missing",
    "generic.osc-command-unknown-removed": "osc.command-unknown",
    "generic.osc-floating-ip-set-400-no-gateway": "known.neutron-floating-ip-subnet-no-gateway",
    "generic.osc-floating-ip-set-400-no-gateway.plain": (
        "known.neutron-floating-ip-subnet-no-gateway"
    ),
    "generic.osc-floating-ip-set-404-external-not-reachable": (
        "known.neutron-floating-ip-external-unreachable"
    ),
    "generic.osc-floating-ip-set-404-external-not-reachable.plain": (
        "known.neutron-floating-ip-external-unreachable"
    ),
    "generic.osc-image-show-by-name": None,
    "generic.osc-keypair-create-403-quota": "generic.quota-exceeded",
    "generic.osc-network-agent-show-404": "generic.not-found",
    "generic.osc-network-create-409-over-quota": "known.quota-exceeded-for",
    "generic.osc-network-list": None,
    # its service logs name the cause: keystonemiddleware's own words.
    "generic.osc-network-list-401-token": "server.authtoken-token-rejected",
    "generic.osc-network-list-403-policy": "generic.forbidden",
    "generic.osc-network-list-404-html": "generic.endpoint-path-not-found",
    "generic.osc-network-list-405": "generic.method-not-allowed",
    # was generic.server-error: a finer 5xx class, an HTML 503 from the balancer
    "generic.osc-network-list-503": "generic.backend-unavailable",
    # its service logs name the cause: keystonemiddleware names the URL.
    "generic.osc-network-list-503-keystone-unavailable": "server.authtoken-keystone-unreachable",
    "generic.osc-network-list-auth-type-unknown": "generic.auth-type-unknown",
    # was generic.unreachable: a finer class, closed without an answer
    "generic.osc-network-list-dropped": "generic.connection-reset",
    "generic.osc-port-create-409-ip-allocated": "generic.conflict",
    # its service logs name the cause: nova-api's ERROR in its own log.
    "generic.osc-port-create-409-no-more-ips": "known.neutron-ip-addresses-exhausted",
    "generic.osc-port-create-409-no-more-ips.plain": "known.neutron-ip-addresses-exhausted",
    "generic.osc-router-remove-subnet-409-in-use-by-floating-ip": (
        "known.neutron-router-interface-in-use-by-fip"
    ),
    "generic.osc-router-remove-subnet-409-in-use-by-floating-ip.plain": (
        "known.neutron-router-interface-in-use-by-fip"
    ),
    "generic.osc-security-group-rule-create-409-exists": "known.neutron-secgroup-rule-exists",
    "generic.osc-security-group-rule-create-409-exists.plain": "known.neutron-secgroup-rule-exists",
    "generic.osc-server-list-500": "server.service-error",
    # its service logs name the cause: nova-api's ERROR in its own log.
    "generic.osc-server-list-500-inner": "server.service-error",
    "generic.osc-server-list-500-neutron-unauthorized": "known.nova-neutron-auth-missing",
    "generic.osc-subnet-list-400": "generic.bad-request",
    "generic.proxy-tunnel-403": "generic.proxy-refused",
    "generic.quota-cinder": "generic.quota-exceeded",
    "generic.quota-neutron": "known.quota-exceeded-for",
    "generic.quota-nova": "known.quota-exceeded-for",
    "generic.secret-console-url": None,
    "generic.secret-credential-create": None,
    "generic.secret-credential-list-totp": None,
    "generic.secret-ec2-credentials-delete": None,
    "generic.secret-ec2-credentials-list": None,
    "generic.secret-ec2-credentials-value": None,
    "generic.secret-os-password": None,
    "generic.secret-os-token": "generic.not-found",
    "generic.secret-passphrase": None,
    "generic.secret-console-log-passwords": None,
    "generic.secret-image-import-signed-url": None,
    "generic.secret-software-config-urls": None,
    "generic.secret-stack-output-show": None,
    "generic.secret-stack-outputs-json": None,
    "generic.secret-stack-show-tripleo": None,
    "generic.secret-stack-show-tripleo-json": None,
    "generic.swift-stat-keystoneclient-missing": "generic.swift-keystoneclient-missing",
    "generic.swift-upload-413-object-too-large": "known.swift-object-too-large",
    "generic.swift-upload-413-object-too-large.plain": "known.swift-object-too-large",
    "generic.usage-missing-argument": "generic.usage-missing-argument",
    "generic.share-create-dhss-no-share-network": "known.manila-share-network-required",
    "generic.share-create-dhss-no-share-network.plain": "known.manila-share-network-required",
    "generic.snapshot-create-in-use": "known.cinder-snapshot-of-attached-volume",
    "generic.snapshot-create-in-use.plain": "known.cinder-snapshot-of-attached-volume",
    "generic.stack-failures-list-port-no-more-ips": "known.neutron-ip-addresses-exhausted",
    "generic.stack-failures-list-port-no-more-ips.plain": "known.neutron-ip-addresses-exhausted",
    "generic.stack-show-update-failed-lb-immutable": "known.octavia-lb-immutable",
    "generic.stack-show-update-failed-lb-immutable.plain": "known.octavia-lb-immutable",
    "generic.volume-create-az-invalid": "known.cinder-availability-zone-invalid",
    "generic.volume-create-az-invalid.plain": "known.cinder-availability-zone-invalid",
    "ironic.conflict-retry.secret-bios-setting-list": None,
    "osc.auth.secret-configuration-json": None,
    "osc.auth.secret-configuration-yaml": None,
    "osc.find-by-name.secret-unnamed-server-metadata": None,
    "generic.secret-swift-key": None,
    "generic.server-show-fault-json": "known.no-valid-host",
    "generic.server-show-fault-shell": "known.no-valid-host",
    "generic.server-show-fault-value": "known.no-valid-host",
    "generic.server-show-fault-yaml": "known.no-valid-host",
    "generic.stack-show-create-failed": "generic.async-error",
    "generic.stack-show-create-failed.plain": "generic.resource-failed",
    "generic.stack-show-create-failed-no-valid-host": "known.no-valid-host",
    "generic.stack-show-create-failed-no-valid-host.plain": "known.no-valid-host",
    "generic.stack-show-neutron-extension-missing": "known.heat-neutron-extension-missing",
    "generic.stack-show-neutron-extension-missing.plain": "known.heat-neutron-extension-missing",
    "generic.swift-list-no-object-store": "osc.endpoint-not-found",
    "generic.swift-list-no-object-store.plain": "generic.endpoint-not-found",
    "generic.swift-v1-auth-401": "generic.swift-auth-refused",
    "generic.secret-swift-tempurl": None,
    "generic.secret-user-password-set": None,
    "generic.server-traceback-500": "server.missing-module",
    "generic.service-401": "generic.token-refused",
    "generic.swift-v1-auth-401.plain": "generic.swift-auth-refused",
    "generic.task-state-reboot": "known.instance-task-state",
    "generic.task-state-reboot.plain": "known.instance-task-state",
    "generic.timeout": "generic.connection-timeout",
    "generic.timeout-heat": "generic.connection-timeout",
    "generic.tls-self-signed": "generic.tls-failure",
    "generic.tls-wrong-version": "generic.tls-wrong-version",
    "generic.unknown-auth-type": "generic.auth-type-unknown",
    "generic.usage-unrecognized-argument": "generic.usage-error",
    "generic.version-unsupported-compute": "generic.client-version-unsupported",
    "generic.version-unsupported-compute.plain": "generic.client-version-unsupported",
    "generic.version-unsupported-identity": "generic.client-version-unsupported",
    "generic.version-unsupported-identity.plain": "generic.client-version-unsupported",
    "heat.software-deployment.no-signal": None,
    "heat.software-deployment.no-signal-config": None,
    "heat.software-deployment.output-truncated": None,
    # was generic.client-defect: the scenario's own rule now outranks the crash class
    "heat.software-deployment.tempurl-attributeerror": "heat.deployment-tempurl-attributeerror",
    # was generic.client-defect: the scenario's own rule now outranks the crash class
    "heat.software-deployment.tempurl-attributeerror-config": (
        "heat.deployment-tempurl-attributeerror"
    ),
    "heat.software-deployment.tempurl-attributeerror.plain": "generic.client-crash-printed",
    "heat.software-deployment.tempurl-swift": None,
    "heat.software-deployment.tempurl-swift-prefixed": None,
    "heat.stack-create.create-complete": None,
    "heat.stack-create.create-complete-heat-shell": None,
    "heat.stack-create.create-failed": "heat.create-failed",
    "heat.stack-create.create-failed.plain": "generic.resource-failed",
    "heat.stack-create.local-file-missing": "heat.local-file-missing",
    "heat.stack-create.local-file-missing-env": "heat.local-file-missing",
    "heat.stack-create.local-file-missing-get-file": "heat.local-file-missing",
    "heat.stack-create.no-wait": None,
    # Its template gives a string property a list: Heat's property error says which.
    "heat.stack-create.rejected": "known.heat-property-error",
    "heat.stack-create.rejected-exists": "heat.create-rejected",
    "heat.stack-create.rejected-property-error": "known.heat-property-error",
    "heat.stack-create.rejected-property-error.plain": "known.heat-property-error",
    "heat.stack-create.rejected-resource-type": "known.heat-resource-type-not-found",
    "heat.stack-create.rejected-resource-type-unknown-old": "known.heat-resource-type-not-found",
    "heat.stack-create.rejected-resource-type-unknown-old.plain": (
        "known.heat-resource-type-not-found"
    ),
    "heat.stack-create.rejected-type-unavailable": "known.heat-resource-type-unavailable",
    "heat.stack-create.rejected-type-unavailable.plain": "known.heat-resource-type-unavailable",
    "heat.stack-create.secret-hidden-parameter": None,
    "heat.stack-create.secret-parameter-names": None,
    "heat.stack-create.stalled": "heat.wait-stalled",
    "heat.stack-create.template-invalid": "heat.template-parse-error",
    "heat.stack-delete.delete-failed": "heat.delete-failed-reason",
    "heat.stack-delete.deleted": None,
    "heat.stack-delete.deleted-by-id": None,
    "heat.stack-delete.deleted-events-404": None,
    "heat.stack-delete.deleted-two-no-wait": None,
    "heat.stack-delete.forbidden": "heat.delete-forbidden",
    "heat.stack-delete.gone-but-error": "heat.delete-gone-but-error",
    "heat.stack-delete.not-found": "heat.delete-not-found",
    "heat.stack-delete.not-found-wait": "heat.delete-not-found",
    "heat.stack-delete.partial": "heat.delete-partial",
    "heat.stack-delete.partial-two": "heat.delete-partial",
    "heat.stack-delete.partial-wait-gone": "heat.delete-not-found",
    "heat.stack-hook.clear-no-match": None,
    "heat.stack-hook.clear-signalled": None,
    "heat.stack-hook.clear-signalled-by-id": None,
    "heat.stack-hook.hook-set": None,
    "heat.stack-hook.not-in-progress": "heat.hook-not-in-progress",
    "heat.stack-hook.poll-index-error": "heat.hook-poll-needs-name",
    "heat.stack-hook.poll-index-error-start-gone": "heat.hook-poll-start-event-gone",
    "heat.stack-hook.poll-index-error.plain": "generic.client-crash-printed",
    "heat.stack-hook.poll-pending": None,
    "heat.stack-hook.redirect-missing": "heat.hook-redirect-missing",
    "heat.stack-update.conflict": "heat.update-conflict",
    "heat.stack-update.dry-run": None,
    "heat.stack-update.no-wait": None,
    "heat.stack-update.no-wait-heat-shell": None,
    "heat.stack-update.redirect-missing": "heat.redirect-without-location",
    "heat.stack-update.redirect-missing-dry-run": "heat.redirect-without-location",
    "heat.stack-update.redirect-missing-put-only": "heat.redirect-without-location",
    "heat.stack-update.update-complete": None,
    "heat.stack-update.update-complete-by-id": None,
    "heat.stack-update.update-complete-existing": None,
    "heat.stack-update.update-failed": "heat.update-failed",
    "ironic.bulk-create.created": None,
    "ironic.bulk-create.invalid-file": "ironic.bulk-file-invalid",
    "ironic.bulk-create.invalid-file-missing-standalone": "ironic.bulk-file-invalid",
    "ironic.bulk-create.partial": "ironic.bulk-partial-exists",
    "ironic.bulk-create.partial-rerun": "ironic.bulk-partial-exists",
    "ironic.bulk-create.port-mismatch": "ironic.bulk-port-mismatch",
    "ironic.conflict-retry.exhausted-409": "ironic.retry-loop-exhausted",
    "ironic.conflict-retry.exhausted-409-duplicate-name": "ironic.retry-loop-exhausted",
    "ironic.conflict-retry.exhausted-409-state-transition": "ironic.retry-loop-exhausted",
    "ironic.conflict-retry.exhausted-503-standalone": "ironic.retry-loop-exhausted",
    "ironic.conflict-retry.recovered": None,
    "ironic.conflict-retry.retry-after-typeerror": "ironic.retry-after-typeerror",
    "ironic.conflict-retry.retry-after-typeerror-429": "ironic.retry-after-typeerror",
    "ironic.conflict-retry.retry-after-typeerror-standalone": "ironic.retry-after-typeerror",
    "ironic.conflict-retry.retry-after-typeerror.plain": "generic.library-mismatch",
    "ironic.conflict-retry.secret-driver-info-patch": None,
    "ironic.provision-wait.already-there": None,
    "ironic.provision-wait.already-there-provide-standalone": None,
    "ironic.provision-wait.failed": "ironic.wait-failed-state",
    "ironic.provision-wait.failed-clean-provide": "ironic.wait-failed-state",
    "ironic.provision-wait.failed.plain": "known.ironic-inspection-start-failed",
    "ironic.provision-wait.reached": None,
    "ironic.provision-wait.timeout": "ironic.wait-timeout-keeps-running",
    "ironic.provision-wait.unexpected-stable": "ironic.wait-unexpected-stable",
    "ironic.standalone.endpoint-given": None,
    "ironic.standalone.endpoint-given-localhost": None,
    "ironic.standalone.endpoint-option-ambiguous": "ironic.standalone-endpoint-ambiguous",
    "ironic.standalone.endpoint-refused-401": "ironic.standalone-needs-noauth",
    "ironic.standalone.latest": None,
    "ironic.standalone.no-endpoint": "ironic.standalone-no-endpoint",
    "ironic.standalone.openrc-auth-type-none": "ironic.standalone-openrc-auth-none",
    "ironic.version-negotiation.discovery-failed": "ironic.version-discovery-failed",
    "ironic.version-negotiation.downgraded": None,
    "ironic.version-negotiation.no-version-headers": "ironic.version-headers-missing",
    "ironic.version-negotiation.pinned-unsupported": "ironic.pinned-version-unsupported",
    "ironic.version-negotiation.pinned-unsupported-env-standalone": (
        "ironic.pinned-version-unsupported"
    ),
    "osc.auth.auth-refused": "osc.auth-refused",
    "osc.auth.auth-refused-network-list": "osc.auth-refused",
    "osc.auth.authenticated": None,
    "osc.auth.authenticated-token-issue-localhost": None,
    "osc.auth.endpoint-not-found": "osc.endpoint-not-found",
    "osc.auth.endpoint-not-found-compute": "osc.endpoint-not-found",
    "osc.auth.endpoint-not-found-region": "osc.endpoint-not-found",
    "osc.auth.keystone-unreachable": "osc.keystone-unreachable",
    "osc.auth.keystone-unreachable-dropped": "osc.keystone-unreachable",
    "osc.auth.keystone-unreachable-proxy": "generic.proxy-refused",
    # was generic.tls-failure (a certificate's advice): the port speaks plain HTTP
    "osc.auth.keystone-unreachable-tls": "generic.tls-wrong-version",
    "osc.auth.keystone-unreachable-token-dropped": "osc.keystone-unreachable",
    "osc.auth.no-auth-needed": None,
    "osc.auth.no-auth-needed-not-configured": None,
    "osc.auth.not-configured": "osc.auth-not-configured",
    "osc.auth.not-configured.plain": "osc.auth-not-configured",
    "osc.find-by-name.ambiguous": "osc.name-ambiguous",
    "osc.find-by-name.found-by-id": None,
    "osc.find-by-name.found-by-id-error-auth-url": "known.build-aborted-auth-url",
    "osc.find-by-name.found-by-id-error-network": "known.build-aborted-network",
    "osc.find-by-name.found-by-id-error-no-valid-host": "known.no-valid-host",
    "osc.find-by-name.found-by-id-error-no-valid-host.plain": "known.no-valid-host",
    "osc.find-by-name.found-by-id-error-retries": "known.build-retries-exhausted",
    "osc.find-by-name.found-by-id-error-volume": "known.build-volume-failed",
    "osc.find-by-name.found-by-id-error-volume-slow": "known.build-volume-slow",
    "osc.find-by-name.found-by-id.plain": None,
    "osc.find-by-name.found-by-name": None,
    "osc.find-by-name.found-by-name-regex": None,
    # its service logs name the cause: nova-api's log: its database is gone.
    "osc.find-by-name.lookup-broken": "server.db-unreachable",
    "osc.find-by-name.lookup-broken-503": "osc.id-lookup-5xx",
    "osc.find-by-name.not-found": "osc.name-not-found",
    "osc.find-by-name.not-found-detail-404": "osc.name-lookup-404",
    "osc.multi-delete.all-deleted": None,
    "osc.multi-delete.all-deleted-three": None,
    "osc.multi-delete.all-deleted-two": None,
    "osc.multi-delete.all-deleted.plain": None,
    "osc.multi-delete.all-failed": "osc.multi-delete-all-failed",
    "osc.multi-delete.partial-failure": "osc.multi-delete-partial",
    "osc.multi-delete.partial-failure-locked": "osc.multi-delete-partial",
    "osc.multi-delete.partial-failure-locked.plain": "known.instance-locked",
    "osc.multi-delete.partial-failure-network": "osc.multi-delete-partial",
    "osc.object-upload.missing-local-file": "osc.object-local-file-missing",
    "osc.object-upload.missing-local-file-second": "osc.object-local-file-missing",
    "osc.object-upload.uploaded": None,
    "osc.object-upload.uploaded-local-path": None,
    "osc.object-upload.uploaded-name": None,
    "osc.server-create.active": None,
    # its service logs name the cause: nova-scheduler's log names the filter.
    "osc.server-create.error": "server.no-valid-host",
    "osc.server-create.error.plain": "osc.wait-saw-error",
    "osc.server-create.local-check-failed": "osc.server-create-local-check",
    "osc.server-create.local-check-failed-microversion": "osc.server-create-local-check",
    "osc.server-create.lookup-failed": "osc.server-create-lookup-failed",
    "osc.server-create.lookup-failed-flavor": "osc.server-create-lookup-failed",
    "osc.server-create.lookup-failed-network": "osc.server-create-lookup-failed",
    "osc.server-create.multiple-networks": "known.multiple-networks",
    "osc.server-create.user-data-413-proxy": "generic.request-too-large",
    "osc.server-create.no-wait": None,
    "osc.server-create.secret-user-data": None,
    # The server side: each fixture's services' logs name its cause.
    "generic.server-cinder-amqp-refused": "server.amqp-refused",
    "generic.server-cinder-authtoken-service-user": "server.authtoken-service-user",
    "generic.server-cinder-vg-missing": "server.volume-backend",
    "generic.server-glance-option-removed": "server.config-option-missing",
    "generic.server-haproxy-rate-limited": "server.rate-limited",
    "generic.server-keystone-db-access-denied": "server.db-access-denied",
    "generic.server-keystone-uwsgi-missing-module": "server.missing-module",
    "generic.server-neutron-config-unparsable": "server.config-unparsable",
    "generic.server-neutron-policy-file": "server.policy-file",
    "generic.server-nova-amqp-unreachable": "server.amqp-unreachable",
    "generic.server-nova-cell-unreachable": "server.cell-unreachable",
    "generic.server-nova-db-unreachable": "server.db-unreachable",
    "generic.server-nova-glance-unreachable": "server.peer-unreachable",
    "generic.server-nova-rpc-timeout": "server.rpc-timeout",
    "generic.server-secrets-in-service-log": "server.service-error",
    "osc.server-create.error-bridge-mapping-missing": "server.bridge-mapping-missing",
    "osc.server-create.error-no-candidates": "server.no-valid-host-no-candidates",
    # Without --debug and without the scheduler's log: the client's own words.
    "osc.server-create.error-no-candidates.plain": "osc.wait-saw-error",
    "generic.server-glance-rbd-library-missing": "server.store-library-missing",
    "generic.server-glance-authtoken-login-malformed": "server.authtoken-login-malformed",
    "osc.server-create.error-libvirt-unreachable": "server.libvirt-unreachable",
    "osc.server-create.error-port-binding-dead-agent": "server.agent-dead",
    "osc.server-create.error-port-binding-failed": "server.port-binding-failed",
    "generic.osc-keypair-create-400-additional-properties": "known.schema-additional-properties",
    "generic.osc-keypair-create-400-additional-properties.plain": (
        "known.schema-additional-properties"
    ),
    "generic.osc-keypair-create-400-invalid-public-key": "known.keypair-data-invalid",
    "generic.osc-keypair-create-400-invalid-public-key.plain": "known.keypair-data-invalid",
    "generic.quota-nova-default-cores": "known.nova-default-quota",
    "generic.quota-nova-default-cores.plain": "known.nova-default-quota",
    "generic.resize-confirm-not-ready": "known.resize-not-ready",
    "generic.resize-confirm-not-ready.plain": "known.resize-not-ready",
    "generic.resize-no-host-same-host": "known.resize-no-host",
    "generic.resize-no-host-same-host.plain": "known.resize-no-host",
    "generic.server-show-fault-az-mismatch": "known.volume-az-mismatch",
    "generic.stopped-server-resume": "known.instance-action-wrong-state",
    "generic.stopped-server-resume.plain": "known.instance-action-wrong-state",
    "generic.vm-state-error-reboot": "known.instance-in-error-state",
    "generic.vm-state-error-reboot.plain": "known.instance-in-error-state",
    "osc.server-create.bdm-image-volume-no-size": "known.bdm-image-volume-size",
    "osc.server-create.bdm-image-volume-no-size.plain": "known.bdm-image-volume-size",
    "osc.server-create.bdm-volume-unusable": "known.bdm-volume-unusable",
    "osc.server-create.bdm-volume-unusable.plain": "known.bdm-volume-unusable",
    "osc.server-create.invalid-key-name": "known.invalid-key-name",
    "osc.server-create.invalid-key-name.plain": "known.invalid-key-name",
    "osc.server-create.user-data-too-large": "known.user-data-too-large",
    "osc.server-create.user-data-too-large.plain": "known.user-data-too-large",
}
# Healthy runs whose one warning is the point of their case; no other healthy
# fixture may show an error or a warning.
HEALTHY_WARNINGS = {
    "heat.software-deployment.tempurl-swift-prefixed": ["heat.tempurl-swift-prefix-dropped"],
    "heat.stack-hook.clear-no-match": ["heat.hook-clear-no-match"],
    "osc.object-upload.uploaded-local-path": ["osc.object-named-after-path"],
}


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return load_knowledge(user=False)


def test_every_fixture_has_its_headline_pinned() -> None:
    names = sorted(p.name.removesuffix(".log") for p in LOGS.glob("*.log"))
    assert sorted(HEADLINES) == names


@pytest.mark.parametrize("name", sorted(HEADLINES))
def test_the_expected_finding_leads(name: str, kb: KnowledgeBase) -> None:
    """With the services' logs the capture kept beside the fixture, when it did."""
    report = fixture_report_of(LOGS / f"{name}.log")
    errors = [f.id for f in report.findings if f.severity == "error"]
    assert (errors[0] if errors else None) == HEADLINES[name], errors
    if report.outcome == "success":
        warned = [f.id for f in report.findings if f.severity in ("error", "warning")]
        assert warned == HEALTHY_WARNINGS.get(name, [])


@pytest.mark.parametrize(
    ("name", "coarse"),
    [
        ("generic.osc-network-list-503", "generic.server-error"),
        ("generic.osc-network-list-dropped", "generic.unreachable"),
        ("osc.auth.keystone-unreachable-tls", "generic.tls-failure"),
    ],
)
def test_the_coarse_class_a_finer_one_outranks_still_fires(
    name: str, coarse: str, kb: KnowledgeBase
) -> None:
    report = report_of(LOGS / f"{name}.log")
    assert coarse in [f.id for f in report.outranked]
    assert report.facts is not None and report.facts.failure is not None
