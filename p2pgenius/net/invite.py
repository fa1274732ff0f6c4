"""Invites: one line a host sends a friend, carrying where to connect and whom to expect there.

An invite is ``p2pgenius://`` followed by lower-case base32 (RFC 4648, no padding: letters and the
digits 2 to 7, so it survives chat programs that change case) of these bytes:

====================  ======================================================================
version (1 byte)      3 (version 1 had no token, version 2 no relays; both are still read);
                      a newer p2pgenius may write another, and this one says so
port (2 bytes)        the host's TCP port, big-endian
key (32 bytes)        the host's whole Ed25519 public key: the joiner pins exactly this key
token (16 bytes)      the table's seat token: a joiner shows it in its (encrypted) hello, once
                      the host has proved it holds ``key``, and the host seats its holders
                      before callers who only found the address (versions 2 and 3), and its
                      relays know the host's waiting connections by a token made from it
                      (:func:`p2pgenius.net.transit.relay_token`)
count (1 byte)        how many addresses follow (1 to ``MAX_ADDRESSES``)
addresses             each a kind byte and its body: 4 and 4 bytes (IPv4), 6 and 16 bytes
                      (IPv6), or ``N`` (a DNS name), a length byte and that many ASCII bytes
relays (version 3)    a count byte (1 to ``MAX_RELAYS``), then each relay the host waits at: an
                      address as above and its port (2 bytes, big-endian)
check (4 bytes)       the first 4 bytes of SHA-256 over ``CHECK_LABEL`` and everything above
====================  ======================================================================

A *correspondence invite* (version 4, :class:`MailInvite`) is for a match played by mail through
Nostr relays (SPEC 4e): no port and no addresses, but the match's mailbox secret and the relays
that carry its letters:

====================  ======================================================================
version (1 byte)      4
seats (1 byte)        1: the invite seats its holder (a player's; the token follows); 0: it
                      seats nobody (a spectator's: no token follows)
key (32 bytes)        the host's whole Ed25519 public key
token (16 bytes)      seats 1 only: the table's seat token
mailbox (32 bytes)    the match's mailbox secret: whoever holds the invite reads its letters
count (1 byte)        how many relays follow (1 to ``MAX_MAIL_RELAYS``)
relays                each a length byte and that many ASCII bytes: a ``ws://`` or ``wss://``
                      URL (:func:`relay_url_problem` says which), in the order to try them
====================  ======================================================================

A changed, lost or added character fails the check (a random typo slips through once in four
billion), so a joiner never connects on a damaged invite: it is told to copy it again. White space
anywhere in the text is no part of the invite and is left out (:data:`WHITE_SPACE`): an invite
copied from a terminal that wrapped it (a line break, the next line indented), or split by a
shell into several words, reads whole.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import ipaddress
import re
from collections.abc import Sequence
from typing import Final

from p2pgenius.errors import LocalMisuseError, shown
from p2pgenius.frozen import Frozen

KEY_LEN: Final = 32
"""An Ed25519 public key's length (``identity.PUBLIC_LEN``; not imported from there: reading an
invite is the first thing ``join`` does, before the cryptography is loaded, see ``net.early``)."""
PREFIX: Final = "p2pgenius://"
VERSION: Final = 3
VERSIONS: Final = (1, 2, 3, 4)
"""The versions this program reads (1: without a seat token; 2: without relays; 4: a
correspondence invite, :class:`MailInvite`)."""
MAIL_VERSION: Final = 4
TOKEN_LEN: Final = 16
CHECK_LABEL: Final = b"p2pgenius invite"
CHECK_LEN: Final = 4
MAX_ADDRESSES: Final = 16
MAX_RELAYS: Final = 4
MAILBOX_LEN: Final = 32
MAX_MAIL_RELAYS: Final = 8
MAX_URL: Final = 200
"""The longest relay URL a correspondence invite carries, in bytes."""
_LONGEST = 4 + KEY_LEN + TOKEN_LEN + 1 + MAX_ADDRESSES * (2 + 255) + 1 + MAX_RELAYS * (2 + 255 + 2)
_LONGEST_MAIL = 2 + KEY_LEN + TOKEN_LEN + MAILBOX_LEN + 1 + MAX_MAIL_RELAYS * (1 + MAX_URL)
MAX_CODE: Final = -(-8 * (max(_LONGEST, _LONGEST_MAIL) + CHECK_LEN) // 5)
"""Characters after the prefix an invite can have at the most (every field at its longest): a
longer text is refused before it is decoded."""
EDIT_SEARCH_MOST: Final = 600
"""The longest invite whose one-character repairs are tried to tell damage from a cut (the
search grows with the square of the length; real invites are a few hundred characters)."""
KIND_IPV4: Final = 4
KIND_IPV6: Final = 6
KIND_NAME: Final = ord("N")
_ALPHABET: Final = frozenset("abcdefghijklmnopqrstuvwxyz234567")
WHITE_SPACE: Final = frozenset(
    "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000"
)
"""The characters Unicode calls White_Space (25 of them), which a reader leaves out wherever they
are (SPEC 4c, reading step 1)."""
_LABEL: Final = r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
_NAME: Final = re.compile(rf"(?=.{{1,253}}\Z){_LABEL}(\.{_LABEL})*\.?")


class InviteError(LocalMisuseError):
    """An invite that cannot be used: the message says what is wrong and what to do."""


_URL_PARTS: Final = re.compile(r"wss?://(\[[^\]]*\]|[^:/]*)(?::([^/]*))?(/.*)?", re.DOTALL)
_PATH: Final = re.compile(r"(/([A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})*)*")
"""RFC 3986's path-abempty: segments of unreserved characters, sub-delims, ``:``, ``@`` and
percent escapes, each after a ``/``."""
_IPV6_TEXT: Final = re.compile(r"\[[0-9a-f:.]+\]")
_HOST_TEXT: Final = re.compile(r"[a-z0-9.-]+")
_PORT_TEXT: Final = re.compile(r"[1-9][0-9]{0,4}")


class Invite(Frozen):
    """Where a host listens (``addresses``, in the order to try, and ``port``), its ``key``, and
    the relays where it waits for callers who cannot reach it directly."""

    __slots__ = ("addresses", "key", "port", "relays", "token")
    _fields = ("key", "port", "addresses", "token", "relays")
    key: bytes
    port: int
    addresses: tuple[str, ...]
    token: bytes  # the table's seat token (empty: an invite of version 1)
    relays: tuple[tuple[str, int], ...]  # (address, port): where the host waits (version 3)

    def __init__(
        self,
        key: bytes,
        port: int,
        addresses: tuple[str, ...],
        token: bytes = b"",
        relays: tuple[tuple[str, int], ...] = (),
    ) -> None:
        self._set(key=key, port=port, addresses=addresses, token=token, relays=relays)
        self._check()

    def _check(self) -> None:
        if len(self.key) != KEY_LEN:
            raise InviteError(f"an invite carries a {KEY_LEN}-byte key, not {len(self.key)} bytes")
        if len(self.token) not in (0, TOKEN_LEN):
            raise InviteError(f"an invite's seat token is {TOKEN_LEN} bytes, not {len(self.token)}")
        if not 0 < self.port < 65536:
            raise InviteError(f"an invite's port is 1 to 65535, not {self.port}")
        if not 0 < len(self.addresses) <= MAX_ADDRESSES:
            raise InviteError(f"an invite carries 1 to {MAX_ADDRESSES} addresses, not {len(self.addresses)}")
        for address in self.addresses:
            _address_bytes(address)  # refuses what cannot be written
        if len(self.relays) > MAX_RELAYS:
            raise InviteError(f"an invite carries at most {MAX_RELAYS} relays, not {len(self.relays)}")
        if self.relays and not self.token:
            raise InviteError("an invite with relays carries a seat token (the relays know the host by it)")
        for address, port in self.relays:
            _address_bytes(address)
            if not 0 < port < 65536:
                raise InviteError(f"a relay's port is 1 to 65535, not {port}")

    @property
    def fingerprint(self) -> str:
        """The host's fingerprint (the one its ``p2pgenius id`` shows)."""
        from p2pgenius.protocol.identity import fingerprint  # noqa: PLC0415  (see KEY_LEN)

        return fingerprint(self.key)

    def targets(self) -> list[tuple[str, int]]:
        """(address, port) to try, in order."""
        return [(address, self.port) for address in self.addresses]

    def text(self) -> str:
        """The invite as one line: ``p2pgenius://`` and base32."""
        version = (3 if self.relays else 2) if self.token else 1
        body = bytes([version]) + self.port.to_bytes(2, "big") + self.key + self.token
        body += bytes([len(self.addresses)])
        body += b"".join(_address_bytes(address) for address in self.addresses)
        if self.relays:
            body += bytes([len(self.relays)])
            body += b"".join(_address_bytes(host) + port.to_bytes(2, "big") for host, port in self.relays)
        body += _check(body)
        return PREFIX + base64.b32encode(body).decode("ascii").rstrip("=").lower()

    __str__ = text


