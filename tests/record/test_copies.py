"""Copies of one match are judged whole (issue 43, item 2; SPEC section 7, "Several copies of one
match"): a loser that walked away cannot write a copy that beats the winner's, however it cuts,
rewrites or pads it. The forger (protocol/vectors/forge.py) writes every kind of whole copy a peer
can write alone (cuts, rewrites of its own messages, its own claims and forfeits, padding) and
each is placed beside the honest player's copy, in every game with two peers and with the most:
the honest player's result never changes, and where the forger signed nothing twice, nothing of
the verdict does. Then the issue's own attack, through the real commands: the winner's history,
ratings, record against the loser, bundle and ``verify BUNDLE`` stay exactly what they were."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from p2pgenius.bots.driver import BotDriver, plain
from p2pgenius.canonical import decode, encode
from p2pgenius.cli.main import main
from p2pgenius.inmemory import play, transcript
from p2pgenius.protocol.identity import Identity, fingerprint
from p2pgenius.protocol.messages import seal
from p2pgenius.protocol.session import Session
from p2pgenius.protocol.transcript import Report, frame, header, records, verify, verify_copies
from p2pgenius.record import bundle
from p2pgenius.record.matches import RecordLine, from_report, judged
from tests.protocol.test_forger import FORGE
from tests.record.conftest import account_of

SEED = 43
SAMPLES = 6
"""Rewrites are tried at this many of the forger's messages, spread over the match (every one
of them at every message is test_forger.py's; here each is judged beside the honest copy)."""


def walkaway(
    game: str, peers: int, salt: int = 0, *, sides: tuple[int, int] = (0, 1), seed: int = SEED
) -> tuple[Any, bytes, bytes]:
    """(the table, the honest player's copy, the forger's): an honest match in which the loser
    (``sides``: winner, loser), the forger, stopped at the last point where it owed something (its
    signed result, where it owed that), and the winner claimed its timeout and forfeited it, as an
    honest peer does after its grace. The forger's own transcript holds what it read of that
    history, in the order it read it, and the claim and the forfeit last."""
    winner, loser = sides
    table = play(game, peers=peers, seed=seed, deterministic=True, salt=bytes([salt]) * 32)
    honest = FORGE.Forger(table.identities[winner], transcript(table, winner))
    owner = table.sessions[0].owner
    last = max(i for i, (owed, _) in enumerate(honest._states) if any(owner[s] == loser for s in owed))
    walk = [c for c in honest.claims(at=[last]) if owner[decode(c.messages[-1])[5][2]] == loser][-1]
    copy = honest.write(walk)
    held = set(walk.messages)
    own = FORGE.Forger(table.identities[loser], transcript(table, loser))
    read = [raw for raw in own.messages if raw in held]
    keys = [identity.public for identity in table.identities]
    said = [*read, *walk.messages[-2:]]
    theirs = header(keys, loser) + b"".join(frame(encode(["msg", raw])) for raw in said)
    return table, copy, theirs


def side(report: Report, table: Any) -> str | None:
    line = from_report("copy.p2pt", report).owned([table.identities[0].public])
    return line.side()


def verdict(line: RecordLine) -> tuple[str, tuple[int, ...], int | None, str]:
    return line.kind, line.winners, line.fault_peer, line.fault_kind


