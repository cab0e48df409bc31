"""Service logs: the records nova-api, keystone or neutron-server wrote while they
answered a client's request, read from lines pasted under the client's output or
from the service's own files, and joined to the client's exchanges by request id
(or, more weakly, by time and service)."""
