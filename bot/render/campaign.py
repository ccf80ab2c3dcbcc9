"""Rendering of `/campaign` replies and announcements."""

from __future__ import annotations

import copy
import csv
import io
import json
from collections.abc import Mapping
from datetime import UTC, datetime

import discord

from bot.render.dice import every_die
from bot.render.grammar import article
from bot.render.reply import was_cut
from bot.render.roll_log import WHAT_SHORTER, log_line, plain_text, summarise
from bot.render.style import (
    CHOICE_NAME_MAX,
    EMBED_DESCRIPTION_LIMIT,
    FIELD_LIMIT,
    Colour,
    joined,
    listed,
    shown,
    truncate,
)
from bot.storage import (
    Campaign,
    CharacterSummary,
    LoggedRoll,
    RollPage,
    TrackSummary,
    Visibility,
)
from bot.storage.errors import EndAnswer
from rules.expressions.kinds import DICE_KIND_NAME
from rules.roll_kinds import RESULT

__all__ = [
    "END_ANSWERS",
    "REVEALED",
    "campaign_ended",
    "campaign_info",
    "campaign_started",
    "discord_time",
    "end_answered",
    "end_prompt",
    "export_csv",
    "export_json",
    "fit_page",
    "history",
    "revealed_roll",
    "secret_roll_choice",
]


# Under "System: system not installed (`key`)" in `/campaign info`.
NOT_INSTALLED_HELP = (
    "\nNo package installed with this bot declares this system, so its own commands, settings "
    "and tracks can't be used here; `/roll`, the log and the recap still work. To play it "
    "again, the bot's host installs its package (SYSTEM_PACKAGES) and restarts the bot; to "
    "free the channel, a GM ends the campaign with `/campaign end`."
)


def _gm_list(campaign: Campaign) -> str:
    """The founder, then every co-GM (as many as a field holds: the rest are counted)."""
    founder = f"<@{campaign.created_by}> (founder)"
    co_gms = [f"<@{user_id}>" for user_id in sorted(campaign.gm_ids - {campaign.created_by})]
    return joined([founder, *co_gms], FIELD_LIMIT, more="more co-GMs")


def _settings_lines(campaign: Campaign) -> list[str]:
    return [*campaign.settings.info_lines(), *campaign.switches.info_lines()]


def campaign_started(campaign: Campaign) -> discord.Embed:
    """Announce a new campaign and who runs it."""
    system = campaign.system.display_name
    embed = discord.Embed(
        title=f"📖 {shown(campaign.settings.name)}",
        description=(
            f"{article(system).capitalize()} **{system}** campaign starts in this channel "
            "(and its threads)."
        ),
        colour=Colour.CAMPAIGN,
    )
    embed.add_field(name="GM", value=_gm_list(campaign), inline=False)
    embed.add_field(name="Settings", value="\n".join(_settings_lines(campaign)), inline=False)
    return embed


def campaign_info(
    campaign: Campaign,
    characters: list[CharacterSummary],
    tracks: list[TrackSummary],
    traits: str | None = None,
) -> discord.Embed:
    """Show a campaign's system, GMs, settings, characters and tracks, and (``traits``, one field's
    worth) the traits its GMs have given, as an Enchanted Realms campaign keeps them; for a system
    not installed, say so and how to free the channel (docs/development.md, "Adding a system")."""
    description = f"System: **{campaign.system.display_name}**"
    if not campaign.system.installed:
        description += NOT_INSTALLED_HELP
    embed = discord.Embed(
        title=f"📖 {shown(campaign.settings.name)}",
        description=description,
        colour=Colour.CAMPAIGN,
    )
    embed.add_field(name="GMs", value=_gm_list(campaign), inline=False)
    embed.add_field(name="Settings", value="\n".join(_settings_lines(campaign)), inline=False)
    # Every player's characters and their tracks: as many as a field holds, the rest counted.
    character_lines = [f"{shown(c.name)} (<@{c.user_id}>)" for c in characters]
    character_text = listed(character_lines, FIELD_LIMIT, more="more characters") or "None yet"
    embed.add_field(name="Characters", value=character_text, inline=False)
    track_lines = [
        f"{shown(track.character_name or 'Party')} · {shown(track.name)}: "
        f"{track.value}/{track.maximum}"
        for track in tracks
    ]
    track_text = listed(track_lines, FIELD_LIMIT, more="more tracks") or "None yet"
    if not campaign.system.installed:  # its system declares them: kept, not read without it
        track_text = "Kept, shown again once its system is installed"
    embed.add_field(name="Tracks", value=track_text, inline=False)
    if traits is not None:
        embed.add_field(name="Traits", value=truncate(traits, FIELD_LIMIT), inline=False)
    return embed