@pytest.mark.parametrize(
    ("game", "peers"), [("duel", 2), ("magic-square", 2), ("hornswoggle", 2), ("hornswoggle", 4)]
)
def test_no_copy_the_forger_writes_changes_the_honest_players_result(game: str, peers: int) -> None:
    table, copy, theirs = walkaway(game, peers)
    alone = verify(copy)
    assert alone.fault is not None and (alone.fault.kind, alone.fault.peer) == ("forfeit", 1), alone.summary
    honest_side = side(alone, table)
    forger = FORGE.Forger(table.identities[1], theirs)
    count, last = len(forger.messages), forger.last_own()
    spread = sorted({round(i * (count - 1) / (SAMPLES - 1)) for i in range(SAMPLES)})
    after = list(range(max(last, count - 4), count))  # (points after its last message: nothing signed twice)
    own = [index for index in range(count) if forger.own(index)]
    tried = 3 if peers == 2 else 2
    mine = [own[round(i * (len(own) - 1) / (tried - 1))] for i in range(tried)]
    copies = [
        *(cut for index, cut in enumerate(forger.cuts()) if index in spread or index >= last),
        *forger.claims(chat=20, at=spread[:2] + after),
        *forger.forgeries(at=mine),
    ]
    appended = signed_anew = 0
    for forgery in copies:
        together = verify_copies([copy, forger.write(forgery)])
        assert side(together, table) == honest_side, f"{forgery.note}: {together.summary}"
        if _signed_twice(forgery, forger):
            signed_anew += 1
            assert together.fault is not None and together.fault.peer == 1, (
                f"{forgery.note}: {together.summary}"
            )
        else:
            appended += 1
            line, real = from_report("a", together), from_report("b", alone)
            assert verdict(line) == verdict(real), f"{forgery.note}: {together.summary}"
    assert appended > 10 and signed_anew > 2, (appended, signed_anew)


def late_answer(table: Any, claim: Any, loser: int, game: str) -> bytes | None:
    """The loser's copy of a match it was forfeited in (``claim``: the winner's claim and forfeit
    after what it had read): rebuilt from its own transcript as far as it had read and its secrets,
    it pays what it owed at last (its random bot decides), then claims and forfeits the winner
    for what the winner owes after that (which the winner never saw). None if it owes nothing
    then."""
    keys = [identity.public for identity in table.identities]
    held = set(claim.messages[:-2])
    kept = []
    for raw in table.transcripts[loser]:
        record = decode(raw)
        if record[0] == "msg" and record[1] not in held:
            break  # (it walked away there)
        kept.append(record)
    session = Session.restore(
        identity=table.identities[loser],
        transcript=[decode(header(keys, loser)[4:]), *kept],
        secrets=[decode(secret) for secret in table.secrets[loser]],
    )
    bots, new = BotDriver("random", SEED), []
    for _ in range(10):  # (its decisions, their finals, and what follows at once)
        for seat in session.awaiting():
            session.submit(seat, plain(bots.choose(game, session.state, seat)))
        for seat in session.unsettled():
            session.choices.finalize(seat)
        new += session.flush().messages
    owner, winner = session.owner, 1 - loser if len(keys) == 2 else None
    owed = [
        d for d in session.debts() if d.stage != -2 and owner[d.seat] != loser and owner[d.seat] == winner
    ]
    if not owed:
        return None
    session.referee.claim_timeout(owed[0].seat, 10**9)
    session.referee.forfeit(owed[0].seat, "no answer to a timeout claim")
    new += session.flush().messages
    return (
        header(keys, loser)
        + b"".join(frame(encode(r)) for r in kept)
        + b"".join(frame(encode(["msg", raw])) for raw in new)
    )


@pytest.mark.parametrize(("winner", "loser"), [(0, 1), (1, 0)], ids=["host-wins", "joiner-wins"])
@pytest.mark.parametrize("game", ["duel", "magic-square", "hornswoggle"])
def test_a_late_answer_in_the_losers_own_copy_never_makes_the_winner_lose(
    game: str, winner: int, loser: int
) -> None:
    # The winner claimed the loser's decision and forfeited it after its grace period. The loser
    # then writes, in its own copy, the decision it owed (and a claim and forfeit of what the
    # winner owes after it, which the winner never saw). Nobody can tell whether that answer came
    # in time (it and the forfeit cross: Cleve, 1986), so the copies together prove no result:
    # contested, never the winner's forfeit. Whichever peer loses: the copies together place
    # what crossed by author index (SPEC section 7, step 3), so the late answer of a loser that is
    # the host comes before the winner's claim and forfeit, which must then still not be refused
    # (that would leave the loser's own forfeit of the winner standing).
    table = play(game, seed=SEED, deterministic=True)
    honest = FORGE.Forger(table.identities[winner], transcript(table, winner))
    owner = table.sessions[0].owner
    kinds: set[str] = set()
    tried = 0
    points = range(0, len(honest.messages), 7)
    for claim in honest.claims(at=points):
        _, stage, seat, _ = decode(claim.messages[-1])[5]
        if stage < 0 or owner[seat] != loser:
            continue
        theirs = late_answer(table, claim, loser, game)
        if theirs is None:
            continue
        ours = honest.write(claim)
        alone = verify(ours)
        if alone.fault is None:
            continue  # (a claim where the winner owed at once itself: no forfeit an honest peer makes)
        assert alone.fault.peer == loser, alone.summary
        together = verify_copies([ours, theirs])
        fault = together.fault
        assert fault is not None and fault.peer != winner, together.summary  # never the winner's
        # Either its late messages answered the claim (they crossed the forfeit: no result), or
        # they did not, and the forfeit stands as the winner's copy alone says.
        assert fault.kind == "contested" or (fault.kind, fault.peer) == ("forfeit", loser), together.summary
        line = from_report("x.p2pt", together).owned([table.identities[winner].public])
        assert line.side() != "lost"
        kinds.add(fault.kind)
        tried += 1
        if tried >= 4 and "contested" in kinds:
            break  # (enough: each try restores a session and replays both copies)
    assert "contested" in kinds, f"no late answer crossed a forfeit ({kinds}): the test would prove nothing"


