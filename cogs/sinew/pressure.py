"""`/sinew pressure`, `tamper` and `purge`: the Pressure tracks and what a Crisis does.

docs/players/sinew.md, "Pressure and Crisis". The rules decide each move
(``rules.sinew_pressure``); a change, its test, its Crisis and the Stamina the Crisis takes are
written in one transaction, then the channel hears the change, any Crisis and any collapse.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

import discord
from discord import app_commands

from bot.asker import Asker
from bot.buttons import roll_buttons
from bot.errors import CommandError
from bot.options import CharacterName, choices_of
from bot.publish import (
    Roll,
    announce,
    roll_command,
    set_roll_footer,
    show_logged_roll,
)
from bot.render import sinew as render
from bot.render import sinew_pressure as render_pressure
from bot.storage import Campaign, Character, Visibility
from bot.storage.sinew import PressureRead, PressureWrite, PressureWritten
from cogs.sinew.common import (
    PRESSURE,
    RITE_KIND,
    TAMPER_KIND,
    TEST_HELP,
    PressureAmount,
    Sheet,
    SinewBase,
    TestOptions,
    attribute_choices,
    score_choices,
    score_label,
)
from rules import sinew, sinew_pressure
from rules.choices import parse_choice
from rules.randomness import Rng
from rules.sinew.kinds import CRISIS_KIND

Method = sinew_pressure.PurgeMethod
# Each way to shed Pressure, as the choice says it: what it costs and what it sheds.
PURGE_CHOICES = {
    Method.SACRIFICE: "Sacrifice: −1 to a score, −1 Pressure",
    Method.RITE: "Rite: a test; success −1 Pressure",
    Method.QUEST: "Quest (GM): clears the track",
}
PURGE_ATTRIBUTE = {
    Method.SACRIFICE: "the score to lower by 1",
    Method.RITE: "the attribute to test",
}
# A character before and after a Crisis took its Stamina.
Struck = tuple[Character[Sheet], Character[Sheet]]


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
class Decided:
    """A move and what it writes: the track, the characters, the rolls; and who the Crisis
    struck (before and after)."""

    move: PressureMove
    write: PressureWrite
    struck: tuple[Struck, ...] = ()


@dataclass(frozen=True, slots=True)
class PressureShown:
    """A stored Pressure change ready to show: the move, the step before, the rolls logged,
    and the channel's announcements (the step, a Crisis, collapses)."""

    move: PressureMove
    before: int
    roll_ids: tuple[int, ...]
    announcements: tuple[discord.Embed, ...]
    # Derives anew the Luck buttons the change prices (every character's on the party track).
    refresh: Callable[[discord.Interaction], Awaitable[None]]

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
        await self.refresh(interaction)


@dataclass(frozen=True, slots=True, kw_only=True)
class Tampering:
    """A tamper, decided in the transaction that reads the track: the test, logged as asked,
    and +1 Pressure when it fails."""

    rng: Rng
    asker: Asker
    who: Character[Sheet]
    attribute: sinew.Score
    options: TestOptions
    visibility: Visibility
    lingering_taint: bool
    texts: render_pressure.Texts

    def __call__(self, read: PressureRead) -> PressureMove:
        assert read.owner is not None and isinstance(read.owner.sheet, Sheet)
        tampered = sinew_pressure.tamper(
            self.rng,
            read.owner.sheet,
            read.value,
            self.attribute,
            advantage=self.options.advantage,
            disadvantage=self.options.disadvantage,
            lingering_taint=self.lingering_taint,
        )
        what = f"{self.attribute.value} test to tamper"
        embed = _test_embed(tampered, self.who.name, what, self.attribute, self.texts, read.value)
        roll = Roll(
            TAMPER_KIND,
            tampered.result,
            embed,
            options=asdict(self.options),
            first_rolls=self.who.first_rolls,
        )
        cause = f"{self.who.name} tampered with forces beyond ken, and failed."
        entries = (roll.entry(self.asker, self.visibility),)
        return PressureMove(tampered.change, entries=entries, cause=cause)


