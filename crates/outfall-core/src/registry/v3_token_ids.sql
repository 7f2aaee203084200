-- Registry schema, version 3 (GeoPackage and PostGIS alike): tokens expire, token names are
-- unique, and a submission belongs to a token's id rather than its name. `migrate::run` then
-- gives tokens made before this an expiry, in the same transaction.
ALTER TABLE tokens ADD COLUMN expires_at TEXT;
-- A submission goes to the first token given its name: a later token with the same name is
-- exactly what this version stops from seeing another holder's submissions.
UPDATE sites SET submitted_by = (
    SELECT t.token_id FROM tokens t WHERE t.name = sites.submitted_by
    ORDER BY t.created_at, t.token_id LIMIT 1)
  WHERE submitted_by IN (SELECT name FROM tokens);
UPDATE tokens SET name = name || ' #' || token_id
  WHERE EXISTS (SELECT 1 FROM tokens o WHERE o.name = tokens.name
    AND (o.created_at < tokens.created_at
      OR (o.created_at = tokens.created_at AND o.token_id < tokens.token_id)));
CREATE UNIQUE INDEX tokens_name ON tokens (name);
