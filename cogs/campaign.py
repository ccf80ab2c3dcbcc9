"""`/campaign`: start, inspect and end a channel's campaign, manage its GMs, reveal secret rolls."""

from __future__ import annotations

import asyncio
import contextlib
import io
import math
import re
import time
from dataclasses import dataclass
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot import offload
from bot.access import dice_bot
from bot.asker import Asker
from bot.buttons import answer_component, reveal_roll
from bot.client import DiceBot
from bot.errors import CommandError, reply_ephemeral
from bot.gm_channel import require_gm_channel
from bot.options import (
    ID_PATTERN,
    Answer,
    choices_of,
    command_with_settings,
    insert_command,
    stored_id,
    suggest,
)
from bot.publish import announce
from bot.render import campaign as render
from bot.render import realms as realms_render
from bot.render import recap as recap_render
from bot.render.style import shown
from bot.roll_history import (
    HISTORY_PAGE_MAX,
    HistoryButton,
    LogDirection,
    LogPage,
    member_names,
    show_history,
)
from bot.storage import Campaign, SessionStart
from bot.storage.cosmos import ChallengeStore
from bot.storage.errors import CannotSave, EndAnswer, EndPromptAnswered
from bot.storage.realms import TraitStore
from rules import realms
from rules.campaigns import (
    MAX_CAMPAIGN_NAME_LENGTH,
    CampaignSettings,
    GmRolls,
    SettingsChange,
)
from rules.recap import (
    MAX_RECAP_ROLLS,
    ROLL_ID_MAX,
    SINCE_MAX_LENGTH,
    challenges_since,
    parse_since,
)
from rules.recap_reading import TRIM_CHUNK, LoggedRow, recap_logged, trimmed
from rules.systems import SystemRegistry

EXPORT_FORMATS = ("csv", "json")

CONFIRM_TIMEOUT_SECONDS = 120
START_HELP = "Start a campaign in this channel; you GM it"
SETTINGS_HELP = "Table switches (GM log channel, notices) and settings like the skin"


@dataclass(frozen=True, slots=True)
class EndPrompt:
    """A `/campaign end` confirmation. All of it is in its buttons' custom ids, and its answer
    in the database, so any process of the bot answers a click, before or after a restart."""

    prompt_id: int  # the `/campaign end` interaction that asked
    campaign_id: int  # the campaign asked about, not whatever runs in the channel later
    requester_id: int  # the GM who asked: only they may answer
    deadline: int  # Unix seconds; a click after it is refused

    @classmethod
    def asked(cls, interaction: discord.Interaction, campaign: Campaign) -> EndPrompt:
        deadline = math.ceil(time.time() + CONFIRM_TIMEOUT_SECONDS)
        return cls(interaction.id, campaign.id, interaction.user.id, deadline)

    def view(self) -> discord.ui.View:
        view = discord.ui.View(timeout=None)
        view.add_item(EndPromptButton(self, ends=True))
        view.add_item(EndPromptButton(self, ends=False))
        view.stop()  # discord.py keeps no view per prompt: the dynamic item answers each click
        return view


class EndPromptButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"campaign:end:(?P<choice>end|keep):(?P<prompt>{ID_PATTERN}):(?P<campaign>{ID_PATTERN})"
    rf":(?P<requester>{ID_PATTERN}):(?P<deadline>[0-9]{{1,11}})",
):
    """End campaign / Keep playing under a `/campaign end` prompt (persistent)."""

    def __init__(self, prompt: EndPrompt, *, ends: bool) -> None:
        choice = "end" if ends else "keep"
        super().__init__(
            discord.ui.Button(
                label="End campaign" if ends else "Keep playing",
                style=discord.ButtonStyle.danger if ends else discord.ButtonStyle.secondary,
                custom_id=f"campaign:end:{choice}:{prompt.prompt_id}:{prompt.campaign_id}"
                f":{prompt.requester_id}:{prompt.deadline}",
            )
        )
        self.prompt, self.ends = prompt, ends

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> EndPromptButton:
        prompt = EndPrompt(
            int(match["prompt"]), int(match["campaign"]), int(match["requester"]),
            int(match["deadline"]),
        )  # fmt: skip
        return cls(prompt, ends=match["choice"] == "end")

    async def callback(self, interaction: discord.Interaction) -> None:
        cog = dice_bot(interaction).get_cog(CampaignCog.__cog_name__)

        async def press() -> None:
            if not isinstance(cog, CampaignCog):
                raise CommandError("Campaigns are not loaded; try again in a moment.")
            stored_id(self.prompt.prompt_id, "prompt")
            stored_id(self.prompt.campaign_id, "campaign")
            stored_id(self.prompt.requester_id, "member")
            await cog.answer_end(interaction, self.prompt, ends=self.ends)

        await answer_component(interaction, press)


