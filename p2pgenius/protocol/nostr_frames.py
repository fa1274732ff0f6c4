"""NIP-01's messages between a client and a relay, without the socket: the three a client sends
(``EVENT``, ``REQ``, ``CLOSE``) as text frames, the five a relay sends read once into types, and the
filters a subscription asks for, with the test of whether an event matches one.

A relay is untrusted: :func:`parse_relay_message` reads whatever text it sends into one of the
typed messages or a :class:`Malformed` with its reason, never raising; an event it carries has
been checked in full (:func:`p2pgenius.protocol.nostr.parse_event`). Whether the event is one the
subscription asked for is the client's to check (:meth:`Filter.matches`): a relay may send any.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from p2pgenius.errors import shown
from p2pgenius.protocol.nostr import (
    MAX_CREATED_AT,
    MAX_KIND,
    Event,
    NostrError,
    parse_event,
    read_json,
    write_json,
)

MAX_SUBSCRIPTION_ID: Final = 64
"""NIP-01: a subscription id is a non-empty string of at most 64 characters."""
MAX_MESSAGE_CHARS: Final = 512
"""The longest ``OK``, ``CLOSED`` or ``NOTICE`` text kept (the rest is cut: it is only shown)."""
MAX_FILTER_VALUES: Final = 256
_HEX64: Final = re.compile(r"[0-9a-f]{64}")
_HEX_TAGS: Final = frozenset({"e", "p"})
"""The tags whose filter values NIP-01 says are 64 lowercase hex digits."""


@dataclass(frozen=True, slots=True)
class Filter:
    """One NIP-01 filter: an event matches when it passes every condition given (and any one
    value of each list). ``tags`` maps a single letter (``p``, ``t``, ...) to the values of
    ``#p``, ``#t``, ...; ``limit`` only bounds the stored events a relay first sends."""

    ids: tuple[str, ...] | None = None
    authors: tuple[str, ...] | None = None
    kinds: tuple[int, ...] | None = None
    tags: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    since: int | None = None
    until: int | None = None
    limit: int | None = None

    def __post_init__(self) -> None:
        for name, values in (("ids", self.ids), ("authors", self.authors)):
            _check_values(name, values, hexadecimal=True)
        if self.kinds is not None and not all(type(k) is int and 0 <= k <= MAX_KIND for k in self.kinds):
            raise NostrError(f"a filter's kinds are whole numbers from 0 to {MAX_KIND}")
        _check_values("kinds", self.kinds, hexadecimal=False)
        for letter, values in self.tags.items():
            if not (len(letter) == 1 and letter.isascii() and letter.isalpha()):
                raise NostrError(f"a filter's tag is one letter a-z or A-Z, not {shown(letter)}")
            _check_values(f"#{letter}", values, hexadecimal=letter in _HEX_TAGS)
        for name, number in (("since", self.since), ("until", self.until), ("limit", self.limit)):
            if number is not None and (type(number) is not int or not 0 <= number <= MAX_CREATED_AT):
                raise NostrError(f"a filter's {name} is a whole number, not {shown(number)}")

    def to_json(self) -> dict[str, object]:
        """The filter as NIP-01 writes it in a ``REQ`` (only the conditions given)."""
        value: dict[str, object] = {}
        for name, values in (("ids", self.ids), ("authors", self.authors), ("kinds", self.kinds)):
            if values is not None:
                value[name] = list(values)
        value |= {f"#{letter}": list(values) for letter, values in sorted(self.tags.items())}
        for name, number in (("since", self.since), ("until", self.until), ("limit", self.limit)):
            if number is not None:
                value[name] = number
        return value

    def matches(self, event: Event) -> bool:
        """Whether ``event`` passes this filter, as NIP-01 defines it (``limit`` aside)."""
        if self.ids is not None and event.id not in self.ids:
            return False
        if self.authors is not None and event.pubkey not in self.authors:
            return False
        if self.kinds is not None and event.kind not in self.kinds:
            return False
        if self.since is not None and event.created_at < self.since:
            return False
        if self.until is not None and event.created_at > self.until:
            return False
        return all(set(event.tag_values(letter)) & set(values) for letter, values in self.tags.items())


def _check_values(name: str, values: Sequence[object] | None, *, hexadecimal: bool) -> None:
    """A filter's list: one value or more (NIP-01), not too many, hex ids and keys in lower case."""
    if values is None:
        return
    if not 0 < len(values) <= MAX_FILTER_VALUES:
        raise NostrError(f"a filter's {name} has 1 to {MAX_FILTER_VALUES} values, not {len(values)}")
    if hexadecimal and not all(isinstance(v, str) and _HEX64.fullmatch(v) for v in values):
        raise NostrError(f"a filter's {name} are 64 lowercase hex digits each")
    if not hexadecimal and name != "kinds" and not all(isinstance(v, str) for v in values):
        raise NostrError(f"a filter's {name} are strings")


def matches_any(filters: Sequence[Filter], event: Event) -> bool:
    """Whether ``event`` passes one of a subscription's filters (NIP-01: they are or'ed)."""
    return any(one.matches(event) for one in filters)


# --- what a client sends --------------------------------------------------------------------------


