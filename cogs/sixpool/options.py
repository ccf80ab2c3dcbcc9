"""`/sixpool` options: ranges, choices, help texts, and parsing what a command asks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from discord import app_commands

from bot.errors import CommandError
from bot.options import BLIND_HELP, HIDDEN_HELP, choices_of
from rules import sixpool
from rules.choices import parse_choice
from rules.expressions import MAX_EXPRESSION_LENGTH
from rules.sheets import DataclassSheet
from rules.sixpool import Pool, Sheet, Training
from rules.sixpool.kinds import CONTEST_KIND, GROUP_KIND

__all__ = [
    "CONTEST_KIND",
    "CONTEST_MINUTES",
    "DAMAGE_HELP",
    "GROUP_KIND",
    "GROUP_MINUTES",
    "ROLL_HELP",
    "SHEET_CODEC",
    "SheetAsked",
    "SheetChange",
    "read_spend",
    "sheet_changes",
]

CONTEST_MINUTES = 10  # (house) how long a defender has to declare their spend
GROUP_MINUTES = 30  # (house) how long a group check stays open if no GM closes it
SHEET_CODEC: DataclassSheet[Sheet] = DataclassSheet(Sheet)
COG_NAME = "SixpoolCog"  # the cog's name, for its persistent buttons to find it

SkillName = app_commands.Range[str, 1, sixpool.SKILL_NAME_MAX]
Level = app_commands.Range[int, sixpool.LEVEL_MIN, sixpool.LEVEL_MAX]
PoolSize = app_commands.Range[int, 0, sixpool.POOL_MAX]
Edge = app_commands.Range[int, sixpool.EDGE_MIN, sixpool.EDGE_MAX]
DC = app_commands.Range[int, sixpool.DC_MIN, sixpool.DC_MAX]
Spend = app_commands.Range[int, 0, sixpool.POOL_MAX]
Modifier = app_commands.Range[int, sixpool.MODIFIER_MIN, sixpool.MODIFIER_MAX]
DamageText = app_commands.Range[str, 1, MAX_EXPRESSION_LENGTH]
DAMAGE_HELP = "Damage dice on a hit, e.g. 1d8+3; a natural 20 rolls its dice twice (2d8+3)"

POOL_CHOICES = choices_of(Pool)
TRAINING_CHOICES = choices_of(Training, lambda training: training.value.capitalize())
SITUATION_CHOICES = choices_of(sixpool.Situation, lambda s: s.value.capitalize())
ROLL_HELP = {
    "spend": "Pool points to spend, declared before the roll (at most Effort and the pool)",
    "advantage": "Roll 2d20 and keep the higher (one disadvantage cancels it)",
    "disadvantage": "Roll 2d20 and keep the lower (one advantage cancels it)",
    "inspiration": "Spend your inspiration for advantage on this roll",
    "character": "GMs: the character who rolls, by name (default: your own)",
    "hidden": HIDDEN_HELP,
    "blind": BLIND_HELP,
}

SheetChange = Callable[[Sheet], Sheet]


@dataclass(frozen=True, slots=True, kw_only=True)
class SheetAsked:
    """What `/sixpool character set` asks to change (None: unchanged)."""

    level: int | None = None
    pool: str | None = None
    maximum: int | None = None
    edge: int | None = None
    save: str | None = None
    skill: str | None = None
    training: str | None = None


def sheet_changes(asked: SheetAsked) -> SheetChange:
    """Return the sheet change `/sixpool character set` asks for, or refuse a bad mix."""
    steps = _steps(asked)

    def change(sheet: Sheet) -> Sheet:
        for step in steps:
            sheet = step(sheet)
        return sheet

    return change


def _steps(asked: SheetAsked) -> list[SheetChange]:
    """Return each change asked for, in order: level, the pool's, the skill's."""
    steps: list[SheetChange] = []
    if asked.level is not None:
        level = asked.level
        steps.append(lambda sheet: sixpool.set_level(sheet, level))
    steps.extend(_pool_changes(asked))
    skill, training = asked.skill, asked.training
    if (skill is None) != (training is None):
        raise CommandError("`skill` and `training` go together.")
    if skill is not None and training is not None:
        skill_training = parse_choice(Training, training, "training")
        steps.append(lambda sheet: sixpool.set_skill(sheet, skill, skill_training))
    if not steps:
        raise CommandError("Say what to change: level, a pool's maximum, edge or save, or a skill.")
    return steps


def _pool_changes(asked: SheetAsked) -> list[SheetChange]:
    """Return the changes to one pool's maximum, Edge and save, or refuse them without a pool."""
    maximum, edge, save = asked.maximum, asked.edge, asked.save
    if maximum is None and edge is None and save is None:
        if asked.pool is not None:
            raise CommandError("With `pool`, say what changes: `maximum`, `edge` or `save`.")
        return []
    if asked.pool is None:
        raise CommandError("`maximum`, `edge` and `save` change one pool: give `pool` too.")
    chosen = sixpool.parse_pool(asked.pool)
    steps: list[SheetChange] = []
    if maximum is not None:
        steps.append(lambda sheet: sixpool.set_pool_maximum(sheet, chosen, maximum))
    if edge is not None:
        steps.append(lambda sheet: sixpool.set_edge(sheet, chosen, edge))
    if save is not None:
        trained = parse_choice(Training, save, "save")
        steps.append(lambda sheet: sixpool.set_save(sheet, chosen, trained))
    return steps


def read_spend(value: object) -> int:
    """Read a spend picked in a select (a client can send anything: refuse non-numbers)."""
    text = str(value)
    if not text.isdigit() or len(text) > 2:
        raise CommandError("Pick a number of points from the list.")
    return int(text)
