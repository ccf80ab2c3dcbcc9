"""`/cosmos`: Cosmos Engine rolls, opposed rolls, conversions, extended challenges and odds."""

from __future__ import annotations

import io
from collections.abc import Mapping
from functools import partial
from typing import Any, NamedTuple

import discord
from discord import app_commands
from discord.ext import commands

from bot.anywhere import anywhere, anywhere_group
from bot.asker import Asker, campaign_here
from bot.buttons import register_reroll
from bot.client import DiceBot
from bot.data_tables import load_table
from bot.errors import CommandError
from bot.options import BLIND_HELP, HIDDEN_HELP, choices_of, matching, suggest
from bot.publish import Roll, StateChange, announce, publish_roll, roll_command
from bot.render import cosmos as render
from bot.render import odds_charts
from bot.render.charts import draw_spec
from bot.storage import Visibility
from bot.storage.cosmos import ChallengeStore
from rules import cosmos
from rules.choices import parse_choice
from rules.cosmos.kinds import CHECK_KIND, OPPOSED_KIND

Attribute = app_commands.Range[int, cosmos.ATTRIBUTE_MIN, cosmos.ATTRIBUTE_MAX]
Skill = app_commands.Range[int, cosmos.SKILL_MIN, cosmos.SKILL_MAX]
TargetNumber = app_commands.Range[int, cosmos.TN_MIN, cosmos.TN_MAX]
Sources = app_commands.Range[int, 0, cosmos.ADVANTAGE_SOURCES_MAX]
ChallengeName = app_commands.Range[str, 1, cosmos.CHALLENGE_NAME_MAX]
ACTION_NAME_MAX = max(len(action.value) for action in cosmos.Action)
DEFENDER_NAME_MAX = 60


class CheckOptions(NamedTuple):
    """What `/cosmos roll` was asked; logged with the roll, so Roll again repeats it."""

    attribute: int
    skill: int
    tn: int
    advantage: int = 0
    disadvantage: int = 0
    scale: str | None = None
    action: str | None = None
    challenge: str | None = None


class OpposedOptions(NamedTuple):
    """What `/cosmos opposed` was asked, with the defender's name as shown."""

    attribute: int
    skill: int
    vs_attribute: int
    vs_skill: int
    advantage: int = 0
    disadvantage: int = 0
    vs_advantage: int = 0
    vs_disadvantage: int = 0
    defender: str | None = None

    def pools(self) -> dict[str, int]:
        """Return the options ``cosmos.opposed`` takes: all but the defender's name."""
        values = self._asdict()
        del values["defender"]
        return values


ATTRIBUTE_RANGE = f"{cosmos.ATTRIBUTE_MIN}–{cosmos.ATTRIBUTE_MAX}"
SKILL_RANGE = f"{cosmos.SKILL_MIN}–{cosmos.SKILL_MAX}"
TN_RANGE = f"{cosmos.TN_MIN}–{cosmos.TN_MAX}"
ROLL_HELP = {
    "attribute": f"Attribute, {ATTRIBUTE_RANGE}",
    "skill": f"Skill, {SKILL_RANGE}",
    "tn": f"Target number, {TN_RANGE} ({cosmos.describe_difficulties()})",
    "advantage": "Advantage sources (each adds a d10, keep the two highest); cancels disadvantage",
    "disadvantage": "Disadvantage sources (each adds a d10, keep the two lowest)",
}