class CampaignCog(commands.GroupCog, group_name="campaign", group_description="Run a campaign"):
    """One campaign per channel: its system, GMs and settings."""

    gm = app_commands.Group(name="gm", description="Add or remove co-GMs")

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.storage = bot.storage
        self.systems = bot.systems
        self.challenges = ChallengeStore(bot.storage.database)  # for the recap's challenges
        self.traits = TraitStore(bot.storage.database)  # for an Enchanted Realms campaign's info
        self._expiries: set[asyncio.Task[None]] = set()  # unanswered `/campaign end` prompts
        # The commands that list the systems, or their settings: built from this bot's registry
        # (docs/development.md, "Adding a system"), in their place among the others.
        group = self.app_command
        assert group is not None  # a GroupCog's group
        insert_command(group, start_command(self.systems, self.start), before="info")
        insert_command(group, settings_command(self.systems, self.settings), before="log")

    async def start(
        self, interaction: discord.Interaction, system: str, name: str, **chosen: object
    ) -> None:
        """`/campaign start` (``start_command``); ``chosen``: the systems' settings, by name."""
        settings = CampaignSettings.create(self.systems.parse(system), name, chosen=chosen)
        asker = await Asker.of(interaction, self.storage)
        asker.refuse_if_not_installed("a new campaign can start here once it has ended")
        campaign = await self.storage.campaigns.start(
            guild_id=asker.guild_id,
            channel_id=asker.channel_id,
            user_id=asker.user_id,
            settings=settings,
        )
        await interaction.response.send_message(embed=render.campaign_started(campaign))

    @app_commands.command(name="info", description="Show this channel's campaign")
    @app_commands.guild_only()
    async def info(self, interaction: discord.Interaction) -> None:
        campaign = (await Asker.of(interaction, self.storage)).require_campaign()
        characters = await self.storage.campaigns.characters(campaign)
        tracks = await self.storage.campaigns.tracks(campaign)
        traits = None
        # Who may reroll (docs/players/realms.md, "The reroll is a trait").
        if campaign.system == realms.SYSTEM:
            holders = await self.traits.holders(campaign, realms.Trait.REROLL)
            traits = realms_render.trait_holders(realms.Trait.REROLL, holders)
        embed = render.campaign_info(campaign, characters, tracks, traits)
        await interaction.response.send_message(embed=embed, ephemeral=True)

    @gm.command(name="add", description="Make someone a co-GM of this campaign (GM only)")
    @app_commands.describe(user="The member who becomes a co-GM")
    @app_commands.guild_only()
    async def gm_add(self, interaction: discord.Interaction, user: discord.User) -> None:
        asker = await Asker.of(interaction, self.storage)
        campaign = asker.require_campaign()
        asker.require_gm("add co-GMs")
        if user.bot:
            await reply_ephemeral(interaction, "❌ A bot can't be a GM.")
            return
        updated = await self.storage.campaigns.add_gm(campaign, user.id, asker.user_id)
        await interaction.response.send_message(
            f"🎩 {user.mention} is now a GM of **{shown(updated.settings.name)}**."
        )

    @gm.command(name="remove", description="Remove a co-GM from this campaign (GM only)")
    @app_commands.describe(user="The co-GM to remove")
    @app_commands.guild_only()
    async def gm_remove(self, interaction: discord.Interaction, user: discord.User) -> None:
        asker = await Asker.of(interaction, self.storage)
        campaign = asker.require_campaign()
        asker.require_gm("remove co-GMs")
        updated = await self.storage.campaigns.remove_gm(campaign, user.id)
        await interaction.response.send_message(
            f"{user.mention} is no longer a GM of **{shown(updated.settings.name)}**."
        )

    @app_commands.command(name="reveal", description="Show a secret roll to its channel (GM only)")
    @app_commands.describe(roll_id="The number of the hidden or blind roll (shown under it)")
    @app_commands.guild_only()
    async def reveal(
        self, interaction: discord.Interaction, roll_id: app_commands.Range[int, 1, ROLL_ID_MAX]
    ) -> None:
        await reveal_roll(interaction, self.storage, roll_id)

    @reveal.autocomplete("roll_id")
    @suggest
    async def _unrevealed_rolls(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        """Suggest to a GM the secret rolls not yet revealed that they may reveal: those of this
        channel's campaign (or, without one, those made here outside any campaign). A player
        is suggested nothing: a suggestion shows the roll's outcome."""
        asker = await Asker.of(interaction, self.storage)
        if not asker.is_gm or (asker.campaign is None and not asker.manages_server):
            return []
        rolls = await self.storage.rolls.unrevealed(
            campaign_id=asker.campaign.id if asker.campaign else None,
            channel_id=asker.channel_id,
        )
        typed = str(current).strip().lstrip("#")
        return [
            app_commands.Choice(name=render.secret_roll_choice(roll), value=roll.id)
            for roll in rolls
            if str(roll.id).startswith(typed)
        ]

    async def settings(
        self,
        interaction: discord.Interaction,
        gm_channel: discord.TextChannel | None = None,
        gm_channel_off: bool = False,
        secret_notice: bool | None = None,
        gm_rolls: str | None = None,
        **chosen: object,
    ) -> None:
        """`/campaign settings` (``settings_command``); ``chosen``: the changeable settings."""
        asker = await Asker.of(interaction, self.storage)
        campaign = asker.require_campaign()
        asker.require_gm("change the campaign's settings")
        change = SettingsChange.asked(
            system=campaign.system,
            gm_channel_id=None if gm_channel is None else gm_channel.id,
            gm_channel_off=gm_channel_off,
            secret_notice=secret_notice,
            gm_rolls=gm_rolls,
            chosen=chosen,
        )
        require_gm_channel(gm_channel, campaign)
        saved = await self.storage.campaigns.set_switches(
            campaign, change.apply, settle=change.settle
        )
        lines = [*saved.settings.info_lines(changeable_only=True), *saved.switches.info_lines()]
        await interaction.response.send_message("⚙️ " + " · ".join(lines), ephemeral=True)

    @app_commands.command(name="log", description="The campaign's roll history (private reply)")
    @app_commands.describe(
        user="Only this player's rolls",
        limit=f"Rolls per page, 1–{HISTORY_PAGE_MAX} (default 10)",
        export="GMs: the whole log as a CSV or JSON file instead",
    )
    @app_commands.choices(export=[app_commands.Choice(name=f, value=f) for f in EXPORT_FORMATS])
    async def log(
        self,
        interaction: discord.Interaction,
        user: discord.User | None = None,
        limit: app_commands.Range[int, 1, HISTORY_PAGE_MAX] = 10,
        export: str | None = None,
    ) -> None:
        if export is None:
            asked = LogPage(None, LogDirection.OLDER, user.id if user else 0, limit)
            await show_history(interaction, self.storage, asked, edit=False)
            return
        await self._export(interaction, parse_choice_text(export, EXPORT_FORMATS), user)

    async def _export(
        self, interaction: discord.Interaction, fmt: str, user: discord.User | None
    ) -> None:
        """The whole log (or one player's) as a file for a GM, oldest first."""
        asker = await Asker.of(interaction, self.storage)
        campaign = asker.require_campaign()
        asker.require_gm("export the roll log")
        rolls = await self.storage.rolls.history(
            campaign.id, include_secret=True, user_id=user.id if user else None, limit=10**9
        )
        rolls.reverse()  # oldest first in a file
        await interaction.response.defer(ephemeral=True, thinking=True)  # names take requests
        names = await member_names(interaction.guild, {roll.user_id for roll in rolls})
        exported = render.export_csv if fmt == "csv" else render.export_json
        await interaction.followup.send(
            f"📜 {len(rolls)} rolls of {campaign.settings.name}.",
            file=discord.File(io.BytesIO(exported(rolls, names)), filename=f"roll-log.{fmt}"),
            ephemeral=True,
        )

    @app_commands.command(
        name="recap", description="This session's rolls per player, with an exact luck score"
    )
    @app_commands.describe(
        since="A date (2026-11-20, or 2026-11-20 19:30 UTC) or roll #123; "
        "default: after a 3-hour pause",
        hidden="GMs: a private recap that counts hidden and blind rolls too",
    )
    @app_commands.guild_only()
    async def recap(
        self,
        interaction: discord.Interaction,
        since: app_commands.Range[str, 1, SINCE_MAX_LENGTH] | None = None,
        hidden: bool = False,
    ) -> None:
        asked = parse_since(since)
        asker = await Asker.of(interaction, self.storage)
        campaign = asker.require_campaign()
        if hidden:
            asker.require_gm("ask for a recap with hidden and blind rolls")
        await interaction.response.defer(ephemeral=hidden, thinking=True)
        start = SessionStart(roll_id=asked.roll_id, at=asked.at)
        logged = await self.storage.rolls.session_texts(campaign.id, start, include_secret=hidden)
        first = challenges_since(logged[0][-1]) if logged else None
        ended = [] if first is None else await self.challenges.ended_since(campaign.id, first)
        # Decoding, reading and placing up to 2,000 rolls is seconds of work for the heaviest: in
        # the recap's worker process, off the event loop (docs/gms.md, "Campaign recap"). Their
        # payloads cross to it a chunk at a time, cut there to what the recap reads.
        read: list[LoggedRow] = []
        for at in range(0, len(logged), TRIM_CHUNK):
            chunk = logged[at : at + TRIM_CHUNK]
            read += await offload.in_process(trimmed, chunk, worker=offload.RECAP)
        made = await offload.in_process(recap_logged, read, ended, worker=offload.RECAP)
        names = await member_names(interaction.guild, made.user_ids)
        capped = len(logged) >= MAX_RECAP_ROLLS
        embed = recap_render.recap_embed(made, names, gm_view=hidden, capped=capped)
        chart = recap_render.recap_chart(made, names)
        files = [] if chart is None else [await recap_render.draw_recap(chart)]
        await interaction.followup.send(embed=embed, files=files, ephemeral=hidden)

    @app_commands.command(name="end", description="End this channel's campaign (GM, confirmed)")
    @app_commands.guild_only()
    async def end(self, interaction: discord.Interaction) -> None:
        asker = await Asker.of(interaction, self.storage)
        campaign = asker.require_campaign()
        asker.require_gm("end the campaign")
        prompt = EndPrompt.asked(interaction, campaign)
        await interaction.response.send_message(
            render.end_prompt(campaign), view=prompt.view(), ephemeral=True
        )
        expiry = asyncio.create_task(self._expire(interaction, prompt), name="end-prompt-expiry")
        self._expiries.add(expiry)
        expiry.add_done_callback(self._expiries.discard)

    async def answer_end(
        self, interaction: discord.Interaction, prompt: EndPrompt, *, ends: bool
    ) -> None:
        """A click on a `/campaign end` prompt: the asking GM's first answer before the deadline
        stands; any later click is told what became of the prompt."""
        if interaction.user.id != prompt.requester_id:
            raise CommandError("Only the GM who asked can confirm this.")
        expired = time.time() > prompt.deadline  # its expiry was lost with a restart
        if ends and not expired:
            await self._end_confirmed(interaction, prompt)
            return
        answer = EndAnswer.EXPIRED if expired else EndAnswer.KEPT
        await self.storage.campaigns.answer_end_prompt(prompt.prompt_id, answer)
        await interaction.response.edit_message(content=render.end_answered(answer), view=None)

    async def _end_confirmed(self, interaction: discord.Interaction, prompt: EndPrompt) -> None:
        await self._refuse_if_answered(prompt)
        asker = await Asker.of(interaction, self.storage)
        if not asker.is_gm:
            # The other click of a double click may have ended the campaign since the check
            # above: the GM check would then only say the channel has no campaign any more.
            await self._refuse_if_answered(prompt)
        asker.require_gm("end the campaign")  # still a GM now, not only when asked
        campaign = await self.storage.campaigns.end_as_answered(
            prompt.prompt_id, prompt.campaign_id, asker.user_id
        )  # refused if the prompt was answered meanwhile or the campaign already ended
        await interaction.response.edit_message(
            content=render.end_answered(EndAnswer.ENDED), view=None
        )
        await announce(interaction, content=render.campaign_ended(campaign, asker.user_id))

    async def _refuse_if_answered(self, prompt: EndPrompt) -> None:
        """Refuse a click on a prompt already answered (a double click), saying how."""
        if (answer := await self.storage.campaigns.end_prompt_answer(prompt.prompt_id)) is not None:
            raise EndPromptAnswered(answer)

    async def _expire(self, asked: discord.Interaction, prompt: EndPrompt) -> None:
        """At the deadline, an unanswered prompt loses its buttons (they would only refuse)."""
        await asyncio.sleep(max(0.0, prompt.deadline - time.time()))
        try:
            await self.storage.campaigns.answer_end_prompt(prompt.prompt_id, EndAnswer.EXPIRED)
        except (EndPromptAnswered, CannotSave):
            return  # answered in time; or not saved, and a late click still finds the deadline
        with contextlib.suppress(discord.HTTPException):
            await asked.edit_original_response(
                content=render.end_answered(EndAnswer.EXPIRED), view=None
            )

    async def cog_unload(self) -> None:
        for expiry in self._expiries:  # the deadline in each prompt's buttons still holds
            expiry.cancel()


def start_command(systems: SystemRegistry, answer: Answer) -> app_commands.Command[Any, ..., None]:
    """`/campaign start`: the systems of ``systems`` to choose from, then each one's settings."""

    @app_commands.describe(
        system="The game system the campaign plays",
        name=f"The campaign's name (up to {MAX_CAMPAIGN_NAME_LENGTH} characters)",
    )
    @app_commands.choices(
        system=[app_commands.Choice(name=s.display_name, value=s.value) for s in systems.systems]
    )
    @app_commands.guild_only()
    async def start(
        interaction: discord.Interaction,
        system: str,
        name: app_commands.Range[str, 1, MAX_CAMPAIGN_NAME_LENGTH],
    ) -> None:
        """Declares the options before the settings; ``answer`` answers the command."""

    settings = (s for _, s in systems.settings().values())
    return command_with_settings("start", START_HELP, start, settings, answer)


def settings_command(
    systems: SystemRegistry, answer: Answer
) -> app_commands.Command[Any, ..., None]:
    """`/campaign settings`: the table's switches, then each system's changeable settings."""

    @app_commands.describe(
        gm_channel="Where hidden and blind rolls are also posted for the GMs (with Reveal)",
        gm_channel_off="Stop posting to the GM log channel (blind rolls go to GMs by DM)",
        secret_notice=(
            'Tell the channel when someone rolls blind or hidden ("gwen rolled in secret")'
        ),
        gm_rolls="A GM's rolls when they don't say hidden: public (default) or hidden",
    )
    @app_commands.choices(gm_rolls=choices_of(GmRolls))
    async def settings(
        interaction: discord.Interaction,
        gm_channel: discord.TextChannel | None = None,
        gm_channel_off: bool = False,
        secret_notice: bool | None = None,
        gm_rolls: str | None = None,
    ) -> None:
        """Declares the options before the settings; ``answer`` answers the command."""

    changeable = (s for _, s in systems.settings().values() if s.changeable)
    return command_with_settings("settings", SETTINGS_HELP, settings, changeable, answer)


def parse_choice_text(value: str, allowed: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``allowed`` (any case), else refuse naming them."""
    wanted = value.strip().lower()
    if wanted not in allowed:
        raise CommandError(f"Choose one of: {', '.join(allowed)}.")
    return wanted


async def setup(bot: DiceBot) -> None:
    bot.add_dynamic_items(HistoryButton, EndPromptButton)
    await bot.add_cog(CampaignCog(bot))
