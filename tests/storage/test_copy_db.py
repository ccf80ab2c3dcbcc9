"""`copy-db` moves an SQLite database into PostgreSQL: every row of every table, ids kept.

The source is filled once per module through the real commands of every system (the in-process
bot against the fake Discord): campaigns in five channels (one ended and started again), a
co-GM, characters of three systems, rolls (open and hidden, one revealed), Luck spent,
Pressure added, a Cosmos challenge, a six-pool contest and group check, personal and campaign
macros. Each test copies it into a fresh PostgreSQL database and reads both sides back with
plain SQL: the expected rows are SQLite's own, never the copier's report.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from bot.__main__ import main
from bot.client import create_bot
from bot.config import RollLimit, Settings, Shards
from bot.storage import apply_migrations
from bot.storage.copy import CopyFailed, copy_database
from rules.randomness import new_rng
from tests.fakediscord.fixtures import run_bot as run_bot_against
from tests.fakediscord.messages import Reply
from tests.fakediscord.server import FakeDiscord
from tests.postgres import require_binaries
from tests.test_main import run_bot

psycopg = pytest.importorskip("psycopg")

# Every table of the bot's schema, and (by hand, from the migrations) the tables each one's
# foreign keys name: the copier must derive an order that puts these first.
PARENTS = {
    "campaigns": set(),
    "command_syncs": set(),
    "campaign_gms": {"campaigns"},
    "characters": {"campaigns"},
    "cosmos_challenges": {"campaigns"},
    "end_prompts": set(),
    "macros": {"campaigns"},
    "realms_traits": {"campaigns"},
    "roll_limits": set(),
    "rolls": {"campaigns"},
    "sixpool_contests": {"campaigns", "characters"},
    "sixpool_groups": {"campaigns", "characters"},
    "sixpool_group_rolls": {"sixpool_groups", "characters"},
    "sixpool_trained_only": {"campaigns"},
    "tracks": {"campaigns", "characters"},
}
TABLES = (
    "campaigns",
    "command_syncs",
    "campaign_gms",
    "characters",
    "cosmos_challenges",
    "end_prompts",
    "macros",
    "realms_traits",
    "roll_limits",
    "rolls",
    "sixpool_contests",
    "sixpool_groups",
    "sixpool_group_rolls",
    "sixpool_trained_only",
    "tracks",
)
SINEW_SCORES = {"str": 12, "ref": 11, "int": 7, "emp": 7, "lck": 10, "sta": 5}
SIXPOOL_POOLS = {"str": 6, "dex": 8, "con": 5, "int": 4, "wis": 4, "cha": 3}
AETHELGARD_SCORES = {
    "might": 4, "finesse": 6, "wits": 8, "will": 5, "sturdiness": 3,
    "skills": "System Bypass 3, Stealth 2",
}  # fmt: skip


def said(reply: Reply, private: str | None) -> Reply:
    """The reply of a command that must have worked: public, or the private text it says."""
    if private is None:
        assert not (reply.ephemeral and not reply.embeds), reply.content
    else:
        assert private in reply.content, reply.content
    return reply


async def play_every_system(fake: FakeDiscord, channels: dict[str, int]) -> None:
    """What a table of each system does in a session, through the slash commands."""

    async def run(
        command: str,
        options: dict[str, Any],
        user: str = "gm",
        at: str = "",
        private: str | None = None,
    ) -> Reply:
        return said(await fake.invoke(command, options, user=user, channel=channels[at]), private)

    # An ended campaign stays (audit trail) beside the one started after it in its channel.
    await run("campaign start", {"system": "cosmos", "name": "First Voyage"}, at="cosmos")
    await run("roll", {"expression": "2d6+1"}, user="player", at="cosmos")
    prompt = await fake.invoke("campaign end", {}, user="gm", channel=channels["cosmos"])
    confirm = prompt.components[0]["components"][0]["custom_id"]
    assert (await fake.click(prompt, confirm, user="gm")).content == "Campaign ended."

    # Cosmos: a campaign, a co-GM, rolls (one hidden, then revealed), a challenge.
    await run("campaign start", {"system": "cosmos", "name": "Voidrunners"}, at="cosmos")
    await run("campaign gm add", {"user": fake.users["admin"]}, at="cosmos")
    await run("cosmos challenge start", {"name": "Escape", "tn": 2, "successes": 2, "max_rolls": 5},
              at="cosmos")  # fmt: skip
    roll = {"attribute": 3, "skill": 2, "tn": 2}
    await run("cosmos roll", {**roll, "challenge": "Escape"}, user="player", at="cosmos")
    await run("cosmos roll", {**roll, "hidden": True}, at="cosmos")
    await run("campaign reveal", {"roll_id": 3}, at="cosmos")
    await run("roll", {"expression": "4d6"}, user="player", at="cosmos")

    # Sinew & Steel: a character, tests, Luck spent, Pressure on the party track, damage.
    await run("campaign start", {"system": "sinew", "name": "Iron Age"}, at="sinew")
    await run("sinew character create", {"name": "Brakka", **SINEW_SCORES}, user="player",
              at="sinew")  # fmt: skip
    await run("sinew test", {"attribute": "str"}, user="player", at="sinew")
    await run("sinew luck spend", {"tokens": 2}, user="player", at="sinew", private="🍀 Luck spent")
    await run("sinew pressure add", {"amount": 2}, at="sinew", private="Pressure 0 → 2")
    await run("sinew damage", {"character": "Brakka", "amount": 2}, at="sinew")
    await run("sinew test", {"attribute": "ref", "character": "Brakka", "hidden": True},
              at="sinew")  # fmt: skip

    # Six-pool d20: a trained-only skill, two characters, a check, a contest answered by the
    # defender, a group check.
    await run("campaign start", {"system": "sixpool", "name": "Six"}, at="sixpool")
    await run("sixpool trained_only", {"skill": "Arcana"}, at="sixpool")
    for name, user in (("Rin", "player"), ("Vex", "gm")):
        await run("sixpool character create",
                  {"name": name, "level": 1, "primary": "DEX", **SIXPOOL_POOLS}, user=user,
                  at="sixpool")  # fmt: skip
    await run("sixpool check", {"pool": "DEX", "dc": 12, "spend": 1}, user="player", at="sixpool")
    await fake.invoke(
        "sixpool contest",
        {"pool": "DEX", "vs_user": fake.users["gm"], "vs_pool": "WIS", "spend": 2},
        user="player",
        channel=channels["sixpool"],
    )
    [prompt_message] = await fake.wait_channel_messages(channels["sixpool"])
    challenge = fake.channel_message(channels["sixpool"], prompt_message["id"])
    choice = await fake.click(challenge, "sixpool:contest:1", user="gm")
    spent = await fake.click(choice, "sixpool:spend:1:3", user="gm", values=["1"])
    assert "You spend 1" in spent.content
    group = await run("sixpool group", {"dc": 10, "pool": "DEX"}, at="sixpool")
    for user in ("player", "gm"):
        picking = await fake.click(group, "sixpool:group:1:roll", user=user)
        most = picking.original.custom_ids()[0].rsplit(":", 1)[1]
        await fake.click(picking, f"sixpool:groupspend:1:{most}", user=user, values=["0"])

    # Aethelgard: a character and a check from the sheet; Enchanted Realms: checks and attacks.
    await run("campaign start", {"system": "aethelgard", "name": "Blight"}, at="aethelgard")
    await run("aethelgard character create", {"name": "Ysolde", **AETHELGARD_SCORES},
              user="player", at="aethelgard")  # fmt: skip
    await run("aethelgard check", {"attribute": "WITS"}, user="player", at="aethelgard")
    await run("campaign start", {"system": "realms", "name": "Vale"}, at="realms")
    await run("realms trait add", {"user": fake.users["player"]}, at="realms")
    await run("realms check", {"die": "d20", "target": 12}, user="player", at="realms")
    await run("realms attack", {"dice": 2, "to_hit": 11, "damage": "1d8+1"}, at="realms")

    # Macros: a player's own (named in any case) and a campaign's, saved by the GM; one rolled.
    await run("macro save", {"name": "Sword", "expression": "1d20+7"}, user="player", at="realms",
              private="Saved your macro **Sword**")  # fmt: skip
    await run("macro save", {"name": "Ambush", "expression": "2d6", "campaign": True},
              at="realms", private="Ambush")  # fmt: skip
    await run("macro roll", {"name": "sword"}, user="player", at="realms")


async def fill(database: Path) -> None:
    fake = FakeDiscord()
    await fake.start()
    try:
        channels = {
            system: fake.add_text_channel(system)
            for system in ("cosmos", "sinew", "sixpool", "aethelgard", "realms")
        }
        settings = Settings(
            token=fake.token,
            database_path=database,
            guild_id=fake.guild_id,
            api_base=fake.api_base,
            gateway_url=fake.gateway_url,
            # Shard 0 of 2 (the fake's guild): another process may serve the bot, so the roll
            # limit's windows are kept in the database, to be copied like everything else.
            shards=Shards(2, (0,)),
            roll_limit=RollLimit(10_000, 3_600),
        )
        bot = create_bot(settings, rng=new_rng(20261123))
        async with run_bot_against(fake, bot):
            await play_every_system(fake, channels)
            await fake.wait_until(lambda: not bot.in_flight, "the bot to finish its work")
    finally:
        await fake.stop()
    fake.check_clean()


# One xdist worker runs the whole module: its played database is filled once.
pytestmark = pytest.mark.xdist_group("copy_db")


@pytest.fixture(scope="module")
def played_database(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite database after a session of every system (filled once for the module)."""
    require_binaries()  # no PostgreSQL: skip before paying for the bot's session
    database = tmp_path_factory.mktemp("played") / "bot.db"
    asyncio.run(fill(database))
    return database


