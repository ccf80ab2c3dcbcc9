-- Saved rolls: a player's own (user_id set) or a campaign's, saved by a GM (campaign_id set).
-- Names are unique per owner, in any case.
-- depends: 0007_table_switches

CREATE TABLE macros (
    id           INTEGER PRIMARY KEY,
    user_id      INTEGER,
    campaign_id  INTEGER REFERENCES campaigns (id) ON DELETE CASCADE,
    name         TEXT    NOT NULL,
    expression   TEXT    NOT NULL,
    created_at   TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    CHECK ((user_id IS NULL) != (campaign_id IS NULL))
);
CREATE UNIQUE INDEX macros_name_per_owner
    ON macros (ifnull(user_id, 0), ifnull(campaign_id, 0), name COLLATE NOCASE);
