-- Version 5: every commit that changes the sites also tells the servers listening on
-- `outfall_changes` (delivered at commit, never for a rolled-back change), so each replica
-- reloads at once instead of polling the stamp. The payload is the new stamp.
CREATE OR REPLACE FUNCTION outfall_bump() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  stamp BIGINT;
BEGIN
  UPDATE outfall_stamp SET n = n + 1 WHERE id = 1 RETURNING n INTO stamp;
  PERFORM pg_notify('outfall_changes', stamp::text);
  RETURN NULL;
END $$;
