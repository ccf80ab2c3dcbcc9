-- Six-pool d20 after the second rules audit (README, Rules notes: "Six-pool d20", contests): a
-- GM may challenge a player as an NPC (no challenger character and no pool: the NPC's total
-- modifier instead); the challenger may spend inspiration; and a contest keeps the roll that
-- holds its result now (each side's inspiration reroll replaces it, whichever side rolls it).
-- SQLite can't drop a NOT NULL: the table is rebuilt, its rows and column order kept.
-- depends: 0018_character_rolled

CREATE TABLE sixpool_contests_sides (
    id             INTEGER PRIMARY KEY,
    campaign_id    INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    channel_id     INTEGER NOT NULL,
    challenger_id  INTEGER REFERENCES characters (id) ON DELETE CASCADE,
    defender_id    INTEGER NOT NULL REFERENCES characters (id) ON DELETE CASCADE,
    pool           TEXT,
    defender_pool  TEXT    NOT NULL,
    spend          INTEGER NOT NULL CHECK (spend >= 0),
    advantage      INTEGER NOT NULL DEFAULT 0,
    disadvantage   INTEGER NOT NULL DEFAULT 0,
    status         TEXT    NOT NULL DEFAULT 'pending'
                   CHECK (status IN ('pending', 'resolved', 'expired')),
    expires_at     REAL    NOT NULL,
    message_id     INTEGER,
    skill          TEXT,
    defender_skill TEXT,
    npc_modifier   INTEGER,
    inspiration    INTEGER NOT NULL DEFAULT 0,
    roll_id        INTEGER,
    CHECK ((challenger_id IS NULL) = (npc_modifier IS NOT NULL))
);

INSERT INTO sixpool_contests_sides (id, campaign_id, channel_id, challenger_id, defender_id,
    pool, defender_pool, spend, advantage, disadvantage, status, expires_at, message_id, skill,
    defender_skill)
SELECT id, campaign_id, channel_id, challenger_id, defender_id, pool, defender_pool, spend,
    advantage, disadvantage, status, expires_at, message_id, skill, defender_skill
FROM sixpool_contests;

DROP TABLE sixpool_contests;

ALTER TABLE sixpool_contests_sides RENAME TO sixpool_contests;