def end_prompt(campaign: Campaign) -> str:
    """Ask the GM to confirm ending the campaign."""
    name = shown(campaign.settings.name)
    which = f"the {campaign.system.display_name} campaign **{name}**"
    if not campaign.system.installed:
        which = f"the campaign **{name}**, of {campaign.system.with_article}"
    return (
        f"End {which}? "
        "Its characters and tracks stop being used in this channel; this can't be undone."
    )


# What became of a `/campaign end` prompt, as its edited text and as a late click is told.
END_ANSWERS = {
    EndAnswer.ENDED: "the campaign was ended.",
    EndAnswer.KEPT: "the campaign goes on.",
    EndAnswer.EXPIRED: "no answer came in time, so the campaign goes on.",
}


_ANSWERED_PROMPTS = {
    EndAnswer.ENDED: "Campaign ended.",
    EndAnswer.KEPT: "The campaign goes on.",
    EndAnswer.EXPIRED: "No answer: the campaign goes on. Run `/campaign end` again to end it.",
}


def end_answered(answer: EndAnswer) -> str:
    """The prompt's text once answered (its buttons gone)."""
    return _ANSWERED_PROMPTS[answer]


def campaign_ended(campaign: Campaign, ended_by: int) -> str:
    """Announce in the channel that a campaign has ended."""
    name = shown(campaign.settings.name)
    return f"📕 The campaign **{name}** has ended (ended by <@{ended_by}>)."


def secret_roll_choice(roll: LoggedRoll) -> str:
    """Name a secret roll in `/campaign reveal`'s suggestions (a GM's only): its id and what
    was rolled."""
    title = roll.embed_data.get("title") or roll.kind
    return truncate(f"#{roll.id} · {title}", CHOICE_NAME_MAX)


def discord_time(iso_utc: str) -> str:
    """Show a stored UTC time as a Discord timestamp: each reader sees it in their own zone."""
    moment = datetime.fromisoformat(iso_utc)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    epoch = int(moment.timestamp())
    return f"<t:{epoch}:f> (<t:{epoch}:R>)"


REVEALED = "🔓 Revealed by the GM"
"""The name of a revealed roll's last breakdown line (docs/players/index.md, "Reading a reply")."""


def revealed_roll(roll: LoggedRoll) -> discord.Embed:
    """Re-show a secret roll to the table exactly as the GM saw it, in the one reply layout:
    its title (verdict first), dice and breakdown unchanged, then a line saying a GM revealed
    it and when it was rolled, and its id in the footer."""
    # A copy: from_dict keeps the payload's lists, which the reveal line would be added to.
    embed = discord.Embed.from_dict(copy.deepcopy(roll.embed_data))
    how = (
        "a blind roll, seen by the GMs only"
        if roll.visibility is Visibility.BLIND
        else "a GM's hidden roll"
    )
    embed.add_field(
        name=REVEALED,
        value=f"Rolled in secret {discord_time(roll.created_at)}: {how}",
        inline=False,
    )
    embed.set_footer(text=f"Roll #{roll.id}")
    return embed


