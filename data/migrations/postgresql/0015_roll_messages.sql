-- The public message that shows a roll, so what changes the roll later (a Luck spend typed as
-- `/sinew luck spend`) edits that message in place, buttons and all, instead of posting
-- another copy (README, "Buttons and announcements"). NULL: a secret roll (its reply is
-- private), or one logged before this column.
-- PostgreSQL twin of ../0015_roll_messages.sql.
-- depends: 0014_sinew_skin

ALTER TABLE rolls ADD COLUMN message_id BIGINT;
