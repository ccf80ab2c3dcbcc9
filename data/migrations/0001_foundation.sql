-- Foundation: campaigns and their GMs, characters, tracks and the roll log.
-- Each system adds its own tables (sheets keyed by characters.id, its own state) in a later file.

CREATE TABLE campaigns (
    id              INTEGER PRIMARY KEY,
    guild_id        INTEGER,
    channel_id      INTEGER NOT NULL,   -- a thread's campaign lives on its parent channel
    system          TEXT    NOT NULL,
    name            TEXT    NOT NULL,
    skin            TEXT    NOT NULL,
    edge_option     TEXT,
    lingering_taint INTEGER NOT NULL DEFAULT 0,
    created_by      INTEGER NOT NULL,
    created_at      TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    ended_at        TEXT,               -- ended campaigns are kept for the audit trail
    ended_by        INTEGER
);
CREATE UNIQUE INDEX campaigns_one_active_per_channel ON campaigns (channel_id) WHERE ended_at IS NULL;

CREATE TABLE campaign_gms (
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL,
    added_by    INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, user_id)
) WITHOUT ROWID;

CREATE TABLE characters (
    id          INTEGER PRIMARY KEY,
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL,
    name        TEXT    NOT NULL COLLATE NOCASE,
    created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (campaign_id, user_id, name)
);

CREATE TABLE tracks (
    id           INTEGER PRIMARY KEY,
    campaign_id  INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    character_id INTEGER REFERENCES characters (id) ON DELETE CASCADE,  -- NULL: the party's track
    name         TEXT    NOT NULL,
    value        INTEGER NOT NULL,
    minimum      INTEGER NOT NULL,
    maximum      INTEGER NOT NULL,
    CHECK (value BETWEEN minimum AND maximum)
);
CREATE UNIQUE INDEX tracks_one_per_owner ON tracks (campaign_id, ifnull(character_id, 0), name);

CREATE TABLE rolls (
    id          INTEGER PRIMARY KEY,
    campaign_id INTEGER REFERENCES campaigns (id) ON DELETE SET NULL,
    guild_id    INTEGER,
    channel_id  INTEGER NOT NULL,       -- the campaign channel (a thread's parent)
    user_id     INTEGER NOT NULL,
    kind        TEXT    NOT NULL,       -- 'dice' for /roll, else the system's roll kind
    hidden      INTEGER NOT NULL,
    payload     TEXT    NOT NULL,       -- JSON: the result and its rendering
    created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    revealed_at TEXT
);
CREATE INDEX rolls_latest_by_user ON rolls (channel_id, user_id, id);
