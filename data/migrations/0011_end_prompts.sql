-- How each `/campaign end` confirmation was answered (ended, kept, expired), so that a second
-- click, or a click after a restart or on another process, is told so rather than obeyed: the
-- prompt's buttons carry everything else (cogs/campaign.py).
-- WITHOUT ROWID: the key is a Discord id the bot gives, never assigned by the database.
-- depends: 0010_roll_limits

CREATE TABLE end_prompts (
    prompt_id   INTEGER NOT NULL,       -- the `/campaign end` interaction that asked
    answer      TEXT    NOT NULL,       -- 'ended', 'kept' or 'expired'
    answered_at TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (prompt_id)
) WITHOUT ROWID;