class MailInvite(Frozen):
    """A correspondence invite (version 4): the host's ``key``, the table's seat ``token`` (empty:
    the invite seats nobody, a spectator's), the match's ``mailbox`` secret (SPEC 4e: whoever holds
    the invite reads the match's letters) and the Nostr ``relays`` that carry them, in the order
    to try."""

    __slots__ = ("key", "mailbox", "relays", "token")
    _fields = ("key", "token", "mailbox", "relays")
    _hidden = ("token", "mailbox")  # (no traceback or log line shows a secret)
    key: bytes
    token: bytes
    mailbox: bytes
    relays: tuple[str, ...]

    def __init__(self, key: bytes, token: bytes, mailbox: bytes, relays: tuple[str, ...]) -> None:
        self._set(key=key, token=token, mailbox=mailbox, relays=relays)
        self._check()

    def _check(self) -> None:
        if len(self.key) != KEY_LEN:
            raise InviteError(f"an invite carries a {KEY_LEN}-byte key, not {len(self.key)} bytes")
        if len(self.token) not in (0, TOKEN_LEN):
            raise InviteError(f"an invite's seat token is {TOKEN_LEN} bytes, not {len(self.token)}")
        if len(self.mailbox) != MAILBOX_LEN:
            raise InviteError(f"an invite's mailbox secret is {MAILBOX_LEN} bytes, not {len(self.mailbox)}")
        if not 0 < len(self.relays) <= MAX_MAIL_RELAYS:
            raise InviteError(
                f"a correspondence invite carries 1 to {MAX_MAIL_RELAYS} relays, not {len(self.relays)}"
            )
        for url in self.relays:
            if (problem := relay_url_problem(url)) is not None:
                raise InviteError(f"the relay {shown(url)} {problem}")
        if len(set(self.relays)) != len(self.relays):
            raise InviteError("a correspondence invite names each relay once")

    @property
    def seats(self) -> bool:
        """Whether the invite seats its holder (a player's invite); else it only lets its holder
        read the match (a spectator's)."""
        return bool(self.token)

    @property
    def fingerprint(self) -> str:
        """The host's fingerprint (the one its ``p2pgenius id`` shows)."""
        from p2pgenius.protocol.identity import fingerprint  # noqa: PLC0415  (see KEY_LEN)

        return fingerprint(self.key)

    def for_spectators(self) -> MailInvite:
        """The same invite without the seat token: it lets its holders read the match, and seats
        nobody."""
        return MailInvite(self.key, b"", self.mailbox, self.relays)

    def text(self) -> str:
        """The invite as one line: ``p2pgenius://`` and base32."""
        body = bytes([MAIL_VERSION, 1 if self.token else 0]) + self.key + self.token + self.mailbox
        body += bytes([len(self.relays)])
        for url in self.relays:
            body += bytes([len(url)]) + url.encode("ascii")
        body += _check(body)
        return PREFIX + base64.b32encode(body).decode("ascii").rstrip("=").lower()

    __str__ = text


