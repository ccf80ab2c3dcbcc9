"""`/sinew luck`: Luck tests, and spending Luck by command or by the buttons under a roll.

docs/players/sinew.md, "Rules notes" ("Who may spend Luck, on what", "Luck buttons show only what
helps"). What a spend costs and buys is ``rules.sinew.apply_luck``; which buttons to show is
``rules.sinew.luck_choices``; here the spend is stored in one transaction and shown.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from functools import partial
from itertools import chain
from typing import Any

import discord
from discord import app_commands

from bot.access import loaded_cog, postable_channel
from bot.asker import Asker
from bot.buttons import (
    RollButton,
    refresh_latest_buttons,
    register_latest_only,
    retired_view,
    roll_buttons,
    shown_messages,
)
from bot.errors import CommandError
from bot.options import BLIND_HELP, HIDDEN_HELP, CharacterName
from bot.publish import (
    Roll,
    StateChange,
    announce,
    deliver_roll,
    publish_roll,
    remember_message,
    roll_command,
    set_roll_footer,
)
from bot.render import sinew as render
from bot.render.errors import describe
from bot.storage import Campaign, Character, LoggedRoll, Storage, Visibility
from bot.storage.errors import RollNotFound
from bot.storage.sinew import (
    DEFENDER_OPTION,
    NPC_SCORE_OPTION,
    DefenderMovedOn,
    LuckApplied,
    LuckContext,
    LuckSpend,
    NoRollToSpendOn,
    RollSuperseded,
    luck_root,
)
from cogs.sinew.common import (
    COG_NAME,
    CONTEST_KINDS,
    DEFENDER,
    LUCK,
    LUCK_KIND,
    NPC,
    PRESSURE_TEST_KINDS,
    SPENDABLE_KINDS,
    TEST_HELP,
    LuckTestOptions,
    Sheet,
    SinewBase,
    contest_labels,
    note_luck_shown,
    score_label,
)
from cogs.sinew.luck_buttons import defender_buttons, luck_buttons
from rules import sinew


async def _buttons_now(interaction: discord.Interaction, logged: LoggedRoll) -> list[RollButton]:
    cog = loaded_cog(interaction, LuckCommands, COG_NAME, sinew.SYSTEM.display_name)
    return await cog.luck_buttons_now(logged)


# Luck spends only the roller's latest roll here: their next roll takes its Luck buttons off
# the message that shows it (the roll it spends on); a change of tokens or Pressure derives
# them anew (``bot.buttons.refresh_latest_buttons``).
for _kind in SPENDABLE_KINDS:
    register_latest_only(_kind, luck_root, _buttons_now)


@dataclass(frozen=True, slots=True)
class SpendShown:
    """A Luck spend ready to show: the roll it logged, its buttons, and what the channel hears
    (a defending character collapsing under the extra damage)."""

    logged: LoggedRoll
    view: discord.ui.View | None
    root_id: int  # the roll the spends started from: its message shows them all
    payer: Character[Sheet]  # whose tokens paid (their other buttons are derived anew)
    collapse: discord.Embed | None = None

    async def announce(self, interaction: discord.Interaction) -> None:
        if self.collapse is not None:
            await announce(interaction, self.collapse)


class LuckCommands(SinewBase):
    """Luck tests, Luck spends, and publishing a roll with the Luck buttons that help."""

    @roll_command
    @LUCK.command(name="test", description="Roll a d20 under your current Luck tokens")
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
        hidden: bool | None = None,
        blind: bool = False,
    ) -> None:
        options = LuckTestOptions(
            character=character, advantage=advantage, disadvantage=disadvantage
        )
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        await self.run_luck_test(interaction, options, visibility)

    async def run_luck_test(
        self,
        interaction: discord.Interaction,
        options: LuckTestOptions,
        visibility: Visibility,
    ) -> None:
        """Roll under the current Luck tokens: the command and its Roll again button."""
        asker, campaign = await self._for_roll(interaction, visibility)
        who = await asker.own_or_named(self.characters, campaign, options.character, "roll")
        result = sinew.luck_test(
            self.bot.rng,
            who.sheet.luck_tokens,
            advantage=options.advantage,
            disadvantage=options.disadvantage,
        )
        embed = render.test_result(result, who.name, "Luck test", "Luck tokens")
        roll = Roll(LUCK_KIND, result, embed, options=asdict(options))
        await self._publish_with_luck(interaction, asker, campaign, roll, who, visibility)

    async def _publish_with_luck(
        self,
        interaction: discord.Interaction,
        asker: Asker,
        campaign: Campaign,
        roll: Roll,
        who: Character[Sheet] | None,
        visibility: Visibility,
        change: StateChange[Character[Sheet]] | None = None,
        defender: Character[Sheet] | None = None,
    ) -> None:
        """Publish a roll its roller may spend Luck on, with the Luck buttons that help (``who``
        None: an NPC's roll, no roller's buttons; ``defender``: a player's character defending a
        contest, who gets their own buttons under a public roll). A natural 1 or 20 is in the roll's
        title, never announced apart (docs/players/index.md, "Buttons and announcements"). The
        roller's previous roll here loses its Luck buttons: they end with this roll (every roll does
        that, ``bot.buttons.retire_buttons``)."""
        result = roll.result
        assert isinstance(result, sinew.Spendable)  # a test, a contest or an attack
        rolled = [c.first_rolls for c in (who, defender) if c is not None]  # both sides' dice
        roll = replace(roll, first_rolls=tuple(chain.from_iterable(rolled)),
                       character_id=None if who is None else who.id)  # fmt: skip
        buttons = await self._luck_offers(campaign, result, who, defender, visibility)
        shown = self.bot.shown_messages
        note_luck_shown(shown, asker.channel_id, asker.user_id, visibility, who, defender)
        await publish_roll(
            interaction,
            self.storage,
            asker,
            roll,
            visibility,
            change=change,
            extra_buttons=buttons,
        )

    @roll_command
    @LUCK.command(name="spend", description="Spend Luck tokens to lower your latest roll's die")
    @app_commands.describe(
        tokens=f"How far to lower the die, 1–{sinew.Score.LCK.maximum} (1 token each; +1 per "
        f"spend at Pressure {sinew.LUCK_SURCHARGE_STEP}+)"
    )
    async def luck_spend(
        self,
        interaction: discord.Interaction,
        tokens: app_commands.Range[int, 1, sinew.Score.LCK.maximum],
    ) -> None:
        asker, campaign = await self._sinew_table(interaction)
        spent = await self._spend(asker, campaign, tokens)
        try:
            await _deliver_typed_spend(interaction, asker, self.storage, spent)
        finally:  # the spend is saved: the channel hears it even if the reply is lost
            await spent.announce(interaction)
        await self.refresh_luck(interaction, spent.payer)  # read again: a change meanwhile

    async def press_luck(
        self, interaction: discord.Interaction, roll_id: int, tokens: int | None
    ) -> None:
        """A Luck button under a roll: spend on it and edit the message in place."""
        asker, campaign = await self._sinew_table(interaction)
        try:
            spent = await self._spend(asker, campaign, tokens, roll_id=roll_id)
        except RollSuperseded as error:
            await self._refuse_superseded(interaction, asker, roll_id, error)
            return
        await _deliver_spend(interaction, asker, self.storage, spent)
        await self.refresh_luck(interaction, spent.payer)  # read again: a change meanwhile

    async def _refuse_superseded(
        self,
        interaction: discord.Interaction,
        asker: Asker,
        roll_id: int,
        error: RollSuperseded,
    ) -> None:
        """Refuse a press under a roll that is no longer its roller's latest, leaving Roll
        again only; only the roller's own latest roll can match, so who pressed is checked now."""
        named = await self.storage.rolls.get(roll_id)
        if named is None:
            raise RollNotFound(roll_id) from None
        if named.user_id != asker.user_id:
            raise CommandError(
                f"Only <@{named.user_id}>, who made roll #{roll_id}, can spend Luck on it."
            ) from None
        await interaction.response.edit_message(view=retired_view(named))
        await interaction.followup.send(f"❌ {describe(error)}", ephemeral=True)

    async def _refuse_moved_on(
        self, interaction: discord.Interaction, asker: Asker, error: DefenderMovedOn
    ) -> None:
        """Refuse a defender's press after they rolled again here, and take their buttons off
        the roll (its buttons derived anew; after a restart, only a press finds them)."""
        await interaction.response.send_message(f"❌ {describe(error)}", ephemeral=True)
        roll = await self.storage.rolls.get(error.roll_id)
        if roll is not None:
            await refresh_latest_buttons(interaction, self.storage, asker.channel_id, roll.user_id)

    async def _spend(
        self, asker: Asker, campaign: Campaign, tokens: int | None, *, roll_id: int | None = None
    ) -> SpendShown:
        """Spend Luck on the latest roll (``tokens`` None: what turns or wins it), in one
        transaction with the damage it adds to a defending character."""

        def apply(context: LuckContext) -> LuckApplied:
            return _applied(asker, context, tokens)

        try:
            spent = await self.luck_store.spend(
                campaign, asker.channel_id, asker.user_id, SPENDABLE_KINDS, apply, roll_id=roll_id
            )
        except NoRollToSpendOn as error:
            if error.kind in PRESSURE_TEST_KINDS:
                raise CommandError(render.NO_LUCK_ON_PRESSURE_TEST) from None
            raise
        return await self._spend_shown(campaign, spent)

    async def press_defender_luck(
        self, interaction: discord.Interaction, roll_id: int, tokens: int | None
    ) -> None:
        """A defender's Luck button under a contest: spend on their own die, edit in place."""
        asker, campaign = await self._sinew_table(interaction)

        def apply(context: LuckContext) -> LuckApplied:
            return _defender_applied(asker, context, tokens)

        try:
            spent = await self.luck_store.spend_as_defender(
                campaign, asker.channel_id, asker.user_id, CONTEST_KINDS, apply, roll_id=roll_id
            )
        except RollSuperseded as error:  # the roller rolled again: every Luck button is dead
            superseded = await self.storage.rolls.get(error.roll_id)
            view = None if superseded is None else retired_view(superseded)
            await interaction.response.edit_message(view=view)
            refusal = render.defender_luck_ended(error.roll_id)
            await interaction.followup.send(f"❌ {refusal}", ephemeral=True)
            return
        except DefenderMovedOn as error:  # they rolled again: their own buttons are gone
            await self._refuse_moved_on(interaction, asker, error)
            return
        shown = await self._spend_shown(campaign, spent)
        await _deliver_spend(interaction, asker, self.storage, shown)
        await self.refresh_luck(interaction, shown.payer)  # the defender's own latest roll

    async def _luck_offers(
        self,
        campaign: Campaign,
        result: sinew.Spendable,
        roller: Character[Sheet] | None,
        defender: Character[Sheet] | None,
        visibility: Visibility,
    ) -> Callable[[int], list[RollButton]]:
        """Return the Luck buttons under a roll, from the id of the roll spent on: the roller's
        (None: an NPC), and a defending player's own under a public contest."""
        offers: list[Callable[[int], Sequence[RollButton]]] = []
        if roller is not None:
            step = await self.luck_store.pressure(campaign, roller.id)  # prices the spends
            held = roller.sheet.luck_tokens
            offers.append(partial(luck_buttons, result=result, pressure=step, held=held))
        contest = not isinstance(result, sinew.TestResult)
        if defender is not None and contest and visibility is Visibility.PUBLIC:
            step = await self.luck_store.pressure(campaign, defender.id)
            offers.append(
                partial(defender_buttons, result=result, pressure=step, defender=defender)
            )
        return lambda root: [button for offer in offers for button in offer(root)]

    async def _spend_shown(self, campaign: Campaign, spent: LuckSpend) -> SpendShown:
        """Return a stored spend's roll, its buttons, and a defender's collapse to announce."""
        logged = await self.storage.rolls.get(spent.roll_id)
        assert logged is not None
        extra = await self.luck_buttons_now(logged)
        view = roll_buttons(logged.id, logged.kind, logged.visibility, extra=extra)
        collapse = None
        if spent.defender is not None:
            before, after = spent.defender
            if not before.sheet.collapsed and after.sheet.collapsed:
                collapse = render.collapse_announcement(after)
        return SpendShown(logged, view, spent.root_id, spent.character, collapse)

    async def luck_buttons_now(self, logged: LoggedRoll) -> list[RollButton]:
        """Return the Luck buttons under ``logged`` (its roller's latest roll here, or a spend on
        it) from what is stored now, as a roll shows them: the roller's, and a defending player's
        own until they roll again here (docs/players/index.md, "Buttons and announcements")."""
        campaign = await self.storage.campaigns.active(logged.channel_id)
        if campaign is None or campaign.id != logged.campaign_id:
            return []
        root_id, options = luck_root(logged), logged.options
        roller = None
        if options.get(NPC_SCORE_OPTION) is None:
            roller = await self.characters.roller(campaign, logged.user_id, logged.payload)
        defender, defending = None, options.get(DEFENDER_OPTION)
        if isinstance(defending, int):
            mine = await self.storage.rolls.latest(logged.channel_id, defending)
            if mine is None or mine.id < root_id or luck_root(mine) == root_id:  # not moved on
                defender = await self.character_or_none(campaign, defending, None)
        note_luck_shown(
            self.bot.shown_messages,
            logged.channel_id,
            logged.user_id,
            logged.visibility,
            roller,
            defender,
        )
        result = logged_result(logged)
        offers = await self._luck_offers(campaign, result, roller, defender, logged.visibility)
        return offers(root_id)


