-- What the bot last synced of its commands to Discord (bot/client.py, DiceBot.sync_commands):
-- per application and scope ('global', or 'guild <id>' with GUILD_ID), the SHA-256 of the JSON
-- payload discord.py sent. A start whose payload hashes the same skips the sync (a bulk
-- overwrite of every command, which Discord rate-limits).
-- PostgreSQL twin of ../0020_command_syncs.sql.
-- depends: 0019_sixpool_contest_sides

CREATE TABLE command_syncs (
    application_id BIGINT  NOT NULL,
    scope          TEXT    NOT NULL,   -- 'global', or 'guild <id>'
    payload_sha256 TEXT    NOT NULL,   -- hex digest of the payload's canonical JSON
    PRIMARY KEY (application_id, scope)
);