def relay_url_problem(url: str) -> str | None:
    """What keeps ``url`` from being a relay URL a correspondence invite carries (SPEC 4c), or
    None: ``ws://`` or ``wss://``, a host name in lower case or an IPv6 address in brackets, an
    optional port (1 to 65535) and path (RFC 3986's characters); no user name, query or fragment;
    ASCII, at most ``MAX_URL`` bytes."""
    if not url.isascii():
        return "is not ASCII"
    if len(url) > MAX_URL:
        return f"is {len(url)} bytes long, and a relay's URL is at most {MAX_URL}"
    parts = _URL_PARTS.fullmatch(url)
    if parts is None:
        lower = url.lower().startswith(("ws://", "wss://"))
        return "has its scheme in upper case" if lower else "is not a ws:// or wss:// URL"
    host, port, path = parts[1], parts[2], parts[3] or ""
    if "@" in url.partition("://")[2].partition("/")[0]:
        return "names a user (user@host): an invite carries no user name or password"
    if "?" in url or "#" in url:
        return "has a query or a fragment (? or #), which an invite does not carry"
    if host != host.lower():
        return "has its host in upper case"
    ipv6 = _IPV6_TEXT.fullmatch(host) is not None and _ipv6(host[1:-1])
    if not ipv6 and not (_HOST_TEXT.fullmatch(host) and _NAME.fullmatch(host)):
        return "has no host name or IPv6 address in brackets as its host"
    if port is not None and not (_PORT_TEXT.fullmatch(port) and int(port) < 65536):
        return "has a port that is not 1 to 65535 (in decimal, without a leading 0)"
    if not _PATH.fullmatch(path):
        return "has a path with a character no URL path has (only RFC 3986's, and %XX escapes)"
    return None


