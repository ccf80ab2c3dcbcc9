-- Cosmos Engine: extended challenges, opened by a GM in a campaign's channel.
-- depends: 0001_foundation

CREATE TABLE cosmos_challenges (
    id               INTEGER PRIMARY KEY,
    campaign_id      INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    name             TEXT    NOT NULL,
    tn               INTEGER NOT NULL,
    successes_needed INTEGER NOT NULL,
    max_rolls        INTEGER NOT NULL,
    successes        INTEGER NOT NULL DEFAULT 0,
    rolls_used       INTEGER NOT NULL DEFAULT 0,
    status           TEXT    NOT NULL DEFAULT 'open',
    opened_by        INTEGER NOT NULL,
    created_at       TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    ended_at         TEXT,
    CHECK (successes >= 0 AND rolls_used BETWEEN 0 AND max_rolls)
);
-- One open challenge per name in a campaign; ended ones stay as history.
CREATE UNIQUE INDEX cosmos_challenges_open_name
    ON cosmos_challenges (campaign_id, name COLLATE NOCASE) WHERE status = 'open';
