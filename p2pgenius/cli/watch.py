"""``p2pgenius watch``: a spectator of a match, live, checking every message as it comes.

The host must admit spectators (``host --spectators``, which every player saw in the lobby). In a
terminal the match is shown on the screen ``p2pgenius replay`` shows, titled as watching live and
following the newest step (it may be stepped back and forth meanwhile), its log ending in "the
match goes on" until the result comes; with ``--text``, or without a terminal, move by move. The
messages received are kept as a transcript (its header's ``me`` is nil: an observer's), which
``verify``, ``replay`` and ``export`` read afterwards; at the end it is verified here too, and the
verdict printed.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import random
import sys
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Final, TextIO

import trio

from p2pgenius import wording
from p2pgenius.canonical import encode
from p2pgenius.cli.join import MISPAIRED_TRIES, NOT_THE_HOST, Target, rename, target_of, with_game
from p2pgenius.cli.play import Printer, ascii_only, first_error, match_files
from p2pgenius.errors import P2PGeniusError, PeerGoneError
from p2pgenius.games.catalog import names
from p2pgenius.net import DEFAULT_GRACE_S, transit
from p2pgenius.net import invite as invite_codec
from p2pgenius.net.connection import why
from p2pgenius.net.events import away_words
from p2pgenius.net.files import Files
from p2pgenius.net.invite import address_of
from p2pgenius.net.keystore import check_name, load_identity
from p2pgenius.net.reconnect import call_again
from p2pgenius.net.spectators import NoHandshakeError, Onlooker, RefusedError, Watched
from p2pgenius.protocol.clocks import patience
from p2pgenius.protocol.session import Applied, Confirmed, Event, Fault, MatchOver, SeatsDealt, SessionView
from p2pgenius.protocol.transcript import Report, frame, header, verify

if TYPE_CHECKING:
    import asyncio

    import outcome

    from p2pgenius.ui.replay import Replay

Listener = Callable[[SessionView, Event], None]
Watching = Callable[[], Awaitable[SessionView | None]]
"""The watching of a match, to its end (or the host's close): the session, None if none began."""


def transcript_bytes(keys: list[bytes], received: list[bytes], meta: dict[str, str]) -> bytes:
    """An observer's transcript of the messages received."""
    records = b"".join(frame(encode(["msg", raw])) for raw in received)
    return header(keys, None, **meta) + records


class Kept:
    """A spectator's transcript: begun once the terms name the game (a name the command chose
    then carries it, ``...-duel-watch.p2pt``, as a player's does), with every message received
    so far; then each message appended as it comes (nothing received is lost if the watching is
    cut short)."""

    def __init__(self, files: Files, meta: dict[str, str], *, named: bool) -> None:
        self.files, self.meta, self.named = files, meta, named
        self.received: list[bytes] = []
        self.begun = False

    def event(self, session: SessionView) -> None:
        """The session moved on: begin the transcript if the game is known now."""
        game = session.game_name
        if self.begun or game is None:
            return
        if self.named and game in names():
            rename(self.files, with_game(self.files.transcript, game))
        self.files.start(header(list(session.keys), None, **self.meta))
        self.files.append(self.files.transcript, [encode(["msg", raw]) for raw in self.received])
        self.begun = True

    def message(self, raw: bytes) -> None:
        """A message the host sent and the session took."""
        self.received.append(raw)
        if self.begun:
            self.files.append(self.files.transcript, [encode(["msg", raw])])


def run(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """Watch a match; returns 0 once it ended and its transcript verified."""
    address = address_of(args.address) or ""
    mail = invite_codec.parse(address) if invite_codec.is_invite(address) else None
    if isinstance(mail, invite_codec.MailInvite):
        from p2pgenius.cli.correspondence import run_watch_mail  # noqa: PLC0415  (only by correspondence)

        return run_watch_mail(args, mail, out)
    target = target_of(address)
    identity = load_identity()[0]
    name = check_name(args.name) if args.name else identity.fingerprint[:9]
    printer = Printer(out, moves=True)
    files = match_files(args.transcript, "watch", None)
    files.check()  # (a link planted at one of its files' paths: refused before connecting)
    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    meta = {"role": "watch", "address": address, "date": started}
    kept = Kept(files, meta, named=args.transcript is None)
    received = kept.received
    listeners: list[Listener] = [printer.event]
    last: list[SessionView] = []  # the session, once there is one (the person may leave early)

    def on_event(session: SessionView, event: Event) -> None:
        kept.event(session)
        last[:] = [session]
        for listener in listeners:
            listener(session, event)

    watching = Watched(Onlooker(on_event, kept.message))
    follow = partial(watching.follow, identity=identity, name=name, expect_key=target.key)
    main = partial(watched, target, follow, watching, printer)

    on_screen = not args.text and sys.stdin.isatty() and out.isatty()
    try:
        try:
            if on_screen:
                printer.moves = False  # the screen shows the moves
                screen = LiveScreen(received, meta, ascii_only=ascii_only(args, out))
                session = live(partial(main, status=screen.away), screen, listeners, printer)
            else:
                session = trio.run(main)
        except BaseExceptionGroup as group:
            raise first_error(group) from None
    except WatchingStoppedError as exc:
        printer.line(f"the watching stopped before the match ended: {exc}")
        session = None
    except (PeerGoneError, trio.TooSlowError) as exc:
        raise P2PGeniusError(str(exc) or "the host took too long") from None
    finally:
        files.close()
    session = session or next(iter(last), None)
    if session is None:
        printer.line("the match did not start")
        return 1
    report = verify(transcript_bytes(list(session.keys), received, meta))
    printer.line(f"verified: {report.summary}")
    printer.line(f"transcript: {files.transcript}")
    return 0 if report.ok else 1


async def watched(
    target: Target,
    follow: Callable[[trio.abc.Stream], Awaitable[None]],
    watching: Watched,
    printer: Printer,
    status: Callable[[str], None] = lambda text: None,
) -> SessionView | None:
    """Reach the host and watch to the end (``follow``, given each stream). A relay that paired
    the first call with someone who is not the host (another caller at the same moment) is called
    at again, as a joiner does; a connection cut before the match ends is made again, as a
    joiner's is (a relay restarted, a host resumed after a crash), through the relay or directly
    as the invite says, for as long as a peer cut off is waited for: then WatchingStoppedError
    says why. The log has one line when the watching was cut and one when it goes on again
    (how long it was away, after how many calls); each call between only updates ``status``."""
    printer.line(f"connecting to {target.what} to watch")
    stream, route = await target.way.reach()
    mispaired, cut = 0, None  # (cut: the watching's absence under way, if it is)
    printer.line(f"{route.words()}: {WATCHING}")
    while True:
        try:
            await follow(stream)
            if cut is not None:  # (the match ended at once: its list came, and the rest)
                cut.back(route)
            return watching.view
        except RefusedError:
            raise
        except NoHandshakeError:
            if cut is None and watching.session is None:  # (the first call)
                if route.relay is None or mispaired >= MISPAIRED_TRIES:
                    raise
                mispaired += 1
                printer.line(f"{route.where}: {NOT_THE_HOST}")
                await trio.sleep(random.uniform(0.1, 1.0))
                stream, route = await target.way.reach()
                printer.line(f"{route.words()}: {WATCHING}")
                continue
        except PeerGoneError as exc:
            # (in the lobby too: a spectator holds no seat, so calling again loses nothing, and
            # a host busy starting its match may have let the connection go)
            if cut is None or cut.is_back:  # (a call that failed before it was back: the same absence)
                begun = "" if watching.session is not None else ", before the match began"
                cut = Cut(printer, status, watching, f"{cut_words(route, exc)}{begun}")
        if cut is None:  # (a handshake that failed on a call made again: away as before)
            cut = Cut(printer, status, watching, "the host did not finish the handshake")
        stream, route = await cut.call_again(target)


WATCHING: Final = "watching; every message is checked as it comes"


class WatchingStoppedError(PeerGoneError):
    """The watching was cut off before the match ended, and the host could not be reached again."""


class Cut:
    """A spectator's absence: said once as it begins (``words``, and that it reconnects) and
    once as it ends (after how long, and how many calls); every call between is a ``status``."""

    def __init__(
        self, printer: Printer, status: Callable[[str], None], watching: Watched, words: str
    ) -> None:
        self.printer, self.status, self.watching, self.words = printer, status, watching, words
        self.at, self.calls, self.is_back = trio.current_time(), 0, False
        printer.line(f"{words}; reconnecting")

    def tried(self, why: str) -> None:
        """A call that failed: the status says so, in place."""
        self.calls += 1
        away = trio.current_time() - self.at
        self.status(f"reconnecting (attempt {self.calls}, away {away_words(away)}): {why}")

    def back(self, route: transit.Route) -> None:
        """The host listed the match again: the watching goes on (said once)."""
        if not self.is_back:
            self.is_back = True
            self.status("")  # (no longer away)
            away = away_words(trio.current_time() - self.at)
            calls = f"{self.calls} attempt{'s' if self.calls != 1 else ''}"
            self.printer.line(f"{route.words()}: {WATCHING_AGAIN} (after {away} away, {calls})")

    async def call_again(self, target: Target) -> tuple[trio.abc.Stream, transit.Route]:
        """The host, called again: each second for the grace period, then less often, for as
        long as a peer cut off is waited for (the match's longest time limit, never less than
        the grace period)."""
        session = self.watching.session
        waited = patience(session, DEFAULT_GRACE_S) if session is not None else DEFAULT_GRACE_S
        try:
            stream, route = await call_again(
                target.way.reach, self.tried, often_until=self.at + DEFAULT_GRACE_S, until=self.at + waited
            )
        except PeerGoneError as exc:
            raise WatchingStoppedError(str(exc)) from None
        self.calls += 1
        self.watching.listed = partial(self.back, route)  # (said once the host lists the match)
        return stream, route


WATCHING_AGAIN: Final = "watching again, from where it was cut"


def cut_words(route: transit.Route, exc: BaseException) -> str:
    """What cut the watching, as far as a spectator can tell: through a relay, its connection
    was the relay's (the relay closes it when it restarts, or when the host went away: it does
    not say which); directly, the host's."""
    if route.relay is not None:
        return (
            f"the connection to {transit.relay_label(route.relay)} closed (the relay restarted, or "
            "the host went away: a relay does not say which)"
        )
    reason = why(exc).replace("the peer", "the host")
    return f"lost the connection to the host ({route.where}): {reason}"


def live(
    main: Watching,
    screen: LiveScreen,
    listeners: list[Listener],
    printer: Printer | None = None,
    **app_args: Any,
) -> SessionView | None:
    """Watch in the terminal UI: the match runs as trio's guest on prompt_toolkit's asyncio loop;
    the screen opens at once (saying what it waits for until the seats are dealt) and follows
    each stage as it is applied; if the watching ends before the match does, it says so. Every
    line the ``printer`` would print meanwhile (the connection, the players' chat) goes to the
    screen's log instead; a watching that ended before the match began closes the screen and
    prints them. The person leaves with q: at the end, or earlier (the watching stops there;
    what was received is kept). ``app_args``: the screen's input and output (tests)."""
    # Imported here: prompt_toolkit costs start-up time that text mode does not need.
    import asyncio  # noqa: PLC0415

    listeners.append(screen.update)
    if printer is not None:
        printer.sink = screen.say
    try:
        return asyncio.run(screen.run(main, **app_args))
    finally:
        if printer is not None:
            printer.sink = None
            if not screen.replay.begun:  # (the screen closed on them: the terminal keeps them)
                for _, text in screen.replay.notes:
                    printer.line(text)


class LiveScreen:
    """The replay screen of a match watched live, fed by the watching (trio, as the guest of the
    screen's asyncio loop): open from the start, drawn again from the transcript so far once per
    batch of messages, told what the spectator is told besides the moves and why the watching
    stopped, and the watching cancelled if the person leaves first."""

    def __init__(self, received: list[bytes], meta: dict[str, str], *, ascii_only: bool) -> None:
        from p2pgenius.ui.replay import Replay  # noqa: PLC0415

        self.received, self.meta = received, meta
        self.replay: Replay = Replay(
            Report(ok=False, summary="", meta=dict(meta)), ascii_only=ascii_only, live=True
        )
        self.app: Any = None
        self.closed = False
        self.pending: tuple[asyncio.Handle, SessionView] | None = None
        self.result: list[outcome.Outcome[SessionView | None]] = []
        self.scopes: list[tuple[trio.CancelScope, trio.lowlevel.TrioToken]] = []

    async def run(self, main: Watching, **app_args: Any) -> SessionView | None:
        """Watch with ``main`` and show it until both the watching and the screen are done."""
        import asyncio  # noqa: PLC0415

        from p2pgenius.ui.replay import build  # noqa: PLC0415

        self.loop = asyncio.get_running_loop()
        self.finished = asyncio.Event()
        self.app = build(self.replay, **app_args)
        trio.lowlevel.start_guest_run(
            self.guest,
            main,
            run_sync_soon_threadsafe=self.loop.call_soon_threadsafe,
            done_callback=self.done,
            host_uses_signal_set_wakeup_fd=True,
        )
        try:
            await self.app.run_async()
        finally:
            self.closed = True
            if not self.finished.is_set() and self.scopes:  # the person left first: stop watching
                scope, token = self.scopes[0]
                with contextlib.suppress(trio.RunFinishedError):
                    token.run_sync_soon(scope.cancel)
            await self.finished.wait()
        return self.result[0].unwrap()

    async def guest(self, main: Watching) -> SessionView | None:
        """The watching, in trio, cancellable from the screen's side."""
        with trio.CancelScope() as scope:
            self.scopes.append((scope, trio.lowlevel.current_trio_token()))
            return await main()
        return None

    def update(self, session: SessionView, event: Event) -> None:
        """A listener of the watching: the screen is drawn again once per batch of messages, not
        once per stage (a spectator that comes late is sent the whole match at once)."""
        if isinstance(event, SeatsDealt | Applied | MatchOver | Confirmed | Fault) and self.pending is None:
            self.pending = (self.loop.call_soon(self.rebuild), session)
        elif self.pending is not None:
            self.pending = (self.pending[0], session)

    def say(self, text: str) -> None:
        """A line for the spectator (the connection, a player's chat): in the log, where the
        match is now (the stages that came before it shown first)."""
        if self.pending is not None:
            self.pending[0].cancel()
            self.rebuild()
        self.replay.notes.append((self.replay.count, text))
        self.redraw()

    def away(self, text: str) -> None:
        """While the watching is cut: its calls again, on the status bar ("": back)."""
        self.replay.away = text
        self.redraw()

    def rebuild(self) -> None:
        """The screen from the transcript received so far (the newest step followed)."""
        assert self.pending is not None
        session = self.pending[1]
        self.pending = None
        self.replay.update(verify(transcript_bytes(list(session.keys), self.received, self.meta)))
        self.redraw()

    def redraw(self) -> None:
        if self.app is not None:
            self.app.invalidate()

    def done(self, trio_outcome: outcome.Outcome[SessionView | None]) -> None:
        """The watching ended: keep how, and tell the screen why if the match had not ended (a
        match that had not begun closes the screen: there is nothing to look at)."""
        self.result.append(trio_outcome)
        self.finished.set()
        if self.pending is not None:
            self.pending[0].cancel()
            self.rebuild()
        self.replay.stop(why_stopped(trio_outcome))  # (a match that ended says its result already)
        self.redraw()
        if not self.replay.begun:
            self.loop.call_soon(self.leave)

    def leave(self) -> None:
        """Close the screen (once it runs, if it does not yet; not if it closed already)."""
        if self.closed:
            return
        if not self.app.is_running:
            self.loop.call_later(0.05, self.leave)
            return
        with contextlib.suppress(Exception):  # (the person closed it at the same moment)
            self.app.exit()


def why_stopped(ended: Any) -> str:
    """Why a watching ended (``ended``: the trio run's outcome) when the match had not."""
    error = getattr(ended, "error", None)
    if error is None:  # (nothing was cut: nothing says the host closed anything)
        return "nothing more came"
    if isinstance(error, BaseExceptionGroup):
        error = first_error(error)
    return wording.printable(str(error)) or "the connection broke"