def _ipv6(text: str) -> bool:
    """Whether ``text`` is an IPv6 address (as RFC 4291 writes one; no zone)."""
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def is_invite(text: str) -> bool:
    """Whether ``text`` is meant as an invite (it may still be damaged: see :func:`parse`)."""
    return _unwrap(text).lower().startswith(PREFIX[:-1])


def parse(text: str, *, diagnose: bool = True) -> Invite | MailInvite:
    """The invite ``text`` carries (white space anywhere in it left out): an :class:`Invite` to a
    host that waits online, or a :class:`MailInvite` to a correspondence match; :class:`InviteError`
    says what is wrong with a bad one (``diagnose=False``: without looking for the repairs that
    tell a cut invite from a damaged one, a search of up to a few tenths of a second)."""
    clean = _unwrap(text)
    if not clean.lower().startswith(PREFIX):
        raise InviteError(f"not an invite: an invite starts with {PREFIX}")
    code = clean[len(PREFIX) :].rstrip("/")
    if len(code) > MAX_CODE:
        raise InviteError(f"not an invite: {len(code)} characters, and an invite has at most {MAX_CODE}")
    code = code.lower() if code.isascii() else code  # (only ASCII letters fold: no Kelvin sign "k")
    for position, char in enumerate(code, start=len(PREFIX) + 1):
        if char not in _ALPHABET:
            inside = any(char in WHITE_SPACE for char in text.strip())
            spaced = " (not counting spaces and line breaks)" if inside else ""
            raise InviteError(
                f"the invite has {char!r} at character {position}{spaced}, which no invite has (only "
                "letters and the digits 2 to 7): copy it again, whole"
            )
    damaged = InviteError(
        "the invite is damaged (its check does not match: a character was changed, lost or added): "
        "copy it again, whole, or ask the host for it again"
    )
    try:
        raw = base64.b32decode(code.upper() + "=" * (-len(code) % 8))
    except binascii.Error:
        raise (cut_short() if diagnose and _cut_short(code) else damaged) from None
    body, check = raw[:-CHECK_LEN], raw[-CHECK_LEN:]
    canonical = base64.b32encode(raw).decode("ascii").rstrip("=").lower() == code
    if len(raw) <= CHECK_LEN or _check(body) != check or not canonical:
        raise cut_short() if diagnose and _cut_short(code) else damaged
    if body[0] not in VERSIONS:
        raise InviteError(
            f"this invite is for another version of p2pgenius (invite version {body[0]}; this one "
            f"reads versions {VERSIONS[0]} to {VERSIONS[-1]}): upgrade p2pgenius, or ask the host for "
            "an invite this one reads"
        )
    return _read_mail(body) if body[0] == MAIL_VERSION else _read(body)


