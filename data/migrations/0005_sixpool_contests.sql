-- Six-pool d20 contests against another player: the challenger's secret spend waits here until
-- the defender declares theirs (by a persistent button), so a prompt survives a restart.
-- depends: 0004_character_sheets

CREATE TABLE sixpool_contests (
    id             INTEGER PRIMARY KEY,
    campaign_id    INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    channel_id     INTEGER NOT NULL,
    challenger_id  INTEGER NOT NULL REFERENCES characters (id) ON DELETE CASCADE,
    defender_id    INTEGER NOT NULL REFERENCES characters (id) ON DELETE CASCADE,
    pool           TEXT    NOT NULL,
    defender_pool  TEXT    NOT NULL,
    spend          INTEGER NOT NULL CHECK (spend >= 0),
    advantage      INTEGER NOT NULL DEFAULT 0,
    disadvantage   INTEGER NOT NULL DEFAULT 0,
    status         TEXT    NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'resolved', 'expired')),
    expires_at     REAL    NOT NULL,
    message_id     INTEGER
);
