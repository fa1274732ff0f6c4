"""Fuzzing with hypothesis beyond the decoder and the session (tests/test_canonical.py,
tests/protocol/test_session_rules.py): sim scripts, typed moves and lobby messages. Whatever comes
in, the answer is a clear error of our own kind, never a crash."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pgenius.canonical import encode
from p2pgenius.cli import sim
from p2pgenius.errors import EncodingError, P2PGeniusError
from p2pgenius.games.registry import get_game, names
from p2pgenius.net.lobby import check_lobby
from p2pgenius.net.peer import Files, Peer, PeerGoneError
from p2pgenius.protocol.identity import Identity
from p2pgenius.ui import moves

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=20,
)
FIELDS = ["type", "left", "right", "cell", "first", "card", "count", "pile", "targets", "spells", "grid"]
actions = st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=4) | json_values
scripts = st.fixed_dictionaries(
    {"game": st.sampled_from([*names(), "chess", 3])},
    optional={
        "actions": st.lists(st.fixed_dictionaries({"seat": json_values, "action": actions}), max_size=6),
        "setup": json_values,
        "options": json_values,
    },
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(script=scripts)
def test_sim_answers_any_script_with_a_result_or_one_line(script: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script, allow_nan=True), encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    try:
        code = sim.run(str(path), out, err)
    except P2PGeniusError:
        return  # main() turns it into one line and exit 1 or 2
    assert code in (0, 1, 2)  # a result, a game error, or a malformed script
    assert err.getvalue().count("\n") <= 1


@settings(max_examples=400, deadline=None)
@given(game=st.sampled_from(names()), text=st.text(max_size=40))
def test_typed_moves_are_actions_or_one_clear_error(game: str, text: str) -> None:
    engine = get_game(game)
    state = engine.initial({"colours": [0, 1] * 8} if game == "magic-square" else {}, {})
    try:
        parsed = moves.parse(game, text, state, 0)
    except moves.InputError as exc:
        refused = str(exc)
    else:
        assert parsed.action is None or isinstance(parsed.action, dict)
        return
    assert refused and "\n" not in refused


async def never(session: Any, seat: int) -> None:
    raise AssertionError("nobody decides anything here")


def lobby_peer() -> Peer:
    files = Files(Path("/nonexistent"), Path("/nonexistent"))
    return Peer(Identity.from_seed(b"\x01" * 32), "me", files, never, lambda s, e: None, lambda t: None)


@settings(max_examples=300, deadline=None)
@given(
    lobby=st.dictionaries(
        st.sampled_from(
            ["game", "options", "setup", "names", "keys", "claims", "ready", "you", "needed", "start", "salt"]
        ),
        json_values | st.binary(max_size=40),
        max_size=3,
    )
)
def test_a_hostile_lobby_is_refused_in_one_line(lobby: dict[str, Any]) -> None:
    peer = lobby_peer()
    valid = {
        "game": "duel",
        "options": {"fast": True},
        "setup": {},
        "names": ["host", "me"],
        "keys": [b"\x00" * 32, peer.identity.public],
        "claims": [[], [1]],
        "ready": [True, False],
        "you": 1,
        "needed": 0,
        "start": False,
        "salt": b"\x01" * 32,
    }
    assert check_lobby(encode(["lobby", valid]), b"\x00" * 32, peer.identity.public) == valid  # (the base)
    try:
        payload = encode(["lobby", {**valid, **lobby}])  # some fields replaced by anything
    except (EncodingError, ValueError, OverflowError):
        return  # (floats and integers beyond 64 bits cannot even be sent)
    try:
        check_lobby(payload, b"\x00" * 32, peer.identity.public)
    except PeerGoneError as exc:
        refused = str(exc)
    else:
        return
    assert "\n" not in refused
