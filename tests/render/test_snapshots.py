"""A snapshot of every kind of roll reply (issue 53; docs/development.md, "Tests").

Each reply is rendered from seeded dice (or a fixed rules result), footer included as
``publish_roll`` sets it (none under a reply that is no logged roll:
``snapshot_cases.UNLOGGED``), and its whole text (title, description, fields, footer and colour)
is compared with ``tests/render/snapshots/<kind>.txt``, reviewed and committed: a change to any
reply shows in review as a change to its snapshot. ``SNAPSHOT_UPDATE=1 pytest
tests/render/test_snapshots.py`` writes them anew (then read the diff before committing).

An ordinary roll of each system also stays within the layout's target: ``ORDINARY_CHARACTERS``
and ``ORDINARY_LINES`` of visible text, the total labelled once (docs/players/index.md, "Reading
a reply").
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import discord
import pytest

from bot.asker import Asker
from bot.publish import set_roll_footer
from bot.render import aethelgard as aethelgard_render
from bot.render import cosmos as cosmos_render
from bot.render import dice as dice_render
from bot.render import realms as realms_render
from bot.render import sinew as sinew_render
from bot.render.reply import DICE_SHOWN, ORDINARY_CHARACTERS, ORDINARY_LINES
from bot.storage import Character, Visibility
from cogs.aethelgard import _bare as bare_pool
from cogs.sixpool.rolls import RollStep
from rules import aethelgard, cosmos, realms, sinew, sixpool
from rules.expressions import roll_expression
from rules.randomness import new_rng
from tests.render.snapshot_cases import ROLLS, UNLOGGED
from tests.render.test_reply_layout import CASES

SNAPSHOTS = Path(__file__).with_name("snapshots")
UPDATE = os.environ.get("SNAPSHOT_UPDATE") == "1"
SEED = 7


def _sixpool_check() -> discord.Embed:
    """`/sixpool check pool:DEX dc:15 skill:stealth spend:2`, as the cog's roll step renders and
    logs it (the pool left added), read back from the log's payload."""
    sheet = sixpool.new_sheet(1, sixpool.Pool.DEX, dict.fromkeys(sixpool.Pool, 8))
    sheet = replace(sheet, skills={"stealth": sixpool.Training.TRAINED})
    asked = sixpool.RollAsked(
        kind=sixpool.RollKind.CHECK, pool=sixpool.Pool.DEX, dc=15, spend=2, skill="stealth"
    )
    asker = Asker(
        guild_id=1, channel_id=1, user_id=1, campaign=None, is_gm=False, manages_server=False
    )
    step = RollStep(
        new_rng(SEED), asked, sixpool.EdgeOption.B, asker, Visibility.PUBLIC, "Alice", None
    )
    after = step.spend_and_roll(sheet)
    entry = step.log(Character(id=1, campaign_id=1, user_id=1, name="Alice", sheet=after))
    return discord.Embed.from_dict(entry.payload["embed"])


def _sinew_test() -> discord.Embed:
    sheet = sinew.create_sheet(strength=12, reflex=11, intellect=7, empathy=7, luck=10, stamina=5)
    result = sinew.attribute_test(new_rng(SEED), sheet, sinew.Score.STR)
    return sinew_render.test_result(result, "Alice", "STR test", "STR")


def _aethelgard_roll() -> discord.Embed:
    pool = bare_pool(6)
    result = aethelgard.roll_pool(new_rng(SEED), pool, 2)
    return aethelgard_render.roll_result(result, pool, "pool roll", "Alice")


ORDINARY: dict[str, Callable[[], discord.Embed]] = {
    # /roll 1d20+5
    "ordinary dice": lambda: dice_render.expression_roll(
        roll_expression("1d20+5", new_rng(SEED)), "Alice"
    ),
    # /cosmos roll attribute:3 skill:2 tn:15 advantage:1
    "ordinary cosmos": lambda: cosmos_render.roll_result(
        cosmos.roll(new_rng(SEED), attribute=3, skill=2, tn=15, advantage=1), "Alice"
    ),
    # /realms check die:d20 target:12
    "ordinary realms": lambda: realms_render.check(
        realms.check(
            new_rng(SEED), realms.SingleDie.D20, realms.CheckKind.CHECK, realms.decide(0, 0), 12
        ),
        "Alice",
    ),
    "ordinary sinew": _sinew_test,  # /sinew test attribute:str
    "ordinary aethelgard": _aethelgard_roll,  # /aethelgard roll pool:6 dc:2
    "ordinary sixpool": _sixpool_check,  # /sixpool check pool:DEX dc:15 skill:stealth spend:2
}

