"""Benchmark: the protocol's cost. One process; both sides measured in the same run.

    .venv/bin/python bench/protocol.py [--matches N] [--handshakes N] [--rounds N]

* CPU per duel turn with all crypto (both peers' sessions: signing, verifying, hashing,
  commitments), messages and bytes per turn, from whole bot matches over in-memory sessions: a
  duel of the terms' defaults (each turn its minute, ended by each seat's ``final``, which the
  in-memory table sends at once) and a ``fast`` one (no ``final``: as bots, ``demo`` and a joiner
  who accepts it play), each also in Ed25519 verifications' worth with the wire's AEAD added;
* where that CPU goes: each primitive's calls per turn (counted by cProfile) times its cost per
  call (timed alone on a message of the typical size), the AEAD of the wire added;
* the p2pgenius handshake (Noise XX, static keys from the identities; first contact, so each side
  checks the other's identity key as a TLS client checks a certificate every time) against a
  TLS 1.3 handshake (ECDSA P-256 certificate) over the same loopback TCP, connect included, with
  their ratio.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import hashlib
import pstats
import socket
import ssl
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.x509.oid import NameOID

from p2pgenius.canonical import decode
from p2pgenius.inmemory import play
from p2pgenius.protocol.channel import SecureChannel
from p2pgenius.protocol.identity import VERIFIED, Identity, agreement_public, verify
from p2pgenius.protocol.records import MsgRecord, record_of

FAST: Final = {"fast": True}
"""A duel's options as bots, ``demo`` and a joiner who accepts them play it: no ``final``."""


def duel_turns(
    matches: int, rounds: int = 1, options: dict[str, bool] | None = None
) -> tuple[float, float, float, int]:
    """(CPU seconds per turn, messages per turn, bytes per turn, turns) over whole duels of
    ``options`` (None: the terms' defaults, without ``fast``, whose turn lasts its minute: the
    in-memory table sends each seat's ``final`` at once). The same matches are played ``rounds``
    times and the least CPU is kept: on a machine that others load, a round's CPU time grows with
    what they take of its caches and cores, never shrinks."""
    cpu = min(_duels_cpu(matches, options) for _ in range(rounds))
    turns = messages = size = 0
    for seed in range(matches):
        table = play("duel", seed=seed, levels=["random", "random"], options=options)
        turns += max(table.sessions[0].played.ending.my_hashes, default=0) + 1
        for index, record in enumerate(table.transcripts[0], start=1):
            typed = record_of(decode(record), index)
            if isinstance(typed, MsgRecord):
                messages += 1
                size += len(typed.raw)
    return cpu / turns, messages / turns, size / turns, turns


def _duels_cpu(matches: int, options: dict[str, bool] | None) -> float:
    start = time.process_time()
    for seed in range(matches):
        play("duel", seed=seed, levels=["random", "random"], options=options)  # bots that hardly think
    return time.process_time() - start


SHA = "SHA-256 (chains, commitments, state hashes)"


def _calls_per_turn(matches: int) -> dict[str, float]:
    """How often each primitive runs per duel turn (both peers), counted by the profiler: our
    own ``sign`` and ``_signature_holds`` (each one library call: ``verify`` makes one only for
    a signature it has not seen hold), and hashlib's SHA-256."""
    counts = dict.fromkeys(("Ed25519 sign", "Ed25519 verify", SHA), 0)
    turns = 0
    for seed in range(matches):
        profile = cProfile.Profile()
        profile.enable()
        table = play("duel", seed=seed, levels=["random", "random"])
        profile.disable()
        turns += max(table.sessions[0].played.ending.my_hashes, default=0) + 1
        for (path, _, function), row in pstats.Stats(profile).stats.items():  # type: ignore[attr-defined]
            if path.endswith("identity.py") and function in ("sign", "_signature_holds"):
                counts["Ed25519 sign" if function == "sign" else "Ed25519 verify"] += row[1]
            elif function.endswith("_hashlib.openssl_sha256>"):
                counts[SHA] += row[1]
    return {name: count / turns for name, count in counts.items()}


