"""A self-signed certificate for the stub's HTTPS listener.

No client trusts it (it is in no CA bundle), which is the point: a client
pointed at the stub over https fails verification exactly as it fails against
a cloud whose public endpoint uses a self-signed or private-CA certificate.
``cryptography`` is needed only when a case asks for TLS.
"""

from __future__ import annotations

import datetime
import functools
import ipaddress
import ssl
import tempfile
from pathlib import Path

#: The name the certificate is issued to and by (it signs itself).
COMMON_NAME = "osdoctor-lab-stub"


@functools.cache
def certificate_files() -> tuple[Path, Path]:
    """A certificate and its key, made once per process in a private temp dir."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, COMMON_NAME)])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    folder = Path(tempfile.mkdtemp(prefix="osdoctor-lab-tls-"))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.touch(mode=0o600)
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


def server_context() -> ssl.SSLContext:
    """The server side of the stub's TLS listener."""
    cert_path, key_path = certificate_files()
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    return context