KINDS: dict[str, Callable[[], discord.Embed]] = {
    **{kind: case.embed for kind, case in CASES.items()},
    **ORDINARY,
    # /roll 1000d6: the dice line cut past DICE_SHOWN, the total whole.
    "roll long": lambda: dice_render.expression_roll(
        roll_expression("1000d6", new_rng(SEED)), "Alice"
    ),
    **ROLLS,
    **UNLOGGED,  # no roll in the log: no roll id under them
}


def _published(kind: str) -> discord.Embed:
    embed = KINDS[kind]()
    if kind not in UNLOGGED:
        set_roll_footer(embed, 42, Visibility.PUBLIC)  # as publish_roll does, once it is logged
    return embed


def snapshot(embed: discord.Embed) -> str:
    """A reply's whole text, part by part, as its snapshot file holds it."""
    colour = f"#{embed.colour.value:06x}" if embed.colour else "none"
    lines = [f"title: {embed.title}", f"colour: {colour}", "description:", embed.description or ""]
    for field in embed.fields:
        lines += [f"field: {field.name}", str(field.value)]
    lines.append(f"footer: {embed.footer.text}")
    return "\n".join(lines) + "\n"


def visible(embed: discord.Embed) -> str:
    """The text Discord shows: title, description, each field's name and value, footer (a code
    block's fences are not shown)."""
    parts = [embed.title or "", embed.description or ""]
    for field in embed.fields:
        parts += [str(field.name), str(field.value)]
    parts.append(embed.footer.text or "")
    shown = "\n".join(part for part in parts if part)
    return "\n".join(line for line in shown.split("\n") if not line.startswith("```"))


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_reply_is_its_reviewed_snapshot(kind: str) -> None:
    path = SNAPSHOTS / f"{kind.replace(' ', '_')}.txt"
    text = snapshot(_published(kind))
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"no snapshot {path}: run SNAPSHOT_UPDATE=1 pytest {__file__}"
    assert text == path.read_text(encoding="utf-8"), (
        f"{kind}'s reply changed: review it, then SNAPSHOT_UPDATE=1 pytest {__file__}"
    )


def test_every_snapshot_file_is_a_kind_rendered_here() -> None:
    """A kind renamed or removed leaves no stale snapshot behind."""
    files = {path.stem for path in SNAPSHOTS.glob("*.txt")}
    assert files == {kind.replace(" ", "_") for kind in KINDS}


@pytest.mark.parametrize("kind", list(ORDINARY))
def test_an_ordinary_roll_reads_at_a_glance(kind: str) -> None:
    embed = _published(kind)
    text = visible(embed)
    assert len(text) <= ORDINARY_CHARACTERS, text
    assert len(text.split("\n")) <= ORDINARY_LINES, text
    # The total is labelled once: in the title, and in no field or "= **total**" again.
    total = (embed.title or "").rsplit(" · ", 1)[1]
    number = re.search(r"\d+", total)
    assert number is not None, embed.title
    assert f"= **{number[0]}**" not in (embed.description or ""), embed.description
    assert not any(re.search(r"\b(Total|Net)\b", field.name or "") for field in embed.fields)
    assert text.count(total) == 1, text


def test_a_long_roll_counts_the_dice_past_the_line_and_keeps_the_total() -> None:
    rolled = roll_expression("1000d6", new_rng(SEED))
    embed = dice_render.expression_roll(rolled, "Alice")
    description = embed.description or ""
    assert f"… and {1000 - DICE_SHOWN} more)" in description
    assert description.count(", ") == DICE_SHOWN  # 40 faces, then the count
    assert (embed.title or "").endswith(f" · total {rolled.total}")
    assert len(visible(embed)) < 400
