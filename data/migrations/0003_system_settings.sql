-- Each system's own campaign settings live in one JSON object, validated against what the
-- system declares (rules/<system>.py), instead of a column per setting of every system.
-- depends: 0002_cosmos

ALTER TABLE campaigns ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';

UPDATE campaigns SET settings = json_object('edge_option', edge_option) WHERE system = 'sixpool';
UPDATE campaigns SET settings = json_object('lingering_taint', json(CASE WHEN lingering_taint THEN 'true' ELSE 'false' END))
    WHERE system = 'sinew';

ALTER TABLE campaigns DROP COLUMN edge_option;
ALTER TABLE campaigns DROP COLUMN lingering_taint;
