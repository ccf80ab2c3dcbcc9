"""Six-pool d20 checks, attacks and saves: spend, roll (an attack's damage on a hit) and log in
one transaction, deliver (docs/players/sixpool.md, "Rules notes"); inspiration's reroll of one
die is ``inspiration``'s."""

from __future__ import annotations

from collections.abc import Awaitable, Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import discord

from bot.asker import Asker
from bot.buttons import Reroller, roll_buttons
from bot.errors import CommandError
from bot.publish import Roll, show_logged_roll
from bot.render import sixpool as render
from bot.storage import Character, LoggedRoll, RollEntry, Visibility
from cogs.sixpool.buttons import reroll_buttons
from rules import sixpool
from rules.randomness import Rng
from rules.sixpool import DamageRoll, EdgeOption, RollAsked, RollKind, RollResult, Sheet
from rules.sixpool.kinds import kind_of

if TYPE_CHECKING:
    from cogs.sixpool.cog import SixpoolCog

__all__ = [
    "ATTACK_KIND",
    "RollFor",
    "RollStep",
    "hit_damage",
    "logged_roll",
    "roll_again",
    "roll_asked",
]

ATTACK_KIND = kind_of(RollKind.ATTACK)


@dataclass(frozen=True, slots=True, kw_only=True)
class RollFor:
    """Who rolls and who sees it: a GM may name a character."""

    character: str | None = None
    visibility: Visibility = Visibility.PUBLIC


def hit_damage(rng: Rng, result: RollResult, expression: str | None) -> DamageRoll | None:
    """Roll an attack's damage if it hit (its dice doubled on a natural 20), else None."""
    if expression is None or not result.success:
        return None
    return sixpool.roll_damage(rng, expression, critical=result.natural_twenty)


@dataclass(frozen=True, slots=True)
class _Rolled:
    result: RollResult
    notes: tuple[str, ...]
    damage: DamageRoll | None


@dataclass(slots=True)
class RollStep:
    """The roll's two steps inside the sheet's transaction: decide and roll, then log."""

    rng: Rng
    asked: RollAsked
    option: EdgeOption
    asker: Asker
    visibility: Visibility
    roller: str
    character: str | None
    trained_only: Collection[str] = ()
    rolled: list[_Rolled] = field(default_factory=list)

    def spend_and_roll(self, sheet: Sheet) -> Sheet:
        asked = self.asked
        prepared = sixpool.prepare_roll(sheet, asked, self.option, trained_only=self.trained_only)
        result = sixpool.roll(
            self.rng,
            prepared.parts,
            asked.dc,
            advantage=prepared.advantage,
            disadvantage=asked.disadvantage,
            situation=asked.situation,
        )
        notes = render.roll_notes(prepared, asked.disadvantage)
        self.rolled.append(_Rolled(result, notes, hit_damage(self.rng, result, asked.damage)))
        return prepared.after

    def log(self, after: Character[Sheet]) -> RollEntry:
        rolled = self.rolled[-1]
        what = render.roll_label(self.asked)
        embed = render.roll_result(rolled.result, self.roller, what, rolled.notes,
                                   kind=self.asked.kind)  # fmt: skip
        render.add_damage(embed, rolled.damage, self.asked.damage)
        render.add_pool_left(embed, after.sheet, self.asked.pool, self.asked.spend)
        options = {
            "pool": self.asked.pool.value,
            "dc": self.asked.dc,
            "character": self.character,
            "what": what,
            "damage": self.asked.damage,
            # The rest of what was asked, for Roll again (``roll_again``).
            "spend": self.asked.spend,
            "skill": self.asked.skill,
            "situation": self.asked.situation.value,
            "advantage": self.asked.advantage,
            "disadvantage": self.asked.disadvantage,
            "inspiration": self.asked.inspiration,
        }
        kind = kind_of(self.asked.kind)
        roll = Roll(kind, rolled.result, embed, options=options, first_rolls=after.first_rolls,
                    character_id=after.id)  # fmt: skip
        return roll.entry(self.asker, self.visibility)


async def roll_asked(
    cog: SixpoolCog, interaction: discord.Interaction, asked: RollAsked, rolling: RollFor
) -> None:
    """Spend, roll and log in one transaction, then deliver the roll (and its Reroll buttons,
    which a blind roll's roller never sees)."""
    asker, campaign = await cog.asker(interaction)
    visibility = asker.may_roll(rolling.visibility)
    who = await asker.own_or_named(cog.characters, campaign, rolling.character, "roll")
    option = campaign.settings.get(sixpool.EDGE_OPTION)
    trained_only = await cog.trained_only.skills(campaign)
    step = RollStep(cog.bot.rng, asked, option, asker, visibility, who.name, rolling.character,
                     trained_only)  # fmt: skip
    changed = await cog.characters.update(who, step.spend_and_roll, step.log)
    assert changed.roll_id is not None
    logged, embed = await logged_roll(cog, changed.roll_id)
    result = step.rolled[-1].result
    rerolls = reroll_buttons(logged.id, result) if changed.after.sheet.inspired else []
    view = roll_buttons(logged.id, logged.kind, visibility, extra=rerolls)
    # Inspiration rerolls only the latest roll: the previous roll's die buttons go.
    await show_logged_roll(
        interaction, cog.storage, asker, logged.id, logged.kind, visibility, embed, view=view
    )


def roll_again(cog: SixpoolCog, kind: RollKind) -> Reroller:
    """Return what Roll again runs under a check, attack or save: the command again, with the
    options the roll logged (the spend is paid again), as secret as it was."""

    def again(
        interaction: discord.Interaction, options: Mapping[str, Any], seen: Visibility
    ) -> Awaitable[None]:
        if "spend" not in options:  # logged before Roll again existed here
            raise CommandError("This roll can't be rolled again; use its command instead.")
        asked = RollAsked(
            kind=kind,
            pool=sixpool.parse_pool(str(options["pool"])),
            dc=int(options["dc"]),
            spend=int(options["spend"]),
            skill=options.get("skill"),
            situation=sixpool.Situation(options.get("situation", "normal")),
            advantage=bool(options.get("advantage")),
            disadvantage=bool(options.get("disadvantage")),
            inspiration=bool(options.get("inspiration")),
            damage=options.get("damage"),
        )
        rolling = RollFor(character=options.get("character"), visibility=seen)
        return roll_asked(cog, interaction, asked, rolling)

    return again


async def logged_roll(cog: SixpoolCog, roll_id: int) -> tuple[LoggedRoll, discord.Embed]:
    """Return a roll just logged and its embed as stored."""
    logged = await cog.storage.rolls.get(roll_id)
    assert logged is not None
    return logged, discord.Embed.from_dict(logged.embed_data)
