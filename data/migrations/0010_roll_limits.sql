-- Each user's roll-rate window (bot/ratelimit.py), shared by every process of a sharded bot
-- so the limit is the bot's, not each process's: one atomic upsert per roll command when
-- several processes may serve the same user (PostgreSQL, or only some shards in a process).
-- WITHOUT ROWID: the key is a Discord id the bot gives, never assigned by the database.
-- depends: 0009_macro_commands

CREATE TABLE roll_limits (
    user_id         INTEGER NOT NULL,
    window_start_ms INTEGER NOT NULL,   -- Unix time in ms of the window's first roll
    rolls           INTEGER NOT NULL,   -- roll commands in the window, refused ones included
    PRIMARY KEY (user_id)
) WITHOUT ROWID;