class PressureCommands(SinewBase):
    """The Pressure tracks: GM changes, the board, tampering and purging."""

    async def _change_pressure(
        self,
        interaction: discord.Interaction,
        asker: Asker,
        campaign: Campaign,
        owner: Character[Sheet] | None,
        decide: Callable[[PressureRead], PressureMove],
    ) -> PressureShown:
        """Change a Pressure track in one transaction with what it brings (a test, a Crisis and
        its Stamina); return what was written and what the channel hears."""
        texts = self.texts[campaign.settings.get(sinew.SKIN)]
        owner_name = owner.name if owner is not None else render_pressure.PARTY
        decided: list[Decided] = []

        def write(read: PressureRead) -> PressureWrite:
            decided.append(_decided(read, decide(read), asker, texts, owner_name))
            return decided[-1].write

        character_id = owner.id if owner is not None else None
        written = await self.pressure_store.change(campaign, write, character_id=character_id)
        last = decided[-1]
        announcements = await self._announcements(last, written, texts, owner_name)

        async def refresh(interaction: discord.Interaction) -> None:
            await self.refresh_luck(interaction, *written.read.characters)

        return PressureShown(
            last.move, written.read.value, written.roll_ids, announcements, refresh
        )

    async def _announcements(
        self, decided: Decided, written: PressureWritten, texts: render_pressure.Texts, owner: str
    ) -> tuple[discord.Embed, ...]:
        """Return what the channel hears of a stored change: the step, a Crisis, collapses."""
        change, cause = decided.move.change, decided.move.cause
        announcements = []
        if change is not None and change.reached != change.before:
            announcements.append(render_pressure.pressure_announcement(owner, change, texts, cause))
        if change is not None and change.crisis is not None:
            crisis = await self.storage.rolls.get(written.roll_ids[-1])
            assert crisis is not None
            embed = discord.Embed.from_dict(crisis.embed_data)
            set_roll_footer(embed, crisis.id, Visibility.PUBLIC)
            announcements.append(embed)
        announcements.extend(
            render.collapse_announcement(after)
            for before, after in decided.struck
            if not before.sheet.collapsed and after.sheet.collapsed
        )
        return tuple(announcements)

    async def _pressure_owner(
        self, campaign: Campaign, character: str | None
    ) -> Character[Sheet] | None:
        """Return the named character, or None for the party's track."""
        if character is None:
            return None
        return await self.characters.find(campaign, name=character)

    @roll_command
    @PRESSURE.command(name="add", description="Add Pressure; reaching 5 triggers a Crisis (GM)")
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
        asker, campaign = await self._sinew_table(interaction)
        asker.require_gm("add Pressure")
        owner = await self._pressure_owner(campaign, character)
        lingering = campaign.settings.get(sinew.LINGERING_TAINT)
        rng = self.bot.rng

        def decide(read: PressureRead) -> PressureMove:
            return PressureMove(
                sinew_pressure.add_pressure(rng, read.value, amount, lingering_taint=lingering)
            )

        shown = await self._change_pressure(interaction, asker, campaign, owner, decide)
        await shown.confirm(interaction)

    @PRESSURE.command(name="remove", description="Remove Pressure, down to 0 (GM)")
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
        asker, campaign = await self._sinew_table(interaction)
        asker.require_gm("remove Pressure")
        owner = await self._pressure_owner(campaign, character)

        def decide(read: PressureRead) -> PressureMove:
            sinew_pressure.require_pressure_to_purge(read.value)
            return PressureMove(sinew_pressure.remove_pressure(read.value, amount))

        shown = await self._change_pressure(interaction, asker, campaign, owner, decide)
        await shown.confirm(interaction)

    @PRESSURE.command(name="show", description="Show the party's and every character's Pressure")
    async def pressure_show(self, interaction: discord.Interaction) -> None:
        _, campaign = await self._sinew_table(interaction)
        party, steps = await self.pressure_store.values(campaign)
        characters = await self.characters.all(campaign)
        board = render_pressure.pressure_board(
            party,
            [(c.name, steps.get(c.id, sinew.PRESSURE.start)) for c in characters],
            self.texts[campaign.settings.get(sinew.SKIN)],
        )
        await interaction.response.send_message(embed=board, ephemeral=True)

    @roll_command
    @app_commands.command(
        name="tamper", description="Tamper with forces beyond ken: a failed test adds +1 Pressure"
    )
    @app_commands.describe(
        attribute="The attribute to test (LCK rolls under your tokens)", **TEST_HELP
    )
    @app_commands.choices(attribute=attribute_choices())
    async def tamper(
        self,
        interaction: discord.Interaction,
        attribute: str,
        advantage: bool = False,
        disadvantage: bool = False,
        character: CharacterName | None = None,
        hidden: bool | None = None,
    ) -> None:
        asker, campaign = await self._sinew_table(interaction)
        visibility = asker.may_roll(asker.visibility(hidden=hidden))
        which = sinew.parse_attribute(attribute)
        who = await asker.own_or_named(self.characters, campaign, character, "tamper")
        options = TestOptions(
            attribute=attribute, advantage=advantage, disadvantage=disadvantage, character=character
        )
        decide = self._tampering(asker, campaign, who, which, options, visibility)
        shown = await self._change_pressure(interaction, asker, campaign, who, decide)
        await self._show_pressure_roll(interaction, asker, shown, visibility)

    def _tampering(
        self,
        asker: Asker,
        campaign: Campaign,
        who: Character[Sheet],
        which: sinew.Score,
        options: TestOptions,
        visibility: Visibility,
    ) -> Tampering:
        """Return the decision of a tamper, to make in the transaction that reads the track."""
        return Tampering(
            rng=self.bot.rng,
            asker=asker,
            who=who,
            attribute=which,
            options=options,
            visibility=visibility,
            lingering_taint=campaign.settings.get(sinew.LINGERING_TAINT),
            texts=self.texts[campaign.settings.get(sinew.SKIN)],
        )

    @roll_command
    @app_commands.command(name="purge", description="Shed Pressure in downtime")
    @app_commands.describe(
        method="How to shed it (a rite once per downtime; a quest is the GM's)",
        attribute="Sacrifice: the score to lower; rite: the attribute to test",
        character="GMs: whose track, by name (quest without it: the party's track)",
    )
    @app_commands.choices(
        method=choices_of(Method, lambda method: PURGE_CHOICES[method]),
        attribute=score_choices(),
    )
    async def purge(
        self,
        interaction: discord.Interaction,
        method: str,
        attribute: str | None = None,
        character: CharacterName | None = None,
    ) -> None:
        asker, campaign = await self._sinew_table(interaction)
        chosen = parse_choice(Method, method, "method")
        if chosen is Method.QUEST:
            await self._purge_by_quest(interaction, asker, campaign, character)
            return
        if attribute is None:
            raise CommandError(f"A {chosen.value} needs `attribute`: {PURGE_ATTRIBUTE[chosen]}.")
        which = sinew.parse_score(attribute)
        who = await asker.own_or_named(self.characters, campaign, character, "purge")
        if chosen is Method.SACRIFICE:
            await self._purge_by_sacrifice(interaction, asker, campaign, who, which)
            return
        tested = sinew.require_attribute(which)
        await self._purge_by_rite(interaction, asker, campaign, who, tested, character)

    async def _purge_by_quest(
        self,
        interaction: discord.Interaction,
        asker: Asker,
        campaign: Campaign,
        character: str | None,
    ) -> None:
        """A story quest (GM): clear a track, the party's without ``character``."""
        asker.require_gm("clear Pressure with a story quest")
        owner = await self._pressure_owner(campaign, character)

        def clear(read: PressureRead) -> PressureMove:
            cause = "A story quest is complete: the track is cleared."
            return PressureMove(sinew_pressure.purge_by_quest(read.value), cause=cause)

        shown = await self._change_pressure(interaction, asker, campaign, owner, clear)
        await shown.confirm(interaction)

    async def _purge_by_sacrifice(
        self,
        interaction: discord.Interaction,
        asker: Asker,
        campaign: Campaign,
        who: Character[Sheet],
        which: sinew.Score,
    ) -> None:
        """A sacrifice: -1 to a score for -1 Pressure."""

        def burn(read: PressureRead) -> PressureMove:
            assert read.owner is not None and isinstance(read.owner.sheet, Sheet)
            sheet, change = sinew_pressure.purge_by_sacrifice(read.owner.sheet, read.value, which)
            before = read.owner.sheet.score(which)
            cause = f"{who.name} sacrificed 1 {which.value} ({before} → {sheet.score(which)})."
            return PressureMove(change, owner_sheet=sheet, cause=cause)

        shown = await self._change_pressure(interaction, asker, campaign, who, burn)
        await shown.confirm(interaction)

    async def _purge_by_rite(
        self,
        interaction: discord.Interaction,
        asker: Asker,
        campaign: Campaign,
        who: Character[Sheet],
        tested: sinew.Score,
        character: str | None,
    ) -> None:
        """A cleansing rite: a test, public by the rules; a success removes 1 Pressure."""
        texts, rng = self.texts[campaign.settings.get(sinew.SKIN)], self.bot.rng
        options = {"attribute": tested.value.lower(), "character": character}

        def rite(read: PressureRead) -> PressureMove:
            assert read.owner is not None and isinstance(read.owner.sheet, Sheet)
            done = sinew_pressure.cleansing_rite(rng, read.owner.sheet, read.value, tested)
            what = f"{tested.value} cleansing rite"
            embed = _test_embed(done, who.name, what, tested, texts, read.value)
            roll = Roll(RITE_KIND, done.result, embed, options=options, first_rolls=who.first_rolls)
            cause = f"{who.name}'s cleansing rite succeeded."
            entries = (roll.entry(asker, Visibility.PUBLIC),)  # public: Pressure is announced
            return PressureMove(done.change, owner_sheet=done.sheet, entries=entries, cause=cause)

        shown = await self._change_pressure(interaction, asker, campaign, who, rite)
        await self._show_pressure_roll(interaction, asker, shown, Visibility.PUBLIC)

    async def _show_pressure_roll(
        self,
        interaction: discord.Interaction,
        asker: Asker,
        shown: PressureShown,
        visibility: Visibility,
    ) -> None:
        """Show a tamper or rite test to its roller, then announce what it did to Pressure."""
        roll_id = shown.roll_ids[0]
        logged = await self.storage.rolls.get(roll_id)
        assert logged is not None
        embed = discord.Embed.from_dict(logged.embed_data)
        view = roll_buttons(roll_id, logged.kind, visibility)
        try:  # a roll too: the roller's Luck on their roll before it has ended
            await show_logged_roll(
                interaction, self.storage, asker, roll_id, logged.kind, visibility, embed, view=view
            )
        finally:  # the Pressure is saved: the channel hears it even if the reply is lost
            await shown.announce(interaction)
        await shown.refresh(interaction)


