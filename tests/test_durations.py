"""Durations as people write them (``--turn 1d``) and as the program shows them: p2pgenius/durations.py."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pgenius.durations import ACCEPTED, DurationError, parse, words


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90", 90),  # (plain seconds, as the command line always took them)
        ("90s", 90),
        ("5m", 300),
        ("12h", 43200),
        ("1d", 86400),
        ("1h30m", 5400),
        ("2d12h", 216000),
        ("1d2h3m4s", 93784),
        ("1H30M", 5400),  # (either case)
        ("1h0m", 3600),
        ("0090", 90),
    ],
)
def test_a_duration_reads_as_people_write_it(text: str, seconds: int) -> None:
    assert parse(text) == seconds


@pytest.mark.parametrize(
    "text",
    ["1x", "", "m", "h1", "1.5h", "-5m", "+5m", "1h 30m", " 90", "90 ", "1m1h", "1h1h", "5mm", "1d-1h", "٣"],
)
def test_anything_else_is_refused_in_one_line_saying_what_is_accepted(text: str) -> None:
    with pytest.raises(DurationError) as refused:
        parse(text)
    assert str(refused.value) == f"{text!r}: {ACCEPTED}"


@pytest.mark.parametrize("text", ["0", "0s", "0d0h", "000"])
def test_no_duration_is_zero(text: str) -> None:
    with pytest.raises(DurationError, match="a duration is more than nothing, like 90s"):
        parse(text)


def test_a_number_of_thousands_of_digits_is_refused_not_converted() -> None:
    with pytest.raises(DurationError, match=ACCEPTED):
        parse("9" * 5000)
    assert parse("9" * 20) == int("9" * 20)  # (the caller says how long is too long)


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (86400, "1d"),
        (43200, "12h"),
        (300, "5m"),
        (5400, "1h30m"),
        (90, "1m30s"),
        (45, "45s"),
        (93784, "1d2h3m4s"),
    ],
)
def test_a_duration_is_shown_in_the_fewest_parts(seconds: int, said: str) -> None:
    assert words(seconds) == said


def test_nothing_is_no_duration_to_show() -> None:
    with pytest.raises(ValueError, match="more than nothing"):
        words(0)


@given(st.integers(min_value=1, max_value=10**12))
def test_what_is_shown_reads_back_as_the_same_length(seconds: int) -> None:
    assert parse(words(seconds)) == seconds
    assert parse(words(seconds).upper()) == seconds


@given(
    st.integers(min_value=0, max_value=10**4),
    st.integers(min_value=0, max_value=23),
    st.integers(min_value=0, max_value=59),
    st.integers(min_value=0, max_value=59),
)
def test_a_length_written_with_each_unit_below_the_next_shows_as_written(
    days: int, hours: int, minutes: int, seconds: int
) -> None:
    counts = (days, hours, minutes, seconds)
    text = "".join(f"{n}{unit}" for n, unit in zip(counts, "dhms", strict=True) if n)
    total = days * 86400 + hours * 3600 + minutes * 60 + seconds
    if total:
        assert parse(text) == total
        assert words(total) == text
