"""The TLS probe against a TLS listener on 127.0.0.1 (the lab stub speaks plain HTTP).

Certificates are made here, for the test only: a private CA, a server
certificate for 127.0.0.1 signed by it, and variants that must not verify.
"""

from __future__ import annotations

import datetime
import ipaddress
import socketserver
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from osdoctor.probe.checks import CONFIRMED, NOT_REPRODUCED, ProbeContext, plan_probe, run_probe
from osdoctor.probe.cloudconfig import load_cloud_auth
from osdoctor.probe.scope import Scope
from tests.helpers.exchanges import make_exchange, make_trace

NOW = datetime.datetime.now(datetime.UTC)


def _name(text: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def _cert(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    issuer: str,
    issuer_key: ec.EllipticCurvePrivateKey,
    ca: bool,
    san: str | None,
    days: tuple[int, int] = (-1, 30),
) -> x509.Certificate:
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(_name(issuer))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOW + datetime.timedelta(days=days[0]))
        .not_valid_after(NOW + datetime.timedelta(days=days[1]))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if san is not None:
        builder = builder.add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(san))]), critical=False
        )
    return builder.sign(issuer_key, hashes.SHA256())


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def make_pki(
    folder: Path, san: str = "127.0.0.1", days: tuple[int, int] = (-1, 30)
) -> tuple[Path, Path, Path]:
    """(CA file, server cert file, server key file)."""
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = _cert("osdoctor test CA", ca_key, "osdoctor test CA", ca_key, True, None, (-1, 60))
    key = ec.generate_private_key(ec.SECP256R1())
    cert = _cert("server", key, "osdoctor test CA", ca_key, False, san, days)
    (folder / "ca.pem").write_bytes(_pem(ca))
    (folder / "cert.pem").write_bytes(_pem(cert))
    (folder / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return folder / "ca.pem", folder / "cert.pem", folder / "key.pem"


@contextmanager
def tls_listener(cert: Path, key: Path) -> Iterator[int]:
    """Accept TLS handshakes on 127.0.0.1 until the block ends; yields the port."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    class Handler(socketserver.BaseRequestHandler):
        def handle(self) -> None:
            try:
                with context.wrap_socket(self.request, server_side=True):
                    pass
            except (ssl.SSLError, OSError):
                pass

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def tls_probe(port: int, cacert: Path | None) -> str:
    url = f"https://127.0.0.1:{port}/identity/v3"
    trace = make_trace(
        make_exchange(
            0,
            "",
            None,
            url=url,
            service="identity",
            line=1,
            error="tls",
            error_text="CERTIFICATE_VERIFY_FAILED",
        )
    )
    env = {"OS_AUTH_URL": url, "OS_USERNAME": "demo", "OS_PASSWORD": "FAKE-x"}
    if cacert is not None:
        env["OS_CACERT"] = str(cacert)
    cloud = load_cloud_auth(env=env, cwd=Path("/nonexistent"), home=Path("/nonexistent"))
    scope = Scope.from_trace(trace)
    target = plan_probe("tls-certificate", {}, trace, scope, cloud)
    assert not isinstance(target, str)
    ctx = ProbeContext(trace, scope, cloud, None, timeout=5.0)
    outcome = run_probe("tls-certificate", ctx, target, {})
    assert [s.method for s in ctx.sent] == ["TLS"]
    return f"{outcome.status}: {outcome.detail}"


def test_tls_confirms_a_certificate_from_an_unknown_ca(tmp_path: Path) -> None:
    _ca, cert, key = make_pki(tmp_path)
    with tls_listener(cert, key) as port:
        result = tls_probe(port, cacert=None)
    assert result.startswith(CONFIRMED) and "does not verify" in result, result


def test_tls_refutes_when_the_configured_ca_verifies_it(tmp_path: Path) -> None:
    ca, cert, key = make_pki(tmp_path)
    with tls_listener(cert, key) as port:
        result = tls_probe(port, cacert=ca)
    assert result.startswith(NOT_REPRODUCED) and "verifies (valid until" in result, result


def test_tls_confirms_an_expired_certificate(tmp_path: Path) -> None:
    ca, cert, key = make_pki(tmp_path, days=(-30, -1))
    with tls_listener(cert, key) as port:
        result = tls_probe(port, cacert=ca)
    assert result.startswith(CONFIRMED) and "expired" in result, result


def test_tls_confirms_a_host_name_mismatch(tmp_path: Path) -> None:
    ca, cert, key = make_pki(tmp_path, san="127.0.0.2")
    with tls_listener(cert, key) as port:
        result = tls_probe(port, cacert=ca)
    assert result.startswith(CONFIRMED) and "mismatch" in result.lower(), result