@pytest.fixture
def source(played_database: Path, tmp_path: Path) -> Path:
    """A copy of the played database for one test (the copier must not change it anyway)."""
    copy = tmp_path / "bot.db"
    with sqlite3.connect(played_database) as original, sqlite3.connect(copy) as target:
        original.backup(target)
    return copy


def columns_of(connection: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]


def sqlite_rows(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Every row of every table, as column → value, ordered by the table's key columns."""
    with sqlite3.connect(path) as connection:
        tables = {}
        for table in TABLES:
            columns = columns_of(connection, table)
            rows = connection.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            tables[table] = [dict(zip(columns, row, strict=True)) for row in rows]
        return tables


def postgres_rows(url: str) -> dict[str, list[dict[str, object]]]:
    from psycopg.rows import dict_row

    with psycopg.connect(url, row_factory=dict_row) as connection:
        return {
            table: connection.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
            for table in TABLES
        }


def postgres_counts(url: str) -> dict[str, int]:
    with psycopg.connect(url) as connection:
        return {
            table: connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in TABLES
        }


def test_the_played_session_left_rows_in_every_table(played_database: Path) -> None:
    rows = sqlite_rows(played_database)
    assert all(rows[table] for table in TABLES), {t: len(r) for t, r in rows.items()}
    campaigns = rows["campaigns"]
    assert [c["ended_at"] is not None for c in campaigns].count(True) == 1
    assert {c["system"] for c in campaigns} == {"cosmos", "sinew", "sixpool", "aethelgard",
                                                "realms"}  # fmt: skip
    assert [c["status"] for c in rows["sixpool_contests"]] == ["resolved"]
    assert len(rows["sixpool_group_rolls"]) == 2
    assert any(roll["revealed_at"] for roll in rows["rolls"])


def test_copy_moves_every_row_of_every_table_with_every_column(
    source: Path, postgres_url: str
) -> None:
    expected = sqlite_rows(source)
    report = copy_database(source, postgres_url)
    assert not report.already_copied
    copied = postgres_rows(postgres_url)
    for table in TABLES:
        assert copied[table] == expected[table], table
    # The values keep their kinds: text stays text (timestamps unchanged), flags integers.
    campaign = copied["campaigns"][0]
    assert isinstance(campaign["created_at"], str) and campaign["created_at"].endswith("Z")
    assert {type(roll["user_id"]) for roll in copied["rolls"]} == {int}
    counts = {c.table: (c.sqlite_rows, c.postgresql_rows) for c in report.tables}
    assert counts == {table: (len(expected[table]),) * 2 for table in TABLES}
    order = [count.table for count in report.tables]
    for table, parents in PARENTS.items():
        assert all(order.index(parent) < order.index(table) for parent in parents), order


def test_copying_again_changes_nothing_and_says_already_copied(
    source: Path, postgres_url: str
) -> None:
    copy_database(source, postgres_url)
    first = postgres_rows(postgres_url)
    again = copy_database(source, postgres_url)
    assert again.already_copied
    assert postgres_rows(postgres_url) == first
    assert {c.table: c.postgresql_rows for c in again.tables} == {t: len(first[t]) for t in TABLES}


def test_a_target_holding_other_rows_is_refused_with_nothing_written(
    source: Path, postgres_url: str
) -> None:
    copy_database(source, postgres_url)
    with sqlite3.connect(source) as connection:  # the source moves on: one more roll
        connection.execute(
            "INSERT INTO rolls (guild_id, channel_id, user_id, kind, visibility, payload)"
            " VALUES (1, 2, 3, 'dice', 'public', '{}')"
        )
    before = postgres_rows(postgres_url)
    with pytest.raises(CopyFailed, match="not empty"):
        copy_database(source, postgres_url)
    assert postgres_rows(postgres_url) == before


def test_a_target_with_one_foreign_row_is_refused_before_any_copy(
    source: Path, migrated_postgres_url: str
) -> None:
    with psycopg.connect(migrated_postgres_url) as connection:
        connection.execute("INSERT INTO macros (user_id, name, expression) VALUES (9, 'x', '1d6')")
    with pytest.raises(CopyFailed, match="not empty"):
        copy_database(source, migrated_postgres_url)
    assert postgres_counts(migrated_postgres_url) == {t: int(t == "macros") for t in TABLES}


def test_after_the_copy_new_rows_get_ids_past_the_copied_ones(
    source: Path, postgres_url: str
) -> None:
    copy_database(source, postgres_url)
    largest = {table: max(row["id"] for row in sqlite_rows(source)[table]) for table in (
        "campaigns", "characters", "cosmos_challenges", "macros", "rolls", "sixpool_contests",
        "sixpool_groups", "tracks",
    )}  # fmt: skip
    inserts = {
        "campaigns": "(channel_id, system, name, created_by) VALUES (77, 'cosmos', 'N', 1)",
        "characters": "(campaign_id, user_id, name) VALUES (1, 5, 'New')",
        "cosmos_challenges": "(campaign_id, name, tn, successes_needed, max_rolls, opened_by)"
        " VALUES (1, 'New', 2, 1, 1, 1)",
        "macros": "(user_id, name, expression) VALUES (5, 'New', '1d4')",
        "rolls": "(channel_id, user_id, kind, visibility, payload)"
        " VALUES (2, 5, 'dice', 'public', '{}')",
        "sixpool_contests": "(campaign_id, channel_id, challenger_id, defender_id, pool,"
        " defender_pool, spend, expires_at) VALUES (1, 2, 1, 1, 'DEX', 'WIS', 0, 0)",
        "sixpool_groups": "(campaign_id, channel_id, dc, pool, expires_at)"
        " VALUES (1, 2, 5, 'DEX', 0)",
        "tracks": "(campaign_id, name, value, minimum, maximum) VALUES (1, 'new', 0, 0, 1)",
    }
    with psycopg.connect(postgres_url) as connection:
        for table, values in inserts.items():
            [(new_id,)] = connection.execute(
                f"INSERT INTO {table} {values} RETURNING id"
            ).fetchall()
            assert new_id == largest[table] + 1, table


def test_a_source_from_another_schema_is_refused_naming_the_difference(
    tmp_path: Path, postgres_url: str
) -> None:
    old = tmp_path / "old.db"
    apply_migrations(old)
    with sqlite3.connect(old) as connection:
        connection.execute("ALTER TABLE macros DROP COLUMN command")
        connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY)")
    with pytest.raises(CopyFailed) as refused:
        copy_database(old, postgres_url)
    assert "tables only in SQLite: notes" in str(refused.value)
    assert "macros columns only in PostgreSQL: command" in str(refused.value)
    with psycopg.connect(postgres_url) as connection:
        assert connection.execute("SELECT count(*) FROM campaigns").fetchone()[0] == 0


