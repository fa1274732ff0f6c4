"""Setting a match up: the terms and their checks, seat groups and claims, and the coin flip's
deal (protocol/SPEC.md, sections 5 and 6): pure functions, and :class:`MatchSetup`, the part of a
session that takes the set-up messages."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from p2pgenius.canonical import encode
from p2pgenius.errors import LocalMisuseError, P2PGeniusError
from p2pgenius.games.base import Game
from p2pgenius.games.registry import engine_fingerprint, get_spec
from p2pgenius.games.spec import GameSpec
from p2pgenius.protocol.bodies import NONCE_LEN, Accept, CoinReveal, Terms
from p2pgenius.protocol.events import SeatsDealt
from p2pgenius.protocol.identity import Identity, verify
from p2pgenius.protocol.messages import (
    READY_DOMAIN,
    Envelope,
    MessageError,
    coin_commitment,
    is_name,
    match_id,
)
from p2pgenius.protocol.session.cards import HiddenCards
from p2pgenius.protocol.session.courier import Courier
from p2pgenius.protocol.session.faults import CheatError
from p2pgenius.protocol.session.match import DealtMatch
from p2pgenius.protocol.session.phase import Phase


def check_terms(
    terms: Any, keys: Sequence[bytes], expected: Mapping[str, Any] | None, me: int | None
) -> GameSpec:
    """The game of terms that this peer can play and that match what the lobby agreed;
    raises MessageError saying why not."""
    if not isinstance(terms, dict):
        raise MessageError("malformed terms")
    if terms.get("peers") != list(keys):
        raise MessageError("the terms list other peers than the ones connected")
    names = terms.get("names")
    if not (isinstance(names, list) and len(names) == len(keys) and all(is_name(n) for n in names)):
        raise MessageError("the terms' names are not one printable name (1 to 32 characters) per peer")
    game = terms.get("game")
    if not (
        isinstance(game, str)
        and isinstance(terms.get("options", {}), dict)
        and isinstance(terms.get("setup", {}), dict)
    ):
        raise MessageError("malformed terms")
    try:
        spec = get_spec(game)
        spec.engine.initial(terms.get("setup", {}), terms.get("options", {}))
    except P2PGeniusError as exc:
        raise MessageError(f"unplayable terms: {exc}") from None
    if terms_engine(spec, terms.get("engine"), me) is None:
        raise MessageError(
            f"the host runs a different {game} rules engine ({terms.get('engine')}; this "
            f"program has {engine_fingerprint(game)}): both must run the same version"
        )
    _check_seats(terms, spec, len(keys))
    for key, wanted in sorted((expected or {}).items()):
        have = terms["claims"][me] if key == "claim" and me is not None else terms.get(key)
        if have != wanted:
            raise MessageError(f"the terms' {key} ({have}) differ from the lobby's ({wanted})")
    return spec


def terms_engine(spec: GameSpec, engine: Any, me: int | None) -> Game[Any, Any] | None:
    """The engine that plays a match whose terms carry the fingerprint ``engine``: the game's own;
    for an observer (``me`` None: verify, a spectator) also one of an earlier rules version that
    it still replays exactly (SPEC.md section 8). None if neither."""
    if engine == engine_fingerprint(spec.name):
        return spec.engine
    if me is None:
        for version, older in sorted(spec.older_engines.items()):
            if engine == engine_fingerprint(spec.name, version):
                return older
    return None


def _check_seats(terms: dict[str, Any], spec: GameSpec, peers: int) -> None:
    """The terms' seat groups are the game's standard ones and their claims can all be granted."""
    try:
        groups = spec.seat_groups(peers)
    except LocalMisuseError as exc:
        raise MessageError(f"unplayable terms: {exc}") from None
    if terms.get("groups") != groups:
        raise MessageError("the seat groups are not the standard ones for this match")
    claims = terms.get("claims")
    if not (
        isinstance(claims, list)
        and len(claims) == peers
        and all(isinstance(c, list) and all(type(s) is int for s in c) for c in claims)
    ):
        raise MessageError("malformed seat claims")
    problem = claims_problem(groups, claims)
    if problem:
        raise MessageError(f"impossible seat claims: {problem}")


def deal(
    reveals: Sequence[bytes], groups: Sequence[Sequence[int]], claims: Sequence[Sequence[int]]
) -> tuple[int, ...]:
    """``owner[seat]``: the peer dealt each seat. Claimed groups go to their claimants; the coin
    (every peer's opened share, in peer order) deals the rest: peers ordered by H(shares || peer)."""
    shared = encode(list(reveals))
    order = sorted(range(len(reveals)), key=lambda a: hashlib.sha256(shared + bytes([a])).digest())
    claimed = {}  # peer -> the group its claim names
    for peer, claim in enumerate(claims):
        group = group_of(groups, claim)
        if group is not None:
            claimed[peer] = group
    order = sorted(claimed) + [a for a in order if a not in claimed]
    dealt = [groups[claimed[p]] for p in sorted(claimed)] + [
        g for i, g in enumerate(groups) if i not in claimed.values()
    ]
    owner = [0] * sum(len(g) for g in dealt)
    for peer, seats in zip(order, dealt, strict=True):
        for seat in seats:
            owner[seat] = peer
    return tuple(owner)


def claims_problem(groups: Sequence[Sequence[int]], claims: Sequence[Sequence[int]]) -> str:
    """Why these per-peer seat claims cannot all be granted ("" if they can)."""
    taken: dict[int, int] = {}
    for peer, claim in enumerate(claims):
        if not claim:
            continue
        group = group_of(groups, claim)
        if group is None:
            return f"seats {', '.join(f'p{s}' for s in claim)} are not one peer's seats"
        if group in taken:
            return f"peers {taken[group]} and {peer} both claim seat p{groups[group][0]}"
        taken[group] = peer
    return ""


def wanted_claims(
    peers: int, claims: Sequence[Sequence[int]] | None, seats: Sequence[int]
) -> list[list[int]]:
    """Each peer's seat claim, sorted (``seats``: the host's own, for short)."""
    wanted = [sorted(c) for c in claims] if claims is not None else [[] for _ in range(peers)]
    if seats:
        wanted[0] = sorted(seats)
    return wanted


def group_of(groups: Sequence[Sequence[int]], seats: Sequence[int]) -> int | None:
    """The index of the one group holding every seat in ``seats`` (None if none, or no seats)."""
    for index, group in enumerate(groups):
        if seats and all(seat in group for seat in seats):
            return index
    return None


def ready_statement(
    salt: bytes,
    agreed: Mapping[str, Any],
    claim: Sequence[int],
    coin: bytes,
) -> bytes:
    """What a joiner signs when it says it is ready: ``READY_DOMAIN || encode([salt, game,
    options, setup, host claim, claim, coin])``. It binds the joiner to the table it saw (the
    host's salt), to the match it agreed to and to its committed coin share, before it can know
    the deal: walking away from the coin flip after seeing the host's share then forfeits."""
    return READY_DOMAIN + encode(
        [
            salt,
            agreed["host"],
            agreed["game"],
            dict(agreed["options"]),
            dict(agreed["setup"]),
            sorted(agreed["host claim"]),
            sorted(claim),
            coin,
        ]
    )


def make_ready(
    identity: Identity, nonce: bytes, *, salt: bytes, agreed: Mapping[str, Any], claim: Sequence[int]
) -> dict[str, Any]:
    """A joiner's ``ready``: its seat claim, its committed coin share (of ``nonce``) and its
    signature of both with what it agreed to (``agreed``: the host's key, game, options, setup,
    host claim)."""
    coin = coin_commitment(salt, identity.public, nonce)
    return {
        "seats": sorted(claim),
        "coin": coin,
        "signature": identity.sign(ready_statement(salt, agreed, claim, coin)),
    }


def ready_problem(key: bytes, ready: Mapping[str, Any], *, salt: bytes, agreed: Mapping[str, Any]) -> str:
    """Why a joiner's ``ready`` (from the holder of ``key``) does not hold ("" if it does)."""
    coin, signature, seats = ready.get("coin"), ready.get("signature"), ready.get("seats")
    if not (
        isinstance(coin, bytes)
        and len(coin) == 32
        and isinstance(signature, bytes)
        and isinstance(seats, list)
        and all(type(s) is int for s in seats)
    ):
        return "a malformed ready message"
    if not verify(key, signature, ready_statement(salt, agreed, seats, coin)):
        return "a ready message whose signature does not verify"
    return ""


def agreement(
    host: bytes, game: str, options: Mapping[str, Any], setup: Mapping[str, Any], host_claim: Sequence[int]
) -> dict[str, Any]:
    """What a joiner's ready signs besides the salt, its claim and its coin."""
    return {"host": host, "game": game, "options": options, "setup": setup, "host claim": host_claim}


def _agreed(terms: Mapping[str, Any]) -> dict[str, Any]:
    options, setup = terms.get("options", {}), terms.get("setup", {})
    return agreement(terms["peers"][0], terms["game"], options, setup, terms["claims"][0])


def check_coins(terms: Mapping[str, Any], keys: Sequence[bytes]) -> None:
    """The terms' coin commitments: one per peer, each joiner's with its signed ready (so the
    host cannot put a commitment in a joiner's name). Raises MessageError."""
    coins, readies, salt = terms.get("coins"), terms.get("readies"), terms.get("salt")
    if not (
        isinstance(salt, bytes)
        and len(salt) == NONCE_LEN
        and isinstance(coins, list)
        and isinstance(readies, list)
        and len(coins) == len(readies) == len(keys)
        and all(isinstance(c, bytes) and len(c) == 32 for c in coins)
        and all(isinstance(r, bytes) for r in readies)
        and readies[0] == b""
    ):
        raise MessageError("malformed coin commitments in the terms")
    agreed = _agreed(terms)
    for peer in range(1, len(keys)):
        ready = {"seats": terms["claims"][peer], "coin": coins[peer], "signature": readies[peer]}
        problem = ready_problem(keys[peer], ready, salt=salt, agreed=agreed)
        if problem:
            raise MessageError(f"peer {peer}'s coin commitment in the terms: {problem}")


class MatchSetup:
    """The session's set-up: terms (with every coin commitment), accepts, the coin's openings,
    the deal. It hands the session the :class:`DealtMatch` the deal makes."""

    def __init__(self, courier: Courier, *, expected: Mapping[str, Any] | None, coin: bytes | None) -> None:
        self.courier = courier
        self.expected = expected  # what the lobby agreed: "game", "options", "claim" (ours)
        self.terms: dict[str, Any] | None = None
        self.spec: GameSpec | None = None  # the terms' game, once they are in
        self.engine: Game[Any, Any] | None = None  # the engine of the terms' rules version
        self.accepted: set[int] = set()
        self.coin_reveals: dict[int, bytes] = {}
        self.my_coin = coin  # our coin share (a joiner's: committed in its ready, in the lobby)

    def ready(
        self,
        salt: bytes,
        game: str,
        *,
        options: Mapping[str, Any],
        setup: Mapping[str, Any],
        host_claim: Sequence[int] = (),
        claim: Sequence[int] = (),
    ) -> dict[str, Any]:
        """A joiner's signed ready for the table of ``salt`` (a fresh coin share of ours,
        committed; the network layer makes the same with :func:`make_ready`)."""
        courier = self.courier
        assert courier.identity is not None
        self.my_coin = courier.randomness(NONCE_LEN)
        agreed = agreement(courier.keys[0], game, options, setup, host_claim)
        return make_ready(courier.identity, self.my_coin, salt=salt, agreed=agreed, claim=claim)

    def propose(
        self,
        game: str,
        *,
        options: Mapping[str, Any],
        setup: Mapping[str, Any],
        salt: bytes | None = None,
        seats: Sequence[int] = (),
        claims: Sequence[Sequence[int]] | None = None,
        readies: Sequence[Mapping[str, Any] | None] = (),
    ) -> None:
        """The host (peer 0) proposes the match terms. ``claims[p]``: seats peer ``p`` claims
        (its group is the one holding them) instead of leaving it to the coin; ``seats`` is the
        host's own claim, for short. ``readies[p]``: each joiner's signed ready (index 0, the
        host's, is ignored), made over ``salt`` (a joiner's claim in it is the one granted)."""
        courier = self.courier
        keys = courier.keys
        if courier.me != 0:
            raise LocalMisuseError("only the host (peer 0) proposes the terms")
        spec = get_spec(game)
        spec.engine.initial(setup, options)  # refuse bad terms before anyone sees them
        wanted = wanted_claims(len(keys), claims, seats)
        problem = claims_problem(spec.seat_groups(len(keys)), wanted)
        if problem:
            raise LocalMisuseError(problem)
        salt = salt if salt is not None else courier.randomness(NONCE_LEN)
        if self.my_coin is None:
            self.my_coin = courier.randomness(NONCE_LEN)
        coins, signatures = [coin_commitment(salt, keys[0], self.my_coin)], [b""]
        for peer in range(1, len(keys)):
            ready = readies[peer] if peer < len(readies) else None
            if ready is None:
                raise LocalMisuseError(f"peer {peer} has not said it is ready")
            coins.append(ready["coin"])
            signatures.append(ready["signature"])
        terms = {
            "game": game,
            "options": dict(options),
            "setup": dict(setup),
            "engine": engine_fingerprint(game),
            "peers": list(keys),
            "names": courier.names,
            "groups": spec.seat_groups(len(keys)),
            "claims": wanted,
            "salt": salt,
            "coins": coins,
            "readies": signatures,
        }
        check_coins(terms, keys)  # a joiner's ready that does not hold is refused here
        courier.match_id = match_id(terms)
        courier.send(Terms(terms))

    def on_terms(self, env: Envelope, msg: Terms) -> None:
        courier, terms = self.courier, msg.terms
        keys, me = courier.keys, courier.me
        if env.author != 0 or courier.phase is not Phase.TERMS:
            raise MessageError("terms come once, from the host")
        if not isinstance(terms, dict) or match_id(terms) != env.match_id:
            raise MessageError("the match id is not the hash of the terms")
        spec = check_terms(terms, keys, self.expected, me)
        check_coins(terms, keys)
        if me is not None and me != 0 and courier.replay is None:
            mine = self.my_coin
            ours = None if mine is None else coin_commitment(terms["salt"], keys[me], mine)
            if terms["coins"][me] != ours:
                # (An old ready of ours, replayed by the host: opening our new share would look
                # like cheating. We refuse before accepting anything.)
                raise MessageError("the terms do not carry the coin commitment we made for this table")
        self.terms, self.spec = terms, spec
        self.engine = terms_engine(spec, terms.get("engine"), me)
        courier.match_id = env.match_id
        names = terms.get("names")
        if isinstance(names, list) and len(names) == len(keys) and all(type(n) is str for n in names):
            courier.names[:] = [n[:32] for n in names]  # (a restored or observing session knew none)
        self.accepted.add(0)
        courier.enter(Phase.COIN_REVEAL)
        if me is None:
            return
        if self.my_coin is not None:
            courier.keep(["coin", self.my_coin])
        if me != 0:
            courier.send(Accept(courier.match_id))
        # Every share is committed (in the terms): ours can be opened at once.
        if self.my_coin is not None and me not in self.coin_reveals:
            courier.send(CoinReveal(self.my_coin))

    def on_accept(self, env: Envelope, msg: Accept) -> None:
        if msg.match_id != self.courier.match_id or env.author == 0 or env.author in self.accepted:
            raise MessageError("an accept must name these terms, once")
        self.accepted.add(env.author)

    def on_coin_reveal(self, env: Envelope, msg: CoinReveal) -> DealtMatch | None:
        """Take a peer's opened coin share; the last one deals the seats: the match is returned."""
        nonce = msg.nonce
        if env.author in self.coin_reveals:
            raise MessageError("a coin reveal out of place")
        if env.author not in self.accepted:
            raise MessageError("a coin share opened before its author accepted the terms")
        assert self.terms is not None
        committed = self.terms["coins"][env.author]
        if coin_commitment(self.terms["salt"], self.courier.keys[env.author], nonce) != committed:
            raise CheatError(
                env.author, "opened its coin commitment to another value", {"message": env.hash.hex()}
            )
        self.coin_reveals[env.author] = nonce
        if len(self.coin_reveals) < len(self.courier.keys):
            return None
        return self._deal()

    def _deal(self) -> DealtMatch:
        assert self.terms is not None and self.spec is not None and self.engine is not None
        terms, spec, engine, courier = self.terms, self.spec, self.engine, self.courier
        reveals = [self.coin_reveals[a] for a in range(len(courier.keys))]
        owner = deal(reveals, terms["groups"], terms["claims"])
        mine = tuple(seat for seat, peer in enumerate(owner) if peer == courier.me)
        state = spec.perspective(engine.initial(terms["setup"], terms["options"]), mine)
        courier.events.append(SeatsDealt(owner))
        courier.enter(Phase.PLAYING)
        return DealtMatch(terms, engine, spec, owner, mine, state, HiddenCards(len(owner)))

    def unrevealed(self) -> tuple[int, ...]:
        """The peers the coin flip waits on: each committed its share and has not opened it. One
        that walks away here (having seen the others' shares, and so the deal) forfeits."""
        if self.courier.phase is not Phase.COIN_REVEAL:
            return ()
        return tuple(p for p in range(len(self.courier.keys)) if p not in self.coin_reveals)


class Seated(Protocol):
    """What :func:`start_table` asks of each session (a Session is one): its set-up part."""

    @property
    def setup(self) -> MatchSetup: ...


def start_table(
    sessions: Sequence[Seated],
    game: str,
    *,
    options: Mapping[str, Any],
    setup: Mapping[str, Any],
    salt: bytes | None = None,
    seats: Sequence[int] = (),
    claims: Sequence[Sequence[int]] | None = None,
) -> None:
    """Start a match between sessions held in one place (tests, the in-memory table): each
    joiner (``sessions[1:]``) says it is ready, then the host (``sessions[0]``) proposes."""
    host = sessions[0].setup
    salt = salt if salt is not None else host.courier.randomness(NONCE_LEN)
    wanted = wanted_claims(len(sessions), claims, seats)
    readies: list[Mapping[str, Any] | None] = [None]
    for peer, joiner in enumerate((session.setup for session in sessions[1:]), start=1):
        readies.append(
            joiner.ready(salt, game, options=options, setup=setup, host_claim=wanted[0], claim=wanted[peer])
        )
    host.propose(game, options=options, setup=setup, salt=salt, claims=wanted, readies=readies)
