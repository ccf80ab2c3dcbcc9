-- How each `/campaign end` confirmation was answered (ended, kept, expired), so that a second
-- click, or a click after a restart or on another process, is told so rather than obeyed: the
-- prompt's buttons carry everything else (cogs/campaign.py).
-- PostgreSQL twin of ../0011_end_prompts.sql.
-- depends: 0010_roll_limits

CREATE TABLE end_prompts (
    prompt_id   BIGINT NOT NULL,        -- the `/campaign end` interaction that asked
    answer      TEXT   NOT NULL,        -- 'ended', 'kept' or 'expired'
    answered_at TEXT   NOT NULL
                DEFAULT (to_char(statement_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
    PRIMARY KEY (prompt_id)
);