def test_a_target_holding_another_apps_tables_is_refused_before_migrating(
    source: Path, postgres_url: str
) -> None:
    with psycopg.connect(postgres_url) as connection:
        connection.execute("CREATE TABLE invoices (id integer)")
    with pytest.raises(CopyFailed, match=r"tables that are not the bot's \(invoices\)"):
        copy_database(source, postgres_url)
    with psycopg.connect(postgres_url) as connection:
        tables = connection.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
        ).fetchall()
    assert tables == [("invoices",)]  # not migrated: none of the bot's tables, nor yoyo's


def test_a_row_postgresql_rejects_rolls_back_the_whole_copy(
    source: Path, postgres_url: str
) -> None:
    # SQLite keeps text in an INTEGER column; PostgreSQL refuses it. The rolls come after the
    # campaigns, characters and GMs: those must not stay behind either.
    with sqlite3.connect(source) as connection:
        connection.execute(
            "UPDATE rolls SET user_id = 'yes' WHERE id = (SELECT max(id) FROM rolls)"
        )
    with pytest.raises(CopyFailed, match="nothing was copied") as failed:
        copy_database(source, postgres_url)
    assert "COPY rolls, line" in str(failed.value) and "column user_id" in str(failed.value)
    assert postgres_counts(postgres_url) == dict.fromkeys(TABLES, 0)


