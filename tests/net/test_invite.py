"""Invites: the codec (versioned, compact, checksummed), and matches joined by invite over loopback
with the command line's own functions, a host with another key refused right after the handshake."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pgenius.cli.host import host_match
from p2pgenius.cli.join import join_match, target_of
from p2pgenius.cli.main import build_parser, main, pasted_whole
from p2pgenius.cli.play import Printer, make_peer, match_options
from p2pgenius.net import invite as codec
from p2pgenius.net.invite import Invite, InviteError, MailInvite
from p2pgenius.protocol.identity import Identity, IdentityError, fingerprint
from p2pgenius.protocol.transcript import verify
from tests.patience import HANG_S

KEY = bytes(range(32))


def sample() -> Invite:
    return Invite(KEY, 7780, ("192.168.1.20", "2001:db8::20", "203.0.113.7", "friend.example.org"))


def test_an_invite_round_trips_and_is_one_short_line() -> None:
    invite = sample()
    text = invite.text()
    assert text.startswith("p2pgenius://")
    assert re.fullmatch(r"p2pgenius://[a-z2-7]+", text)
    assert codec.parse(text) == invite
    # A lone IPv4 address and the whole key: a little over a hundred characters.
    assert len(Invite(KEY, 7780, ("192.168.1.20",)).text()) < 100
    assert codec.parse(text).fingerprint == fingerprint(KEY)
    assert codec.parse_live(text).targets()[0] == ("192.168.1.20", 7780)


@pytest.mark.parametrize(
    "wrapped",
    [
        "{}",
        "  {}\n",
        "<{}>",
        '"{}"',
        "{}/",
    ],
)
def test_what_chat_programs_do_to_a_link_is_undone(wrapped: str) -> None:
    text = sample().text()
    assert codec.parse(wrapped.format(text)) == sample()
    assert codec.parse(wrapped.format(text.upper())) == sample()


def test_every_changed_character_is_caught() -> None:
    text = sample().text()
    start = len(codec.PREFIX)
    for position in range(start, len(text)):
        for replacement in "abcdefghijklmnopqrstuvwxyz234567":
            if text[position] == replacement:
                continue
            damaged = text[:position] + replacement + text[position + 1 :]
            with pytest.raises(InviteError, match="damaged"):
                codec.parse(damaged)


def test_lost_added_and_swapped_characters_are_caught() -> None:
    text = sample().text()
    start = len(codec.PREFIX)
    for position in range(start, len(text)):
        with pytest.raises(InviteError, match="damaged"):
            codec.parse(text[:position] + text[position + 1 :])
        with pytest.raises(InviteError, match="damaged"):
            codec.parse(text[:position] + "b" + text[position:])
    for position in range(start, len(text) - 1):
        a, b = text[position], text[position + 1]
        if a != b:
            with pytest.raises(InviteError, match="damaged"):
                codec.parse(text[:position] + b + a + text[position + 2 :])


def test_a_character_no_invite_has_is_named_with_its_place() -> None:
    text = sample().text()
    typo = text[:20] + "0" + text[21:]
    with pytest.raises(InviteError, match=r"'0' at character 21.*copy it again"):
        codec.parse(typo)


def test_not_an_invite() -> None:
    with pytest.raises(InviteError, match="an invite starts with p2pgenius://"):
        codec.parse("p2pgenius:/abc")
    assert codec.is_invite("P2PGENIUS://abc") and not codec.is_invite("192.0.2.10:7777")


def test_an_invite_of_a_newer_version_says_so() -> None:
    body = bytes([5]) + b"anything a later version writes"
    check = hashlib.sha256(codec.CHECK_LABEL + body).digest()[: codec.CHECK_LEN]
    text = codec.PREFIX + base64.b32encode(body + check).decode().rstrip("=").lower()
    with pytest.raises(InviteError, match="invite version 5; this one reads versions 1 to 4"):
        codec.parse(text)


def test_an_invite_carries_its_hosts_relays_and_older_invites_still_read() -> None:
    token = bytes(range(16))
    relays = (("relay.example.org", 4001), ("198.51.100.7", 14001), ("2001:db8::7", 4001))
    invite = codec.Invite(KEY, 7780, ("192.168.1.20",), token, relays)
    text = invite.text()
    code = text[len(codec.PREFIX) :].upper()
    assert base64.b32decode(code + "=" * (-len(code) % 8))[0] == 3
    assert codec.parse(text) == invite and codec.parse(text).relays == relays
    plain = codec.Invite(KEY, 7780, ("192.168.1.20",), token)  # no relay: still written as version 2
    code = plain.text()[len(codec.PREFIX) :].upper()
    assert base64.b32decode(code + "=" * (-len(code) % 8))[0] == 2 and codec.parse(plain.text()) == plain
    with pytest.raises(InviteError, match="at most 4 relays"):
        codec.Invite(KEY, 7780, ("192.168.1.20",), token, relays + relays)
    with pytest.raises(InviteError, match="relays carries a seat token"):
        codec.Invite(KEY, 7780, ("192.168.1.20",), b"", relays)
    with pytest.raises(InviteError, match="relay's port is 1 to 65535"):
        codec.Invite(KEY, 7780, ("192.168.1.20",), token, (("relay.example.org", 0),))


def test_an_invite_carries_the_tables_seat_token_and_a_version_1_invite_is_still_read() -> None:
    old = sample()
    assert old.token == b"" and codec.parse(old.text()).token == b""
    code = old.text()[len(codec.PREFIX) :].upper()
    assert base64.b32decode(code + "=" * (-len(code) % 8))[0] == 1
    token = bytes(range(16))
    new = codec.Invite(old.key, old.port, old.addresses, token)
    again = codec.parse(new.text())
    assert again == new and again.token == token
    with pytest.raises(InviteError, match="seat token is 16 bytes"):
        codec.Invite(old.key, old.port, old.addresses, b"short")


def test_well_checked_junk_is_malformed() -> None:
    body = bytes([1]) + b"\x1e\x64" + KEY + bytes([1, 9, 1, 2, 3, 4])  # an address of kind 9
    check = hashlib.sha256(codec.CHECK_LABEL + body).digest()[: codec.CHECK_LEN]
    text = codec.PREFIX + base64.b32encode(body + check).decode().rstrip("=").lower()
    with pytest.raises(InviteError, match="malformed"):
        codec.parse(text)


@pytest.mark.parametrize(
    ("key", "port", "addresses", "said"),
    [
        (b"short", 7780, ("192.0.2.1",), "32-byte key"),
        (KEY, 0, ("192.0.2.1",), "port is 1 to 65535"),
        (KEY, 7780, (), "1 to 16 addresses"),
        (KEY, 7780, ("not a host!",), "neither an IP address nor a host name"),
    ],
)
def test_an_invite_cannot_be_made_of_nonsense(
    key: bytes, port: int, addresses: tuple[str, ...], said: str
) -> None:
    with pytest.raises(InviteError, match=said):
        Invite(key, port, addresses)


def test_a_damaged_invite_on_the_command_line_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    text = Invite(KEY, 9, ("127.0.0.1",)).text()
    code = main(["join", text[:30] + ("a" if text[30] != "a" else "b") + text[31:], "--bot"])
    err = capsys.readouterr().err
    assert code == 2
    assert "the invite is damaged" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_the_invite_line_pasted_whole_after_join_is_read_as_the_invite(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The host shows (and saves) "p2pgenius join p2pgenius://...": a friend who has typed
    # "p2pgenius join" and pastes it all gets the invite read, here a damaged one, not argparse's
    # "unrecognized arguments".
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    text = Invite(KEY, 9, ("127.0.0.1",)).text()
    code = main(["join", "p2pgenius", "join", text[:-1] + ("a" if text[-1] != "a" else "b"), "--bot"])
    err = capsys.readouterr().err
    assert code == 2 and "the invite is damaged" in err, err
    assert pasted_whole(["--debug", "join", "p2pgenius", "join", text]) == ["--debug", "join", text]
    assert pasted_whole(["join", f"p2pgenius join {text}", "--bot"]) == ["join", text, "--bot"]
    assert pasted_whole(["join", ""]) == ["join", ""]
    assert pasted_whole(["host", "duel", "--name", "join"]) == ["host", "duel", "--name", "join"]


# -- over loopback, with the command line's functions ----------------------------------------------


async def test_a_match_joined_by_invite_plays_to_the_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One account, one machine: the joiner plays with the account's second key (see keystore).
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    clipped: list[str] = []

    def clip(text: str) -> bool:
        clipped.append(text)
        return True

    monkeypatch.setattr("p2pgenius.cli.host.to_clipboard", clip)
    host_out, join_out = io.StringIO(), io.StringIO()
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--port", "0"])
    jargs = build_parser().parse_args(["join", "unused:1", "--bot", "random"])
    host = make_peer(hargs, "duel-host", 1, Printer(host_out, moves=True))
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            invite = await nursery.start(host_match, hargs, host, match_options(hargs))
            guest = make_peer(jargs, "join", 2, Printer(join_out, moves=True))
            await join_match(jargs, guest, target_of(str(invite)))
    assert invite.key == host.identity.public and invite.addresses == ("127.0.0.1",)
    said = host_out.getvalue()
    assert "this machine only (--lan lets other machines join)" in said
    assert f"  p2pgenius join {invite}\n" in said
    assert clipped == [f"p2pgenius join {invite}"] and "asked to put it on the clipboard too" in said
    assert f"connecting to the invite's host, fingerprint {host.identity.fingerprint}" in join_out.getvalue()
    for side in (host, guest):
        assert side.session is not None and side.session.outcome is not None
        assert verify(side.files.transcript.read_bytes()).ok
    assert guest.identity.public != host.identity.public


async def test_a_host_with_another_key_is_refused_after_the_handshake(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--port", "0"])
    jargs = build_parser().parse_args(["join", "unused:1", "--bot"])
    host = make_peer(hargs, "duel-host", 1, Printer(io.StringIO(), moves=True))
    impostor_key = Identity.generate().public
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            invite = await nursery.start(host_match, hargs, host, match_options(hargs))
            tampered = Invite(impostor_key, invite.port, invite.addresses)
            guest = make_peer(jargs, "join", 2, Printer(io.StringIO(), moves=True))
            with pytest.raises(IdentityError) as refused:
                await join_match(jargs, guest, target_of(str(tampered)))
            nursery.cancel_scope.cancel()
    message = str(refused.value)
    assert f"the invite names {fingerprint(impostor_key)}" in message
    assert f"the host at this address has {host.identity.fingerprint}" in message
    assert "Someone may be in the middle" in message
    assert guest.session is None  # nothing was played, and nothing pinned
    assert not (tmp_path / "known_peers").exists()


async def test_a_host_with_another_key_at_the_first_address_does_not_stop_the_join(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The invite names 127.0.0.1 then 127.0.0.2 (same port). Another host (another key) answers at
    # the first; the joiner says so and goes on to the real host at the second.
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--port", "0", "--bind", "127.0.0.2"])
    jargs = build_parser().parse_args(["join", "unused:1", "--bot"])
    host = make_peer(hargs, "duel-host", 1, Printer(io.StringIO(), moves=True))
    join_out = io.StringIO()
    decoy_out = io.StringIO()
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            invite = await nursery.start(host_match, hargs, host, match_options(hargs))
            dargs = build_parser().parse_args(["host", "duel", "--bot", "--port", str(invite.port)])
            decoy = make_peer(dargs, "decoy", 3, Printer(decoy_out, moves=True))
            decoy.identity = Identity.generate()
            await nursery.start(host_match, dargs, decoy, match_options(dargs))
            both = Invite(host.identity.public, invite.port, ("127.0.0.1", "127.0.0.2"), invite.token)
            guest = make_peer(jargs, "join", 2, Printer(join_out, moves=True))
            await join_match(jargs, guest, target_of(str(both)))
            nursery.cancel_scope.cancel()
    said = join_out.getvalue()
    assert f"127.0.0.1:{invite.port}: the host's key is not the one the invite names" in said
    assert "trying the invite's other addresses" in said
    assert f"connected to 127.0.0.2:{invite.port}" in said
    assert guest.session is not None and guest.session.outcome is not None
    assert guest.session.keys[0] == host.identity.public
    # The wrong host saw a caller break off its handshake, never who it was.
    seen = decoy_out.getvalue()
    assert guest.name not in seen and guest.identity.fingerprint not in seen, seen


def spawn_host(home: Path, output: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "P2PGENIUS_HOME": str(home)}
    with output.open("w") as sink:
        return subprocess.Popen(
            [sys.executable, "-m", "p2pgenius", "host", *args],
            env=env,
            text=True,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )


def invite_in(output: Path) -> str:
    deadline = time.monotonic() + HANG_S
    while time.monotonic() < deadline:
        if found := re.search(r"p2pgenius join (p2pgenius://\S+)", output.read_text()):
            return found[1]
        time.sleep(0.02)
    raise AssertionError(f"the host showed no invite: {output.read_text()}")


def test_two_terminals_of_one_account_play_by_invite_and_an_impostor_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The host runs as its own process (another terminal); the joiner is this one, same account.
    home = tmp_path / "home"
    out = tmp_path / "host.txt"
    host = spawn_host(home, out, "magic-square", "--bot", "heuristic", "--port", "0")
    try:
        invite = codec.parse_live(invite_in(out))
        monkeypatch.setenv("P2PGENIUS_HOME", str(home))
        impostor = Invite(Identity.generate().public, invite.port, invite.addresses)
        assert main(["join", str(impostor), "--bot"]) == 1
        err = capsys.readouterr().err
        assert "error: the host's key is not the one the invite names" in err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert main(["join", str(invite), "--bot", "random"]) == 0
        said = capsys.readouterr().out
        assert "result:" in said and "connected to 127.0.0.1:" in said
        assert host.wait(timeout=HANG_S) == 0, out.read_text()
    finally:
        host.kill()
        host.wait()
    assert "result:" in out.read_text()
    assert "another p2pgenius of this account is playing" in said  # so it has a key of its own


async def test_advertised_addresses_go_first_in_the_invite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A port forwarded by hand, or a VPN name: the host cannot know them, so it is told.
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    out = io.StringIO()
    advertised = ["--advertise", "friend.example.org", "--advertise", "198.51.100.9"]
    hargs = build_parser().parse_args(["host", "duel", "--bot", "--port", "0", *advertised])
    host = make_peer(hargs, "duel-host", 1, Printer(out, moves=False))
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            invite = await nursery.start(host_match, hargs, host, match_options(hargs))
            nursery.cancel_scope.cancel()  # (nobody joins: those addresses are not this machine's)
    assert invite.addresses == ("friend.example.org", "198.51.100.9", "127.0.0.1")
    port = invite.port
    assert f"also in the invite: friend.example.org:{port}, 198.51.100.9:{port}" in out.getvalue()


def test_an_address_no_invite_can_carry_is_refused_at_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    assert main(["host", "duel", "--bot", "--advertise", "my host!"]) == 2
    err = capsys.readouterr().err
    assert "'my host!' is neither an IP address nor a host name" in err and err.count("\n") == 1


def test_a_text_longer_than_any_invite_is_refused_before_it_is_decoded() -> None:
    longest = codec.MAX_CODE
    with pytest.raises(InviteError, match=f"not an invite: {longest + 1} characters"):
        codec.parse(codec.PREFIX + "a" * (longest + 1))
    tail = longest - len(sample().text()) + len(codec.PREFIX)
    for length in (700, 4000, tail):  # (past the repair search's reach: said damaged at once)
        with pytest.raises(InviteError, match="damaged"):
            codec.parse(sample().text() + "a" * length)


def test_an_invite_whose_count_is_more_than_any_invite_has_is_damaged_not_cut_short() -> None:
    # A count byte past the maxima makes fields no invite has: not the start of one cut short.
    code = sample().text()[len(codec.PREFIX) :]
    raw = bytearray(base64.b32decode(code.upper() + "=" * (-len(code) % 8)))
    at = codec._fields_end(bytes(raw[:40]))  # (where the cut fields would go on: past 40 bytes)
    assert at > 40
    count = 4 + len(KEY) + (codec.TOKEN_LEN if raw[0] >= 2 else 0) - 1
    raw[count] = codec.MAX_ADDRESSES + 1
    assert codec._fields_end(bytes(raw[: count + 8])) == 0
    cut = base64.b32encode(bytes(raw[: count + 10])).decode().rstrip("=").lower()
    with pytest.raises(InviteError, match="damaged"):
        codec.parse(codec.PREFIX + cut)


# -- correspondence invites (version 4, SPEC 4c) ---------------------------------------------------

MAILBOX = bytes(range(100, 132))
RELAY = "wss://relay.example.org"


def mail_sample(token: bytes = bytes(range(16))) -> MailInvite:
    return MailInvite(
        KEY, token, MAILBOX, (RELAY, "ws://192.0.2.10:7777/p2pgenius", "ws://[2001:db8::7]:8080/")
    )


def sealed(body: bytes) -> str:
    """``body`` as an invite's text, its check made (so that only its fields can be wrong)."""
    check = hashlib.sha256(codec.CHECK_LABEL + body).digest()[: codec.CHECK_LEN]
    return codec.PREFIX + base64.b32encode(body + check).decode().rstrip("=").lower()


