"""`/campaign` end to end through the fake Discord."""

from __future__ import annotations

import asyncio

import pytest

import cogs.campaign
from bot.client import DiceBot
from rules import sinew
from tests.expect import active_campaign
from tests.fakediscord.server import FakeDiscord

pytestmark = pytest.mark.shared_bot


async def start(fake: FakeDiscord, system: str = "cosmos", user: str = "gm", **options):
    return await fake.invoke(
        "campaign start", {"system": system, "name": "Voidrunners", **options}, user=user
    )


async def test_start_announces_the_campaign_and_stores_it(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await start(fake_discord)
    assert not reply.ephemeral
    assert reply.embeds[0]["title"] == "📖 Voidrunners"
    assert "Cosmos Engine" in reply.embeds[0]["description"]
    campaign = await active_campaign(dicebot.storage, fake_discord.channel_id)
    assert campaign is not None
    assert campaign.gm_ids == {fake_discord.users["gm"].id}


async def test_commands_are_synced_to_the_guild(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    names = {command["name"] for command in fake_discord.synced_commands(guild=True)}
    assert {"campaign", "roll"} <= names
    campaign = next(c for c in fake_discord.synced_commands(guild=True) if c["name"] == "campaign")
    subcommands = {option["name"] for option in campaign["options"]}
    assert subcommands == {"start", "info", "gm", "reveal", "end", "log", "settings", "recap"}

    # every option of every command carries help text
    def options(node):
        for option in node.get("options", []):
            yield option
            yield from options(option)

    for command in fake_discord.synced_commands(guild=True):
        for option in options(command):
            assert option["description"] and option["description"] != "…", option


async def test_campaign_start_keeps_its_options_and_offers_the_systems_found(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    campaign = next(c for c in fake_discord.synced_commands(guild=True) if c["name"] == "campaign")
    subcommands = {option["name"]: option for option in campaign["options"]}
    options = {option["name"]: option for option in subcommands["start"]["options"]}
    assert set(options) == {"system", "name", "skin", "edge_option", "lingering_taint"}
    assert [option["required"] for option in options.values()][:2] == [True, True]
    assert [c["value"] for c in options["skin"]["choices"]] == ["fantasy", "scifi"]
    assert [c["value"] for c in options["edge_option"]["choices"]] == ["A", "B"]
    assert {(c["name"], c["value"]) for c in options["system"]["choices"]} == {
        ("Aethelgard", "aethelgard"), ("Cosmos Engine", "cosmos"),
        ("Enchanted Realms", "realms"), ("Sinew & Steel", "sinew"), ("Six-pool d20", "sixpool"),
    }  # fmt: skip
    # /campaign settings offers the settings declared changeable: Sinew & Steel's skin.
    changes = {option["name"] for option in subcommands["settings"]["options"]}
    assert changes == {
        "gm_channel", "gm_channel_off", "secret_notice", "gm_rolls", "skin",
    }  # fmt: skip


async def test_ruling_campaign_one_per_channel_second_is_refused(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    reply = await start(fake_discord, system="sinew", user="player")
    assert reply.ephemeral
    assert "already runs the Cosmos Engine campaign" in reply.content
    campaign = await active_campaign(dicebot.storage, fake_discord.channel_id)
    assert campaign.system.value == "cosmos"


async def test_unknown_system_is_refused(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    # Discord offers only the listed systems, but a client with an outdated command list can
    # still send a value we no longer offer.
    reply = await fake_discord.invoke(
        "campaign start", {"system": "gurps", "name": "Old"}, user="gm", stale_client=True
    )
    assert reply.ephemeral
    # (the systems in the order they are found: by their modules' names)
    assert "Unknown system `gurps`: choose one of aethelgard, cosmos, realms," in reply.content
    assert await dicebot.storage.campaigns.active(fake_discord.channel_id) is None


async def test_option_of_another_system_is_refused(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await start(fake_discord, edge_option="B")
    assert reply.ephemeral and "six-pool d20 setting" in reply.content
    assert await dicebot.storage.campaigns.active(fake_discord.channel_id) is None
    reply = await start(fake_discord, system="sixpool", edge_option="B")
    assert "Edge option: B" in str(reply.embeds[0])


async def test_info_shows_system_gms_and_settings(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord, system="sinew", skin="scifi", lingering_taint=True)
    reply = await fake_discord.invoke("campaign info", {}, user="player")
    assert reply.ephemeral
    embed = reply.embeds[0]
    assert "Sinew & Steel" in embed["description"]
    fields = {field["name"]: field["value"] for field in embed["fields"]}
    assert f"<@{fake_discord.users['gm'].id}>" in fields["GMs"]
    assert "Skin: scifi" in fields["Settings"] and "Lingering taint: on" in fields["Settings"]
    assert fields["Characters"] == "None yet"


async def test_info_without_campaign_says_how_to_start(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await fake_discord.invoke("campaign info", {}, user="player")
    assert reply.ephemeral and "/campaign start" in reply.content


async def test_gm_add_and_remove(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    await start(fake_discord)
    player = fake_discord.users["player"]
    reply = await fake_discord.invoke("campaign gm add", {"user": player}, user="gm")
    assert not reply.ephemeral and "is now a GM" in reply.content
    campaign = await active_campaign(dicebot.storage, fake_discord.channel_id)
    assert player.id in campaign.gm_ids
    reply = await fake_discord.invoke("campaign gm remove", {"user": player}, user="gm")
    assert "no longer a GM" in reply.content
    campaign = await active_campaign(dicebot.storage, fake_discord.channel_id)
    assert player.id not in campaign.gm_ids


async def test_ruling_gms_player_cannot_add_gms(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    reply = await fake_discord.invoke(
        "campaign gm add", {"user": fake_discord.users["player"]}, user="player"
    )
    assert reply.ephemeral and "Only a GM can add co-GMs" in reply.content
    campaign = await active_campaign(dicebot.storage, fake_discord.channel_id)
    assert campaign.gm_ids == {fake_discord.users["gm"].id}


async def test_founder_cannot_be_removed(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    await start(fake_discord)
    reply = await fake_discord.invoke(
        "campaign gm remove", {"user": fake_discord.users["gm"]}, user="admin"
    )
    assert reply.ephemeral and "always stays its GM" in reply.content


async def test_end_asks_then_ends_on_confirm_and_announces(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    prompt = await fake_discord.invoke("campaign end", {}, user="gm")
    assert prompt.ephemeral and "End the Cosmos Engine campaign" in prompt.content
    assert await active_campaign(dicebot.storage, fake_discord.channel_id) is not None
    confirm_id = prompt.components[0]["components"][0]["custom_id"]
    confirmed = await fake_discord.click(prompt, confirm_id, user="gm")
    assert confirmed.content == "Campaign ended."
    assert await dicebot.storage.campaigns.active(fake_discord.channel_id) is None
    await fake_discord.wait_channel_messages(fake_discord.channel_id, 1)
    announcement = fake_discord.channel_messages(fake_discord.channel_id)[-1]
    assert "has ended" in announcement["content"]


async def test_end_cancel_keeps_the_campaign(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    await start(fake_discord)
    prompt = await fake_discord.invoke("campaign end", {}, user="gm")
    cancel_id = prompt.components[0]["components"][1]["custom_id"]
    cancelled = await fake_discord.click(prompt, cancel_id, user="gm")
    assert cancelled.content == "The campaign goes on."
    assert await active_campaign(dicebot.storage, fake_discord.channel_id) is not None
    assert fake_discord.channel_messages(fake_discord.channel_id) == []


async def test_non_gm_cannot_end_a_campaign(fake_discord: FakeDiscord, dicebot: DiceBot) -> None:
    await start(fake_discord)
    reply = await fake_discord.invoke("campaign end", {}, user="player")
    assert reply.ephemeral and "Only a GM can end the campaign" in reply.content
    assert reply.components == []
    assert await active_campaign(dicebot.storage, fake_discord.channel_id) is not None


async def test_ruling_campaign_thread_uses_its_parent_channels_campaign(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    reply = await fake_discord.invoke(
        "campaign info", {}, user="player", channel=fake_discord.thread_id
    )
    assert "Voidrunners" in reply.embeds[0]["title"]
    refused = await fake_discord.invoke(
        "campaign start",
        {"system": "sinew", "name": "Other"},
        user="gm",
        channel=fake_discord.thread_id,
    )
    assert refused.ephemeral and "already runs" in refused.content


async def test_ruling_gms_are_founder_co_gms_and_manage_server_members(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    hidden = {"expression": "1d20", "hidden": True}
    assert (await fake_discord.invoke("roll", hidden, user="gm")).embeds  # founder
    assert (await fake_discord.invoke("roll", hidden, user="admin")).embeds  # Manage Server
    refused = await fake_discord.invoke("roll", hidden, user="player")
    assert "Only a GM" in refused.content
    await fake_discord.invoke("campaign gm add", {"user": fake_discord.users["player"]}, user="gm")
    assert (await fake_discord.invoke("roll", hidden, user="player")).embeds  # co-GM


async def test_end_prompt_drops_its_buttons_when_unanswered(
    fake_discord: FakeDiscord, dicebot: DiceBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cogs.campaign, "CONFIRM_TIMEOUT_SECONDS", 0.05)
    await start(fake_discord)
    prompt = await fake_discord.invoke("campaign end", {}, user="gm")
    assert prompt.components
    await fake_discord.wait_until(lambda: not prompt.components, "the prompt's buttons removed")
    assert prompt.content == (
        "No answer: the campaign goes on. Run `/campaign end` again to end it."
    )
    assert await active_campaign(dicebot.storage, fake_discord.channel_id) is not None


async def test_a_stale_end_prompt_never_ends_a_newer_campaign(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord)
    stale = await fake_discord.invoke("campaign end", {}, user="gm")
    fresh = await fake_discord.invoke("campaign end", {}, user="gm")
    await fake_discord.click(fresh, fresh.components[0]["components"][0]["custom_id"], user="gm")
    await fake_discord.invoke("campaign start", {"system": "sinew", "name": "Next"}, user="gm")
    reply = await fake_discord.click(
        stale, stale.components[0]["components"][0]["custom_id"], user="gm"
    )
    assert reply.ephemeral and "**Voidrunners** has already ended" in reply.content
    campaign = await active_campaign(dicebot.storage, fake_discord.channel_id)
    assert campaign is not None and campaign.settings.name == "Next"


async def test_sinew_skin_is_chosen_at_start_and_changed_in_settings(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    await start(fake_discord, system="sinew")
    campaign = await active_campaign(dicebot.storage, fake_discord.channel_id)
    assert campaign.settings.get(sinew.SKIN) is sinew.Skin.FANTASY  # the default
    reply = await fake_discord.invoke("campaign settings", {"skin": "scifi"}, user="gm")
    assert reply.ephemeral and reply.content.startswith("⚙️ Skin: scifi · GM log channel")
    campaign = await active_campaign(dicebot.storage, fake_discord.channel_id)
    assert campaign.settings.get(sinew.SKIN) is sinew.Skin.SCIFI
    info = await fake_discord.invoke("campaign info", {}, user="player")
    assert "Skin: scifi" in str(info.embeds[0])
    player = await fake_discord.invoke("campaign settings", {"skin": "fantasy"}, user="player")
    assert player.ephemeral and "Only a GM" in player.content
    campaign = await active_campaign(dicebot.storage, fake_discord.channel_id)
    assert campaign.settings.get(sinew.SKIN) is sinew.Skin.SCIFI


async def test_skin_of_a_campaign_of_another_system_is_refused_and_nothing_changes(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    reply = await start(fake_discord, system="realms", skin="scifi")
    assert reply.ephemeral and "`skin` is a Sinew & Steel setting" in reply.content
    await start(fake_discord, system="realms")
    reply = await fake_discord.invoke(
        "campaign settings", {"skin": "scifi", "secret_notice": True}, user="gm"
    )
    assert reply.ephemeral
    assert "`skin` is a Sinew & Steel setting; an Enchanted Realms campaign" in reply.content
    campaign = await active_campaign(dicebot.storage, fake_discord.channel_id)
    assert campaign.settings.options == {}
    assert not campaign.switches.secret_notice  # the whole change was refused


async def test_concurrent_settings_changes_all_land(
    fake_discord: FakeDiscord, dicebot: DiceBot
) -> None:
    # Each change applies to the settings and switches as stored when it runs: none undoes
    # another (the skin lives in the settings JSON, the switches in theirs).
    await start(fake_discord, system="sinew", lingering_taint=True)
    changes: list[dict[str, object]] = [
        {"skin": "scifi"},
        {"secret_notice": True},
        {"gm_rolls": "hidden"},
    ] * 5
    replies = await asyncio.gather(
        *(fake_discord.invoke("campaign settings", change, user="gm") for change in changes)
    )
    assert all(reply.ephemeral and reply.content.startswith("⚙️") for reply in replies)
    campaign = await active_campaign(dicebot.storage, fake_discord.channel_id)
    assert campaign.settings.get(sinew.SKIN) is sinew.Skin.SCIFI
    assert campaign.settings.get(sinew.LINGERING_TAINT) is True
    assert campaign.switches.secret_notice and campaign.switches.gm_rolls_hidden