def _test_embed(
    tested: sinew_pressure.PressureTest,
    who: str,
    what: str,
    attribute: sinew.Score,
    texts: render_pressure.Texts,
    pressure: int,
) -> discord.Embed:
    """Return a tamper's or a rite's test, with what it did to Pressure (``pressure``: the
    track as the transaction read it)."""
    embed = render.test_result(tested.result, who, what, score_label(attribute))
    render.add_pressure_result(embed, tested.change, _step_text(texts, tested.change), pressure)
    return embed


def _step_text(
    texts: render_pressure.Texts, change: sinew_pressure.PressureChange | None
) -> str | None:
    return None if change is None else texts.step(change.reached)


def _decided(
    read: PressureRead, move: PressureMove, asker: Asker, texts: render_pressure.Texts, owner: str
) -> Decided:
    """Return what a move writes: the owner's new sheet, a Crisis logged with what it struck."""
    saved: dict[int, Character[Sheet]] = {c.id: c for c in read.characters}
    changed_ids: set[int] = set()
    if move.owner_sheet is not None and read.owner is not None:
        saved[read.owner.id] = replace(read.owner, sheet=move.owner_sheet)
        changed_ids.add(read.owner.id)
    entries, change = list(move.entries), move.change
    struck: tuple[Struck, ...] = ()
    if change is not None and change.crisis is not None:
        struck = _strike(change.crisis, saved)
        shown = [(b.name, b.sheet.current_stamina, a.sheet.current_stamina) for b, a in struck]
        party = None if read.owner is not None else [c.name for c in read.characters]
        embed = render_pressure.crisis_announcement(
            owner, change.crisis, change.after, texts, shown, party
        )
        # Announced, by the rules: a Crisis is public.
        entries.append(Roll(CRISIS_KIND, change.crisis, embed).entry(asker, Visibility.PUBLIC))
    changed_ids.update(after.id for _, after in struck)
    after = read.value if change is None else change.after
    write = PressureWrite(after, tuple(saved[i] for i in changed_ids), tuple(entries))
    return Decided(move, write, struck)


def _strike(
    crisis: sinew_pressure.CrisisRoll, saved: dict[int, Character[Sheet]]
) -> tuple[Struck, ...]:
    """Take the Crisis's Stamina from every character on the track (``saved``, updated)."""
    targets = list(saved.values())
    changes = sinew_pressure.crisis_strikes(crisis, [target.sheet for target in targets])
    if not changes:
        return ()
    struck = tuple(
        (target, replace(target, sheet=change.sheet))
        for target, change in zip(targets, changes, strict=True)
    )
    saved.update((after.id, after) for _, after in struck)
    return struck
