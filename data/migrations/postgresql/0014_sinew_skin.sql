-- A campaign's skin is Sinew & Steel's own setting (rules/sinew: SKIN), kept in the settings
-- JSON with the system's other settings, instead of a column every campaign had. Sinew
-- campaigns keep their skin; the other systems never used it.
-- PostgreSQL twin of ../0014_sinew_skin.sql.
-- depends: 0013_sixpool_skills

UPDATE campaigns SET settings = jsonb_set(settings::jsonb, '{skin}', to_jsonb(skin))::text
    WHERE system = 'sinew';

ALTER TABLE campaigns DROP COLUMN skin;