@anywhere_group
class CosmosCog(commands.GroupCog, group_name="cosmos", group_description="Cosmos Engine"):
    """Cosmos Engine: 2d10 keep-two with advantage dice."""

    challenge = app_commands.Group(name="challenge", description="Extended challenges")

    def __init__(self, bot: DiceBot) -> None:
        self.bot = bot
        self.storage = bot.storage
        self.challenges = ChallengeStore(bot.storage.database)
        self.effects = load_table("cosmos/critical_effects.toml", cosmos.parse_critical_effects)
        self.conversion_tables = load_table("cosmos/conversion.toml", cosmos.parse_conversion)
        register_reroll(
            bot,
            CHECK_KIND,
            lambda interaction, options, visibility: self.roll_check(
                interaction, CheckOptions(**options), visibility
            ),
        )
        register_reroll(bot, OPPOSED_KIND, self._roll_opposed_again)

    @roll_command
    @anywhere
    @app_commands.command(name="roll", description="Roll 2d10 keep two + Attribute + Skill vs TN")
    @app_commands.describe(
        **ROLL_HELP,
        scale="Scale of the action, for its critical effect (give an action too)",
        action="What the roll does, for its critical effect (must belong to the scale)",
        challenge="Name of an open extended challenge this roll counts towards",
        hidden=HIDDEN_HELP,
        blind=BLIND_HELP,
    )
    @app_commands.choices(
        scale=choices_of(cosmos.Scale, lambda scale: scale.display_name),
    )
    async def roll(
        self,
        interaction: discord.Interaction,
        attribute: Attribute,
        skill: Skill,
        tn: TargetNumber,
        advantage: Sources = 0,
        disadvantage: Sources = 0,
        scale: str | None = None,
        action: app_commands.Range[str, 1, ACTION_NAME_MAX] | None = None,
        challenge: ChallengeName | None = None,
        hidden: bool | None = None,
        blind: bool = False,
    ) -> None:
        options = CheckOptions(
            attribute, skill, tn, advantage, disadvantage, scale, action, challenge
        )
        visibility = await Asker.visibility_asked(interaction, self.storage, hidden, blind)
        await self.roll_check(interaction, options, visibility)

    async def roll_check(
        self,
        interaction: discord.Interaction,
        options: CheckOptions,
        visibility: Visibility,
    ) -> None:
        """Roll against a TN (into a challenge if named): the command and its Roll again."""
        attribute, skill, tn, advantage, disadvantage, scale, action, challenge = options
        asker = await Asker.for_roll(interaction, self.storage, visibility)
        chosen_scale = parse_choice(cosmos.Scale, scale, "scale") if scale else None
        chosen_action = parse_choice(cosmos.Action, action, "action") if action else None
        if challenge is not None:  # refuse a missing challenge or a wrong TN before rolling
            campaign = asker.require_campaign(cosmos.SYSTEM)
            named = await self.challenges.get_open(campaign, challenge)
            cosmos.check_challenge_roll(named, tn)
            options = options._replace(challenge=named.name)  # logged as it is called
        result = cosmos.roll(
            self.bot.rng,
            attribute=attribute,
            skill=skill,
            tn=tn,
            advantage=advantage,
            disadvantage=disadvantage,
            scale=chosen_scale,
            action=chosen_action,
            effects=self.effects,
        )
        embed = render.roll_result(result, interaction.user.display_name)
        roll = Roll(CHECK_KIND, result, embed, options=options._asdict())
        change = None
        if challenge is not None:
            change = StateChange(
                apply=partial(
                    self.challenges.count_roll,
                    campaign,
                    challenge,
                    partial(cosmos.advance_challenge, result=result),
                ),
                show=render.add_challenge_progress,
                announce=render.challenge_announcement,
            )
        await publish_roll(interaction, self.storage, asker, roll, visibility, change=change)

    @roll_command
    @anywhere
    @app_commands.command(name="opposed", description="Roll against a defender; a tie goes to them")
    @app_commands.describe(
        attribute=f"Your Attribute, {ATTRIBUTE_RANGE}",
        skill=f"Your Skill, {SKILL_RANGE}",
        vs_attribute=f"The defender's Attribute, {ATTRIBUTE_RANGE}",
        vs_skill=f"The defender's Skill, {SKILL_RANGE}",
        advantage="Your advantage sources",
        disadvantage="Your disadvantage sources",
        vs_advantage="The defender's advantage sources",
        vs_disadvantage="The defender's disadvantage sources",
        vs_user="The defender, if a member of this server (or give vs_name)",
        vs_name=f"The defender's name, e.g. a foe (up to {DEFENDER_NAME_MAX} characters)",
        hidden=HIDDEN_HELP,
        blind=BLIND_HELP,
    )
    async def opposed(
        self,
        interaction: discord.Interaction,
        attribute: Attribute,
        skill: Skill,
        vs_attribute: Attribute,
        vs_skill: Skill,
        advantage: Sources = 0,
        disadvantage: Sources = 0,
        vs_advantage: Sources = 0,
        vs_disadvantage: Sources = 0,
        vs_user: discord.Member | None = None,
        vs_name: app_commands.Range[str, 1, DEFENDER_NAME_MAX] | None = None,
        hidden: bool | None = None,
        blind: bool = False,
    ) -> None:
        asker = await Asker.of(interaction, self.storage)
        visibility = asker.may_roll(asker.visibility(hidden=hidden, blind=blind))
        if vs_user is not None and vs_name is not None:
            raise CommandError("Name the defender once: give `vs_user` or `vs_name`, not both.")
        options = OpposedOptions(
            attribute,
            skill,
            vs_attribute,
            vs_skill,
            advantage,
            disadvantage,
            vs_advantage,
            vs_disadvantage,
            vs_user.display_name if vs_user is not None else vs_name,
        )
        await self.roll_opposed(interaction, asker, options, visibility)

    async def roll_opposed(
        self,
        interaction: discord.Interaction,
        asker: Asker,
        options: OpposedOptions,
        visibility: Visibility = Visibility.PUBLIC,
    ) -> None:
        """Roll against a defender: the command and its Roll again button."""
        result = cosmos.opposed(self.bot.rng, **options.pools())
        embed = render.opposed(result, interaction.user.display_name, options.defender)
        roll = Roll(OPPOSED_KIND, result, embed, options=options._asdict())
        await publish_roll(interaction, self.storage, asker, roll, visibility)

    async def _roll_opposed_again(
        self, interaction: discord.Interaction, options: Mapping[str, Any], logged: Visibility
    ) -> None:
        asker = await Asker.for_roll(interaction, self.storage, logged)
        await self.roll_opposed(interaction, asker, OpposedOptions(**options), logged)

    @anywhere
    @app_commands.command(name="convert", description="Turn legacy modifiers into advantage dice")
    @app_commands.describe(
        era="Technology era of the equipment",
        situational=f"Situational modifier, ±{cosmos.SITUATIONAL_LIMIT} (sign: advantage or not)",
        rating=f"Vehicle or system rating, 0–{cosmos.RATING_MAX}",
    )
    @app_commands.choices(era=choices_of(cosmos.Era, lambda era: era.value.capitalize()))
    async def convert(
        self,
        interaction: discord.Interaction,
        era: str | None = None,
        situational: app_commands.Range[
            int, -cosmos.SITUATIONAL_LIMIT, cosmos.SITUATIONAL_LIMIT
        ] = 0,
        rating: app_commands.Range[int, 0, cosmos.RATING_MAX] = 0,
    ) -> None:
        result = cosmos.convert(
            self.conversion_tables,
            era=parse_choice(cosmos.Era, era, "era") if era else None,
            situational=situational,
            rating=rating,
        )
        await interaction.response.send_message(embed=render.conversion(result))

    @anywhere
    @app_commands.command(name="odds", description="Exact chances of a roll, with a chart")
    @app_commands.describe(**ROLL_HELP)
    async def odds(
        self,
        interaction: discord.Interaction,
        attribute: Attribute,
        skill: Skill,
        tn: TargetNumber,
        advantage: Sources = 0,
        disadvantage: Sources = 0,
    ) -> None:
        result = cosmos.odds(attribute, skill, tn, advantage, disadvantage)
        png = await draw_spec(odds_charts.cosmos_chart, result)
        await interaction.response.send_message(
            embed=render.odds(result), file=discord.File(io.BytesIO(png), filename="odds.png")
        )

    @challenge.command(name="start", description="Open an extended challenge here (GM)")
    @app_commands.describe(
        name="What the challenge is called; rolls name it with challenge:",
        tn=f"Target number of every roll, {TN_RANGE}",
        successes=f"Successes needed to win, 1–{cosmos.CHALLENGE_SUCCESSES_MAX}",
        max_rolls=f"Rolls allowed before it is lost, 1–{cosmos.CHALLENGE_ROLLS_MAX}",
    )
    async def challenge_start(
        self,
        interaction: discord.Interaction,
        name: ChallengeName,
        tn: TargetNumber,
        successes: app_commands.Range[int, 1, cosmos.CHALLENGE_SUCCESSES_MAX],
        max_rolls: app_commands.Range[int, 1, cosmos.CHALLENGE_ROLLS_MAX],
    ) -> None:
        asker = await Asker.of(interaction, self.storage)
        campaign = asker.require_campaign(cosmos.SYSTEM)
        asker.require_gm("open a challenge")
        challenge = cosmos.start_challenge(name, tn, successes, max_rolls)
        await self.challenges.open(campaign, challenge, asker.user_id)
        await interaction.response.send_message(embed=render.challenge_opened(challenge))

    @challenge.command(name="status", description="Show the open extended challenges")
    @app_commands.describe(name="Only this challenge (default: all open ones)")
    async def challenge_status(
        self, interaction: discord.Interaction, name: ChallengeName | None = None
    ) -> None:
        asker = await Asker.of(interaction, self.storage)
        campaign = asker.require_campaign(cosmos.SYSTEM)
        if name is None:
            challenges = await self.challenges.open_challenges(campaign)
        else:
            challenges = [await self.challenges.get_open(campaign, name)]
        await interaction.response.send_message(
            embed=render.challenge_status(challenges), ephemeral=True
        )

    @roll.autocomplete("action")
    @suggest
    async def _actions_of_scale(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """Suggest the actions of the scale chosen so far (every action before one is)."""
        scale = getattr(interaction.namespace, "scale", None)
        chosen = next((s for s in cosmos.Scale if s.value == scale), None)
        actions = cosmos.ACTIONS_BY_SCALE[chosen] if chosen else tuple(cosmos.Action)
        by_name = {action.display_name: action for action in actions}
        return [
            app_commands.Choice(name=name, value=by_name[name].value)
            for name in matching(current, by_name)
        ]

    @challenge.command(name="end", description="End an open challenge early (GM)")
    @app_commands.describe(name="The challenge to end")
    async def challenge_end(self, interaction: discord.Interaction, name: ChallengeName) -> None:
        asker = await Asker.of(interaction, self.storage)
        campaign = asker.require_campaign(cosmos.SYSTEM)
        asker.require_gm("end a challenge")
        ended = await self.challenges.change(campaign, name, cosmos.abandon_challenge)
        await interaction.response.send_message(
            f"Challenge **{ended.name}** ended.", ephemeral=True
        )
        # Announced in the channel (docs/players/cosmos.md, "Rules notes": extended challenges).
        await announce(interaction, render.challenge_ended(ended))

    @roll.autocomplete("challenge")
    @challenge_status.autocomplete("name")
    @challenge_end.autocomplete("name")
    @suggest
    async def _open_challenge_names(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        """Suggest the open challenges of this channel's Cosmos campaign (none outside a server
        with the bot: ``campaign_here``, as the command)."""
        campaign = await campaign_here(interaction, self.storage)
        if campaign is None or campaign.system != cosmos.SYSTEM:
            return []
        names = [challenge.name for challenge in await self.challenges.open_challenges(campaign)]
        return [app_commands.Choice(name=name, value=name) for name in matching(current, names)]


async def setup(bot: DiceBot) -> None:
    await bot.add_cog(CosmosCog(bot))
