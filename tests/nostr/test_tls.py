"""``wss://``: the client speaks TLS to a relay, and refuses one whose certificate it cannot trust."""

from __future__ import annotations

import datetime
import ipaddress
import json
import ssl
from pathlib import Path
from typing import Final

import pytest
import trio
import trio_websocket
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from p2pgenius.net import nostr_relay
from p2pgenius.net.nostr_relay import RelayError
from p2pgenius.protocol import nostr
from p2pgenius.protocol.nostr import Draft, SecretKey
from tests.nostr.relays import hostile_relay
from tests.patience import HANG_S

WAIT_S: Final = HANG_S
"""The bound on a wait on loopback: only a hang reaches it (tests/patience.py); a timeout that is
the behaviour under test is given as its own, short, number."""
LOOPBACK = x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))])


def certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and its key, as files (what ``ssl`` loads)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "test relay")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = folder / "relay.pem", folder / "relay.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_file, key_file


async def answer_ok(connection: trio_websocket.WebSocketConnection) -> None:
    while True:
        sent = json.loads(await connection.get_message())
        await connection.send_message(json.dumps(["OK", sent[1]["id"], True, ""]))


async def test_wss_to_a_relay_whose_certificate_we_trust_and_not_to_another(tmp_path: Path) -> None:
    cert_file, key_file = certificate(tmp_path)
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(cert_file, key_file)
    event = nostr.sign_event(SecretKey((61).to_bytes(32, "big")), Draft(1, 1059, (), "over TLS"), bytes(32))
    async with trio.open_nursery() as nursery:
        url = await hostile_relay(nursery, answer_ok, server)
        assert url.startswith("wss://")
        trusting = ssl.create_default_context(cafile=str(cert_file))
        async with nostr_relay.connect(url, ssl_context=trusting, timeout_s=WAIT_S) as relay:
            assert (await relay.publish(event, timeout_s=WAIT_S)).accepted
        # (said at once: trio-websocket alone would wait out the timeout and say ConnectionTimeout)
        with pytest.raises(RelayError, match=r"TLS: certificate verify failed: self.signed certificate\)$"):
            async with nostr_relay.connect(url, timeout_s=WAIT_S):  # (the system's authorities only)
                pass
        nursery.cancel_scope.cancel()
