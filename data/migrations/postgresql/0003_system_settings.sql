-- Each system's own campaign settings live in one JSON object, validated against what the
-- system declares (rules/<system>.py), instead of a column per setting of every system.
-- PostgreSQL twin of ../0003_system_settings.sql (see 0001_foundation.sql for the translation).
-- depends: 0002_cosmos

ALTER TABLE campaigns ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';

-- jsonb → text gives {"edge_option": "x"}: the same JSON as SQLite's json_object, spaced.
UPDATE campaigns SET settings = jsonb_build_object('edge_option', edge_option)::text
    WHERE system = 'sixpool';
UPDATE campaigns SET settings = jsonb_build_object('lingering_taint', lingering_taint <> 0)::text
    WHERE system = 'sinew';

ALTER TABLE campaigns DROP COLUMN edge_option;
ALTER TABLE campaigns DROP COLUMN lingering_taint;