def fit_page(page: RollPage, *, gm_view: bool, older: bool) -> RollPage:
    """``page`` as ``history`` shows it whole: where its lines pass 4,096 characters even with what
    was rolled cut shortest (totals of a hundred digits or more: docs/players/dice.md, "Limits"),
    the rolls next to its boundary (``older``: it was turned towards the older rolls, or is the
    newest page), and the rest are on the next page that way."""
    lines = [log_line(roll, gm_view=gm_view, what_max=WHAT_SHORTER[-1]) for roll in page.rolls]
    kept, size = 0, -1
    for line in lines if older else lines[::-1]:
        size += len(line) + 1
        if size > EMBED_DESCRIPTION_LIMIT:
            break
        kept += 1
    if kept == len(lines):
        return page
    kept = max(kept, 1)  # a line is far shorter than a page: ``history`` would cut it
    if older:
        return RollPage(page.rolls[:kept], older=True, newer=page.newer)
    return RollPage(page.rolls[len(lines) - kept :], older=page.older, newer=True)


def history(page: RollPage, *, gm_view: bool) -> discord.Embed:
    """Show a page of the campaign's roll log, newest first: each roll's total and verdict
    (🔒: secret, not yet revealed; a GM is told whether hidden or blind)."""
    text = "\n".join(log_line(roll, gm_view=gm_view) for roll in page.rolls) or "No rolls yet."
    for what_max in WHAT_SHORTER:  # 25 long lines may pass 4,096: what was rolled is cut first
        if len(text) <= EMBED_DESCRIPTION_LIMIT:
            break
        text = "\n".join(log_line(roll, gm_view=gm_view, what_max=what_max) for roll in page.rolls)
    embed = discord.Embed(
        title="📜 Roll history",
        description=truncate(text, EMBED_DESCRIPTION_LIMIT),
        colour=Colour.CAMPAIGN,
    )
    footer = "GM view: hidden and blind rolls included (🔒)" if gm_view else "Public rolls"
    if page.older or page.newer:
        footer += " · ← Newer and Older → turn the pages"
    embed.set_footer(text=footer)
    return embed


EXPORT_FIELDS = (
    "id",
    "created_at",
    "user",
    "user_id",
    "kind",
    "visibility",
    "revealed_at",
    "title",
    "total",
    "verdict",
    "text",
)


def _iso(stored: str | None) -> str:
    """A stored UTC time as ISO 8601 with its zone (the database keeps UTC)."""
    if not stored:
        return ""
    moment = datetime.fromisoformat(stored)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.isoformat(timespec="milliseconds")


def _export_row(roll: LoggedRoll, names: Mapping[int, str]) -> dict[str, object]:
    embed = roll.embed_data
    summary = summarise(roll)
    return {
        "id": roll.id,
        "created_at": _iso(roll.created_at),
        "user": names.get(roll.user_id, str(roll.user_id)),
        "user_id": roll.user_id,
        "kind": roll.kind,
        "visibility": roll.visibility.value,
        "revealed_at": _iso(roll.revealed_at),
        "title": plain_text(str(embed.get("title", "")), names),
        "total": "" if summary is None else summary.plain_total(),
        "verdict": ""
        if summary is None or summary.verdict is None
        else summary.verdict.word.lower(),
        "text": plain_text(_export_text(roll), names),
    }


def _export_text(roll: LoggedRoll) -> str:
    """A roll's reply text for the export; a `/roll` whose reply counted dice past
    ``DICE_SHOWN`` ("… and 960 more") shows every die, from its logged result."""
    text = str(roll.embed_data.get("description", ""))
    if roll.kind == DICE_KIND_NAME and was_cut(text):
        whole = every_die(roll.result)
        if whole is not None:
            return f"🎲 {whole}"
    return text


def export_csv(rolls: list[LoggedRoll], names: Mapping[int, str]) -> bytes:
    """Return the whole log as CSV (one row per roll, oldest first): rollers by ``names``
    (their display names; else their ids), plain text, ISO 8601 times."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=EXPORT_FIELDS)
    writer.writeheader()
    for roll in rolls:
        writer.writerow(_export_row(roll, names))
    return buffer.getvalue().encode("utf-8")


def export_json(rolls: list[LoggedRoll], names: Mapping[int, str]) -> bytes:
    """Return the whole log as JSON, with each roll's rules result."""
    rows = [{**_export_row(roll, names), RESULT: roll.result} for roll in rolls]
    return json.dumps(rows, ensure_ascii=False, indent=1).encode("utf-8")
