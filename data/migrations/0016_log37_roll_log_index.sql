-- A campaign's roll log, read a page at a time either way from an id (`/campaign log`, ← Newer
-- and Older →): without this index each page scans every other campaign's rolls between its
-- own (README, "The roll log").
-- depends: 0015_roll_messages

CREATE INDEX rolls_by_campaign ON rolls (campaign_id, id);
