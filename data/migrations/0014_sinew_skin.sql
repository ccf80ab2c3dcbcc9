-- A campaign's skin is Sinew & Steel's own setting (rules/sinew: SKIN), kept in the settings
-- JSON with the system's other settings, instead of a column every campaign had. Sinew
-- campaigns keep their skin; the other systems never used it.
-- depends: 0013_sixpool_skills

UPDATE campaigns SET settings = json_set(settings, '$.skin', skin) WHERE system = 'sinew';

ALTER TABLE campaigns DROP COLUMN skin;
