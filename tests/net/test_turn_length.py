"""``host --turn 1d``, a duel by correspondence (issue 46): the length the host types is the one
the match's terms carry, which the joiner agrees to and its transcript keeps."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import trio

from p2pgenius.cli.host import host_match
from p2pgenius.cli.join import join_match, target_of
from p2pgenius.cli.main import build_parser
from p2pgenius.cli.play import Printer, make_peer, match_options
from p2pgenius.protocol.transcript import verify
from tests.patience import HANG_S


async def test_a_turn_of_a_day_reaches_the_terms_both_sides_play_by(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PGENIUS_HOME", str(tmp_path))
    hargs = build_parser().parse_args(
        ["host", "duel", "--bot", "--port", "0", "--turn", "1d", "--grace", "2h"]
    )
    assert hargs.grace == 7200
    host = make_peer(hargs, "duel-host", 1, Printer(io.StringIO(), moves=True))
    with trio.fail_after(HANG_S):
        async with trio.open_nursery() as nursery:
            made = await nursery.start(host_match, hargs, host, match_options(hargs))
            jargs = build_parser().parse_args(["join", str(made), "--bot", "random"])
            guest = make_peer(jargs, "join", 2, Printer(io.StringIO(), moves=True))
            await join_match(jargs, guest, target_of(str(made)))
    for peer in (host, guest):
        assert peer.view is not None and peer.view.terms is not None
        assert peer.view.terms["options"] == {"turn_seconds": 86400, "fast": True}
        assert verify(peer.files.transcript.read_bytes()).ok
