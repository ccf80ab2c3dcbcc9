"""Enchanted Realms' odds replies (`/realms odds`): an attack's exact odds computed and drawn
in the worker process (bot.offload), a single-die roll's on the loop (a few milliseconds).

The cog asks; these return the embed and the chart (docs/players/index.md, "Odds charts").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import discord

from bot import offload
from bot.errors import CommandError
from bot.render import odds_charts
from bot.render import realms as render
from bot.render.charts import draw_spec, render_png
from rules import realms
from rules.choices import parse_choice
from rules.realms import SingleDie
from rules.realms.attacks import plan_attack

__all__ = ["AttackQuery", "attack_odds", "attack_odds_reply", "check_odds"]


@dataclass(frozen=True, slots=True)
class AttackQuery:
    """What `/realms odds` was asked about an attack."""

    dice: int
    to_hit: int
    damage: str
    split: str | None
    primary: bool

    @classmethod
    def of(
        cls,
        dice: int | None,
        to_hit: int | None,
        damage: str | None,
        split: str | None,
        primary: bool,
    ) -> AttackQuery:
        """Return the query, refusing one without its dice, to-hit number or damage."""
        if dice is None or to_hit is None or damage is None:
            raise CommandError("Attack odds need `dice`, `to_hit` and `damage`.")
        return cls(dice, to_hit, damage, split, primary)


async def attack_odds(query: AttackQuery, decision: realms.Decision) -> tuple[discord.Embed, bytes]:
    """Return the embed and chart of an attack's exact odds."""
    realms.parse_damage(query.damage)  # bad input is refused here, before the worker
    plan_attack(query.dice, query.to_hit, decision, query.split, query.primary)
    # 11 strikes of 4d20 are milliseconds of exact counts (numpy and Python), text and a chart
    # of a thousand bars, much of it Python: so in a worker process (bot.offload), where it
    # holds neither the event loop nor its GIL.
    embed, png = await offload.in_process(attack_odds_reply, query, decision)
    return discord.Embed.from_dict(embed), png


async def check_odds(
    die: str | None, target: int | None, decision: realms.Decision
) -> tuple[discord.Embed, bytes]:
    """Return the embed and chart of a single-die roll's exact odds (the state's in bold)."""
    if die is None or target is None:
        raise CommandError("Check odds need `die` and `target` (or give attack options).")
    single = parse_choice(SingleDie, die, "die")
    odds = realms.check_odds(single, target)
    embed = render.check_odds(odds, single.value, target, decision)
    faces = realms.single_die(single, decision.state)
    title = render.single_die_title(single.value, decision)
    png = await draw_spec(odds_charts.check_chart, faces, title, target)
    return embed, png


def attack_odds_reply(query: AttackQuery, decision: realms.Decision) -> tuple[Any, bytes]:
    """Return the exact attack odds' embed (as a dict) and the chart of every target's
    damage; run in the worker process, the inputs already checked."""
    damage = realms.parse_damage(query.damage)
    result = realms.attack_odds(
        query.dice, query.to_hit, damage, decision, query.split, query.primary
    )
    chart = odds_charts.attack_chart(result, query.dice, query.to_hit, query.damage)
    embed = render.attack_odds(result, query.dice, query.to_hit, query.damage)
    return embed.to_dict(), render_png(
        chart, cached=False
    )  # a 1,000-bar spec: hashing it costs a drawing
