"""The games' rules pages, shipped in the package as ``p2pgenius/rules/GAME.md`` (the same text
as docs/rules/): ``p2pgenius rules GAME`` prints one, the terminal UI shows one over the board."""

from __future__ import annotations

from importlib import resources

from p2pgenius.errors import LocalMisuseError


def rules_text(game: str) -> str:
    """The rules page of ``game``; raises LocalMisuseError if this installation has none."""
    try:
        return resources.files("p2pgenius").joinpath("rules", f"{game}.md").read_text(encoding="utf-8")
    except OSError as exc:
        raise LocalMisuseError(f"the rules of {game} are missing from this installation: {exc}") from None
