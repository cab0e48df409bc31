"""The OpenStack command-line programs and the client package each belongs to.

Below every layer: the parser names a log's client from it, and the redaction
knows from it where a typed command line starts.
"""

from __future__ import annotations

#: Program name -> client, for every keystoneauth-based CLI people run with --debug.
PROGRAMS: dict[str, str] = {
    "openstack": "openstackclient",
    "heat": "heatclient",
    "baremetal": "ironicclient",
    "ironic": "ironicclient",
    "swift": "swiftclient",
    "nova": "novaclient",
    "cinder": "cinderclient",
    "neutron": "neutronclient",
    "glance": "glanceclient",
    "keystone": "keystoneclient",
    "gnocchi": "gnocchiclient",
    "system": "cgtsclient",
    "aodh": "aodhclient",
    "manila": "manilaclient",
    "designate": "designateclient",
    "barbican": "barbicanclient",
    "magnum": "magnumclient",
    "trove": "troveclient",
    "sahara": "saharaclient",
    "senlin": "senlinclient",
    "mistral": "mistralclient",
    "monasca": "monascaclient",
    "murano": "muranoclient",
    "ceilometer": "ceilometerclient",
    "zaqar": "zaqarclient",
    "watcher": "watcherclient",
    "tacker": "tackerclient",
    "cloudkitty": "cloudkittyclient",
    "masakari": "masakariclient",
    "zun": "zunclient",
    "octavia": "octaviaclient",
    "placement": "osc_placement",
}