_LABELS = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?", fullmatch=True)
_HOSTS = st.one_of(
    st.lists(_LABELS, min_size=1, max_size=4).map(".".join),
    st.ip_addresses(v=4).map(str),
    st.ip_addresses(v=6).map(lambda ip: f"[{ip}]"),
)
_SEGMENTS = st.lists(
    st.from_regex(r"([A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2}){0,12}", fullmatch=True), max_size=4
)
_URLS = st.builds(
    lambda scheme, host, port, path: f"{scheme}://{host}{'' if port is None else f':{port}'}{path}",
    st.sampled_from(["ws", "wss"]),
    _HOSTS,
    st.none() | st.integers(1, 65535),
    _SEGMENTS.map(lambda segments: "".join("/" + segment for segment in segments)),
).filter(lambda url: len(url) <= codec.MAX_URL)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    key=st.binary(min_size=32, max_size=32),
    token=st.sampled_from([b""]) | st.binary(min_size=16, max_size=16),
    mailbox=st.binary(min_size=32, max_size=32),
    relays=st.lists(_URLS, min_size=1, max_size=codec.MAX_MAIL_RELAYS, unique=True),
)
def test_a_correspondence_invite_round_trips(
    key: bytes, token: bytes, mailbox: bytes, relays: list[str]
) -> None:
    made = MailInvite(key, token, mailbox, tuple(relays))
    text = made.text()
    assert re.fullmatch(r"p2pgenius://[a-z2-7]+", text) and codec.is_invite(text)
    assert codec.parse(text) == made and codec.parse(text.upper()) == made
    assert codec.parse(text[:50] + "\n  " + text[50:]) == made
    code = text[len(codec.PREFIX) :].upper()
    body = base64.b32decode(code + "=" * (-len(code) % 8))
    assert body[:2] == bytes([4, 1 if token else 0]) and made.seats == bool(token)
    watching = made.for_spectators()
    assert not watching.seats and watching.token == b"" and codec.parse(watching.text()) == watching
    assert (watching.mailbox, watching.relays, watching.key) == (mailbox, tuple(relays), key)


