-- Six-pool d20 after the second rules audit (README, Rules notes: "Six-pool d20", contests): a
-- GM may challenge a player as an NPC (no challenger character and no pool: the NPC's total
-- modifier instead); the challenger may spend inspiration; and a contest keeps the roll that
-- holds its result now (each side's inspiration reroll replaces it, whichever side rolls it).
-- PostgreSQL twin of ../0019_sixpool_contest_sides.sql.
-- depends: 0018_character_rolled

ALTER TABLE sixpool_contests ALTER COLUMN challenger_id DROP NOT NULL;
ALTER TABLE sixpool_contests ALTER COLUMN pool DROP NOT NULL;
ALTER TABLE sixpool_contests ADD COLUMN npc_modifier INTEGER;
ALTER TABLE sixpool_contests ADD COLUMN inspiration INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sixpool_contests ADD COLUMN roll_id BIGINT;
ALTER TABLE sixpool_contests
    ADD CHECK ((challenger_id IS NULL) = (npc_modifier IS NOT NULL));
