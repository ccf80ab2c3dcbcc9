-- Six-pool d20 after the rules audit: each side of a contest names a skill (its training counts
-- as in a skill check), kept with a contest waiting for the defender; and the skills a GM lists
-- as trained-only in a campaign (none by default), which refuse an untrained check.
-- depends: 0012_roll_visibility

ALTER TABLE sixpool_contests ADD COLUMN skill TEXT;
ALTER TABLE sixpool_contests ADD COLUMN defender_skill TEXT;

CREATE TABLE sixpool_trained_only (
    campaign_id  INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    skill        TEXT    NOT NULL,
    PRIMARY KEY (campaign_id, skill)
);