def test_a_spectators_invite_seats_nobody_and_the_live_reader_refuses_a_correspondence_invite() -> None:
    players = mail_sample()
    spectators = players.for_spectators()
    assert players.seats and not spectators.seats and spectators.token == b""
    assert len(spectators.text()) < len(players.text())  # (no token is written at all)
    assert players.fingerprint == spectators.fingerprint == fingerprint(KEY)
    for invite in (players, spectators):
        with pytest.raises(InviteError, match=r"a correspondence invite .* cannot join yet") as refused:
            codec.parse_live(invite.text())
        assert "\n" not in str(refused.value)
    assert codec.parse_live(sample().text()) == sample()


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("https://relay.example.org", "is not a ws:// or wss:// URL"),
        ("relay.example.org", "is not a ws:// or wss:// URL"),
        ("WSS://relay.example.org", "scheme in upper case"),
        ("wss://Relay.example.org", "host in upper case"),
        ("ws://[2001:DB8::7]", "host in upper case"),
        ("wss://user:pw@relay.example.org", "names a user"),
        ("wss://relay.example.org@evil.example", "names a user"),
        ("wss://relay.example.org/?key=x", "a query or a fragment"),
        ("wss://relay.example.org#top", "a query or a fragment"),
        ("wss://relay.example.org:0", "port that is not 1 to 65535"),
        ("wss://relay.example.org:65536", "port that is not 1 to 65535"),
        ("wss://relay.example.org:0443", "port that is not 1 to 65535"),
        ("wss://relay.example.org:", "port that is not 1 to 65535"),
        ("ws://2001:db8::7", "port that is not 1 to 65535"),
        ("wss://", "no host name or IPv6 address"),
        ("wss:///path", "no host name or IPv6 address"),
        ("wss://-relay.example.org", "no host name or IPv6 address"),
        ("wss://relay_1.example.org", "no host name or IPv6 address"),
        ("ws://[fe80::1%25eth0]", "no host name or IPv6 address"),
        ("ws://[2001:db8::7::1]", "no host name or IPv6 address"),
        ("wss://relay.example.org\n", "no host name or IPv6 address"),
        ("wss://relay.example.org/a b", "a path with a character"),
        ("wss://relay.example.org/%zz", "a path with a character"),
        ("wss://relay.example.org/a\\b", "a path with a character"),
        ("wss://relé.example.org", "is not ASCII"),
        ("wss://relay.example.org/" + "x" * 177, "is 201 bytes long"),
    ],
)
def test_every_relay_url_an_invite_cannot_carry_is_refused_saying_why(url: str, said: str) -> None:
    problem = codec.relay_url_problem(url)
    assert problem is not None and said in problem, problem
    with pytest.raises(InviteError, match=re.escape(said)) as refused:
        MailInvite(KEY, b"", MAILBOX, (url,))
    assert "\n" not in str(refused.value)


