"""The correspondence commands as a player runs them (each its own process, never two at once,
through a real relay): host --correspondence, join with its invite, resume visit after visit; a
person's visit in plain lines; then the match played out and its record."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from p2pgenius.bots.driver import BotDriver
from p2pgenius.net.correspondence import Carrier, Visit
from p2pgenius.net.files import Files
from p2pgenius.net.invite import MailInvite, parse
from p2pgenius.net.keystore import account_identities
from p2pgenius.net.mail_state import OVER, load
from p2pgenius.protocol.mailbox import Mailbox
from p2pgenius.protocol.transcript import verify
from tests.nostr.relays import local_relay, local_relay_missing

pytestmark = pytest.mark.skipif(local_relay_missing() is not None, reason=str(local_relay_missing()))

LAST = re.compile(r"^(sent to \d of \d relays|nothing new to send); ")


def p2pgenius(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "p2pgenius", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
        check=False,
    )


def last_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr + done.stdout
    assert "Traceback" not in done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_host_join_and_visits_from_the_command_line(tmp_path: Path) -> None:
    matches = Path(os.environ["P2PGENIUS_HOME"]) / "matches"  # (where games and history look)
    matches.mkdir(parents=True, exist_ok=True)
    ann, bob = matches / "ann.p2pt", matches / "bob.p2pt"
    with local_relay(tmp_path) as url:
        hosted = p2pgenius(
            "host",
            "duel",
            "--correspondence",
            "--mailbox",
            url,
            "--bot",
            "--name",
            "ann",
            "--transcript",
            str(ann),
            "--spectators",
        )
        assert last_line(hosted) == "sent to 1 of 1 relays; waiting for 1 more player"
        assert "through 1 relay: " in hosted.stdout
        assert hosted.stdout.startswith("a duel match by correspondence (2d a turn), through 1 relay")
        invite = re.search(r"p2pgenius join (p2pgenius://\S+)", hosted.stdout)
        assert invite is not None
        assert ann.with_suffix(".invite").read_text().split()[-1] == invite.group(1)
        # The joiner is a person (the same account: it plays under the account's second key).
        joined = p2pgenius("join", invite.group(1), "--name", "bob", "--transcript", str(bob))
        assert last_line(joined) == "sent to 1 of 1 relays; waiting for the host to start the match"
        assert "ready at ann's table for duel (2d a turn)\n" in joined.stdout  # (its time limits told)
        started = p2pgenius("resume", str(ann), "--bot")
        assert "the table is full (ann, bob): the match starts" in started.stdout
        assert LAST.match(last_line(started))
        assert "bob's move next (deadline " in last_line(started)  # (his coin share, then his move)
        # The person's visit: the board, the question; a move that is no move is said and asked
        # again; end of input puts the decision off, and the visit still ends with its line.
        visit = p2pgenius("resume", str(bob), stdin="?\nxyzzy\n")
        line = last_line(visit)
        assert "choose your gestures" in visit.stdout
        assert "later" in visit.stdout and "gestures> " in visit.stdout
        assert "legal now: " in visit.stdout and "(? lists them)" in visit.stdout  # (no Tab here)
        assert "Tab" not in visit.stdout and "F2" not in visit.stdout
        assert re.search(r"your move next.*carry on with: p2pgenius resume ", line), line
        assert load(bob).next.mine  # type: ignore[union-attr]
        # Now the move, typed: it goes, and the line says whose move it is.
        moved = p2pgenius("resume", str(bob), stdin="W W\n")
        assert LAST.match(last_line(moved)), last_line(moved)
        assert "carry on with" not in last_line(moved)
        # The rest by bots, in this process (quicker than a process a visit), one side at a time.
        said = play_out(ann, bob)
        assert load(ann).phase == load(bob).phase == OVER  # type: ignore[union-attr]
        # Once the duel is decided, what is owed is its signed result, not a move.
        decided = next(index for index, words in enumerate(said) if words.startswith("the result is in: "))
        assert re.fullmatch(r"the result is in: (your|bob's|ann's) signature next.*", said[decided])
        assert not any("move" in words for words in said[decided:]), said[decided:]
        over = p2pgenius("resume", str(ann), "--bot")
        assert last_line(over).startswith("this match is over: ")
        # A spectator follows it from the relays with the invite the host showed for watching.
        spectators = re.search(r"spectators follow it with: p2pgenius watch (p2pgenius://\S+)", hosted.stdout)
        assert spectators is not None and spectators.group(1) != invite.group(1)
        watched = p2pgenius("watch", spectators.group(1), "--transcript", str(tmp_path / "watch.p2pt"))
        assert watched.returncode == 0, watched.stderr
        assert "valid: duel" in watched.stdout and "each checked" in watched.stdout
        assert verify((tmp_path / "watch.p2pt").read_bytes()).outcome == verify(ann.read_bytes()).outcome
    for path in (ann, bob):
        assert verify(path.read_bytes()).ok
        checked = p2pgenius("verify", str(path))
        assert checked.returncode == 0 and "valid" in checked.stdout
    listed = p2pgenius("games", "--json")
    assert listed.returncode == 0, listed.stderr
    games = [json.loads(line) for line in listed.stdout.splitlines()]
    mail = [g for g in games if g["mode"] == "correspondence"]
    assert len(mail) == 1 and mail[0]["game"] == "duel" and mail[0]["result"], mail  # (two copies, one match)


def play_out(ann: Path, bob: Path) -> list[str]:
    """The duel played out by bots, a visit a side in turn; what each visit's last line said
    comes next, in order."""
    identities = account_identities()
    said: list[str] = []
    for turn in range(400):
        for path in (ann, bob):
            state = load(path)
            assert state is not None
            if state.phase == OVER:
                continue
            invite = parse(state.invite)
            assert isinstance(invite, MailInvite)
            identity = identities[state.identity]
            carrier = Carrier(identity, Mailbox(invite.mailbox), state.relays, wait_s=10)
            files = Files(path, path.with_suffix(".secrets"))
            decide = BotDriver("", 2 * turn + (path == ann)).decide
            trip = Visit(carrier, files, state, path.stem, decide, lambda v, e: None, lambda s: None, 86400.0)
            trio.run(trip.run)
            files.close()
            after = load(path)
            assert after is not None and after.next is not None
            said.append(after.next.words)
        if all(load(p).phase == OVER for p in (ann, bob)):  # type: ignore[union-attr]
            return said
    raise AssertionError("the duel did not end in 400 visits a side")


def test_no_relay_answering_is_a_one_line_failure_and_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "down.p2pt"
    done = p2pgenius(
        "host",
        "duel",
        "--correspondence",
        "--mailbox",
        "ws://127.0.0.1:9",
        "--bot",
        "--transcript",
        str(path),
    )
    assert done.returncode == 1, (done.stdout, done.stderr)
    (line,) = done.stderr.strip().splitlines()
    assert (
        line.startswith("error: no relay of the match answered (ws://127.0.0.1:9: ")
        and "Traceback" not in line
    )
    # The match is kept (its invite printed, its state beside the transcript): a later visit,
    # once a relay answers, goes on from there.
    assert "p2pgenius join p2pgenius://" in done.stdout
    state = load(path)
    assert state is not None and state.phase == "lobby" and not state.lobby.get("posted")


def test_the_relays_of_a_match_come_from_the_option_the_variable_the_file_or_the_defaults(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from argparse import Namespace

    from p2pgenius.cli.correspondence import DEFAULT_MAILBOXES, chosen_mailboxes
    from p2pgenius.errors import LocalMisuseError
    from p2pgenius.net.keystore import config_dir

    assert chosen_mailboxes(Namespace(mailbox=None)) == list(DEFAULT_MAILBOXES)
    folder = config_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mailboxes").write_text("# mine\nwss://relay.example.org  # the club's\n\nws://10.0.0.2:7000\n")
    assert chosen_mailboxes(Namespace(mailbox=None)) == ["wss://relay.example.org", "ws://10.0.0.2:7000"]
    monkeypatch.setenv("P2PGENIUS_MAILBOX", "wss://a.example, wss://b.example")
    assert chosen_mailboxes(Namespace(mailbox=None)) == ["wss://a.example", "wss://b.example"]
    given = ["wss://c.example", "wss://c.example"]  # (named twice: once)
    assert chosen_mailboxes(Namespace(mailbox=given)) == ["wss://c.example"]
    with pytest.raises(LocalMisuseError, match=r"^--mailbox: the relay 'http://x' "):
        chosen_mailboxes(Namespace(mailbox=["http://x"]))
    with pytest.raises(LocalMisuseError, match=r"1 to 8 relays, not 9"):
        chosen_mailboxes(Namespace(mailbox=[f"wss://r{n}.example" for n in range(9)]))


def test_ctrl_c_on_a_staying_visit_says_how_to_carry_on(tmp_path: Path) -> None:
    """Ctrl-C on `resume --stay` (a newcomer's try: `error: interrupted` alone, where a live
    match's says where it is kept): exit 130, the match kept, the command that carries on."""
    import signal
    import time

    ann = Path(os.environ["P2PGENIUS_HOME"]) / "matches" / "ann.p2pt"
    ann.parent.mkdir(parents=True, exist_ok=True)
    with local_relay(tmp_path) as url:
        hosted = p2pgenius("host", "duel", "--correspondence", "--mailbox", url, "--transcript", str(ann))
        assert last_line(hosted).endswith("waiting for 1 more player")
        staying = subprocess.Popen(
            [sys.executable, "-m", "p2pgenius", "resume", str(ann), "--stay"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert staying.stdout is not None
            said = []
            for line in staying.stdout:  # (its first visit done: it says it waits for the next)
                said.append(line)
                if line.startswith("staying: reading the relays every 10 s until the match is over"):
                    break
            assert any("waiting for 1 more player" in line for line in said), said
            time.sleep(0.5)
            staying.send_signal(signal.SIGINT)
            _, err = staying.communicate(timeout=60)
        finally:
            staying.kill()
    assert staying.returncode == 130, err
    assert err.strip() == f"error: interrupted: the match is kept; carry on with: p2pgenius resume {ann}", err


def test_ctrl_c_at_a_visits_question_stops_it_at_once(tmp_path: Path) -> None:
    """Ctrl-C at a visit's question (a second newcomer's try: nothing happened until Enter, then
    the Enter was read as a move): exit 130 at once, the match kept, the command that carries on."""
    import pty
    import select
    import signal
    import time

    matches = Path(os.environ["P2PGENIUS_HOME"]) / "matches"
    matches.mkdir(parents=True, exist_ok=True)
    ann, bob = matches / "ann.p2pt", matches / "bob.p2pt"
    with local_relay(tmp_path) as url:
        hosted = p2pgenius(
            "host", "duel", "--correspondence", "--mailbox", url, "--bot", "--transcript", str(ann)
        )
        invite = re.search(r"p2pgenius join (p2pgenius://\S+)", hosted.stdout)
        assert invite is not None
        p2pgenius("join", invite.group(1), "--name", "bob", "--transcript", str(bob))
        p2pgenius("resume", str(ann), "--bot")
        leader, follower = pty.openpty()
        visit = subprocess.Popen(
            [sys.executable, "-m", "p2pgenius", "resume", str(bob)],
            stdin=follower,
            stdout=follower,
            stderr=follower,
            env=dict(os.environ),
            start_new_session=True,
        )
        os.close(follower)
        seen = b""
        try:
            deadline = time.monotonic() + 60
            while b"gestures> " not in seen and time.monotonic() < deadline:
                if select.select([leader], [], [], 1.0)[0]:
                    seen += os.read(leader, 65536)
            assert b"gestures> " in seen, seen[-400:]
            os.killpg(visit.pid, signal.SIGINT)  # (as the terminal's Ctrl-C: its whole group)
            started = time.monotonic()
            code = visit.wait(timeout=20)
            waited = time.monotonic() - started
            while select.select([leader], [], [], 0.2)[0]:
                try:
                    seen += os.read(leader, 65536)
                except OSError:
                    break
        finally:
            visit.kill()
            os.close(leader)
    assert code == 130 and waited < 10, (code, waited)
    assert f"carry on with: p2pgenius resume {bob}".encode() in seen, seen[-400:]
