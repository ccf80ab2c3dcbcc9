-- A roll's visibility is one value: public, hidden (a GM's own secret) or blind (a player's,
-- which even its roller doesn't see) until revealed. It replaces the 0/1 `hidden` flag and the
-- `blind` key that blind rolls kept in their payload.
-- PostgreSQL twin of ../0012_roll_visibility.sql.
-- depends: 0011_end_prompts

ALTER TABLE rolls ADD COLUMN visibility TEXT NOT NULL DEFAULT 'public'
    CHECK (visibility IN ('public', 'hidden', 'blind'));
UPDATE rolls SET visibility = CASE
    WHEN hidden = 0 THEN 'public'
    WHEN (payload::jsonb ->> 'blind') = 'true' THEN 'blind'
    ELSE 'hidden'
END;
ALTER TABLE rolls DROP COLUMN hidden;
