-- Enchanted Realms: the traits a GM gives a player in a campaign (`/realms trait add`), the
-- reroll the one so far: in a campaign the reroll is offered only to its holders and to a GM
-- for their own rolls (README, Rules notes: Enchanted Realms, "The reroll is a trait").
-- depends: 0016_log37_roll_log_index

CREATE TABLE realms_traits (
    campaign_id INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    user_id     INTEGER NOT NULL,
    trait       TEXT    NOT NULL,
    granted_by  INTEGER NOT NULL,
    PRIMARY KEY (campaign_id, user_id, trait)
) WITHOUT ROWID;