def test_the_source_is_not_changed_by_the_copy(source: Path, postgres_url: str) -> None:
    before = source.read_bytes()
    copy_database(source, postgres_url)
    assert source.read_bytes() == before


# --- the command line: python -m bot copy-db


def with_password(url: str, password: str) -> str:
    """The URL with a password in it (the test server trusts 127.0.0.1 and ignores it)."""
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{rest.replace('@', f':{password}@', 1)}"


def test_copy_db_command_copies_then_says_already_copied_never_showing_the_password(
    source: Path, postgres_url: str, tmp_path: Path
) -> None:
    expected = sqlite_rows(source)
    target = with_password(postgres_url, "s3cret-pw")
    arguments = ("copy-db", "--from", f"sqlite:///{source}", "--to", target)
    first = run_bot(tmp_path, *arguments)  # no DISCORD_TOKEN: the command needs none
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    for table in TABLES:
        rows = len(expected[table])
        assert f"{table}: {rows} rows in SQLite, {rows} in PostgreSQL" in lines
    total = sum(len(rows) for rows in expected.values())
    assert lines[-1].startswith(f"Copied {total} rows in {len(TABLES)} tables from {source} to ")
    assert postgres_rows(postgres_url) == expected
    second = run_bot(tmp_path, *arguments)
    assert second.returncode == 0, second.stderr
    assert second.stdout.splitlines()[-1].startswith("Already copied:")
    assert "nothing changed" in second.stdout
    for result in (first, second):
        assert "s3cret-pw" not in result.stdout + result.stderr
        assert ":***@" in result.stdout