def _unit_seconds(function: Callable[[], object], runs: int = 2000, rounds: int = 5) -> float:
    """CPU seconds per call, the least of ``rounds`` (as for the turns: load only adds)."""
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        for _ in range(runs):
            function()
        best = min(best, time.process_time() - start)
    return best / runs


def verification_seconds(message: bytes) -> float:
    """CPU seconds of one Ed25519 verification of ``message`` (never one remembered)."""
    identity = Identity.generate()
    signature = identity.sign(message)

    def first_sight() -> bool:
        VERIFIED.clear()  # (a signature seen to hold is not checked again)
        return verify(identity.public, signature, message)

    return _unit_seconds(first_sight)


def _aead_seconds(message: bytes) -> float:
    """CPU seconds of sealing and opening ``message`` on the wire (ChaCha20-Poly1305)."""
    aead = ChaCha20Poly1305(bytes(32))
    nonce = bytes(12)
    sealed = aead.encrypt(nonce, message, b"")
    return _unit_seconds(lambda: aead.encrypt(nonce, message, b"")) + _unit_seconds(
        lambda: aead.decrypt(nonce, sealed, b"")
    )


def crypto_breakdown(matches: int, cpu_per_turn: float, messages: float, size: float) -> None:
    """Print where a duel turn's CPU goes: each primitive's calls per turn times its cost."""
    identity = Identity.generate()
    message = bytes(int(size / messages))  # a typical signed envelope
    units = {
        "Ed25519 sign": _unit_seconds(lambda: identity.sign(message)),
        "Ed25519 verify": verification_seconds(message),
        SHA: _unit_seconds(lambda: hashlib.sha256(message).digest()),
    }
    calls = _calls_per_turn(matches)
    aead_name = "ChaCha20-Poly1305 seal + open (on the wire only)"
    calls[aead_name] = messages  # each message sealed by its sender and opened by one receiver
    units[aead_name] = _aead_seconds(message)
    total = cpu_per_turn + calls[aead_name] * units[aead_name]
    print("| where a duel turn's CPU goes (both peers) | calls/turn | us per call | us per turn | share |")
    print("|---|---|---|---|---|")
    spent = 0.0
    for name, count in calls.items():
        cost = count * units[name]
        spent += cost
        print(f"| {name} | {count:.1f} | {units[name] * 1e6:.1f} | {cost * 1e6:.0f} | {cost / total:.0%} |")
    rest = total - spent
    print(f"| everything else: engine, encoding, bookkeeping | | | {rest * 1e6:.0f} | {rest / total:.0%} |")
    print(f"| total | | | {total * 1e6:.0f} | 100% |")