def check_subscription_id(subscription: str) -> str:
    """``subscription`` if NIP-01 allows it as an id: 1 to 64 characters."""
    if not isinstance(subscription, str) or not 0 < len(subscription) <= MAX_SUBSCRIPTION_ID:
        raise NostrError(
            f"a subscription id is 1 to {MAX_SUBSCRIPTION_ID} characters, not {shown(subscription)}"
        )
    return subscription


def event_message(event: Event) -> str:
    """``["EVENT", event]``: publish ``event``."""
    return write_json(["EVENT", event.to_json()])


def req_message(subscription: str, filters: Sequence[Filter]) -> str:
    """``["REQ", id, filter...]``: the stored events that match, then the new ones, until closed."""
    if not filters:
        raise NostrError("a subscription asks with one filter or more")
    return write_json(["REQ", check_subscription_id(subscription), *(one.to_json() for one in filters)])


def close_message(subscription: str) -> str:
    """``["CLOSE", id]``: end a subscription."""
    return write_json(["CLOSE", check_subscription_id(subscription)])


# --- what a relay sends ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Received:
    """``EVENT``: an event for one of our subscriptions (checked: its id and signature hold)."""

    subscription: str
    event: Event


@dataclass(frozen=True, slots=True)
class Ok:
    """``OK``: the relay took the event we published (``accepted``) or refused it, with why."""

    event_id: str
    accepted: bool
    message: str

    @property
    def reason(self) -> str:
        """NIP-01's machine-readable prefix (``duplicate``, ``blocked``, ``rate-limited``, ...)."""
        return self.message.split(":", 1)[0] if ":" in self.message else ""


@dataclass(frozen=True, slots=True)
class EndOfStored:
    """``EOSE``: the stored events of a subscription were all sent; new ones follow as they come."""

    subscription: str


@dataclass(frozen=True, slots=True)
class Closed:
    """``CLOSED``: the relay ended (or refused) a subscription, with why."""

    subscription: str
    message: str


@dataclass(frozen=True, slots=True)
class Notice:
    """``NOTICE``: something the relay wants a person to read."""

    message: str


class Flaw(enum.Enum):
    """How far a refused frame got: what a client counts it as."""

    NOT_JSON = "not JSON"
    SHAPE = "not a relay message of NIP-01"
    UNKNOWN = "a message type we do not use"
    FORGED = "an event whose fields, id or signature do not hold"


@dataclass(frozen=True, slots=True)
class Malformed:
    """A frame refused, with its reason (one line) and how far it got."""

    flaw: Flaw
    reason: str


RelayMessage = Received | Ok | EndOfStored | Closed | Notice
KNOWN: Final = frozenset({"EVENT", "OK", "EOSE", "CLOSED", "NOTICE"})


def parse_relay_message(text: str | bytes) -> RelayMessage | Malformed:
    """One frame from a relay, read into its type or refused with its reason; never raises."""
    try:
        value = read_json(text)
    except NostrError as error:
        return Malformed(Flaw.NOT_JSON, str(error))
    if not (isinstance(value, list) and value and isinstance(value[0], str)):
        return Malformed(Flaw.SHAPE, f"a relay message is an array that starts with its type: {shown(value)}")
    kind, rest = value[0], value[1:]
    if kind not in KNOWN:
        return Malformed(Flaw.UNKNOWN, f"a relay message of type {shown(kind)}")
    if kind == "EVENT":
        return _event(rest)
    shapes: dict[str, tuple[type, ...]] = {
        "OK": (str, bool, str),
        "EOSE": (str,),
        "CLOSED": (str, str),
        "NOTICE": (str,),
    }
    shape = shapes[kind]
    if len(rest) != len(shape) or not all(type(item) is want for item, want in zip(rest, shape, strict=True)):
        return Malformed(
            Flaw.SHAPE, f"{kind} is {kind} with {len(shape)} items of NIP-01's types: {shown(rest)}"
        )
    return _typed(kind, rest)


def _typed(kind: str, rest: list[object]) -> RelayMessage | Malformed:
    """A message whose items have the types its kind wants."""
    texts = [item for item in rest if isinstance(item, str)]
    if kind == "OK":
        accepted = rest[1] is True
        if not _HEX64.fullmatch(texts[0]):
            return Malformed(Flaw.SHAPE, f"OK names an event id that is not one: {shown(texts[0])}")
        return Ok(texts[0], accepted, texts[1][:MAX_MESSAGE_CHARS])
    if kind == "NOTICE":
        return Notice(texts[0][:MAX_MESSAGE_CHARS])
    if not 0 < len(texts[0]) <= MAX_SUBSCRIPTION_ID:
        return Malformed(Flaw.SHAPE, f"{kind} names no subscription id of ours: {shown(texts[0])}")
    if kind == "EOSE":
        return EndOfStored(texts[0])
    return Closed(texts[0], texts[1][:MAX_MESSAGE_CHARS])


def _event(rest: list[object]) -> Received | Malformed:
    """``["EVENT", subscription, event]``, its event checked in full."""
    if len(rest) != 2 or not isinstance(rest[0], str) or not 0 < len(rest[0]) <= MAX_SUBSCRIPTION_ID:
        return Malformed(Flaw.SHAPE, f"EVENT is EVENT, a subscription id and an event: {shown(rest)}")
    try:
        return Received(rest[0], parse_event(rest[1]))
    except NostrError as error:
        return Malformed(Flaw.FORGED, str(error))
