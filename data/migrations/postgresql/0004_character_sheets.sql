-- Characters carry their system's sheet as JSON (checked by the system's sheet dataclass), and
-- a name picks one character in its campaign: a GM names the character they roll for.
-- PostgreSQL twin of ../0004_character_sheets.sql (see 0001_foundation.sql for the
-- translation): characters.name is CITEXT, so this index ignores case as SQLite's does.
-- depends: 0003_system_settings

ALTER TABLE characters ADD COLUMN sheet TEXT NOT NULL DEFAULT '{}';
CREATE UNIQUE INDEX characters_name_in_campaign ON characters (campaign_id, name);
