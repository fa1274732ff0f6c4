"""The record's index read by worker processes (tests/record/conftest.py's transcripts): the same
lines as this process alone finds, a damaged transcript and a foreign file among good ones still
listed as what they are, the progress counted in order, an index interrupted part-way usable and
completed by the next refresh to the same answer, and the files of workers that die, or of a
system with no process pools, read by this process."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from p2pgenius.record import index as index_module
from p2pgenius.record.index import Index
from p2pgenius.record.matches import FINISHED, UNREADABLE, RecordLine


def lines(database: Path, folder: Path, processes: int) -> list[RecordLine]:
    with Index(database, folder) as index:
        assert index.refresh(processes=processes) == len(index.files())
        return index.matches()


def test_workers_find_the_lines_this_process_finds(home: Path, tmp_path: Path) -> None:
    odd = home / os.fsdecode(b"bad\xff.p2pt")  # (a name that is not UTF-8 travels to a worker)
    odd.write_bytes(b"\x00\x00\x00\x05hello")
    alone = lines(tmp_path / "alone.sqlite", home, 1)
    shared = lines(tmp_path / "shared.sqlite", home, 2)
    assert shared == alone
    by_name = {Path(line.path).name: line for line in shared}
    damaged = by_name["20261201-150000-000000-duel-host.p2pt"]
    assert damaged.kind == UNREADABLE and not damaged.verified and damaged.problem
    assert by_name["notes.txt"].kind == UNREADABLE and "foreign" in by_name["notes.txt"].problem
    assert by_name[odd.name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")].kind == UNREADABLE
    finished = [line for line in shared if line.kind == FINISHED]
    assert finished and all(line.verified for line in finished)


def test_the_progress_counts_every_file_in_order(home: Path, tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    with Index(tmp_path / "index.sqlite", home) as index:
        read = index.refresh(lambda done, total: seen.append((done, total)), processes=2)
    assert seen == [(done, read) for done in range(1, read + 1)] and read == len(index.files())


class StoppedError(Exception):
    pass


@pytest.mark.parametrize("processes", [1, 2])
def test_an_index_interrupted_part_way_keeps_its_lines_and_the_next_refresh_completes_it(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, processes: int
) -> None:
    whole = lines(tmp_path / "whole.sqlite", home, 1)
    monkeypatch.setattr(index_module, "BATCH", 3)

    def stop(done: int, total: int) -> None:
        if done == 7:
            raise StoppedError  # (Ctrl-C, or the process killed, after seven files)

    database = tmp_path / "index.sqlite"
    with Index(database, home) as index, pytest.raises(StoppedError):
        index.rebuild(stop, processes=processes)
    with Index(database, home) as index:
        kept = index.matches()
        assert len(kept) == 6, "the batches written before the interruption stay"
        assert all(line in whole for line in kept), "each line kept is the line a whole read finds"
        assert index.refresh(processes=processes) == len(whole) - 6, "only the files not kept are read"
        assert index.matches() == whole


class DyingPool:
    """A pool whose workers die after two files (killed, out of memory)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.shut = False

    def map(
        self, read: Callable[[Path], RecordLine], paths: list[Path], chunksize: int = 1
    ) -> Iterator[RecordLine]:
        yield read(paths[0])
        yield read(paths[1])
        raise BrokenProcessPool("a worker died")

    def shutdown(self, *, wait: bool, cancel_futures: bool) -> None:
        self.shut = True


def test_files_left_by_workers_that_die_are_read_here(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = lines(tmp_path / "alone.sqlite", home, 1)
    monkeypatch.setattr(index_module, "ProcessPoolExecutor", DyingPool)
    assert lines(tmp_path / "shared.sqlite", home, 2) == alone


def no_pool(*args: object, **kwargs: object) -> None:
    raise OSError("no semaphores on this system")


def test_a_system_without_process_pools_reads_in_this_process(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    alone = lines(tmp_path / "alone.sqlite", home, 1)
    monkeypatch.setattr(index_module, "ProcessPoolExecutor", no_pool)
    assert lines(tmp_path / "shared.sqlite", home, 2) == alone
