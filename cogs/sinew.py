"""`/sinew`: Sinew & Steel characters, roll-under tests, odds, contests and sheet changes."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, NamedTuple

import discord
from discord import app_commands
from discord.ext import commands

from bot.buttons import RollButton, register_reroll, roll_buttons
from bot.client import DiceBot
from bot.data_tables import load_table
from bot.errors import CommandError
from bot.options import (
    BLIND_HELP,
    CHARACTER_NAME_HELP,
    HIDDEN_HELP,
    ID_PATTERN,
    CharacterName,
    choices_of,
    given_name,
)
from bot.publish import (
    Roll,
    StateChange,
    announce,
    deliver_roll,
    publish_roll,
    roll_command,
    set_roll_footer,
)
from bot.render import sinew as render
from bot.render import sinew_pressure as render_pressure
from bot.render.charts import draw_chart
from bot.render.errors import describe
from bot.storage import Campaign, Character, CharacterStore, LoggedRoll, Storage, Visibility
from bot.storage.errors import RollNotFound
from bot.storage.sinew import (
    DEFENDER_OPTION,
    LuckApplied,
    LuckContext,
    LuckStore,
    PressureRead,
    PressureStore,
    PressureWrite,
    RollSuperseded,
)
from bot.table import Table
from rules import sinew, sinew_pressure
from rules.campaigns import Skin
from rules.choices import parse_choice
from rules.errors import RulesError
from rules.systems import System

SCORE_HELP = f"{sinew.TEST_SCORE_MIN}–{sinew.TEST_SCORE_MAX}"
TEST_KIND, LUCK_KIND = "sinew.test", "sinew.luck_test"
OPPOSED_KIND, ATTACK_KIND = "sinew.opposed", "sinew.attack"
TAMPER_KIND, RITE_KIND, CRISIS_KIND = "sinew.tamper", "sinew.rite", "sinew.crisis"
SPENDABLE_KINDS = (TEST_KIND, LUCK_KIND, OPPOSED_KIND, ATTACK_KIND)
ATTACK_OFFERS_SHOWN = 4  # Luck buttons under an attack; with Roll again, one row of five

ItemName = app_commands.Range[str, 1, sinew.ITEM_NAME_MAX]
TestScore = app_commands.Range[int, sinew.TEST_SCORE_MIN, sinew.TEST_SCORE_MAX]
Amount = app_commands.Range[int, 1, sinew.HEALTH_CHANGE_MAX]
PressureAmount = app_commands.Range[int, 1, sinew_pressure.AMOUNT_MAX]
Armour = app_commands.Range[int, sinew.ARMOUR_MIN, sinew.ARMOUR_MAX]
AttributeScore = app_commands.Range[int, sinew.Score.STR.minimum, sinew.Score.STR.maximum]
StaminaScore = app_commands.Range[int, sinew.Score.STA.minimum, sinew.Score.STA.maximum]
Sheet = sinew.Sheet


def _attribute_choices() -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=f"{score.value} ({score.display_name})", value=score.value.lower())
        for score in sinew.ATTRIBUTES
    ]


def _score_choices() -> list[app_commands.Choice[str]]:
    return [
        app_commands.Choice(name=f"{score.value} ({score.display_name})", value=score.value.lower())
        for score in sinew.Score
    ]


def _attribute(name: str) -> sinew.Score:
    """Return a tested attribute (not Stamina), or refuse."""
    score = sinew.parse_score(name)
    if score not in sinew.ATTRIBUTES:
        raise CommandError(
            f"{score.value} is not tested; choose one of: "
            f"{', '.join(s.value for s in sinew.ATTRIBUTES)}."
        )
    return score


def _test_score(sheet: Sheet, attribute: sinew.Score) -> int:
    """Return what a test of ``attribute`` rolls under: LCK rolls under the tokens left."""
    return sheet.luck_tokens if attribute is sinew.Score.LCK else sheet.score(attribute)


def _score_label(attribute: sinew.Score) -> str:
    return "Luck tokens" if attribute is sinew.Score.LCK else attribute.value


class TestOptions(NamedTuple):
    """What `/sinew test` was asked; logged with the roll, so Roll again repeats it."""

    attribute: str
    advantage: bool = False
    disadvantage: bool = False
    character: str | None = None


class LuckTestOptions(NamedTuple):
    """What `/sinew luck test` was asked."""

    character: str | None = None
    advantage: bool = False
    disadvantage: bool = False


class ContestOptions(NamedTuple):
    """What `/sinew opposed` was asked (the defending player by id, as the log keeps it)."""

    attribute: str
    vs_score: int | None = None
    vs_user: int | None = None
    vs_attribute: str | None = None
    advantage: bool = False
    disadvantage: bool = False
    character: str | None = None


class AttackOptions(NamedTuple):
    """What `/sinew attack` was asked (``armour`` None: the defending character's)."""

    attribute: str
    edge: str
    vs_score: int | None = None
    vs_user: int | None = None
    vs_attribute: str | None = None
    explosive: bool = False
    armour: int | None = None
    advantage: bool = False
    disadvantage: bool = False
    character: str | None = None


assert DEFENDER_OPTION in ContestOptions._fields and DEFENDER_OPTION in AttackOptions._fields


class Contender(NamedTuple):
    """One side of a contest: its name as shown, score, mode flags and why."""

    name: str
    score: int
    advantage: bool
    disadvantage: bool
    reasons: tuple[str, ...] = ()


def _side(
    name: str,
    score: int,
    attribute: sinew.Score | None,
    advantage: bool,
    disadvantage: bool,
    items: int = 0,
) -> Contender:
    decision = sinew.effective_mode(
        attribute, advantage=advantage, disadvantage=disadvantage, items_carried=items
    )
    return Contender(
        name,
        score,
        decision.mode is sinew.Mode.ADVANTAGE,
        decision.mode is sinew.Mode.DISADVANTAGE,
        decision.reasons,
    )


TEST_HELP = {
    "advantage": "Roll 2d20 and keep the lower (cancels disadvantage)",
    "disadvantage": "Roll 2d20 and keep the higher (cancels advantage)",
    "character": "GMs: the character to roll for, by name (default: your own)",
    "hidden": HIDDEN_HELP,
}
CONTEST_HELP = {
    "blind": BLIND_HELP,
    "attribute": "Your attribute (LCK rolls under your Luck tokens)",
    "vs_score": f"The defender's score, {SCORE_HELP} (or give vs_user and vs_attribute)",
    "vs_user": "The defending player, whose character's vs_attribute is used",
    "vs_attribute": "The defending character's attribute (with vs_user)",
    "advantage": "You roll 2d20 and keep the lower",
    "disadvantage": "You roll 2d20 and keep the higher",
    "character": "GMs: the attacking character, by name (default: your own)",
    "hidden": HIDDEN_HELP,
}


class SinewCog(commands.GroupCog, group_name="sinew", group_description="Sinew & Steel"):
    """Sinew & Steel: roll-under d20 with Luck, Stamina and a creation ledger."""

    character = app_commands.Group(name="character", description="Create and show characters")
    luck = app_commands.Group(name="luck", description="Luck tests")
    item = app_commands.Group(name="item", description="Substantial items carried")
    pressure = app_commands.Group(
        name="pressure", description="Pressure: the party's track and each character's (0-5)"
    )

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.storage = bot.storage
        self.characters: CharacterStore[Sheet] = CharacterStore(
            bot.storage.database, sinew.SHEET_CODEC
        )
        self.luck_store = LuckStore(bot.storage.database, sinew.SHEET_CODEC)  # type: ignore[arg-type]
        self.pressure_store = PressureStore(bot.storage.database, sinew.SHEET_CODEC)  # type: ignore[arg-type]
        pressure_table = load_table("sinew/pressure.toml", sinew_pressure.parse_pressure_table)
        self.texts = {
            skin: render_pressure.Texts(
                load_table(f"sinew/skins/{skin.value}.toml", sinew_pressure.parse_skin),
                pressure_table,
            )
            for skin in Skin
        }
        rerollers: dict[str, Callable[[discord.Interaction, Any, Visibility], Any]] = {
            TEST_KIND: lambda i, options, v: self.run_test(
                i, TestOptions(**options), **v.as_options()
            ),
            LUCK_KIND: lambda i, options, v: self.run_luck_test(
                i, LuckTestOptions(**options), **v.as_options()
            ),
            OPPOSED_KIND: lambda i, options, v: self.run_opposed(
                i, ContestOptions(**options), **v.as_options()
            ),
            ATTACK_KIND: lambda i, options, v: self.run_attack(
                i, AttackOptions(**options), **v.as_options()
            ),
        }
        for kind, reroller in rerollers.items():
            register_reroll(kind, reroller)

    # --- helpers

    async def _sinew_table(self, interaction: discord.Interaction) -> tuple[Table, Campaign]:
        table = await Table.of(interaction, self.storage)
        return table, table.require_campaign(System.SINEW)

    async def _update(
        self, character: Character[Sheet], change: Callable[[Sheet], Sheet]
    ) -> tuple[Character[Sheet], Character[Sheet]]:
        changed = await self.characters.update(character, change)
        return changed.before, changed.after

    # --- characters

    @character.command(name="create", description="Create your character (the ledger must balance)")
    @app_commands.rename(
        strength="str",
        reflex="ref",
        intellect="int",
        empathy="emp",
        luck_score="lck",
        stamina="sta",
    )
    @app_commands.describe(
        name=CHARACTER_NAME_HELP,
        strength="Strength, baseline 10, 6–16",
        reflex="Reflex, baseline 10, 6–16",
        intellect="Intellect, baseline 10, 6–16",
        empathy="Empathy, baseline 10, 6–16",
        luck_score="Luck, baseline 10, 6–16 (also your Luck token cap)",
        stamina="Stamina, baseline 5, 3–9",
        armour=f"Armour soak, {sinew.ARMOUR_MIN}–{sinew.ARMOUR_MAX} (default 0)",
    )
    async def character_create(
        self,
        interaction: discord.Interaction,
        name: CharacterName,
        strength: AttributeScore,
        reflex: AttributeScore,
        intellect: AttributeScore,
        empathy: AttributeScore,
        luck_score: AttributeScore,
        stamina: StaminaScore,
        armour: Armour = 0,
    ) -> None:
        table, campaign = await self._sinew_table(interaction)
        name = given_name(name, "your character")
        sheet = sinew.create_sheet(
            strength=strength,
            reflex=reflex,
            intellect=intellect,
            empathy=empathy,
            luck=luck_score,
            stamina=stamina,
            armour=armour,
        )
        created = await self.characters.create(campaign, table.user_id, name, sheet)
        embed = render.character_sheet(created, 0, interaction.user.display_name)
        await interaction.response.send_message(embed=embed)

    @character.command(name="sheet", description="Show a character sheet (private reply)")
    @app_commands.describe(user="Whose character (default: yours)")
    async def character_sheet(
        self, interaction: discord.Interaction, user: discord.Member | None = None
    ) -> None:
        _, campaign = await self._sinew_table(interaction)
        owner = user or interaction.user
        found = await self.characters.find(campaign, user_id=owner.id)
        pressure = await self.storage.tracks.value(
            campaign, sinew.PRESSURE.name, character_id=found.id
        )
        embed = render.character_sheet(found, pressure, owner.display_name)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    # --- tests

    @roll_command
    @app_commands.command(name="test", description="Roll a d20 under an attribute")
    @app_commands.describe(
        attribute="The attribute to test (LCK rolls under your tokens)",
        blind=BLIND_HELP,
        **TEST_HELP,
    )
    @app_commands.choices(attribute=_attribute_choices())
    async def test(
        self,
        interaction: discord.Interaction,
        attribute: str,
        advantage: bool = False,
        disadvantage: bool = False,
        character: CharacterName | None = None,
        hidden: bool = False,
        blind: bool = False,
    ) -> None:
        options = TestOptions(attribute, advantage, disadvantage, character)
        await self.run_test(interaction, options, hidden=hidden, blind=blind)

    async def run_test(
        self,
        interaction: discord.Interaction,
        options: TestOptions,
        *,
        hidden: bool = False,
        blind: bool = False,
    ) -> None:
        """Roll an attribute test: the command and its Roll again button."""
        table, campaign = await self._sinew_table(interaction)
        visibility = table.visibility(hidden=hidden, blind=blind)
        attribute = _attribute(options.attribute)
        who = await table.own_or_named(self.characters, campaign, options.character, "roll")
        result = sinew.attribute_test(
            self.bot.rng,
            who.sheet,
            attribute,
            advantage=options.advantage,
            disadvantage=options.disadvantage,
        )
        what = f"{attribute.value} test"
        embed = render.test_result(result, who.name, what, _score_label(attribute))
        roll = Roll(TEST_KIND, result, embed, options=options._asdict())
        await self._publish_test(interaction, table, campaign, roll, who, what, visibility)

    async def _publish_test(
        self,
        interaction: discord.Interaction,
        table: Table,
        campaign: Campaign,
        roll: Roll,
        who: Character[Sheet],
        what: str,
        visibility: Visibility,
    ) -> None:
        """Publish a test with its Luck buttons; announce a natural 1 or 20 when public."""
        result = roll.result
        assert isinstance(result, sinew.TestResult)
        natural = result.natural_one or result.natural_twenty
        loud = render.natural_announcement(result, who.name, what) if natural else None
        await self._publish_with_luck(
            interaction, table, campaign, roll, who, visibility, natural=loud
        )

    async def _publish_with_luck(
        self,
        interaction: discord.Interaction,
        table: Table,
        campaign: Campaign,
        roll: Roll,
        who: Character[Sheet],
        visibility: Visibility,
        change: StateChange[Character[Sheet]] | None = None,
        *,
        natural: discord.Embed | None = None,
    ) -> None:
        """Publish a roll its roller may spend Luck on, with the Luck buttons that help."""
        pressure = await self.luck_store.pressure(campaign, who.id)
        result: Spendable = roll.result  # type: ignore[assignment]

        def luck_buttons(roll_id: int) -> list[discord.ui.Item[discord.ui.View]]:
            return list(_luck_buttons(roll_id, result, pressure, who.sheet.luck_tokens))

        await publish_roll(
            interaction,
            self.storage,
            table,
            roll,
            visibility,
            change=change,
            extra_buttons=luck_buttons,
            natural=natural,
        )

    @roll_command
    @luck.command(name="test", description="Roll a d20 under your current Luck tokens")
    @app_commands.describe(
        character=TEST_HELP["character"],
        hidden=HIDDEN_HELP,
        blind=BLIND_HELP,
        **{key: TEST_HELP[key] for key in ("advantage", "disadvantage")},
    )
    async def luck_test(
        self,
        interaction: discord.Interaction,
        character: CharacterName | None = None,
        advantage: bool = False,
        disadvantage: bool = False,
        hidden: bool = False,
        blind: bool = False,
    ) -> None:
        options = LuckTestOptions(character, advantage, disadvantage)
        await self.run_luck_test(interaction, options, hidden=hidden, blind=blind)

    async def run_luck_test(
        self,
        interaction: discord.Interaction,
        options: LuckTestOptions,
        *,
        hidden: bool = False,
        blind: bool = False,
    ) -> None:
        """Roll under the current Luck tokens: the command and its Roll again button."""
        table, campaign = await self._sinew_table(interaction)
        visibility = table.visibility(hidden=hidden, blind=blind)
        who = await table.own_or_named(self.characters, campaign, options.character, "roll")
        result = sinew.luck_test(
            self.bot.rng,
            who.sheet.luck_tokens,
            advantage=options.advantage,
            disadvantage=options.disadvantage,
        )
        what = "Luck test"
        embed = render.test_result(result, who.name, what, "Luck tokens")
        roll = Roll(LUCK_KIND, result, embed, options=options._asdict())
        await self._publish_test(interaction, table, campaign, roll, who, what, visibility)

    @roll_command
    @luck.command(name="spend", description="Spend Luck tokens to lower your latest roll's die")
    @app_commands.describe(
        tokens=f"How far to lower the die, 1–{sinew.Score.LCK.maximum} (1 token each; +1 per "
        f"spend at Pressure {sinew.LUCK_SURCHARGE_STEP}+)"
    )
    async def luck_spend(
        self,
        interaction: discord.Interaction,
        tokens: app_commands.Range[int, 1, sinew.Score.LCK.maximum],
    ) -> None:
        table, campaign = await self._sinew_table(interaction)
        spent = await self._spend(table, campaign, tokens)
        logged = spent.logged
        embed = discord.Embed.from_dict(logged.payload["embed"])
        try:
            await deliver_roll(
                interaction, table, logged.id, logged.visibility, embed, view=spent.view
            )
        finally:  # the spend is saved: the channel hears it even if the reply is lost
            await spent.announce(interaction)

    async def press_luck(
        self, interaction: discord.Interaction, roll_id: int, tokens: int | None
    ) -> None:
        """A Luck button under a roll: spend on it and edit the message in place."""
        table, campaign = await self._sinew_table(interaction)
        try:
            spent = await self._spend(table, campaign, tokens, roll_id=roll_id)
        except RollSuperseded as error:
            # Only the roller's own latest roll can match, so check who pressed only now.
            named = await self.storage.rolls.get(roll_id)
            if named is None:
                raise RollNotFound(roll_id) from None
            if named.user_id != table.user_id:
                raise CommandError(
                    f"Only <@{named.user_id}>, who made roll #{roll_id}, can spend Luck on it."
                ) from None
            await interaction.response.edit_message(view=None)
            await interaction.followup.send(f"❌ {describe(error)}", ephemeral=True)
            return
        logged = spent.logged
        embed = discord.Embed.from_dict(logged.payload["embed"])
        try:
            await deliver_roll(
                interaction, table, logged.id, logged.visibility, embed, view=spent.view, edit=True
            )
        finally:  # the spend is saved: the channel hears it even if the edit is lost
            await spent.announce(interaction)

    async def _spend(
        self, table: Table, campaign: Campaign, tokens: int | None, *, roll_id: int | None = None
    ) -> SpendShown:
        """Spend Luck on the latest roll (``tokens`` None: what turns or wins it), in one
        transaction with the damage it adds to a defending character."""
        pressures: list[int] = []

        def apply(context: LuckContext) -> LuckApplied:
            pressures.append(context.pressure)
            logged, who = context.roll, context.roller
            assert isinstance(who.sheet, Sheet)
            result = _logged_result(logged)
            lowered = _tokens_that_help(result) if tokens is None else tokens
            moved = _lowered(result, lowered)
            cost = sinew.luck_cost(lowered, context.pressure)
            if who.sheet.luck_tokens < cost:
                raise RulesError(
                    f"Lowering the die by {lowered} costs {cost} Luck token"
                    f"{'s' if cost != 1 else ''}; {who.name} has {who.sheet.luck_tokens}."
                )
            sheet = replace(who.sheet, luck_tokens=who.sheet.luck_tokens - cost)
            defender = context.defender
            hurt = None
            if isinstance(moved, sinew.AttackResult) and isinstance(result, sinew.AttackResult):
                extra = moved.damage_taken - result.damage_taken  # Luck only ever adds damage
                if defender is not None and extra > 0:
                    assert isinstance(defender.sheet, Sheet)
                    hurt = replace(defender, sheet=sinew.take_damage(defender.sheet, extra).sheet)
            options = logged.payload.get("options", {})
            embed = _after_luck_embed(logged.kind, options, moved, who.name, defender, hurt)  # type: ignore[arg-type]
            render.add_luck_spent(embed, lowered, cost, sheet)
            roll = Roll(logged.kind, moved, embed, options=options)
            return LuckApplied(
                sheet, roll.entry(table, logged.visibility), hurt.sheet if hurt else None
            )

        spent = await self.luck_store.spend(
            campaign, table.channel_id, table.user_id, SPENDABLE_KINDS, apply, roll_id=roll_id
        )
        logged = await self.storage.rolls.get(spent.roll_id)
        assert logged is not None
        held = spent.character.sheet.luck_tokens  # type: ignore[attr-defined]
        luck = _luck_buttons(spent.root_id, _logged_result(logged), pressures[-1], held)
        view = roll_buttons(logged.id, logged.kind, logged.visibility, extra=luck)
        collapse = None
        if spent.defender is not None:
            before, after = spent.defender
            if not before.sheet.collapsed and after.sheet.collapsed:  # type: ignore[attr-defined]
                collapse = render.collapse_announcement(after)  # type: ignore[arg-type]
        return SpendShown(logged, view, collapse)

    # --- odds

    @app_commands.command(name="odds", description="Exact chances of a test, with a chart")
    @app_commands.describe(
        score=f"The score rolled under, {SCORE_HELP}",
        advantage=TEST_HELP["advantage"],
        disadvantage=TEST_HELP["disadvantage"],
        vs_score=f"An opposing score, {SCORE_HELP}: adds the chance to win an opposed roll",
    )
    async def odds(
        self,
        interaction: discord.Interaction,
        score: TestScore,
        advantage: bool = False,
        disadvantage: bool = False,
        vs_score: TestScore | None = None,
    ) -> None:
        result = sinew.odds(score, advantage=advantage, disadvantage=disadvantage)
        versus = None
        if vs_score is not None:
            versus = sinew.opposed_odds(
                score,
                vs_score,
                attacker_advantage=advantage,
                attacker_disadvantage=disadvantage,
            )
        rows = sinew.luck_odds(
            score, sinew.Score.LCK.maximum, advantage=advantage, disadvantage=disadvantage
        )
        shown = [row for row in rows if row.tokens == 0 or row.gain > 0]
        png = await draw_chart(
            result.rolls,
            result.outcomes,
            title=f"Kept d20 under {score}",
            marker=score,
            marker_label=f"score {score}",
        )
        await interaction.response.send_message(
            embed=render.odds(result, versus, shown),
            file=discord.File(io.BytesIO(png), filename="odds.png"),
        )

    # --- sheet changes

    @app_commands.command(name="damage", description="Take Stamina from a character (GM)")
    @app_commands.describe(
        character="The character, by name",
        amount=f"Stamina lost, 1–{sinew.HEALTH_CHANGE_MAX}",
    )
    async def damage(
        self, interaction: discord.Interaction, character: CharacterName, amount: Amount
    ) -> None:
        await self._change_stamina(interaction, character, amount, sinew.take_damage, "takes")

    @app_commands.command(name="heal", description="Restore a character's Stamina (GM)")
    @app_commands.describe(
        character="The character, by name",
        amount=f"Stamina regained, 1–{sinew.HEALTH_CHANGE_MAX} (up to the STA score)",
    )
    async def heal(
        self, interaction: discord.Interaction, character: CharacterName, amount: Amount
    ) -> None:
        await self._change_stamina(interaction, character, amount, sinew.heal, "heals")

    async def _change_stamina(
        self,
        interaction: discord.Interaction,
        character: str,
        amount: int,
        rule: Callable[[Sheet, int], sinew.StaminaChange],
        verb: str,
    ) -> None:
        """Damage or heal a character (GM): one update, the new Stamina, a collapse announced."""
        table, campaign = await self._sinew_table(interaction)
        table.require_gm("deal damage" if verb == "takes" else "heal characters")
        found = await self.characters.find(campaign, name=character)
        before, after = await self._update(found, lambda sheet: rule(sheet, amount).sheet)
        before_stamina = before.sheet.current_stamina
        try:
            await interaction.response.send_message(
                embed=render.health(after, before_stamina, verb, amount)
            )
        finally:  # the change is saved: the channel hears a collapse even if the reply is lost
            if before_stamina > 0 and after.sheet.collapsed:
                await announce(interaction, render.collapse_announcement(after))

    @app_commands.command(
        name="rest", description="Rest: calm +1 Luck, short +1 or thorough +2 STA"
    )
    @app_commands.describe(
        kind="calm (+1 Luck token), short (+1 Stamina) or thorough care (+2 Stamina)",
        character="GMs: the character who rests, by name (default: your own)",
    )
    @app_commands.choices(kind=choices_of(sinew.Rest, lambda rest: rest.value.capitalize()))
    async def rest(
        self,
        interaction: discord.Interaction,
        kind: str,
        character: CharacterName | None = None,
    ) -> None:
        table, campaign = await self._sinew_table(interaction)
        chosen = parse_choice(sinew.Rest, kind, "kind")
        found = await table.own_or_named(self.characters, campaign, character, "rest")
        before, after = await self._update(found, lambda sheet: sinew.rest(sheet, chosen).sheet)
        embed = render.rested(
            after,
            chosen.value,
            after.sheet.luck_tokens - before.sheet.luck_tokens,
            after.sheet.current_stamina - before.sheet.current_stamina,
        )
        await interaction.response.send_message(embed=embed)

    @app_commands.command(
        name="milestone", description="Give a milestone: +2 build points, Luck refilled (GM)"
    )
    @app_commands.describe(character="The character, by name")
    async def milestone(self, interaction: discord.Interaction, character: CharacterName) -> None:
        table, campaign = await self._sinew_table(interaction)
        table.require_gm("give milestones")
        found = await self.characters.find(campaign, name=character)
        before, after = await self._update(found, lambda sheet: sinew.milestone(sheet).sheet)
        embed = render.milestone(
            after,
            after.sheet.build_points - before.sheet.build_points,
            after.sheet.luck_tokens - before.sheet.luck_tokens,
        )
        await interaction.response.send_message(embed=embed)

    @app_commands.command(name="advance", description="Spend 2 build points to raise a score")
    @app_commands.describe(score="The score to raise (+1, or +2 below baseline up to it)")
    @app_commands.choices(score=_score_choices())
    async def advance(self, interaction: discord.Interaction, score: str) -> None:
        table, campaign = await self._sinew_table(interaction)
        which = sinew.parse_score(score)
        found = await self.characters.find(campaign, user_id=table.user_id)
        before, after = await self._update(found, lambda sheet: sinew.advance(sheet, which).sheet)
        embed = render.advanced(
            after,
            which,
            before.sheet.score(which),
            after.sheet.score(which),
            before.sheet.build_points - after.sheet.build_points,
        )
        await interaction.response.send_message(embed=embed)

    @item.command(name="add", description="Carry one more substantial item")
    @app_commands.describe(name=f"The item (up to {sinew.ITEM_NAME_MAX} characters)")
    async def item_add(self, interaction: discord.Interaction, name: ItemName) -> None:
        table, campaign = await self._sinew_table(interaction)
        found = await self.characters.find(campaign, user_id=table.user_id)
        _, after = await self._update(found, lambda sheet: sinew.add_item(sheet, name))
        embed = render.items(after, f"added {name.strip()}")
        await interaction.response.send_message(embed=embed)

    @item.command(name="remove", description="Drop a carried item")
    @app_commands.describe(name="The item to drop (any case)")
    async def item_remove(self, interaction: discord.Interaction, name: ItemName) -> None:
        table, campaign = await self._sinew_table(interaction)
        found = await self.characters.find(campaign, user_id=table.user_id)
        _, after = await self._update(found, lambda sheet: sinew.remove_item(sheet, name))
        embed = render.items(after, f"dropped {name.strip()}")
        await interaction.response.send_message(embed=embed)

    @item.command(name="list", description="List your carried items (private reply)")
    async def item_list(self, interaction: discord.Interaction) -> None:
        table, campaign = await self._sinew_table(interaction)
        found = await self.characters.find(campaign, user_id=table.user_id)
        await interaction.response.send_message(embed=render.items(found), ephemeral=True)

    # --- Pressure

    async def _change_pressure(
        self,
        interaction: discord.Interaction,
        table: Table,
        campaign: Campaign,
        owner: Character[Sheet] | None,
        decide: Callable[[PressureRead], PressureMove],
    ) -> PressureShown:
        """Change a Pressure track in one transaction with what it brings (a test, a Crisis and
        its Stamina), and announce the change to the channel. Returns what was written."""
        texts = self.texts[campaign.settings.skin]
        moves: list[PressureMove] = []
        struck: list[tuple[Character[Sheet], Character[Sheet]]] = []
        owner_name = owner.name if owner is not None else render_pressure.PARTY

        def write(read: PressureRead) -> PressureWrite:
            move = decide(read)
            moves.append(move)
            struck.clear()
            saved = {c.id: c for c in read.characters}  # type: ignore[misc]
            if move.owner_sheet is not None and read.owner is not None:
                saved[read.owner.id] = replace(read.owner, sheet=move.owner_sheet)
            entries = list(move.entries)
            change = move.change
            if change is not None and change.crisis is not None:
                loss = sinew_pressure.crisis_stamina_loss(change.crisis)
                targets = [saved[read.owner.id]] if read.owner is not None else list(saved.values())
                for target in targets if loss else []:
                    hurt = replace(target, sheet=sinew.take_damage(target.sheet, loss).sheet)
                    struck.append((target, hurt))  # type: ignore[arg-type]
                    saved[target.id] = hurt
                embed = render_pressure.crisis_announcement(
                    owner_name,
                    change.crisis,
                    change.after,
                    texts,
                    [(b.name, b.sheet.current_stamina, a.sheet.current_stamina) for b, a in struck],
                )
                crisis = Roll(CRISIS_KIND, change.crisis, embed)
                entries.append(crisis.entry(table, Visibility.PUBLIC))  # announced, by the rules
            changed_ids = {a.id for _, a in struck}
            if move.owner_sheet is not None and read.owner is not None:
                changed_ids.add(read.owner.id)
            return PressureWrite(
                after=read.value if change is None else change.after,
                characters=tuple(saved[i] for i in changed_ids),
                entries=tuple(entries),
            )

        written = await self.pressure_store.change(
            campaign, write, character_id=owner.id if owner is not None else None
        )
        move = moves[-1]
        announcements = []
        if move.change is not None and move.change.reached != move.change.before:
            announcements.append(
                render_pressure.pressure_announcement(owner_name, move.change, texts, move.cause)
            )
        crisis_logged = None
        if move.change is not None and move.change.crisis is not None:
            crisis_logged = written.roll_ids[-1]
            crisis = await self.storage.rolls.get(crisis_logged)
            assert crisis is not None
            crisis_embed = discord.Embed.from_dict(crisis.payload["embed"])
            set_roll_footer(crisis_embed, crisis_logged, Visibility.PUBLIC)
            announcements.append(crisis_embed)
        announcements.extend(
            render.collapse_announcement(after)
            for before, after in struck
            if not before.sheet.collapsed and after.sheet.collapsed
        )
        return PressureShown(move, written.read.value, written.roll_ids, tuple(announcements))

    async def _pressure_owner(
        self, campaign: Campaign, character: str | None
    ) -> Character[Sheet] | None:
        """Return the named character, or None for the party's track."""
        if character is None:
            return None
        return await self.characters.find(campaign, name=character)

    @roll_command
    @pressure.command(name="add", description="Add Pressure; reaching 5 triggers a Crisis (GM)")
    @app_commands.describe(
        amount=f"Points to add, 1–{sinew_pressure.AMOUNT_MAX} (default 1)",
        character="The character, by name (default: the party's track)",
    )
    async def pressure_add(
        self,
        interaction: discord.Interaction,
        amount: PressureAmount = 1,
        character: CharacterName | None = None,
    ) -> None:
        table, campaign = await self._sinew_table(interaction)
        table.require_gm("add Pressure")
        owner = await self._pressure_owner(campaign, character)
        lingering = campaign.settings.get(sinew.LINGERING_TAINT)
        rng = self.bot.rng

        def decide(read: PressureRead) -> PressureMove:
            return PressureMove(
                sinew_pressure.add_pressure(rng, read.value, amount, lingering_taint=lingering)
            )

        shown = await self._change_pressure(interaction, table, campaign, owner, decide)
        await shown.confirm(interaction)

    @pressure.command(name="remove", description="Remove Pressure, down to 0 (GM)")
    @app_commands.describe(
        amount=f"Points to remove, 1–{sinew_pressure.AMOUNT_MAX} (default 1)",
        character="The character, by name (default: the party's track)",
    )
    async def pressure_remove(
        self,
        interaction: discord.Interaction,
        amount: PressureAmount = 1,
        character: CharacterName | None = None,
    ) -> None:
        table, campaign = await self._sinew_table(interaction)
        table.require_gm("remove Pressure")
        owner = await self._pressure_owner(campaign, character)

        def decide(read: PressureRead) -> PressureMove:
            sinew_pressure.require_pressure_to_purge(read.value)
            return PressureMove(sinew_pressure.remove_pressure(read.value, amount))

        shown = await self._change_pressure(interaction, table, campaign, owner, decide)
        await shown.confirm(interaction)

    @pressure.command(name="show", description="Show the party's and every character's Pressure")
    async def pressure_show(self, interaction: discord.Interaction) -> None:
        _, campaign = await self._sinew_table(interaction)
        party, steps = await self.pressure_store.values(campaign)
        characters = await self.characters.all(campaign)
        board = render_pressure.pressure_board(
            party,
            [(c.name, steps.get(c.id, sinew.PRESSURE.start)) for c in characters],
            self.texts[campaign.settings.skin],
        )
        await interaction.response.send_message(embed=board, ephemeral=True)

    @roll_command
    @app_commands.command(
        name="tamper", description="Tamper with forces beyond ken: a failed test adds +1 Pressure"
    )
    @app_commands.describe(
        attribute="The attribute to test (LCK rolls under your tokens)", **TEST_HELP
    )
    @app_commands.choices(attribute=_attribute_choices())
    async def tamper(
        self,
        interaction: discord.Interaction,
        attribute: str,
        advantage: bool = False,
        disadvantage: bool = False,
        character: CharacterName | None = None,
        hidden: bool = False,
    ) -> None:
        table, campaign = await self._sinew_table(interaction)
        visibility = table.visibility(hidden=hidden)
        which = _attribute(attribute)
        who = await table.own_or_named(self.characters, campaign, character, "tamper")
        lingering = campaign.settings.get(sinew.LINGERING_TAINT)
        options = TestOptions(attribute, advantage, disadvantage, character)._asdict()
        rng = self.bot.rng
        texts = self.texts[campaign.settings.skin]

        def decide(read: PressureRead) -> PressureMove:
            assert read.owner is not None and isinstance(read.owner.sheet, Sheet)
            result = sinew.attribute_test(
                rng, read.owner.sheet, which, advantage=advantage, disadvantage=disadvantage
            )
            what = f"{which.value} test to tamper"
            embed = render.test_result(result, who.name, what, _score_label(which))
            change = None
            if not result.success:
                change = sinew_pressure.add_pressure(rng, read.value, 1, lingering_taint=lingering)
            render.add_pressure_result(embed, change, _step_text(texts, change))
            entry = Roll(TAMPER_KIND, result, embed, options=options).entry(table, visibility)
            cause = f"{who.name} tampered with forces beyond ken, and failed."
            return PressureMove(change, entries=(entry,), cause=cause)

        shown = await self._change_pressure(interaction, table, campaign, who, decide)
        await self._show_pressure_roll(interaction, table, shown, visibility)

    @roll_command
    @app_commands.command(name="purge", description="Shed Pressure in downtime")
    @app_commands.describe(
        method="sacrifice (−1 to a score: −1 Pressure), rite (a test: success −1, once per "
        "downtime) or quest (GM: clears the track)",
        attribute="Sacrifice: the score to lower; rite: the attribute to test",
        character="GMs: whose track, by name (quest without it: the party's track)",
    )
    @app_commands.choices(
        method=choices_of(sinew_pressure.PurgeMethod, lambda m: m.value.capitalize()),
        attribute=_score_choices(),
    )
    async def purge(
        self,
        interaction: discord.Interaction,
        method: str,
        attribute: str | None = None,
        character: CharacterName | None = None,
    ) -> None:
        table, campaign = await self._sinew_table(interaction)
        chosen = parse_choice(sinew_pressure.PurgeMethod, method, "method")
        if chosen is sinew_pressure.PurgeMethod.QUEST:
            table.require_gm("clear Pressure with a story quest")
            owner = await self._pressure_owner(campaign, character)

            def clear(read: PressureRead) -> PressureMove:
                sinew_pressure.require_pressure_to_purge(read.value)
                cause = "A story quest is complete: the track is cleared."
                return PressureMove(
                    sinew_pressure.remove_pressure(read.value, read.value), cause=cause
                )

            shown = await self._change_pressure(interaction, table, campaign, owner, clear)
            await shown.confirm(interaction)
            return
        if attribute is None:
            raise CommandError(f"A {chosen.value} needs `attribute`: {PURGE_ATTRIBUTE[chosen]}.")
        which = sinew.parse_score(attribute)
        who = await table.own_or_named(self.characters, campaign, character, "purge")
        if chosen is sinew_pressure.PurgeMethod.SACRIFICE:

            def burn(read: PressureRead) -> PressureMove:
                assert read.owner is not None and isinstance(read.owner.sheet, Sheet)
                sinew_pressure.require_pressure_to_purge(read.value)
                sheet = sinew_pressure.sacrifice(read.owner.sheet, which)
                change = sinew_pressure.remove_pressure(read.value, sinew_pressure.PURGE_STEP)
                before = read.owner.sheet.score(which)
                cause = f"{who.name} sacrificed 1 {which.value} ({before} → {sheet.score(which)})."
                return PressureMove(change, owner_sheet=sheet, cause=cause)

            shown = await self._change_pressure(interaction, table, campaign, who, burn)
            await shown.confirm(interaction)
            return
        tested = _attribute(attribute)
        rng = self.bot.rng
        texts = self.texts[campaign.settings.skin]

        def rite(read: PressureRead) -> PressureMove:
            assert read.owner is not None and isinstance(read.owner.sheet, Sheet)
            sinew_pressure.require_pressure_to_purge(read.value)
            sheet = sinew_pressure.start_rite(read.owner.sheet)
            result = sinew.attribute_test(rng, sheet, tested)
            embed = render.test_result(
                result, who.name, f"{tested.value} cleansing rite", _score_label(tested)
            )
            change = None
            if result.success:
                change = sinew_pressure.remove_pressure(read.value, sinew_pressure.PURGE_STEP)
            render.add_pressure_result(embed, change, _step_text(texts, change))
            options = {"attribute": tested.value.lower(), "character": character}
            # Public by the rules: the Pressure it removes is announced.
            entry = Roll(RITE_KIND, result, embed, options=options).entry(table, Visibility.PUBLIC)
            cause = f"{who.name}'s cleansing rite succeeded."
            return PressureMove(change, owner_sheet=sheet, entries=(entry,), cause=cause)

        shown = await self._change_pressure(interaction, table, campaign, who, rite)
        await self._show_pressure_roll(interaction, table, shown, Visibility.PUBLIC)

    async def _show_pressure_roll(
        self,
        interaction: discord.Interaction,
        table: Table,
        shown: PressureShown,
        visibility: Visibility,
    ) -> None:
        """Show a tamper or rite test to its roller, then announce what it did to Pressure."""
        roll_id = shown.roll_ids[0]
        logged = await self.storage.rolls.get(roll_id)
        assert logged is not None
        embed = discord.Embed.from_dict(logged.payload["embed"])
        view = roll_buttons(roll_id, logged.kind, visibility)
        try:
            await deliver_roll(interaction, table, roll_id, visibility, embed, view=view)
        finally:  # the Pressure is saved: the channel hears it even if the reply is lost
            await shown.announce(interaction)

    # --- contests

    async def _contest_sides(
        self, table: Table, campaign: Campaign, options: ContestOptions | AttackOptions
    ) -> tuple[Contender, Contender, Character[Sheet], Character[Sheet] | None]:
        """Return both sides of a contest, the attacking character, and the defending one if
        it is a player's."""
        if (options.vs_score is None) == (options.vs_user is None):
            raise CommandError(
                "Name the defender once: give `vs_score`, or `vs_user` with `vs_attribute`."
            )
        attacking = _attribute(options.attribute)
        who = await table.own_or_named(self.characters, campaign, options.character, "roll")
        attacker = _side(
            who.name,
            _test_score(who.sheet, attacking),
            attacking,
            options.advantage,
            options.disadvantage,
            len(who.sheet.items),
        )
        if options.vs_user is None:
            if options.vs_attribute is not None:
                raise CommandError("`vs_attribute` goes with `vs_user`; with `vs_score` omit it.")
            assert options.vs_score is not None
            return attacker, _side(DEFENDER, options.vs_score, None, False, False), who, None
        if options.vs_attribute is None:
            raise CommandError("With `vs_user`, say which attribute defends: `vs_attribute`.")
        defending = _attribute(options.vs_attribute)
        target = await self.characters.find(campaign, user_id=options.vs_user)
        if target.id == who.id:
            raise CommandError("A character can't oppose itself; name another defender.")
        defender = _side(
            target.name,
            _test_score(target.sheet, defending),
            defending,
            False,
            False,
            len(target.sheet.items),
        )
        return attacker, defender, who, target

    @roll_command
    @app_commands.command(
        name="opposed", description="Roll under your attribute against a defender"
    )
    @app_commands.describe(**CONTEST_HELP)
    @app_commands.choices(attribute=_attribute_choices(), vs_attribute=_attribute_choices())
    async def opposed(
        self,
        interaction: discord.Interaction,
        attribute: str,
        vs_score: TestScore | None = None,
        vs_user: discord.Member | None = None,
        vs_attribute: str | None = None,
        advantage: bool = False,
        disadvantage: bool = False,
        character: CharacterName | None = None,
        hidden: bool = False,
        blind: bool = False,
    ) -> None:
        defender = vs_user.id if vs_user is not None else None
        options = ContestOptions(
            attribute, vs_score, defender, vs_attribute, advantage, disadvantage, character
        )
        await self.run_opposed(interaction, options, hidden=hidden, blind=blind)

    async def run_opposed(
        self,
        interaction: discord.Interaction,
        options: ContestOptions,
        *,
        hidden: bool = False,
        blind: bool = False,
    ) -> None:
        """Roll an opposed test: the command and its Roll again button."""
        table, campaign = await self._sinew_table(interaction)
        visibility = table.visibility(hidden=hidden, blind=blind)
        attacker, defender, who, _ = await self._contest_sides(table, campaign, options)
        result = sinew.opposed(
            self.bot.rng,
            attacker.score,
            defender.score,
            attacker_advantage=attacker.advantage,
            attacker_disadvantage=attacker.disadvantage,
            defender_advantage=defender.advantage,
            defender_disadvantage=defender.disadvantage,
        )
        result = _with_reasons(result, attacker, defender)
        embed = render.opposed(result, attacker.name, defender.name)
        roll = Roll(OPPOSED_KIND, result, embed, options=options._asdict())
        await self._publish_with_luck(interaction, table, campaign, roll, who, visibility)

    @roll_command
    @app_commands.command(
        name="attack", description="Attack: an opposed roll, then damage and soak"
    )
    @app_commands.describe(
        **CONTEST_HELP,
        edge="The weapon's edge: light +0, standard +1, brutal +2 damage",
        explosive="Explosive or plasma: ignores 1 point of armour",
        armour=(
            f"The defender's armour, {sinew.ARMOUR_MIN}–{sinew.ARMOUR_MAX} "
            "(default: the defending character's, else 0)"
        ),
    )
    @app_commands.choices(
        attribute=_attribute_choices(),
        vs_attribute=_attribute_choices(),
        edge=choices_of(sinew.Edge, lambda edge: edge.value.capitalize()),
    )
    async def attack(
        self,
        interaction: discord.Interaction,
        attribute: str,
        edge: str,
        vs_score: TestScore | None = None,
        vs_user: discord.Member | None = None,
        vs_attribute: str | None = None,
        explosive: bool = False,
        armour: Armour | None = None,
        advantage: bool = False,
        disadvantage: bool = False,
        character: CharacterName | None = None,
        hidden: bool = False,
        blind: bool = False,
    ) -> None:
        defender = vs_user.id if vs_user is not None else None
        options = AttackOptions(
            attribute,
            edge,
            vs_score,
            defender,
            vs_attribute,
            explosive,
            armour,
            advantage,
            disadvantage,
            character,
        )
        await self.run_attack(interaction, options, hidden=hidden, blind=blind)

    async def run_attack(
        self,
        interaction: discord.Interaction,
        options: AttackOptions,
        *,
        hidden: bool = False,
        blind: bool = False,
    ) -> None:
        """Roll an attack, taking the damage from a defending character: the command and its
        Roll again button."""
        table, campaign = await self._sinew_table(interaction)
        visibility = table.visibility(hidden=hidden, blind=blind)
        chosen_edge = parse_choice(sinew.Edge, options.edge, "edge")
        attacker, defender, who, target = await self._contest_sides(table, campaign, options)
        armour = options.armour
        if armour is None:
            armour = target.sheet.armour if target is not None else 0
        result = sinew.attack(
            self.bot.rng,
            attacker.score,
            defender.score,
            edge=chosen_edge,
            armour=armour,
            explosive=options.explosive,
            attacker_advantage=attacker.advantage,
            attacker_disadvantage=attacker.disadvantage,
            defender_advantage=defender.advantage,
            defender_disadvantage=defender.disadvantage,
        )
        contest = _with_reasons(result.contest, attacker, defender)
        result = sinew.AttackResult(contest, chosen_edge, armour, options.explosive)
        embed = render.attack(result, attacker.name, defender.name)
        logged_options = options._replace(edge=chosen_edge.value)._asdict()
        roll = Roll(ATTACK_KIND, result, embed, options=logged_options)
        change = None
        if target is not None and result.damage_taken > 0:
            change = _damage_change(self.characters, target, result.damage_taken)
        await self._publish_with_luck(interaction, table, campaign, roll, who, visibility, change)


@dataclass(frozen=True, slots=True)
class PressureMove:
    """What one command does to a Pressure track, decided from the state read.

    ``change`` None: the track does not move (a passed tamper test, a failed rite).
    ``owner_sheet``: the track owner's new sheet (a sacrifice, a rite used). ``entries``: the
    rolls to log with it (the test). ``cause``: why, for the channel.
    """

    change: sinew_pressure.PressureChange | None
    owner_sheet: Sheet | None = None
    entries: tuple[Any, ...] = ()
    cause: str | None = None


@dataclass(frozen=True, slots=True)
class PressureShown:
    """A stored Pressure change ready to show: the move, the step before, the rolls logged,
    and the channel's announcements (the step, a Crisis, collapses)."""

    move: PressureMove
    before: int
    roll_ids: tuple[int, ...]
    announcements: tuple[discord.Embed, ...]

    async def announce(self, interaction: discord.Interaction) -> None:
        for embed in self.announcements:
            await announce(interaction, embed)

    async def confirm(self, interaction: discord.Interaction) -> None:
        """Tell the GM privately what changed; the channel hears it from the announcements."""
        change = self.move.change
        assert change is not None
        text = f"Pressure {change.before} → {change.reached}"
        if change.crisis is not None:
            text += f": Crisis! The track resets to {change.after}"
        try:
            await interaction.response.send_message(
                f"✅ {text}. Announced in the channel.", ephemeral=True
            )
        finally:  # the change is saved: the channel hears it even if the GM's reply is lost
            await self.announce(interaction)


PURGE_ATTRIBUTE = {
    sinew_pressure.PurgeMethod.SACRIFICE: "the score to lower by 1",
    sinew_pressure.PurgeMethod.RITE: "the attribute to test",
}


def _step_text(
    texts: render_pressure.Texts, change: sinew_pressure.PressureChange | None
) -> str | None:
    return None if change is None else texts.step(change.reached)


# What Luck can be spent on: a test, an opposed roll or an attack, as the roll log keeps it.
Spendable = sinew.TestResult | sinew.OpposedResult | sinew.AttackResult
DEFENDER = "Defender"  # a contest's defender named only by a score


@dataclass(frozen=True, slots=True)
class SpendShown:
    """A Luck spend ready to show: the roll it logged, its buttons, and what the channel hears
    (a defending character collapsing under the extra damage)."""

    logged: LoggedRoll
    view: discord.ui.View | None
    collapse: discord.Embed | None = None

    async def announce(self, interaction: discord.Interaction) -> None:
        if self.collapse is not None:
            await announce(interaction, self.collapse)


def _damage_change(
    characters: CharacterStore[Sheet], target: Character[Sheet], damage: int
) -> StateChange[Character[Sheet]]:
    """Return the state change of an attack's hit on a player's character, collapse announced."""
    collapsed_now: list[bool] = []

    def hurt(sheet: Sheet) -> Sheet:
        taken = sinew.take_damage(sheet, damage)
        collapsed_now.append(taken.newly_collapsed)
        return taken.sheet

    def collapse(after: Character[Sheet]) -> discord.Embed | None:
        return render.collapse_announcement(after) if collapsed_now[-1] else None

    return StateChange(
        apply=partial(characters.update, target, hurt),
        show=render.add_defender_stamina,
        announce=collapse,
    )


def _logged_result(logged: LoggedRoll) -> Spendable:
    """Rebuild the result of a roll Luck can be spent on from the roll log."""
    data = logged.payload["result"]
    if logged.kind == ATTACK_KIND:
        return sinew.AttackResult.from_dict(data)
    if logged.kind == OPPOSED_KIND:
        return sinew.OpposedResult.from_dict(data)
    return sinew.TestResult(**data)


def _lowered(result: Spendable, tokens: int) -> Spendable:
    """Return the roll with its roller's die lowered: the test's, or the attacker's."""
    if isinstance(result, sinew.TestResult):
        return sinew.spend_luck(result, tokens)
    return sinew.spend_luck(result, tokens, side=sinew.Side.ATTACKER)


def _tokens_needed(result: Spendable) -> int | None:
    """Return the tokens that turn a test or win a contest (0: it already does; None: can't)."""
    if isinstance(result, sinew.TestResult):
        return sinew.tokens_to_succeed(result)
    return sinew.tokens_to_win(result, sinew.Side.ATTACKER)


def _tokens_that_help(result: Spendable) -> int:
    """Return the tokens that turn a failed test or win a lost contest, or refuse."""
    needed = _tokens_needed(result)
    if needed == 0:
        raise RulesError("This roll already succeeds: there is no failure for Luck to turn.")
    if needed is None or needed > sinew.Score.LCK.maximum:
        raise RulesError("Luck can't turn this roll into a success: the die can't go that low.")
    return needed


def _after_luck_embed(
    kind: str,
    options: dict[str, Any],
    result: Spendable,
    roller: str,
    defender: Character[Sheet] | None,
    hurt: Character[Sheet] | None,
) -> discord.Embed:
    """Show a roll again after a Luck spend, as its command showed it."""
    if isinstance(result, sinew.TestResult):
        if kind == LUCK_KIND:
            what, label = "Luck test", "Luck tokens"
        else:
            attribute = _attribute(str(options.get("attribute")))
            what, label = f"{attribute.value} test", _score_label(attribute)
        return render.test_result(result, roller, f"{what} after Luck", label)
    defender_name = defender.name if defender is not None else DEFENDER
    if isinstance(result, sinew.OpposedResult):
        return render.opposed(result, roller, defender_name, title="⚔️ Opposed roll after Luck")
    embed = render.attack(result, roller, defender_name, title="🗡️ Attack after Luck")
    if defender is not None and result.damage_taken > 0:
        render.add_defender_stamina(embed, hurt or defender)
    return embed


def _luck_buttons(root_id: int, result: Spendable, pressure: int, held: int) -> list[LuckButton]:
    """Return the Luck buttons worth showing under a roll its roller can still change.

    Under a failed test or a lost opposed roll: Spend 1 Luck, and Spend N (what turns or wins
    it) when that is more than 1. Under an attack: each spend that gives a better result (a
    hit, more damage), among those the roller's ``held`` tokens pay for.
    """
    if isinstance(result, sinew.AttackResult):
        available = min(max(held - sinew.luck_surcharge(pressure), 0), sinew.Score.LCK.maximum)
        offers = sinew.attack_luck_offers(result, available)[:ATTACK_OFFERS_SHOWN]
        return [
            LuckButton(
                root_id,
                offer.tokens,
                render.attack_offer_label(
                    offer, sinew.luck_cost(offer.tokens, pressure), hit_now=result.hit
                ),
            )
            for offer in offers
        ]
    needed = _tokens_needed(result)
    if needed is None or needed == 0 or needed > sinew.Score.LCK.maximum:
        return []
    effect = "turns it" if isinstance(result, sinew.TestResult) else "wins it"
    one = render.luck_button_label(
        1, sinew.luck_cost(1, pressure), turns=effect if needed == 1 else None
    )
    buttons = [LuckButton(root_id, 1, one)]
    if needed > 1:
        label = render.luck_button_label(needed, sinew.luck_cost(needed, pressure), turns=effect)
        buttons.append(LuckButton(root_id, None, label))
    return buttons


class LuckButton(
    RollButton, template=rf"sinew:luck:(?P<roll_id>{ID_PATTERN}):(?P<tokens>[0-9]{{1,2}}|n)"
):
    """Under a failed test: its roller spends Luck on it (``tokens`` None: what turns it).

    Persistent: the roll spent on and the tokens are in the custom_id; the rest is read from the
    roll log and the sheet when pressed, in the same transaction as `/sinew luck spend`.
    """

    def __init__(self, roll_id: int, tokens: int | None, label: str = "Spend Luck") -> None:
        super().__init__(
            roll_id,
            discord.ui.Button(
                label=label,
                emoji="🍀",
                style=discord.ButtonStyle.success,
                custom_id=f"sinew:luck:{roll_id}:{'n' if tokens is None else tokens}",
            ),
        )
        self.tokens = tokens

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
    ) -> LuckButton:
        tokens = None if match["tokens"] == "n" else int(match["tokens"])
        return cls(int(match["roll_id"]), tokens, getattr(item, "label", None) or "Spend Luck")

    async def press(self, interaction: discord.Interaction, storage: Storage) -> None:
        cog = interaction.client.get_cog(SinewCog.__cog_name__)  # type: ignore[attr-defined]
        if not isinstance(cog, SinewCog):
            raise CommandError("Sinew & Steel is not loaded; try again in a moment.")
        await cog.press_luck(interaction, self.roll_id, self.tokens)


def _with_reasons(
    result: sinew.OpposedResult, attacker: Contender, defender: Contender
) -> sinew.OpposedResult:
    """Return the contest with each side's mode reasons (the carry limit) on its test."""
    return sinew.OpposedResult(
        attacker=replace(result.attacker, reasons=attacker.reasons),
        defender=replace(result.defender, reasons=defender.reasons),
    )


async def setup(bot: DiceBot) -> None:
    bot.add_dynamic_items(LuckButton)
    await bot.add_cog(SinewCog(bot))
