"""What sight leaves pending on one peer (protocol/SPEC.md, section 6, "Sight"): kept by
:class:`Unseen`; the session's ``sight`` module sends and checks the view claims."""

from __future__ import annotations

from dataclasses import dataclass, field

from p2pgenius.canonical import Plain
from p2pgenius.protocol.bodies import Body
from p2pgenius.protocol.messages import MessageError
from p2pgenius.protocol.session.stage import Stage


@dataclass
class Unseen:
    """What sight leaves pending on one peer: on a sighted peer, the choices (and hashes)
    withheld from a peer in the dark, and which seats each stage was withheld from; on a peer in
    the dark, the stages it saw only through view claims."""

    behind: list[Stage] = field(default_factory=list)
    """Stages seen only through view claims, oldest first (this peer is in the dark)."""
    withheld: dict[int, list[Body]] = field(default_factory=dict)
    """Stage -> our reveals and hash kept from a peer in the dark until it sees again."""
    during: dict[int, set[int]] = field(default_factory=dict)
    """Stage -> the other peers' seats that were in the dark when it was played."""

    def withhold(self, number: int, body: Body, seats: set[int]) -> None:
        """Keep ``body`` of stage ``number`` from the ``seats`` in the dark (until they see again)."""
        self.withheld.setdefault(number, []).append(body)
        self.during[number] = seats

    def release(self) -> list[Body]:
        """Every withheld message, in stage order; none is kept any longer."""
        out = [body for number in sorted(self.withheld) for body in self.withheld[number]]
        self.withheld.clear()
        return out

    def fall_behind(self, stage: Stage) -> None:
        """This peer plays on from a view claim about ``stage``."""
        self.behind.append(stage)

    def open(self, number: int, seat: int, action: Plain) -> bool:
        """A withheld choice of a stage seen only through a view claim is opened: True if it was
        one (MessageError if it was opened already)."""
        for stage in self.behind:
            if stage.number == number and seat in stage.commits:
                if seat in stage.reveals:
                    raise MessageError(f"p{seat}'s stage {number} is already open")
                stage.reveals[seat] = action
                return True
        return False

    def all_open(self) -> bool:
        """Every choice of every stage seen through view claims is open: they can be replayed."""
        return all(all(s in b.reveals for s in b.waiting) for b in self.behind)

    def catch_up(self) -> list[Stage]:
        """The stages to replay now, oldest first; this peer sees again."""
        behind, self.behind = self.behind, []
        return behind
