"""The address guard at the connection: which addresses, which lookup, which TLS name.

The board's worker connects through :mod:`coordqa.llm.http`'s guarded backends; these tests
replace the one resolver they use (:func:`coordqa.llm.addresses.resolve`), so no lookup leaves
the machine and every connection goes to 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import datetime
import socket
import ssl
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from coordqa.llm import CallPolicy, Message, addresses, get_model
from coordqa.llm.addresses import guarded_endpoints, refused_address
from coordqa.llm.testing import LocalOpenAIServer
from coordqa.runs.endpoint import unreachable

ONCE = CallPolicy(max_attempts=1, timeout_s=5.0)


@pytest.mark.parametrize(
    ("address", "refused"),
    [
        ("93.184.216.34", False),
        ("2606:2800:220:1:248:1893:25c8:1946", False),
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("10.1.2.3", True),
        ("172.16.0.1", True),
        ("192.168.1.1", True),
        ("100.64.0.1", True),  # shared address space (carrier NAT)
        ("169.254.169.254", True),  # cloud metadata
        ("0.0.0.0", True),
        ("224.0.0.1", True),
        ("::1", True),
        ("fe80::1%eth0", True),
        ("fd00::1", True),
        ("::ffff:127.0.0.1", True),
        ("64:ff9b::7f00:1", True),  # NAT64 of 127.0.0.1 (N15: is_global says True)
        ("2002:7f00:1::", True),  # 6to4 of 127.0.0.1
    ],
)
def test_the_address_rule(address: str, refused: bool) -> None:
    assert refused_address(address) is refused


def test_a_rebound_name_is_refused_by_every_guarded_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The chat call, the probe before a run and the model listing all connect through the
    guard: none reaches the loopback server the name resolves to."""
    monkeypatch.setattr(addresses, "resolve", lambda host, port: ["127.0.0.1"])
    with LocalOpenAIServer() as server, guarded_endpoints(allow_private=False):
        api_base = server.base_url.replace("127.0.0.1", "rebound.invalid")
        model = get_model("openai/m", api_base=api_base, cache=None, policy=ONCE)
        reply = asyncio.run(model.generate([Message("user", "Pick.")]))
        probe = unreachable(api_base)
        assert server.hits == 0
    assert reply.error_kind == "fatal" and "resolves to 127.0.0.1" in reply.error
    assert probe is not None and "resolves to 127.0.0.1" in probe


def test_under_the_guard_an_endpoint_is_reached_only_directly() -> None:
    from coordqa.errors import ModelError

    with guarded_endpoints(allow_private=True):
        assert get_model("openai/gpt-5", api_base="http://h:1/v1").transport == "direct"
        with pytest.raises(ModelError, match="only as an OpenAI-compatible server"):
            get_model("openai/m", api_base="http://h:1/v1", transport="litellm")
        with pytest.raises(ModelError, match="only as an OpenAI-compatible server"):
            get_model("ollama/m", api_base="http://h:1")
    assert get_model("openai/m", api_base="http://h:1/v1", transport="litellm").transport == (
        "litellm"
    ), "the guard ends with its block"


@pytest.fixture
def tls_listener(tmp_path: Path) -> Iterator[tuple[int, list[str]]]:
    """A TLS listener on 127.0.0.1 with a self-signed certificate that records the server
    name (SNI) of each handshake; the client refuses the certificate after sending it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "self-signed.invalid")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now)
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    (tmp_path / "cert.pem").write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    names: list[str] = []
    context.sni_callback = lambda sock, server_name, ctx: names.append(str(server_name))
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(10)

    def accept_one() -> None:
        try:
            connection, _ = listener.accept()
            with context.wrap_socket(connection, server_side=True):
                pass
        except (OSError, ssl.SSLError):
            return  # the client refused the certificate: the handshake is over

    thread = threading.Thread(target=accept_one, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], names
    finally:
        thread.join(timeout=10)
        listener.close()


def test_tls_still_names_the_host_not_the_address_it_checked(
    tls_listener: tuple[int, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The guard connects to 127.0.0.1, and the TLS handshake asks for the URL's host name."""
    port, names = tls_listener
    monkeypatch.setattr(addresses, "resolve", lambda host, port: ["127.0.0.1"])
    with guarded_endpoints(allow_private=True):
        model = get_model("openai/m", api_base=f"https://tls-name.invalid:{port}/v1", policy=ONCE)
        reply = asyncio.run(model.generate([Message("user", "Pick.")]))
    assert names == ["tls-name.invalid"]
    assert not reply.ok and "CERTIFICATE_VERIFY_FAILED" in reply.error  # self-signed: refused