def _cert(directory: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(1)
        .not_valid_before(now - datetime.timedelta(days=1))  # clear of any clock rounding
        .not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return cert_path, key_path


def _serve(listener: socket.socket, count: int, handle: object) -> threading.Thread:
    def run() -> None:
        for _ in range(count):
            conn, _ = listener.accept()
            with conn:
                handle(conn)  # type: ignore[operator]

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def tls_handshakes(count: int) -> list[float]:
    """Seconds per TLS 1.3 connect + handshake on loopback."""
    with tempfile.TemporaryDirectory() as tmp:
        cert, key = _cert(Path(tmp))
        server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server_ctx.minimum_version = ssl.TLSVersion.TLSv1_3
        server_ctx.load_cert_chain(cert, key)
        client_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        client_ctx.minimum_version = ssl.TLSVersion.TLSv1_3
        client_ctx.load_verify_locations(cert)
        listener = socket.create_server(("127.0.0.1", 0))
        port = listener.getsockname()[1]

        def handle(conn: socket.socket) -> None:
            with server_ctx.wrap_socket(conn, server_side=True) as tls:
                tls.recv(1)

        _serve(listener, count, handle)
        times = []
        for _ in range(count):
            start = time.perf_counter()
            raw = socket.create_connection(("127.0.0.1", port))
            with client_ctx.wrap_socket(raw, server_hostname="localhost") as tls:
                times.append(time.perf_counter() - start)
                tls.sendall(b"x")
        listener.close()
        return times


def _pump(sock: socket.socket, channel: SecureChannel, until: object) -> None:
    while not until():  # type: ignore[operator]
        data = channel.data_to_send()
        if data:
            sock.sendall(data)
        if until():  # type: ignore[operator]
            break
        channel.receive_data(sock.recv(65536))
    data = channel.data_to_send()
    if data:
        sock.sendall(data)


def noise_handshakes(count: int) -> list[float]:
    """Seconds per p2pgenius connect + handshake on loopback."""
    server_id, client_id = Identity.generate(), Identity.generate()
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]

    def handle(conn: socket.socket) -> None:
        channel = SecureChannel(initiator=False, identity=server_id, hello={"name": "host"})
        _pump(conn, channel, lambda: channel.peer_key is not None)
        conn.recv(1)

    _serve(listener, count, handle)
    times = []
    for _ in range(count):
        # First contact, as TLS verifies a certificate on every handshake: neither side has
        # checked the other's identity key before (a peer remembers keys it has checked).
        agreement_public.cache_clear()
        start = time.perf_counter()
        sock = socket.create_connection(("127.0.0.1", port))
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        channel = SecureChannel(initiator=True, identity=client_id, hello={"name": "guest"})
        _pump(sock, channel, lambda ch=channel: ch.peer_key is not None)
        times.append(time.perf_counter() - start)
        sock.sendall(b"x")
        sock.close()
    listener.close()
    return times


ROUNDS = 5


def main() -> None:
    """Run and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--handshakes", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5, help="rounds of the same matches (least CPU kept)")
    args = parser.parse_args()
    cpu, messages, size, turns = duel_turns(args.matches, args.rounds)
    fast = duel_turns(args.matches, args.rounds, FAST)
    message = bytes(int(size / messages))  # a typical signed envelope
    unit, aead = verification_seconds(message), _aead_seconds(message)
    print("| duel over the protocol (both peers, in memory) | without `fast` | `fast` |")
    print("|---|---|---|")
    print(f"| turns measured | {turns} | {fast[3]} |")
    print(f"| CPU per turn, all crypto included | {cpu * 1000:.2f} ms | {fast[0] * 1000:.2f} ms |")
    print(f"| messages per turn | {messages:.1f} | {fast[1]:.1f} |")
    print(f"| bytes per turn (signed envelopes) | {size:.0f} | {fast[2]:.0f} |")
    worth = [(cpu + messages * aead) / unit, (fast[0] + fast[1] * aead) / unit]
    print(f"| with the wire's AEAD, in Ed25519 verifications' worth | {worth[0]:.1f} | {worth[1]:.1f} |")
    print()
    crypto_breakdown(args.matches, cpu, messages, size)  # the same matches, counted
    # Interleaved in rounds, so that a change in the machine's load hits both sides alike.
    tls_times: list[float] = []
    our_times: list[float] = []
    for _ in range(ROUNDS):
        tls_times += tls_handshakes(max(args.handshakes // ROUNDS, 1))
        our_times += noise_handshakes(max(args.handshakes // ROUNDS, 1))
    tls, ours = statistics.median(tls_times), statistics.median(our_times)
    print()
    print("| loopback connect + handshake (median) | time |")
    print("|---|---|")
    print(f"| TLS 1.3, ECDSA P-256 | {tls * 1000:.2f} ms |")
    print(f"| p2pgenius (Noise XX + Ed25519 identities) | {ours * 1000:.2f} ms |")
    print(f"| ratio p2pgenius / TLS | {ours / tls:.2f} |")


if __name__ == "__main__":
    main()
