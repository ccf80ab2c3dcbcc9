-- Whether a character has rolled: set in the transaction of the first roll logged for it
-- (docs/players/sinew.md, "Characters forgive mistakes"). Until then its
-- owner may edit the sheet within the creation rules; from then on a GM edits it. A character
-- made before this migration counts as rolled once its player has rolled in its campaign.
-- depends: 0017_realms_traits

ALTER TABLE characters ADD COLUMN rolled INTEGER NOT NULL DEFAULT 0;
UPDATE characters SET rolled = 1 WHERE EXISTS (
    SELECT 1 FROM rolls
    WHERE rolls.campaign_id = characters.campaign_id AND rolls.user_id = characters.user_id
);
