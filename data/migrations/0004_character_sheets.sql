-- Characters carry their system's sheet as JSON (checked by the system's sheet dataclass), and
-- a name picks one character in its campaign: a GM names the character they roll for.
-- depends: 0003_system_settings

ALTER TABLE characters ADD COLUMN sheet TEXT NOT NULL DEFAULT '{}';
CREATE UNIQUE INDEX characters_name_in_campaign ON characters (campaign_id, name);