async def _deliver_spend(
    interaction: discord.Interaction, asker: Asker, storage: Storage, spent: SpendShown
) -> None:
    """Show a spend made by a button in place under it, then announce a defender's collapse.
    A newer spend on the roll already shown stays (it includes this one): the spender is told
    privately."""
    logged, message = spent.logged, interaction.message
    embed = discord.Embed.from_dict(logged.embed_data)
    try:
        # One edit at a time, as typed spends.
        async with shown_messages(interaction).editing(message.id if message else 0):
            latest = await storage.rolls.latest(logged.channel_id, logged.user_id)
            if latest and message and latest.id > logged.id and luck_root(latest) == spent.root_id:
                note = render.luck_spent_in_place(spent.root_id, latest.id, message.jump_url)
                await interaction.response.send_message(note, ephemeral=True)
                return
            await deliver_roll(
                interaction, asker, logged.id, logged.visibility, embed, view=spent.view, edit=True
            )
    finally:  # the spend is saved: the channel hears it even if the reply is lost
        await spent.announce(interaction)


async def _deliver_typed_spend(
    interaction: discord.Interaction, asker: Asker, storage: Storage, spent: SpendShown
) -> None:
    """Show a typed spend where the roll is: its public message is edited in place (buttons
    re-derived) and the spender answered privately. A secret roll, or a message that can't be edited
    (deleted, in another thread), gets the roll anew, remembered so that the next spend edits that
    copy (docs/players/index.md, "Buttons and announcements")."""
    logged = spent.logged
    embed = discord.Embed.from_dict(logged.embed_data)
    # Typed at once: the roll's message may still be being sent.
    await shown_messages(interaction).until_shown(spent.root_id)
    root = await storage.rolls.get(spent.root_id)
    channel = postable_channel(interaction)
    if logged.visibility is Visibility.PUBLIC and root and root.message_id and channel:
        set_roll_footer(embed, logged.id, logged.visibility)
        message = channel.get_partial_message(root.message_id)
        try:
            # A later spend's edit is the one that stays.
            async with shown_messages(interaction).editing(root.message_id):
                latest = await storage.rolls.latest(logged.channel_id, logged.user_id)
                if latest is not None and latest.id == logged.id:
                    await message.edit(embed=embed, view=spent.view)
        except discord.HTTPException:
            pass
        else:
            note = render.luck_spent_in_place(spent.root_id, logged.id, message.jump_url)
            await interaction.response.send_message(note, ephemeral=True)
            return
    message_id = await deliver_roll(
        interaction, asker, logged.id, logged.visibility, embed, view=spent.view
    )
    await remember_message(storage, spent.root_id, message_id)