def parse_address(text: str) -> tuple[str, int]:
    """HOST:PORT or [IPv6]:PORT (the other way to tell ``join`` where its host is)."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        raise LocalMisuseError(f"expected HOST:PORT or an invite (p2pgenius://...), not {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def address_of(words: Sequence[str]) -> str | None:
    """The address given on the command line, in one or more words: an invite that a shell split
    where a copy from the terminal had a line break or spaces (joined: white space is no part of
    an invite), or one HOST:PORT; None if there is none. The words ``p2pgenius join`` (or
    ``watch``) in front, copied with the host's invite line, are no part of it."""
    tokens = " ".join(words).split()
    if tokens[:1] == ["p2pgenius"] and tokens[1:2] in (["join"], ["watch"]):
        tokens = tokens[2:]
    if not tokens:
        return None
    if len(tokens) > 1 and not is_invite(tokens[0]):
        raise LocalMisuseError(
            f"expected one HOST:PORT or an invite (p2pgenius://...), not {len(tokens)} words: "
            f"{' '.join(tokens)!r}"
        )
    return " ".join(tokens)


def parse_live(text: str) -> Invite:
    """The invite ``text`` carries, which must be one to a host that waits online (``join``,
    ``watch``, ``resume``): a correspondence invite is refused in one line."""
    invite = parse(text)
    if isinstance(invite, MailInvite):
        raise InviteError(
            "this is a correspondence invite (a match played by mail through Nostr relays), which "
            "this p2pgenius cannot join yet: ask the host for an invite to a live match"
        )
    return invite


CUT_SHORT: Final = (
    "the invite is cut short: it spans two rows; put it in quotes or use the .invite file "
    "(a line break pasted into a shell ends the command there)"
)


def cut_short() -> InviteError:
    """The error of an invite cut short (a new one each time: an exception carries its traceback)."""
    return InviteError(CUT_SHORT)


def _cut_short(code: str) -> bool:
    """Whether ``code`` (an invite's letters that fail its check) is the start of an invite: its
    fields run past its end, as the first row of an invite pasted over two rows without quotes
    does, and no one character changed, lost, added or swapped makes it whole (a changed count
    or length can make the fields of a damaged invite run past its end too)."""
    for length in range(len(code), max(len(code) - 8, 0), -1):  # (the longest prefix base32 reads)
        try:
            raw = base64.b32decode(code[:length].upper() + "=" * (-length % 8))
        except binascii.Error:
            continue
        runs_past = bool(raw) and raw[0] in VERSIONS and _fields_end(raw) > len(raw)
        return runs_past and not _one_edit_from_whole(code)
    return False


def _whole(code: str) -> bool:
    """Whether ``code`` reads as an invite whose check matches."""
    try:
        raw = base64.b32decode(code.upper() + "=" * (-len(code) % 8))
    except binascii.Error:
        return False
    return len(raw) > CHECK_LEN and _check(raw[:-CHECK_LEN]) == raw[-CHECK_LEN:]


