"""The small English replies are made of (bot/render/grammar.py): every expected string is
written by hand, as a reader would say it."""

from __future__ import annotations

import pytest

from bot.render.aethelgard import pool_text, roll_result
from bot.render.campaign import campaign_started
from bot.render.grammar import article, plural, possessive, with_article
from bot.storage import Campaign
from rules.aethelgard import Pool, PoolPart, PoolRoll
from rules.campaigns import CampaignSettings
from rules.systems import all_systems, parse_system

# Every system's name as a sentence starts with it, and mid-sentence.
SYSTEM_ARTICLES = {
    "aethelgard": ("an Aethelgard", "an Aethelgard"),
    "cosmos": ("a Cosmos Engine", "a Cosmos Engine"),
    "realms": ("an Enchanted Realms", "an Enchanted Realms"),
    "sinew": ("a Sinew & Steel", "a Sinew & Steel"),
    "sixpool": ("a Six-pool d20", "a six-pool d20"),
}


def test_every_system_is_named_with_the_article_it_is_said_with() -> None:
    systems = {system.value: system for system in all_systems()}
    assert set(systems) == set(SYSTEM_ARTICLES)  # a new system gets its line here
    for key, (display, in_sentence) in SYSTEM_ARTICLES.items():
        system = systems[key]
        assert with_article(system.display_name) == display
        assert with_article(system.in_sentence) == in_sentence
        assert system.with_article == in_sentence  # rules' own article agrees


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        # Option and enum names said after an article in replies and help.
        ("incantation", "an incantation"),
        ("axiom", "an axiom"),
        ("advantage", "an advantage"),
        ("disadvantage", "a disadvantage"),
        ("save", "a save"),
        ("check", "a check"),
        ("competition", "a competition"),
        ("reaction", "a reaction"),
        ("stealth", "a stealth"),
        ("concentration", "a concentration"),
        ("d4", "a d4"),
        ("d8", "a d8"),
        ("d20", "a d20"),
        ("critical success", "a critical success"),
        ("strong success", "a strong success"),
        ("bad failure", "a bad failure"),
        ("Fumble", "a Fumble"),
        ("Masterwork", "a Masterwork"),
        ("Legendary", "a Legendary"),
        ("Materials destroyed", "a Materials destroyed"),
        ("light", "a light"),
        ("brutal", "a brutal"),
        ("hidden", "a hidden"),
        ("public", "a public"),
        ("opposed roll", "an opposed roll"),
        ("extended challenge", "an extended challenge"),
        ("attack", "an attack"),
        # Said, not spelled.
        ("NPC", "an NPC"),
        ("GM", "a GM"),
        ("HP", "an HP"),
        ("DC", "a DC"),
        ("F", "an F"),
        ("8", "an 8"),
        ("80", "an 80"),
        ("11", "an 11"),
        ("18", "an 18"),
        ("1", "a 1"),
        ("20", "a 20"),
        ("hour", "an hour"),
        ("honest roll", "an honest roll"),
        ("unicorn", "a unicorn"),
        ("user", "a user"),
        ("one-shot", "a one-shot"),
        ("umbrella", "an umbrella"),
        ("**Enchanted Realms**", "an **Enchanted Realms**"),
    ],
)
def test_article_goes_by_sound(word: str, expected: str) -> None:
    assert with_article(word) == expected


def test_article_of_nothing_is_a() -> None:
    assert article("") == "a"


@pytest.mark.parametrize(
    ("count", "singular", "irregular", "expected"),
    [
        (1, "success", None, "1 success"),
        (2, "success", None, "2 successes"),
        (0, "success", None, "0 successes"),
        (1, "botch", None, "1 botch"),
        (2, "botch", None, "2 botches"),
        (0, "botch", None, "0 botches"),
        (1, "strike", None, "1 strike"),
        (3, "strike", None, "3 strikes"),
        (1, "token", None, "1 token"),
        (0, "token", None, "0 tokens"),
        (1, "Luck token", None, "1 Luck token"),
        (2, "Luck token", None, "2 Luck tokens"),
        (1, "point", None, "1 point"),
        (4, "point", None, "4 points"),
        (1, "character", None, "1 character"),
        (2, "character", None, "2 characters"),
        (1, "die", "dice", "1 die"),
        (3, "die", "dice", "3 dice"),
        (1, "Crisis", "Crises", "1 Crisis"),
        (2, "Crisis", "Crises", "2 Crises"),
        (2, "scored roll", None, "2 scored rolls"),
        (2, "more player", None, "2 more players"),
        (2, "party", None, "2 parties"),
        (2, "day", None, "2 days"),
        (-1, "point", None, "-1 point"),
    ],
)
def test_plural_counts_a_noun(
    count: int, singular: str, irregular: str | None, expected: str
) -> None:
    assert plural(count, singular, irregular) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Wren", "Wren's"),
        ("Jess", "Jess's"),
        ("Kael", "Kael's"),
        ("The defenders'", "The defenders'"),
    ],
)
def test_possessive_is_modern_style(name: str, expected: str) -> None:
    assert possessive(name) == expected


def campaign_of(key: str) -> Campaign:
    system = parse_system(key)
    return Campaign(1, 1, 1, CampaignSettings.stored(system, "Saga", {}), 7, frozenset({7}))


def test_a_new_campaign_is_announced_with_the_right_article() -> None:
    assert campaign_started(campaign_of("realms")).description == (
        "An **Enchanted Realms** campaign starts in this channel (and its threads)."
    )
    assert campaign_started(campaign_of("cosmos")).description == (
        "A **Cosmos Engine** campaign starts in this channel (and its threads)."
    )


POOL_OF_3 = Pool((PoolPart("pool", 3),))


def test_aethelgard_net_counts_one_success_and_one_botch_in_the_singular() -> None:
    rolled = PoolRoll((8, 1, 4), 1)  # one success, one botch
    embed = roll_result(rolled, POOL_OF_3, "Hack", "K")
    assert embed.title == "❌ Failure · K: Hack vs DC 1 · 0 net"
    assert "→ 1 Success, 1 Botch\n" in (embed.description or "")  # the block alone counts them
    assert not embed.fields
    # The document's display block is its own: capitalised, and "Botches" as it writes it.
    description = roll_result(PoolRoll((8, 4, 4), 1), POOL_OF_3, "Hack", "K").description
    assert "→ 1 Success, 0 Botches" in (description or "")
    assert pool_text(Pool((PoolPart("pool", 1),))) == "pool: 1 die = 1d10"