def _applied(asker: Asker, context: LuckContext, tokens: int | None) -> LuckApplied:
    """Return what a spend writes, from what it read: the rules decide, this renders."""
    logged, who, defender = context.roll, context.roller, context.defender
    assert isinstance(who.sheet, Sheet)
    assert defender is None or isinstance(defender.sheet, Sheet)
    decided = sinew.luck_consequences(
        logged_result(logged),
        who.sheet,
        tokens,
        pressure=context.pressure,
        roller=who.name,
        defender=defender.sheet if defender is not None else None,
    )
    spent = decided.spent
    hurt = replace(defender, sheet=decided.hurt) if defender and decided.hurt else None
    options = logged.options
    embed = _after_luck_embed(logged.kind, options, spent.after, who.name, defender, hurt)
    render.add_luck_spent(embed, spent.shift, spent.cost, decided.payer)
    roll = Roll(logged.kind, spent.after, embed, options=options)
    return LuckApplied(decided.payer, roll.entry(asker, logged.visibility), decided.hurt)


def _defender_applied(asker: Asker, context: LuckContext, tokens: int | None) -> LuckApplied:
    """Return what a defender's spend writes: their sheet (tokens paid, and the Stamina a hit
    turned into a miss took given back) and the roll after it, shown as the roller's."""
    logged, payer = context.roll, context.roller
    assert isinstance(payer.sheet, Sheet)
    decided = sinew.luck_consequences(
        logged_result(logged),
        payer.sheet,
        tokens,
        pressure=context.pressure,
        roller=payer.name,
        side=sinew.Side.DEFENDER,
    )
    spent, back = decided.spent, decided.spent.stamina_given_back
    after = replace(payer, sheet=decided.payer)
    options = logged.options
    attacker = context.attacker.name if context.attacker is not None else NPC
    embed = _after_luck_embed(logged.kind, options, spent.after, attacker, after, after)
    render.add_luck_spent(
        embed, spent.shift, spent.cost, decided.payer, payer=payer.name, given_back=back
    )
    roll = Roll(logged.kind, spent.after, embed, options=options)
    return LuckApplied(decided.payer, roll.entry(asker, logged.visibility))


