"""Which service wrote a record, and which catalog service it answers for.

A record names its writer three ways: the logger (``nova.api.openstack`` is
nova-api, ``nova.compute.manager`` nova-compute), the program of a journald or
syslog prefix (``nova-api[533]``, devstack's ``devstack@n-api.service``), and
the file it was read from (``/var/log/neutron/server.log`` is neutron-server).
The logger is the most precise; shared libraries (``oslo_db``,
``keystonemiddleware``) say nothing, and the program or file does.
"""

from __future__ import annotations

from osdoctor import regex

#: Logger prefixes and the service that writes them, most precise first.
_LOGGERS: tuple[tuple[str, str], ...] = (
    ("nova.api.metadata", "nova-metadata-api"),
    ("nova.api", "nova-api"),
    ("nova.osapi_compute", "nova-api"),
    ("nova.metadata", "nova-metadata-api"),
    ("nova.compute", "nova-compute"),
    ("nova.virt", "nova-compute"),
    ("nova.scheduler", "nova-scheduler"),
    ("nova.filters", "nova-scheduler"),
    ("nova.conductor", "nova-conductor"),
    ("nova.consoleauth", "nova-consoleauth"),
    ("nova.console", "nova-novncproxy"),
    ("nova.cmd.compute", "nova-compute"),
    ("nova.cmd.conductor", "nova-conductor"),
    ("nova.cmd.scheduler", "nova-scheduler"),
    ("nova.cmd.api", "nova-api"),
    ("nova", "nova"),
    ("placement", "placement-api"),
    ("keystone", "keystone"),
    ("glance.api", "glance-api"),
    ("glance.registry", "glance-registry"),
    ("glance", "glance-api"),
    ("neutron.plugins.ml2.drivers.openvswitch.agent", "neutron-openvswitch-agent"),
    ("neutron.plugins.ml2.drivers.linuxbridge.agent", "neutron-linuxbridge-agent"),
    ("neutron.plugins.ml2.drivers.macvtap.agent", "neutron-macvtap-agent"),
    ("neutron.plugins.ml2.drivers.mech_sriov.agent", "neutron-sriov-agent"),
    ("neutron.agent.dhcp", "neutron-dhcp-agent"),
    ("neutron.agent.l3", "neutron-l3-agent"),
    ("neutron.agent.metadata", "neutron-metadata-agent"),
    ("neutron.agent.ovn", "neutron-ovn-metadata-agent"),
    ("neutron", "neutron-server"),
    ("cinder.api", "cinder-api"),
    ("cinder.volume", "cinder-volume"),
    ("cinder.scheduler", "cinder-scheduler"),
    ("cinder.backup", "cinder-backup"),
    ("cinder", "cinder"),
    ("heat.api", "heat-api"),
    ("heat.engine", "heat-engine"),
    ("heat", "heat"),
    ("ironic.api", "ironic-api"),
    ("ironic.conductor", "ironic-conductor"),
    ("ironic", "ironic"),
    ("swift", "swift-proxy-server"),
    ("octavia", "octavia-api"),
    ("designate", "designate-api"),
    ("barbican", "barbican-api"),
    ("manila", "manila-api"),
)
#: devstack's unit names (``devstack@n-api.service``) and the service they run.
_DEVSTACK = {
    "n-api": "nova-api",
    "n-api-meta": "nova-metadata-api",
    "n-cpu": "nova-compute",
    "n-sch": "nova-scheduler",
    "n-cond": "nova-conductor",
    "n-cond-cell1": "nova-conductor",
    "n-super-cond": "nova-conductor",
    "n-novnc": "nova-novncproxy",
    "placement-api": "placement-api",
    "keystone": "keystone",
    "g-api": "glance-api",
    "q-svc": "neutron-server",
    "neutron-api": "neutron-server",
    "q-agt": "neutron-openvswitch-agent",
    "q-dhcp": "neutron-dhcp-agent",
    "q-l3": "neutron-l3-agent",
    "q-meta": "neutron-metadata-agent",
    "c-api": "cinder-api",
    "c-vol": "cinder-volume",
    "c-sch": "cinder-scheduler",
    "c-bak": "cinder-backup",
    "h-api": "heat-api",
    "h-eng": "heat-engine",
    "ir-api": "ironic-api",
    "ir-cond": "ironic-conductor",
}
#: File or program names that say less than they seem, and what they mean.
_PROGRAMS = {
    "server": "neutron-server",
    "keystone-wsgi-public": "keystone",
    "keystone-wsgi-admin": "keystone",
    "keystone_wsgi": "keystone",
    "keystone-all": "keystone",
    "keystone-apache-public-error": "keystone",
    "proxy-server": "swift-proxy-server",
    "api": "",
    "error": "",
    "messages": "",
    "syslog": "",
    "uwsgi": "",
    "httpd": "",
    "apache2": "",
    "haproxy": "",
    "nginx": "",
    "journal": "",
}
#: Catalog service types each family of services answers for.
FAMILIES: dict[str, tuple[str, ...]] = {
    "nova": ("compute",),
    "placement": ("placement",),
    "keystone": ("identity",),
    "glance": ("image",),
    "neutron": ("network",),
    "cinder": ("block-storage", "volume", "volumev2", "volumev3"),
    "heat": ("orchestration", "cloudformation"),
    "ironic": ("baremetal",),
    "swift": ("object-store",),
    "octavia": ("load-balancer",),
    "designate": ("dns",),
    "barbican": ("key-manager",),
    "manila": ("shared-file-system", "sharev2"),
}
#: The well-known API ports, for a record that names another service's endpoint.
_PORTS = {
    "9292": "Glance",
    "9696": "Neutron",
    "8778": "Placement",
    "8776": "Cinder",
    "5000": "Keystone",
    "35357": "Keystone",
    "8774": "Nova",
    "8004": "Heat",
    "6385": "Ironic",
    "8080": "Swift",
    "9876": "Octavia",
    "5672": "RabbitMQ",
    "3306": "MySQL",
    "5432": "PostgreSQL",
    "11211": "memcached",
    "16509": "libvirt",
}
#: The service names a URL path says (an endpoint behind a path prefix: ``/identity``).
_PATH_WORDS = {
    "identity": "Keystone",
    "image": "Glance",
    "networking": "Neutron",
    "network": "Neutron",
    "placement": "Placement",
    "volume": "Cinder",
    "compute": "Nova",
}
#: Every daemon name the tables know.
_DAEMONS = frozenset(
    {s for _p, s in _LOGGERS}
    | set(_DEVSTACK.values())
    | {"nova-novncproxy", "neutron-server", "swift-proxy-server", "placement-api"}
)
_ROTATION = regex.compile(r"(?:\.(?:log|txt|json))?(?:[.-]\d{8,10}|\.\d+)*(?:\.(?:gz|bz2|xz))?$")
_URL = regex.compile(r"https?://(?:\[[^\]]+\]|[\w.\-]+)(?::(?P<port>\d+))?(?P<path>/[\w\-]*)?")