def _one_edit_from_whole(code: str) -> bool:
    """Whether one character changed, lost, added or two swapped would make ``code`` whole (a
    few thousand checks, made only for an invite that failed its own)."""
    if len(code) > EDIT_SEARCH_MOST:
        return True  # (too long to search: said damaged, as before the search)
    letters = sorted(_ALPHABET)
    for at in range(len(code) + 1):
        head, tail = code[:at], code[at:]
        edits = [head + letter + tail for letter in letters]  # (one lost)
        if tail:
            edits += [head + tail[1:]]  # (one added)
            edits += [head + letter + tail[1:] for letter in letters if letter != tail[0]]  # (changed)
        if len(tail) > 1:
            edits.append(head + tail[1] + tail[0] + tail[2:])  # (two swapped)
        if any(_whole(edit) for edit in edits):
            return True
    return False


def _fields_end(body: bytes) -> int:
    """Where the fields of an invite's ``body`` end (past its length when they are cut off); 0
    for fields no invite has."""
    if body[0] == MAIL_VERSION:
        return _mail_fields_end(body)
    at = 4 + KEY_LEN + (TOKEN_LEN if body[0] >= 2 else 0)
    if at > len(body):
        return at
    if not 0 < body[at - 1] <= MAX_ADDRESSES:
        return 0
    at = _list_end(body, at, body[at - 1], relay=False)
    if body[0] != 3 or not 0 < at <= len(body):
        return at
    if at == len(body):
        return at + 1  # (the relays: their count follows the addresses)
    if body[at] > MAX_RELAYS:
        return 0
    return _list_end(body, at + 1, body[at], relay=True)


def _mail_fields_end(body: bytes) -> int:
    """:func:`_fields_end` for a correspondence invite (version 4)."""
    if len(body) < 2:
        return 2
    if body[1] not in (0, 1):
        return 0
    at = 2 + KEY_LEN + TOKEN_LEN * body[1] + MAILBOX_LEN + 1
    if at > len(body):
        return at
    if not 0 < body[at - 1] <= MAX_MAIL_RELAYS:
        return 0
    for _ in range(body[at - 1]):
        if at >= len(body):
            return at + 1
        if not 0 < body[at] <= MAX_URL:
            return 0
        at += 1 + body[at]
    return at


def _list_end(body: bytes, at: int, count: int, *, relay: bool) -> int:
    """Where ``count`` addresses (each with its port, for a ``relay``) from ``at`` end: past the
    body's end when they are cut off; 0 for an address of no kind an invite has."""
    for _ in range(count):
        if at + 1 >= len(body):
            return at + 2
        width = {KIND_IPV4: 5, KIND_IPV6: 17}.get(body[at], 2 + body[at + 1] if body[at] == KIND_NAME else -1)
        if width < 0:
            return 0
        at += width + (2 if relay else 0)
    return at


def check_address(text: str) -> str:
    """``text`` if an invite can carry it (an IP address or a host name), else InviteError."""
    _address_bytes(text)
    return text


def _unwrap(text: str) -> str:
    """``text`` without white space anywhere (a terminal's line breaks and indents, a shell's
    spaces between words) and without the quotes or angle brackets mail and chat put around links."""
    return "".join(char for char in text if char not in WHITE_SPACE).strip("<>\"'`")


def _check(body: bytes) -> bytes:
    return hashlib.sha256(CHECK_LABEL + body).digest()[:CHECK_LEN]


