-- Readers' submissions of incidents the library lacks share the
-- corrections queue (field 'submission', no case): the write-up's URL is the
-- source, the reader's note the text; these are the organisation and the
-- incident's date as the reader gives them. Never served publicly.
ALTER TABLE corrections ADD COLUMN org TEXT NOT NULL DEFAULT '';
ALTER TABLE corrections ADD COLUMN incident_date TEXT NOT NULL DEFAULT '';