def service_of_logger(logger: str) -> str:
    for prefix, service in _LOGGERS:
        if logger == prefix or logger.startswith(prefix + "."):
            return service
    return ""


def service_of_program(program: str) -> str:
    """The service a journald/syslog program or a file name stands for ("" when none)."""
    name = program.rpartition("/")[2]
    name = _ROTATION.sub("", name)
    if name.startswith("devstack@"):
        unit = name[9:].removesuffix(".service")
        return _DEVSTACK.get(unit, unit)
    name = name.removesuffix(".service").replace("_", "-")
    while name.endswith((".log", ".json", ".txt")):
        name = name.rpartition(".")[0]
    if name in _PROGRAMS:
        return _PROGRAMS[name]
    if name in _DAEMONS:
        return name
    head = name.partition("-")[0]
    # Another file of the family (keystone-uwsgi.log, keystone_wsgi_error.log): its family.
    return head if head in FAMILIES else ""


def service_of_path(path: str) -> str:
    """The service a log file's path names: its file name, else its folder
    (``/var/log/keystone/keystone.log``, ``/var/log/neutron/server.log``)."""
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    if not parts:
        return ""
    found = service_of_program(parts[-1])
    if found:
        return found
    if len(parts) > 1 and parts[-2] in FAMILIES:
        stem = _ROTATION.sub("", parts[-1])
        if stem == "server":
            return f"{parts[-2]}-server"
        # The packages' short names: glance/api.log, cinder/volume.log, heat/engine.log.
        daemon = f"{parts[-2]}-{stem}"
        return daemon if daemon in _DAEMONS else parts[-2]
    return ""


_FRAME_PACKAGE = regex.compile(r"/(?:site|dist)-packages/([a-z_]+)/([a-z_]+)?")
#: Out-of-tree drivers and plug-ins, and the service that loads them: a virt
#: driver (novadocker, nova_lxd) runs in nova-compute, an ML2 driver
#: (networking_ovn, networking_odl) in neutron-server.
_PLUGIN = regex.compile(r"(nova(?=docker$|_)|networking(?=_))")
_PLUGIN_LOGGERS = {"nova": "nova.virt", "networking": "neutron.plugins"}


def service_of_frames(frames: list[str]) -> str:
    """The service whose code a bare traceback runs through, innermost frame first
    (``keystone/common/wsgi.py`` is keystone's): "" when it runs through none."""
    for frame in reversed(frames):
        m = _FRAME_PACKAGE.search(frame)
        if m is None:
            continue
        if m.group(1) in FAMILIES:
            return service_of_logger(f"{m.group(1)}.{m.group(2) or ''}".rstrip("."))
        plugin = _PLUGIN.match(m.group(1))
        if plugin is not None:
            return service_of_logger(_PLUGIN_LOGGERS[plugin.group(1)])
    return ""


def family(service: str) -> str:
    """``nova`` of ``nova-api``; "" when unknown."""
    head = service.partition("-")[0]
    return head if head in FAMILIES else ""


def answers_for(service: str, catalog_type: str) -> bool:
    """Whether a service of this name answers the catalog type's requests."""
    return catalog_type in FAMILIES.get(family(service), ())


def peer_named(text: str) -> str:
    """The service a URL in ``text`` points at, by its well-known port or path
    (``http://10.0.0.5:9292`` is Glance); "" when none says."""
    for m in _URL.finditer(text):
        port, path = m.group("port"), (m.group("path") or "").strip("/")
        if port in _PORTS:
            return _PORTS[port]
        if path in _PATH_WORDS:
            return _PATH_WORDS[path]
    return ""
