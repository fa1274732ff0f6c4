"""A player's record, proven: every match this account played, as its transcripts show it.

* :mod:`.matches`: one transcript read as a line of the record (:class:`~.matches.RecordLine`): when,
  the game, who played which seats, the result for the transcript's own peer, how it ended, its
  length, and whether the transcript verifies;
* :mod:`.ratings`: ratings per game from verified results only (openskill's Plackett-Luce model,
  which rates Hornswoggle's teams of two as teams);
* :mod:`.index`: the record kept in one SQLite file, updated as matches end and rebuilt from the
  transcripts on demand (a transcript that does not verify is listed, never counted);
* :mod:`.bundle`: chosen transcripts in one file, to prove a record to someone else.

Nothing here touches the network, and nothing is trusted that a transcript does not prove: a
result counts only when the transcript that holds it verifies.
"""