@pytest.mark.parametrize(
    "url",
    [
        "wss://relay.example.org",
        "wss://relay.example.org/",
        "ws://localhost.:1/",
        "ws://127.0.0.1:7777",
        "ws://[::1]:7777",
        "ws://[::ffff:192.0.2.1]/x",
        "wss://relay.example.org:65535/a/%2F/~b/!$&'()*+,;=:@/",
        "wss://relay.example.org/" + "x" * 176,  # (200 bytes: the most)
        "wss://relay.example.org/UPPER/Case",  # (a path keeps its case)
    ],
)
def test_relay_urls_an_invite_carries(url: str) -> None:
    assert codec.relay_url_problem(url) is None
    made = MailInvite(KEY, b"", MAILBOX, (url,))
    assert codec.parse(made.text()) == made


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"key": b"short"}, "32-byte key"),
        ({"token": b"short"}, "seat token is 16 bytes"),
        ({"mailbox": bytes(31)}, "mailbox secret is 32 bytes"),
        ({"relays": ()}, "carries 1 to 8 relays, not 0"),
        ({"relays": tuple(f"wss://r{n}.example.org" for n in range(9))}, "carries 1 to 8 relays, not 9"),
        ({"relays": (RELAY, RELAY)}, "names each relay once"),
    ],
)
def test_a_correspondence_invite_cannot_be_made_of_nonsense(fields: dict[str, Any], said: str) -> None:
    given: dict[str, Any] = {"key": KEY, "token": b"", "mailbox": MAILBOX, "relays": (RELAY,), **fields}
    with pytest.raises(InviteError, match=said):
        MailInvite(**given)