def logged_result(logged: LoggedRoll) -> sinew.Spendable:
    """Rebuild the result of a roll Luck can be spent on from the roll log, as its kind reads it."""
    result: sinew.Spendable = logged.decoded()
    return result


def _after_luck_embed(
    kind: str,
    options: dict[str, Any],
    result: sinew.Spendable,
    roller: str,
    defender: Character[Sheet] | None,
    hurt: Character[Sheet] | None,
) -> discord.Embed:
    """Show a roll again after a Luck spend, as its command showed it."""
    if isinstance(result, sinew.TestResult):
        if kind == LUCK_KIND:
            what, label = "Luck test", "Luck tokens"
        else:
            attribute = sinew.parse_attribute(str(options.get("attribute")))
            what, label = f"{attribute.value} test", score_label(attribute)
        return render.test_result(result, roller, f"{what} after Luck", label)
    defender_name = defender.name if defender is not None else DEFENDER
    npc = options.get(NPC_SCORE_OPTION) is not None
    labels = contest_labels(
        str(options.get("attribute")),
        options.get("vs_attribute"),
        npc=npc,
        defender_npc=options.get("vs_score") is not None,
    )
    if isinstance(result, sinew.OpposedResult):
        what = "opposed roll after Luck"
        return render.opposed(result, roller, defender_name, what=what, labels=labels)
    embed = render.attack(result, roller, defender_name, what="attack after Luck", labels=labels)
    if defender is not None and (result.damage_taken > 0 or hurt is not None):
        render.add_defender_stamina(embed, hurt or defender)
    return embed
