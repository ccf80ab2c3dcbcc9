"""SHARD_COUNT and SHARD_IDS: which shards of the bot one process runs (issue 24)."""

from __future__ import annotations

import pytest

from bot.config import MAX_SHARD_COUNT, ConfigError, Settings, Shards

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDE.abcdefghijklmnopqrstuvwxyz0123456789AB"


def settings_with(**variables: str) -> Settings:
    return Settings.from_mapping({"DISCORD_TOKEN": TOKEN, **variables})


def test_without_shard_variables_discord_picks_the_shards() -> None:
    assert settings_with().shards is None
    assert settings_with(SHARD_COUNT="", SHARD_IDS=" ").shards is None


@pytest.mark.parametrize(
    ("count", "ids", "expected"),
    [
        ("4", "0-3", (0, 1, 2, 3)),
        ("4", "0,2", (0, 2)),
        ("8", "5", (5,)),
        ("8", " 6 , 0 - 1 ,3 ", (0, 1, 3, 6)),  # spaces and any order: kept ascending
        ("4", "", (0, 1, 2, 3)),  # SHARD_COUNT alone: this process runs every shard
        ("1", "0", (0,)),
    ],
)
def test_shard_ids_are_read_as_ids_and_ranges(count: str, ids: str, expected: tuple) -> None:
    assert settings_with(SHARD_COUNT=count, SHARD_IDS=ids).shards == Shards(int(count), expected)


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"SHARD_IDS": "0-1"}, "SHARD_IDS needs SHARD_COUNT"),
        ({"SHARD_COUNT": "0"}, "SHARD_COUNT must be a whole number from 1 to 10000"),
        ({"SHARD_COUNT": "-2"}, "SHARD_COUNT must be a whole number"),
        ({"SHARD_COUNT": "two"}, "SHARD_COUNT must be a whole number"),
        ({"SHARD_COUNT": "1.5"}, "SHARD_COUNT must be a whole number"),
        ({"SHARD_COUNT": str(MAX_SHARD_COUNT + 1)}, "SHARD_COUNT must be a whole number"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "2"}, "shard 2 does not exist with SHARD_COUNT=2"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "0-4"}, "shard 4 does not exist with SHARD_COUNT=4"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "3-1"}, "SHARD_IDS: the range 3-1 runs backwards"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "0-2,1"}, "SHARD_IDS names shard(s) 1 twice"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "-1"}, "SHARD_IDS must be shard ids and ranges"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "0,,1"}, "SHARD_IDS must be shard ids and ranges"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "0-"}, "SHARD_IDS must be shard ids and ranges"),
        ({"SHARD_COUNT": "4", "SHARD_IDS": "all"}, "SHARD_IDS must be shard ids and ranges"),
    ],
)
def test_bad_shard_variables_are_refused_naming_the_variable(
    variables: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        settings_with(**variables)
    assert message in str(refused.value)


def test_the_largest_shard_count_is_accepted_and_a_huge_range_parses_quickly() -> None:
    shards = settings_with(SHARD_COUNT=str(MAX_SHARD_COUNT), SHARD_IDS="0-9998,9999").shards
    assert shards is not None and len(shards.ids) == MAX_SHARD_COUNT == 10_000


def test_shards_name_themselves_as_ranges_in_repr() -> None:
    settings = settings_with(SHARD_COUNT="8", SHARD_IDS="0-2,5,7")
    assert "shards=0-2,5,7 of 8" in repr(settings)


def test_shards_built_in_code_refuse_ids_outside_the_count() -> None:
    with pytest.raises(ValueError, match=r"not within 0\.\.1"):
        Shards(2, (1, 2))
    with pytest.raises(ValueError, match="distinct and ascending"):
        Shards(4, (2, 1))


@pytest.mark.parametrize(
    ("variables", "shared"),
    [
        ({}, False),  # one process, every shard, its own SQLite file
        ({"SHARD_COUNT": "2"}, False),  # both shards in this process
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0-1"}, False),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "1"}, True),  # another process runs shard 0
        ({"DATABASE_URL": "postgresql://bot@db.example/dice"}, True),
    ],
)
def test_the_roll_limit_is_kept_in_the_database_when_other_processes_may_serve_the_bot(
    variables: dict[str, str], shared: bool
) -> None:
    assert settings_with(**variables).may_share_state is shared
