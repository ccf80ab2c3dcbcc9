-- Per-campaign table switches (`/campaign settings`): where the GMs read secret rolls, and
-- whether the channel hears that someone rolled in secret. JSON, checked by
-- rules.campaigns.TableSwitches.
-- PostgreSQL twin of ../0007_table_switches.sql.
-- depends: 0006_sixpool_groups

ALTER TABLE campaigns ADD COLUMN switches TEXT NOT NULL DEFAULT '{}';
