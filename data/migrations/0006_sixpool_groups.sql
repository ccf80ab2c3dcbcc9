-- Six-pool d20 group checks: one message with a Roll button; each participant rolls once with
-- their own sheet; a leader may boost one ally before any die is rolled. Kept here so the
-- buttons work after a restart and every roll counts exactly once.
-- depends: 0005_sixpool_contests

CREATE TABLE sixpool_groups (
    id              INTEGER PRIMARY KEY,
    campaign_id     INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    channel_id      INTEGER NOT NULL,
    dc              INTEGER NOT NULL,
    pool            TEXT    NOT NULL,
    skill           TEXT,
    status          TEXT    NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed')),
    expires_at      REAL    NOT NULL,
    message_id      INTEGER,
    leader_id       INTEGER REFERENCES characters (id) ON DELETE SET NULL,
    boosted_id      INTEGER REFERENCES characters (id) ON DELETE SET NULL,
    boost           INTEGER NOT NULL DEFAULT 0 CHECK (boost >= 0)
);

CREATE TABLE sixpool_group_rolls (
    group_id      INTEGER NOT NULL REFERENCES sixpool_groups (id) ON DELETE CASCADE,
    character_id  INTEGER NOT NULL REFERENCES characters (id) ON DELETE CASCADE,
    name          TEXT    NOT NULL,
    roll_id       INTEGER NOT NULL,
    total         INTEGER NOT NULL,
    success       INTEGER NOT NULL,
    PRIMARY KEY (group_id, character_id)
);
