-- `/campaign recap` reads a campaign's latest session: it walks the campaign's rolls backwards
-- from the newest until a pause of three hours (or the asked start), then reads that session
-- forwards. This index makes both walks a range of one campaign instead of a scan of the log
-- (README, "Campaign recap"); `/campaign log` pages by the same (campaign_id, id).
-- PostgreSQL twin of ../0016_recap39_session_index.sql.
-- depends: 0015_roll_messages

CREATE INDEX rolls_by_campaign ON rolls (campaign_id, id);