def test_a_copy_that_leads_with_another_matchs_messages_changes_nothing(tmp_path: Path) -> None:
    # Copies are listed newest first by their unsigned dates, so a loser can put its own first:
    # there, a chat line under a made-up match id, then every message of another real match of
    # the same two keys, then its own messages of this one. The union is of the match the
    # record's line names (its terms), whatever a copy holds first.
    keys_seed = SEED
    this = play("duel", seed=keys_seed, deterministic=True, salt=bytes([1]) * 32)
    other = play("duel", seed=keys_seed, deterministic=True, salt=bytes([2]) * 32)
    keys = [identity.public for identity in this.identities]
    whole = transcript(this, 0)
    junk = seal(this.identities[1], b"\x07" * 32, 1, 7, [bytes(32), bytes(32)], ["chat", "hello"])
    theirs = list(records(transcript(this, 1)))
    crafted = (
        header(keys, 1)
        + frame(encode(["msg", junk]))
        + b"".join(frame(encode(r)) for r in list(records(transcript(other, 1)))[1:])
        + b"".join(frame(encode(r)) for r in theirs[1 : len(theirs) // 2])
    )
    lines = [from_report("whole", verify(whole)), from_report("crafted", verify(crafted))]
    assert lines[0].match_id == lines[1].match_id or lines[1].match_id  # (both name a match)
    data = {id(lines[0]): whole, id(lines[1]): crafted}
    for ordered in (lines, lines[::-1]):
        judged_lines = judged(list(ordered), lambda line: data[id(line)])
        by_name = {line.path: line for line in judged_lines}
        if lines[1].match_id == lines[0].match_id:
            assert verdict(by_name["crafted"]) == verdict(lines[0])
        assert verdict(by_name["whole"]) == verdict(lines[0])


def _signed_twice(forgery: Any, forger: Any) -> bool:
    """Whether the forgery holds a message of the forger's that another of its messages in the
    honest history has the number of (a second history)."""
    real = {(decode(raw)[2], decode(raw)[3]): raw for raw in forger.messages}
    return any(real.get((decode(raw)[2], decode(raw)[3]), raw) != raw for raw in forgery.messages)


# -- the attack, through the real commands ---------------------------------------------


def everything(capsys: pytest.CaptureFixture[str], them: str, tmp_path: Path) -> dict[str, Any]:
    """What the account's record says: history, ratings, the record against the loser, and the
    bundle it exports with what ``verify BUNDLE`` proves of it."""
    assert main(["history", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert main(["history", "--json", "--against", them]) == 0
    against = json.loads(capsys.readouterr().out)["against"]
    out = tmp_path / "mine.bundle"
    assert main(["export", "--bundle", str(out)]) == 0, capsys.readouterr().err
    capsys.readouterr()
    entries = bundle.read(out.read_bytes())
    main(["verify", str(out), "--json"])
    proved = json.loads(capsys.readouterr().out)
    return {
        "results": {Path(m["path"]).name: m["result"] for m in listed["matches"]},
        "ratings": listed["ratings"],
        "against": against,
        "bundle": [name for name, _ in entries],
        "proved": proved["record"],
    }


def test_a_losers_padded_copy_beside_the_winners_changes_nothing_in_the_winners_record(
    account: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # The loser (peer 1) walked away without signing its end; the winner claimed and forfeited
    # it. The loser's copy: the winner's messages cut just before the winner's end, its own
    # timeout claim and forfeit of the winner, and 20 signed chat lines (more signed messages
    # than the winner's copy holds).
    table, copy, theirs = next(
        made for made in (walkaway("duel", 2, salt) for salt in range(20)) if lost(made)
    )
    alone = verify(copy)
    assert alone.fault is not None and (alone.fault.kind, alone.fault.peer) == ("forfeit", 1)
    real = account / "20261201-120000-000000-duel-host.p2pt"
    real.write_bytes(copy)
    them = fingerprint(table.identities[1].public)
    before = everything(capsys, them, tmp_path)
    assert before["results"] == {real.name: "won: peer 1 forfeited"}
    forger = FORGE.Forger(table.identities[1], theirs)
    ends = [i for i, raw in enumerate(forger.messages) if decode(raw)[2] == 0 and decode(raw)[5][0] == "end"]
    assert ends, "the winner's copy holds its end"
    cut, (outcome, stage, seat) = ends[0], _claimable(forger, ends[0] - 1, owner=0, table=table)
    # As the issue found it: no end of its own. Alone, that copy no longer proves the winner's
    # forfeit (its author left unpaid its own signed result, which it could send at once);
    # beside the winner's, nothing of the winner's record moves.
    bare = forger.write(next(f for f in forger.claims(chat=20, at=[cut - 1]) if owned_by(table, f) == 0))
    assert verify(bare).fault is None, verify(bare).summary
    padded = account / "20261130-120000-000000-duel-join.p2pt"  # (dated earlier)
    padded.write_bytes(bare)
    after = everything(capsys, them, tmp_path)
    assert after["results"] == {
        real.name: before["results"][real.name],
        padded.name: before["results"][real.name],
    }
    assert {k: v for k, v in after.items() if k != "results"} == {
        k: v for k, v in before.items() if k != "results"
    }
    # So the loser signs its end too (the result it lost) before its claim: alone, its copy
    # says the winner forfeited. Beside the winner's, its claim is answered by the winner's end,
    # and the two ends make the match finished, the winner's: the record's every number stays.
    padding = [FORGE.Own(["chat", f"padding {line}"]) for line in range(20)]
    parts = [
        *forger.messages[:cut],
        FORGE.Own(["end", outcome]),
        FORGE.Own(["timeout", stage, seat, 10**9]),
        FORGE.Own(["forfeit", stage, seat, "no answer to a timeout claim"]),
        *padding,
    ]
    forged = forger.write(FORGE.Forgery("padded", tuple(forger.signed(parts))))
    said = verify(forged)
    assert said.fault is not None and (said.fault.kind, said.fault.peer) == ("forfeit", 0), said.summary
    assert said.messages > alone.messages, "the padded copy holds more signed messages"
    padded.unlink()
    (account / "20261130-130000-000000-duel-join.p2pt").write_bytes(forged)
    after = everything(capsys, them, tmp_path)
    assert set(after["results"].values()) == {"won"}, after["results"]
    assert (after["ratings"], after["against"], after["proved"]) == (
        before["ratings"],
        before["against"],
        before["proved"],
    )


def test_a_losing_hosts_terms_signed_again_under_a_made_up_match_id_change_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The host lost and walked away without its end; the joiner claimed and forfeited it. The
    # host's copy is the padded one (the joiner's messages cut before its end, the host's own
    # end, claim and forfeit of the joiner, 20 chat lines) and one more record: the host's terms,
    # the same map, signed again under a made-up match id. Two "terms of the match" once made the
    # copies unjudgeable together, and the record then fell back on the copy with more messages.
    table, copy, theirs = walkaway("duel", 2, sides=(1, 0), seed=1)
    alone = verify(copy)
    assert alone.fault is not None and (alone.fault.kind, alone.fault.peer) == ("forfeit", 0), alone.summary
    forger = FORGE.Forger(table.identities[0], theirs)
    ends = [i for i, raw in enumerate(forger.messages) if decode(raw)[2] == 1 and decode(raw)[5][0] == "end"]
    cut, (outcome, stage, seat) = ends[0], _claimable(forger, ends[0] - 1, owner=1, table=table)
    parts = [
        *forger.messages[:cut],
        FORGE.Own(["end", outcome]),
        FORGE.Own(["timeout", stage, seat, 10**9]),
        FORGE.Own(["forfeit", stage, seat, "no answer to a timeout claim"]),
        *[FORGE.Own(["chat", f"padding {line}"]) for line in range(20)],
    ]
    forged = forger.write(FORGE.Forgery("padded", tuple(forger.signed(parts))))
    terms = decode(forger.messages[0])
    assert (terms[2], terms[3], terms[5][0]) == (0, 0, "terms")
    again = seal(table.identities[0], b"\x01" * 32, 0, 0, terms[4], terms[5])
    forged += frame(encode(["rejected", again, "a message from another match"]))
    alone_theirs, together = verify(forged).fault, verify_copies([copy, forged]).fault
    assert alone_theirs is not None and alone_theirs.peer == 1  # (alone: the joiner's forfeit)
    assert together is None or together.peer != 1, together
    (tmp_path / "home").mkdir()
    account = account_of(tmp_path / "home", monkeypatch, 1, peer=1)  # (the joiner's, the winner's)
    assert table.identities[1].public == Identity.from_seed(bytes([1, 1]) * 16).public
    account.joinpath("20261201-120000-000000-duel-join.p2pt").write_bytes(copy)
    account.joinpath("20261130-120000-000000-duel-host.p2pt").write_bytes(forged)
    said = everything(capsys, fingerprint(table.identities[0].public), tmp_path)
    assert all(result.startswith("won") for result in said["results"].values()), said["results"]
    me = next(r for r in said["proved"] if r["fingerprint"] == fingerprint(table.identities[1].public))
    assert me["games"]["duel"]["lost"] == 0 and me["games"]["duel"]["won"] == 1, said["proved"]


def lost(made: tuple[Any, bytes, bytes]) -> bool:
    """Whether peer 1, which walked away, had lost the game itself (the duel's result, known to
    both before it walked away)."""
    table = made[0]
    outcome = table.sessions[0].outcome
    return outcome is not None and all(table.sessions[0].owner[seat] == 0 for seat in outcome.winners)


def _claimable(forger: Any, index: int, *, owner: int, table: Any) -> tuple[Any, int, int]:
    """(the match's result, the stage and a seat of peer ``owner`` that owes something) after
    message ``index`` of the forger's transcript."""
    for claim in forger.claims(at=[index]):
        _, stage, seat, _ = decode(claim.messages[-1])[5]
        if table.sessions[0].owner[seat] == owner:
            return table.sessions[0].outcome.to_plain(), stage, seat
    raise AssertionError(f"nothing of peer {owner} is owed after message {index}")


def owned_by(table: Any, forgery: Any) -> int:
    """The peer holding the seat a forgery's forfeit names."""
    return int(table.sessions[0].owner[decode(forgery.messages[-21])[5][2]])


def test_every_copy_of_a_match_is_in_the_record_once_whichever_proves_more_alone(
    account: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The honest copy of a finished match and a copy cut short of it: together they are that
    # match, whichever the index lists first; nothing is counted twice.
    table = play("duel", seed=SEED)
    data = transcript(table, 0)
    items = list(records(data))
    (account / "20261201-120000-000000-duel-host.p2pt").write_bytes(data)
    cut = b"".join(frame(encode(r)) for r in items[: len(items) // 2])
    (account / "20261202-120000-000000-duel-join.p2pt").write_bytes(cut)
    assert main(["history", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    results = {m["result"] for m in listed["matches"]}
    assert len(results) == 1 and results != {"unfinished"}
    assert sum(r["matches"] for r in listed["ratings"]["duel"] if r["you"]) == 1


def _claimed_at_the_end(wi: int, lo: int, stage_of_claim: str, seed: int) -> tuple[Report, Report] | None:
    """The loser ``lo`` sends its last reveal and walks away (no hash, no end); the winner ``wi``
    reveals, hashes, signs its end, claims ``lo``'s end and forfeits it. ``lo``'s copy: what it read
    up to its own last reveal, then a claim and a forfeit of ``wi``: of ``wi``'s reveal of that
    stage ("reveal", a crossing it could have seen) or of ``wi``'s signed result ("end", a debt its
    own heads show it could not know of). Returns (``wi``'s copy alone, the copies together)."""
    table = play("duel", peers=2, seed=seed, deterministic=True)
    owner = table.sessions[0].owner
    winner = FORGE.Forger(table.identities[wi], transcript(table, wi))
    loser = FORGE.Forger(table.identities[lo], transcript(table, lo))

    def said(raw: bytes) -> tuple[int, int, str]:
        _, _, author, number, _, body, _ = decode(raw)
        return author, number, body[0]

    i_l = max(i for i, raw in enumerate(loser.messages) if said(raw)[::2] == (lo, "reveal"))
    stage, l_last = decode(loser.messages[i_l])[5][1], said(loser.messages[i_l])[1]
    i_w = max(i for i, raw in enumerate(winner.messages) if said(raw)[::2] == (wi, "reveal"))
    w_last = said(winner.messages[i_w])[1]
    kept = [
        raw
        for raw in winner.messages
        if (said(raw)[0] == wi and said(raw)[1] <= w_last) or (said(raw)[0] == lo and said(raw)[1] <= l_last)
    ]
    if not any(said(raw)[:2] == (lo, l_last) for raw in kept) or decode(winner.messages[i_w])[5][1] != stage:
        return None  # (the winner revealed first here)
    hashed = next(raw for raw in winner.messages[i_w + 1 :] if said(raw)[::2] == (wi, "hash"))
    end = next(raw for raw in winner.messages if said(raw)[::2] == (wi, "end"))
    seat_w, seat_l = owner.index(wi), owner.index(lo)
    ours = winner.write(
        FORGE.Forgery(
            "honest",
            tuple(
                winner.signed(
                    [
                        *kept,
                        hashed,
                        end,
                        FORGE.Own(["timeout", -1, seat_l, 10**9]),
                        FORGE.Own(["forfeit", -1, seat_l, "no answer to a timeout claim"]),
                    ]
                )
            ),
        )
    )
    at = stage if stage_of_claim == "reveal" else -1
    theirs = loser.write(
        FORGE.Forgery(
            "crossing",
            tuple(
                loser.signed(
                    [
                        *loser.messages[: i_l + 1],
                        FORGE.Own(["timeout", at, seat_w, 10**9]),
                        FORGE.Own(["forfeit", at, seat_w, "no answer to a timeout claim"]),
                    ]
                )
            ),
        )
    )
    return verify(ours), verify_copies([ours, theirs])


@pytest.mark.parametrize("stage_of_claim", ["reveal", "end"])
@pytest.mark.parametrize(("wi", "lo"), [(0, 1), (1, 0)], ids=["host-wins", "joiner-wins"])
def test_a_loser_claiming_what_it_could_not_know_was_due_changes_nothing(
    wi: int, lo: int, stage_of_claim: str
) -> None:
    # A claim of the winner's signed result, made by heads that never showed the match over, is
    # no crossing: the winner's forfeit of the loser stands. A claim of the winner's reveal of
    # the stage the loser last played crossed that reveal as far as anyone can tell: contested
    # (the limit security.md states), never the winner's loss.
    made = next(m for m in (_claimed_at_the_end(wi, lo, stage_of_claim, seed) for seed in range(43, 60)) if m)
    alone, together = made
    assert alone.fault is not None and (alone.fault.kind, alone.fault.peer) == ("forfeit", lo), alone.summary
    fault = together.fault
    assert fault is not None, together.summary
    if stage_of_claim == "end":
        assert (fault.kind, fault.peer) == ("forfeit", lo), together.summary
    else:
        assert fault.kind == "contested" and fault.peer is None, together.summary
