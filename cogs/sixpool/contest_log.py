"""What a six-pool contest's rolls log besides their result (docs/players/sixpool.md, "Rules notes":
contests): both sides' names, what each side rolls, the stored contest it settled and the roll it
was first logged under. Each side of a contest between players is its own roller: one roll under
each player, each shown as its roller's (their name, their total first, their verdict), and an
inspiration reroll of a side logs a new roll the same way."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import discord

from bot.asker import Asker
from bot.publish import Roll
from bot.render import sixpool as render
from bot.storage import Character, RollEntry, Visibility
from bot.storage.sixpool import CONTEST_ID_OPTION
from cogs.sixpool.options import CONTEST_KIND
from rules import sixpool
from rules.recap_reading import CONTEST_ROOT
from rules.sixpool import Contestant, ContestResult, Pool

__all__ = ["NPC_NAME", "OPPONENT_NAME", "ContestLog", "side_text"]

OPPONENT_NAME = "Opponent"  # an NPC a player challenges, by its bare modifier
NPC_NAME = "NPC"  # an NPC a GM challenges a player as

_NAMES, _SIDES = "names", "sides"


def side_text(pool: Pool, skill: str | None) -> str:
    """Return what one side rolls: "CHA (persuasion)", "DEX"."""
    return f"{pool} ({sixpool.skill_name(skill)})" if skill else str(pool)


@dataclass(frozen=True, slots=True)
class ContestLog:
    """A contest's names and sides (the attacker's first; a side None: an NPC's bare
    modifier), its stored contest (None: against a bare ``vs_modifier``), and the roll it
    was first logged under (None: this is that roll)."""

    names: tuple[str, str]
    sides: tuple[str | None, str | None]
    contest_id: int | None = None
    root: int | None = None

    def what(self, roller: Contestant) -> str:
        """What the roller rolls: "CHA (persuasion) vs WIS (insight)", or against an NPC's
        bare modifier "DEX contest"."""
        mine, theirs = self.sides if roller is Contestant.ATTACKER else self.sides[::-1]
        if theirs is None:
            return f"{mine or 'a'} contest"
        return f"{mine} vs {theirs}"

    def options(self) -> dict[str, object]:
        """The roll's options in the log."""
        options: dict[str, object] = {_NAMES: list(self.names), _SIDES: list(self.sides)}
        if self.contest_id is not None:
            options[CONTEST_ID_OPTION] = self.contest_id
        if self.root is not None:
            options[CONTEST_ROOT] = self.root
        return options

    @classmethod
    def of(cls, options: Mapping[str, Any], roll_id: int) -> ContestLog | None:
        """Read a logged contest roll's options (None: logged before they were kept), the
        root the roll's own id when it is the first."""
        names, sides = options.get(_NAMES), options.get(_SIDES)
        if not (isinstance(names, list) and isinstance(sides, list)):
            return None
        if len(names) != len(Contestant) or len(sides) != len(Contestant):
            return None
        contest_id, root = options.get(CONTEST_ID_OPTION), options.get(CONTEST_ROOT)
        return cls(
            (str(names[0]), str(names[1])),
            (_text(sides[0]), _text(sides[1])),
            contest_id if isinstance(contest_id, int) else None,
            root if isinstance(root, int) else roll_id,
        )

    def rooted(self, root: int) -> ContestLog:
        """The same contest, a roll after the one it was first logged under."""
        return replace(self, root=root)

    def embed(self, result: ContestResult, notes: tuple[str, ...] = ()) -> discord.Embed:
        """The reply showing ``result`` as its roller's."""
        return render.contest(result, *self.names, self.what(result.roller), notes)

    def entry(
        self,
        result: ContestResult,
        embed: discord.Embed,
        asker: Asker,
        user_id: int,
        who: Character[Any] | None = None,
    ) -> RollEntry:
        """The log entry of ``result`` under its roller, ``user_id``: public, as the other side
        takes part (docs/gms.md, "Blind rolls"); ``who``: the roller's character (its first
        roll marks it rolled, ``Character.first_rolls``)."""
        roll = Roll(CONTEST_KIND, result, embed, options=self.options(),
                    first_rolls=() if who is None else who.first_rolls,
                    character_id=None if who is None else who.id)  # fmt: skip
        return replace(roll.entry(asker, Visibility.PUBLIC), user_id=user_id)


def _text(value: object) -> str | None:
    return None if value is None else str(value)
