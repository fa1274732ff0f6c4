"""A joiner's first handshake message, sent while the program is still starting.

A ``join`` spends most of its first half second importing (trio, the protocol, the games). What
it first sends the host needs none of that: a TCP connection and the channel's first handshake
message, ``-> e`` with the clear hello (protocol/SPEC.md section 4), which takes one fresh X25519
key pair and nothing of the joiner's identity. So the command line starts them first thing, in a
thread (:func:`begin`, from ``cli/main.py``), and the program goes on loading meanwhile; the
host's answer waits in the socket. When the joiner then connects to that address (the default
opener, ``addresses.open_socket``), it takes that socket (:func:`claim`), already connected with
the first message written, and its channel goes on from that message with the same ephemeral key
(``SecureChannel(written=...)``, which checks that it would have written the very same bytes).

Nothing else changes. The address tried early is the one the joiner tries first (the first
target, when it is an address in numbers, as invites give them); if the early
connection fails, or has not connected when another address wins, the joiner connects as it
always did and the early socket is closed. A socket is taken once, and its key pair is used for
that one channel only. This module imports only the standard library and the invite's reader:
it runs before the rest is loaded.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import weakref

from p2pgenius.errors import LocalMisuseError
from p2pgenius.net import invite as invite_codec

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Final

CONNECT_TIMEOUT_S: Final = 10.0
"""How long one TCP connection may take (``addresses.connect`` gives up on all at this too)."""
HELLO: Final = b"\x92\xafp2pgenius-hello\x04"
"""The first message's payload, ``encode(["p2pgenius-hello", 4])``: the channel's version 4 (the
channel refuses a first record that is not the one it would write, and a test holds the two
together: a new version of the channel changes this too)."""
STALE_S: Final = 5.0
"""An early first message older than this when the join comes for it is not taken (the host
gives a handshake 10 s: a machine that took this long to load connects anew, with time to
spare)."""


class Begun:
    """One early connection: where to, its ephemeral key pair and first record, and (once
    :attr:`done`) its connected socket or the error that stopped it."""

    def __init__(self, family: int, sockaddr: tuple[object, ...]) -> None:
        self.family = family
        self.sockaddr = sockaddr
        self.private = os.urandom(32)
        self.record = b""  # (made once the connection is on its way: :meth:`make`)
        self._made = threading.Event()
        self.socket: socket.socket | None = None
        self.error: Exception | None = None
        self.sent_at = 0.0  # (time.monotonic() when the first record was written)
        self.done = threading.Event()
        self._lock = threading.Lock()
        self._dropped = False

    def run(self) -> None:
        """Connect and write the first record (in the thread). Whatever goes wrong is kept in
        :attr:`error` (the join then connects as it always did)."""
        sock: socket.socket | None = None
        try:
            sock = socket.socket(self.family, socket.SOCK_STREAM)
            sock.settimeout(CONNECT_TIMEOUT_S)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            sock.connect(self.sockaddr)
            self._made.wait()
            if not self.record:
                raise OSError("the first message could not be made")
            sock.sendall(self.record)
            self.sent_at = time.monotonic()
        except Exception as exc:
            if sock is not None:
                sock.close()
            self.error = exc
        else:
            with self._lock:
                if self._dropped:
                    sock.close()
                else:
                    self.socket = sock
        finally:
            self.done.set()

    def make(self) -> None:
        """Make the first record (in the main thread, while the thread connects: a thread that
        imported libsodium itself would wait for the interpreter behind the main thread's
        imports)."""
        try:
            body = x25519_public(self.private) + HELLO
            self.record = len(body).to_bytes(4, "big") + body
        except Exception:
            self.record = b""
        finally:
            self._made.set()  # (without a record the thread gives up)

    def drop(self) -> None:
        """Nobody will take it: close the socket now or when it connects."""
        with self._lock:
            self._dropped = True
            if self.socket is not None:
                self.socket.close()
                self.socket = None


def x25519_public(private: bytes) -> bytes:
    """The X25519 public key of ``private``: libsodium's ``crypto_scalarmult_base``, as
    ``nacl.bindings`` calls it, through PyNaCl's compiled module alone (``nacl.bindings`` first
    loads every binding it has and ``typing``: 5 ms of a joiner's first byte); through
    ``nacl.bindings`` where that module is not as expected. The channel checks the first record
    against the one it would write (``SecureChannel(written=...)``), and a test compares the
    two ways."""
    try:
        # (imported here, once the connection has begun)
        from nacl._sodium import ffi, lib  # type: ignore[import-not-found]  # noqa: PLC0415

        if lib.sodium_init() == -1:  # (as nacl.bindings starts it: at once if already started)
            raise OSError("libsodium could not start")
        public = ffi.new("unsigned char[]", 32)
        if lib.crypto_scalarmult_base(public, private) != 0:
            raise OSError("libsodium could not make the key")
        return bytes(ffi.buffer(public, 32))
    except (ImportError, AttributeError):  # (another PyNaCl: its public bindings)
        import nacl.bindings  # noqa: PLC0415

        return nacl.bindings.crypto_scalarmult_base(private)


_WAITING: list[Begun] = []
"""The early connection not yet claimed (one at most)."""
_BEGUN: weakref.WeakKeyDictionary[object, Begun] = weakref.WeakKeyDictionary()
"""The stream made of each early socket, for the channel that goes on from its first record."""


def first_address(text: str) -> tuple[str, int] | None:
    """The address a join to ``text`` (an invite or HOST:PORT) tries first; None for anything
    else (a correspondence invite, a damaged one: the command says what is wrong, later)."""
    try:
        if invite_codec.is_invite(text):
            invite = invite_codec.parse(text, diagnose=False)  # (the join says what is wrong)
            if isinstance(invite, invite_codec.MailInvite) or not invite.addresses:
                return None
            return invite.targets()[0]
        return invite_codec.parse_address(text)
    except LocalMisuseError:
        return None


def begin(words: Sequence[str]) -> Begun | None:
    """Start connecting to where a join to ``words`` (its command line's address) goes first,
    and write the first handshake message there, in a thread; None if there is nothing to start
    (see :func:`first_address`; a host's name is not looked up here: the join looks it up, and
    may find several addresses)."""
    forget()
    try:
        text = invite_codec.address_of(words)
    except LocalMisuseError:
        return None  # (the command says what is wrong with it)
    address = None if text is None else first_address(text)
    if address is None:
        return None
    try:  # (an address in numbers only: a name is looked up where the join looks it up)
        found = socket.getaddrinfo(*address, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST)
        family, _, _, _, sockaddr = found[0]
        begun = Begun(family, sockaddr)
        threading.Thread(target=begun.run, name="p2pgenius: first message", daemon=True).start()
    except Exception:
        return None
    _WAITING[:] = [begun]
    begun.make()
    return begun


def claim(family: int, sockaddr: object) -> Begun | None:
    """The early connection to ``sockaddr``, if one was begun and nobody took it yet (it may
    still be connecting: wait for :attr:`Begun.done`)."""
    for begun in _WAITING:
        if begun.family == family and begun.sockaddr[:2] == tuple(sockaddr)[:2]:  # type: ignore[arg-type]
            _WAITING.clear()
            return begun
    return None


def fresh(begun: Begun) -> bool:
    """Whether ``begun`` connected and wrote its first record recently enough to be taken (see
    :data:`STALE_S`)."""
    return begun.socket is not None and time.monotonic() - begun.sent_at <= STALE_S


def made_of(stream: object, begun: Begun) -> None:
    """``stream`` is ``begun``'s socket: its channel goes on from that first record."""
    _BEGUN[stream] = begun


def begun_on(stream: object) -> Begun | None:
    """The early connection ``stream`` is made of (None: a connection like any other)."""
    return _BEGUN.pop(stream, None)


def forget() -> None:
    """Drop an early connection nobody took (a command run again in the same process: tests)."""
    for begun in _WAITING:
        begun.drop()
    _WAITING.clear()