def _relay(url: bytes) -> bytes:
    return bytes([len(url)]) + url


HEAD = bytes([4, 1]) + KEY + bytes(range(16)) + MAILBOX  # a player's invite up to its relay count


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (bytes([4]), "it ends after its version"),
        (bytes([4, 2]) + HEAD[2:] + bytes([1]) + _relay(RELAY.encode()), "its seats byte is not 0 or 1"),
        (HEAD[:70], "it ends before its relays"),
        (HEAD, "it ends before its relays"),
        (HEAD + bytes([0]), "0 relays, and an invite carries 1 to 8"),
        (HEAD + bytes([9]) + _relay(RELAY.encode()) * 9, "9 relays, and an invite carries 1 to 8"),
        (HEAD + bytes([1]), "it ends inside its relay 1"),
        (HEAD + bytes([2]) + _relay(RELAY.encode()) + bytes([30]) + b"wss://", "it ends inside its relay 2"),
        (HEAD + bytes([1, 0]), "its relay 1 is 0 bytes long, not 1 to 200"),
        (HEAD + bytes([1, 201]) + b"wss://relay.example.org/" + b"x" * 177, "201 bytes long, not 1 to 200"),
        (HEAD + bytes([1]) + _relay("wss://é.org".encode()), "its relay 1 is not ASCII"),
        (HEAD + bytes([1]) + _relay(b"https://relay.example.org"), "is not a ws:// or wss:// URL"),
        (HEAD + bytes([1]) + _relay(b"wss://Relay.example.org"), "has its host in upper case"),
        (HEAD + bytes([2]) + _relay(RELAY.encode()) * 2, "names each relay once"),
        (HEAD + bytes([1]) + _relay(RELAY.encode()) + bytes([0]), "bytes follow its last relay"),
    ],
)
def test_every_unreadable_correspondence_invite_is_malformed_in_one_line_saying_why(
    body: bytes, said: str
) -> None:
    with pytest.raises(InviteError, match="the invite is malformed") as refused:
        codec.parse(sealed(body))
    message = str(refused.value)
    assert said in message and "ask for another" in message and "\n" not in message, message


def test_a_correspondence_invite_damaged_or_cut_short_is_told_apart() -> None:
    text = mail_sample().text()
    start = len(codec.PREFIX)
    for position in range(start, len(text), 3):  # (each field; a damaged one costs a repair search)
        changed = text[:position] + ("b" if text[position] != "b" else "c") + text[position + 1 :]
        with pytest.raises(InviteError, match="damaged"):
            codec.parse(changed)
    with pytest.raises(InviteError, match="cut short"):
        codec.parse(text[: len(text) // 2])  # (the first of two rows, pasted without quotes)
    with pytest.raises(InviteError, match="reads versions 1 to 4"):
        codec.parse(sealed(bytes([5]) + mail_sample().text().encode()))


def test_a_correspondence_invite_keeps_its_secrets_out_of_its_repr() -> None:
    made = MailInvite(KEY, b"\x5a" * 16, b"\xa5" * 32, ("wss://relay.example.org",))
    shown = repr(made)
    assert "wss://relay.example.org" in shown
    assert (
        ("5a" * 16) not in shown
        and ("a5" * 32) not in shown
        and "\\xa5" not in shown
        and "\\x5a" not in shown
    )