def test_copy_db_command_refuses_a_target_with_other_rows_in_one_line_exit_1(
    tmp_path: Path, migrated_postgres_url: str
) -> None:
    small = tmp_path / "small.db"
    apply_migrations(small)
    with sqlite3.connect(small) as connection:
        connection.execute("INSERT INTO macros (user_id, name, expression) VALUES (1, 'a', '1d6')")
    with psycopg.connect(migrated_postgres_url) as connection:
        connection.execute("INSERT INTO macros (user_id, name, expression) VALUES (2, 'b', '1d8')")
    result = run_bot(
        tmp_path, "copy-db", "--from", f"sqlite:///{small}", "--to", migrated_postgres_url
    )
    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()
    assert line.startswith("error: The target database is not empty") and "Traceback" not in line
    assert postgres_counts(migrated_postgres_url) == {t: int(t == "macros") for t in TABLES}


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        (["--from", "postgresql://h/db", "--to", "postgresql://h/db"], "--from must be a sqlite"),
        (["--from", "sqlite:///a.db", "--to", "sqlite:///b.db"], "--to must be a postgresql"),
        (["--from", "mysql://h/db", "--to", "postgresql://h/db"], "--from must be a URL"),
        (["--from", "sqlite:///a.db", "--to", "postgresql://u:pw@h:port/db"], "--to must be"),
    ],
)
def test_copy_db_with_a_wrong_url_exits_2_in_one_line(
    arguments: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["copy-db", *arguments]) == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"error: {says}") and ":pw@" not in line


def test_copy_db_without_both_urls_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["copy-db", "--from", "sqlite:///a.db"])
    assert exit_.value.code == 2
