"""``p2pgenius sim``: run the pure engine over a script of actions (docs/sim.md)."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any, TextIO

from p2pgenius.errors import P2PGeniusError
from p2pgenius.games.registry import get_game, get_spec, names

EXIT_ILLEGAL = 1
EXIT_UNREADABLE = 2
MAX_SCRIPT_BYTES = 64 * 1024 * 1024


class ScriptError(P2PGeniusError):
    """The script as a whole cannot be read or understood (exit 2)."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def read_script(path: str) -> Mapping[str, Any]:
    """Read and check the script's outer shape; raises ScriptError."""
    text = _read_text(path)
    try:
        script = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        raise ScriptError(f"script {path} is not valid JSON: {exc}") from None
    return _checked_shape(script)


def _read_text(path: str) -> str:
    """The script's text (``-``: standard input), refused past MAX_SCRIPT_BYTES."""
    try:
        if path == "-":
            text = sys.stdin.read(MAX_SCRIPT_BYTES + 1)
        else:
            with open(path, encoding="utf-8") as handle:
                text = handle.read(MAX_SCRIPT_BYTES + 1)
    except (OSError, UnicodeDecodeError) as exc:
        raise ScriptError(f"cannot read script {path}: {exc}") from None
    if len(text) > MAX_SCRIPT_BYTES:
        raise ScriptError(f"script {path} is larger than {MAX_SCRIPT_BYTES} bytes")
    return text


def _checked_shape(script: Any) -> Mapping[str, Any]:
    """``script``, once it is an object of the four known fields, each of its type (what is in
    them the game checks)."""
    if not isinstance(script, dict):
        raise ScriptError('script must be a JSON object with "game" and "actions"')
    unknown = set(script) - {"game", "options", "setup", "actions"}
    if unknown:
        raise ScriptError(f"script: unknown field {sorted(unknown)[0]!r}")
    if not isinstance(script.get("game"), str):
        raise ScriptError(f'script: "game" must name a game ({", ".join(names())})')
    for field in ("options", "setup"):
        if not isinstance(script.get(field, {}), dict):
            raise ScriptError(f'script: "{field}" must be an object')
    if not isinstance(script.get("actions", []), list):
        raise ScriptError('script: "actions" must be a list')
    return script


def _line(out: TextIO, value: Any) -> None:
    out.write(json.dumps(value, ensure_ascii=False) + "\n")


def run(path: str, out: TextIO, err: TextIO) -> int:
    """Run the script at ``path``; print JSON Lines to ``out``; return the exit code."""
    try:
        script = read_script(path)
        game = get_game(script["game"])
        spec = get_spec(script["game"])
        # Options (time limits and the like) are ignored by sim, as docs/sim.md says.
        state = game.initial(script.get("setup", {}), {})
    except P2PGeniusError as exc:
        err.write(f"error: {exc}\n")
        return EXIT_UNREADABLE
    for step, entry in enumerate(script.get("actions", []), start=1):
        try:
            seat, action = _entry(entry, game.seats(state))
            parsed = game.parse_action(action)
            before = game.events(state)
            state = game.apply(state, seat, parsed)
        except P2PGeniusError as exc:
            err.write(f"error: step {step}: {exc}\n")
            return EXIT_ILLEGAL
        line: dict[str, Any] = {
            "step": step,
            "seat": seat,
            "action": parsed.to_plain(),
            "state": game.full(state),
        }
        after = game.events(state)
        if after is not before:
            # Each event's data, and, for people reading the output, the sentence it makes.
            line["events"] = [{**event, "text": spec.words(event)} for event in after]
        _line(out, line)
    outcome = game.outcome(state)
    _line(out, {"outcome": None if outcome is None else outcome.to_plain(), "state": game.full(state)})
    return 0


def _entry(entry: Any, seats: int) -> tuple[int, Any]:
    if not isinstance(entry, dict):
        raise ScriptError('each action must be an object {"seat": S, "action": {...}}')
    unknown = set(entry) - {"seat", "action"}
    if unknown:
        raise ScriptError(f"unknown field {sorted(unknown)[0]!r} beside seat and action")
    seat = entry.get("seat")
    if type(seat) is not int:
        raise ScriptError(f"seat must be a whole number 0..{seats - 1}, got {seat!r}")
    if not 0 <= seat < seats:
        raise ScriptError(f"no seat {seat}: seats are 0..{seats - 1}")
    if "action" not in entry:
        raise ScriptError('missing "action"')
    return seat, entry["action"]