def _read(body: bytes) -> Invite:
    """The fields of a checked body of version 1, 2 or 3."""
    malformed = InviteError("the invite is malformed (the program that made it is broken): ask for another")
    token_len = TOKEN_LEN if body[0] >= 2 else 0
    if len(body) < 1 + 2 + KEY_LEN + token_len + 1:
        raise malformed
    port = int.from_bytes(body[1:3], "big")
    key = body[3 : 3 + KEY_LEN]
    token = body[3 + KEY_LEN : 3 + KEY_LEN + token_len]
    count = body[3 + KEY_LEN + token_len]
    at = 4 + KEY_LEN + token_len
    addresses: list[str] = []
    relays: list[tuple[str, int]] = []
    try:
        for _ in range(count):
            address, at = _read_address(body, at, malformed)
            addresses.append(address)
        if body[0] == 3:
            relay_count = body[at]
            at += 1
            if not 0 < relay_count <= MAX_RELAYS:
                raise malformed
            for _ in range(relay_count):
                address, at = _read_address(body, at, malformed)
                if at + 2 > len(body):
                    raise malformed
                relays.append((address, int.from_bytes(body[at : at + 2], "big")))
                at += 2
        if at != len(body):
            raise malformed
        return Invite(key, port, tuple(addresses), token, tuple(relays))
    except (IndexError, ValueError, InviteError):
        raise malformed from None


def _read_mail(body: bytes) -> MailInvite:
    """The fields of a checked body of version 4 (a correspondence invite)."""
    if len(body) < 2 or body[1] not in (0, 1):
        raise _malformed("its seats byte is not 0 or 1" if len(body) > 1 else "it ends after its version")
    token_len = TOKEN_LEN * body[1]
    at = 2 + KEY_LEN + token_len + MAILBOX_LEN
    if len(body) <= at:
        raise _malformed("it ends before its relays")
    key, token, mailbox = (
        body[2 : 2 + KEY_LEN],
        body[2 + KEY_LEN : 2 + KEY_LEN + token_len],
        body[at - MAILBOX_LEN : at],
    )
    count, at = body[at], at + 1
    if not 0 < count <= MAX_MAIL_RELAYS:
        raise _malformed(f"{count} relays, and an invite carries 1 to {MAX_MAIL_RELAYS}")
    relays: list[str] = []
    for number in range(1, count + 1):
        if at >= len(body) or at + 1 + body[at] > len(body):
            raise _malformed(f"it ends inside its relay {number}")
        if not 0 < body[at] <= MAX_URL:
            raise _malformed(f"its relay {number} is {body[at]} bytes long, not 1 to {MAX_URL}")
        try:
            relays.append(body[at + 1 : at + 1 + body[at]].decode("ascii"))
        except UnicodeDecodeError:
            raise _malformed(f"its relay {number} is not ASCII") from None
        at += 1 + body[at]
    if at != len(body):
        raise _malformed("bytes follow its last relay")
    try:
        return MailInvite(key, token, mailbox, tuple(relays))
    except InviteError as exc:
        raise _malformed(str(exc)) from None


def _malformed(why: str) -> InviteError:
    """The error of a correspondence invite whose fields do not read, saying which."""
    return InviteError(
        f"the invite is malformed ({why}): the program that made it is broken; ask for another"
    )


def _read_address(body: bytes, at: int, malformed: InviteError) -> tuple[str, int]:
    """The address written at ``body[at:]``, and where the next field starts."""
    kind = body[at]
    if kind == KIND_IPV4:
        return str(ipaddress.IPv4Address(body[at + 1 : at + 5])), at + 5
    if kind == KIND_IPV6:
        return str(ipaddress.IPv6Address(body[at + 1 : at + 17])), at + 17
    if kind == KIND_NAME:
        length = body[at + 1]
        name = body[at + 2 : at + 2 + length].decode("ascii")
        if len(name) != length or not _NAME.fullmatch(name):
            raise malformed
        return name, at + 2 + length
    raise malformed


def _address_bytes(address: str) -> bytes:
    """One address as the invite writes it."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        name = address.lower()
        if not _NAME.fullmatch(name):
            raise InviteError(f"{address!r} is neither an IP address nor a host name") from None
        return bytes([KIND_NAME, len(name)]) + name.encode("ascii")
    if ip.version == 4:
        return bytes([KIND_IPV4]) + ip.packed
    return bytes([KIND_IPV6]) + ip.packed
