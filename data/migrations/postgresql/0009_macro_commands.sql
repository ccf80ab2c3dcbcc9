-- A macro may hold a roll command instead of dice: `command` is its name, options and the shape
-- of the command's options when saved (JSON, see bot/saved_commands.py); `expression` then holds
-- the command as typed, for lists. NULL for a dice macro.
-- PostgreSQL twin of ../0009_macro_commands.sql.
-- depends: 0008_macros

ALTER TABLE macros ADD COLUMN command TEXT;
