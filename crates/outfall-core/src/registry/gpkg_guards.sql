-- The guards of a GeoPackage registry (`guard`), created again at every open and whenever the
-- server finds one missing or changed. Never a migration: this file is what they are now.
--
-- The service's connection has the SQL function `outfall_service_writer` (`gpkg.rs`); this
-- view finds it in `pragma_function_list`, which lists the functions of the connection that
-- runs the trigger. No SQL can create a function, so QGIS or sqlite3 never has it, whatever
-- rows or temporary tables it makes. A table named `pragma_function_list` would hide the
-- real list: while one exists, every write is audited, the service's too.
DROP VIEW IF EXISTS outfall_service;
CREATE VIEW outfall_service AS
  SELECT 1 AS writing FROM pragma_function_list
  WHERE name = 'outfall_service_writer'
    AND NOT EXISTS (SELECT 1 FROM sqlite_master WHERE name = 'pragma_function_list');
-- The audit trail is append-only: no program, Outfall or QGIS, may rewrite it.
DROP TRIGGER IF EXISTS audit_no_update;
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
  BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
DROP TRIGGER IF EXISTS audit_no_delete;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
  BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
-- Every change made outside the service (QGIS, sqlite3) to a site or a disturbance polygon
-- bumps the site's version, so its ETag changes, and leaves audit rows by 'outside the
-- service'. The service's own writes audit themselves and are not audited twice.
DROP TRIGGER IF EXISTS sites_outside_update;
CREATE TRIGGER sites_outside_update AFTER UPDATE ON sites
WHEN NOT EXISTS (SELECT 1 FROM outfall_service)
BEGIN
  -- An editor that bumped the version itself keeps its number.
  UPDATE sites SET version = old.version + 1 WHERE fid = new.fid AND version = old.version;
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'outside the service', 'outside edit',
      new.site_id, c.field, c.o, c.n FROM (
    SELECT 'site_id' AS field, json_quote(old.site_id) AS o, json_quote(new.site_id) AS n WHERE old.site_id IS NOT new.site_id
    UNION ALL SELECT 'name' AS field, json_quote(old.name) AS o, json_quote(new.name) AS n WHERE old.name IS NOT new.name
    UNION ALL SELECT 'status' AS field, json_quote(old.status) AS o, json_quote(new.status) AS n WHERE old.status IS NOT new.status
    UNION ALL SELECT 'approved_swppp' AS field, json_quote(old.approved_swppp) AS o, json_quote(new.approved_swppp) AS n WHERE old.approved_swppp IS NOT new.approved_swppp
    UNION ALL SELECT 'applicant' AS field, json_quote(old.applicant) AS o, json_quote(new.applicant) AS n WHERE old.applicant IS NOT new.applicant
    UNION ALL SELECT 'address' AS field, json_quote(old.address) AS o, json_quote(new.address) AS n WHERE old.address IS NOT new.address
    UNION ALL SELECT 'parcel_ids' AS field, json_quote(old.parcel_ids) AS o, json_quote(new.parcel_ids) AS n WHERE old.parcel_ids IS NOT new.parcel_ids
    UNION ALL SELECT 'outfall' AS field, json_quote(old.outfall) AS o, json_quote(new.outfall) AS n WHERE old.outfall IS NOT new.outfall
    UNION ALL SELECT 'exemptions' AS field, json_quote(old.exemptions) AS o, json_quote(new.exemptions) AS n WHERE old.exemptions IS NOT new.exemptions
    UNION ALL SELECT 'attributes' AS field, json_quote(old.attributes) AS o, json_quote(new.attributes) AS n WHERE old.attributes IS NOT new.attributes
    UNION ALL SELECT 'retired' AS field, json_quote(old.retired) AS o, json_quote(new.retired) AS n WHERE old.retired IS NOT new.retired
    UNION ALL SELECT 'submitted_by' AS field, json_quote(old.submitted_by) AS o, json_quote(new.submitted_by) AS n WHERE old.submitted_by IS NOT new.submitted_by
    UNION ALL SELECT 'geom', NULL, '"changed"' WHERE old.geom IS NOT new.geom) AS c;
END;
DROP TRIGGER IF EXISTS sites_outside_insert;
CREATE TRIGGER sites_outside_insert AFTER INSERT ON sites
WHEN NOT EXISTS (SELECT 1 FROM outfall_service)
BEGIN
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'outside the service', 'outside edit',
      new.site_id, 'site', NULL, '"created"');
END;
DROP TRIGGER IF EXISTS sites_outside_delete;
CREATE TRIGGER sites_outside_delete AFTER DELETE ON sites
WHEN NOT EXISTS (SELECT 1 FROM outfall_service)
BEGIN
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'outside the service', 'outside edit',
      old.site_id, 'site', json_quote('version ' || old.version), '"deleted"');
END;
-- A polygon changed outside changes its site: the site's version moves (its row trigger
-- then finds the version already moved and no column changed, and adds nothing).
DROP TRIGGER IF EXISTS disturbance_outside_insert;
CREATE TRIGGER disturbance_outside_insert AFTER INSERT ON disturbance
WHEN NOT EXISTS (SELECT 1 FROM outfall_service)
BEGIN
  UPDATE sites SET version = version + 1 WHERE site_id = new.site_id;
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'outside the service', 'outside edit',
      new.site_id, 'disturbance ' || new.dist_id, NULL, '"created"');
END;
DROP TRIGGER IF EXISTS disturbance_outside_update;
CREATE TRIGGER disturbance_outside_update AFTER UPDATE ON disturbance
WHEN NOT EXISTS (SELECT 1 FROM outfall_service)
BEGIN
  UPDATE sites SET version = version + 1 WHERE site_id IN (old.site_id, new.site_id);
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'outside the service', 'outside edit',
      new.site_id, 'disturbance ' || new.dist_id, NULL, '"changed"');
END;
DROP TRIGGER IF EXISTS disturbance_outside_delete;
CREATE TRIGGER disturbance_outside_delete AFTER DELETE ON disturbance
WHEN NOT EXISTS (SELECT 1 FROM outfall_service)
BEGIN
  UPDATE sites SET version = version + 1 WHERE site_id = old.site_id;
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'outside the service', 'outside edit',
      old.site_id, 'disturbance ' || old.dist_id, NULL, '"deleted"');
END;
-- Tokens changed outside the service. A change that could grant access (a new token; another
-- id, name, role or secret hash; a revocation undone; an expiry made later, or readable
-- again) is refused: the row is left as it was (RAISE(IGNORE) skips it) and the attempt is
-- audited as 'outside edit refused'. One that only takes access away (a revocation, an
-- earlier or unreadable expiry, a deletion) is kept and audited as 'outside edit'.
DROP TRIGGER IF EXISTS tokens_outside_insert;
CREATE TRIGGER tokens_outside_insert BEFORE INSERT ON tokens
WHEN NOT EXISTS (SELECT 1 FROM outfall_service)
BEGIN
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'outside the service', 'outside edit refused', NULL,
      'token ' || coalesce(new.token_id, ''), NULL,
      json_quote('created: ' || coalesce(new.role, '') || ', ' || coalesce(new.name, '')));
  SELECT RAISE(IGNORE);
END;
DROP TRIGGER IF EXISTS tokens_outside_refused;
CREATE TRIGGER tokens_outside_refused BEFORE UPDATE ON tokens
WHEN NOT EXISTS (SELECT 1 FROM outfall_service) AND (
  new.token_id IS NOT old.token_id OR new.name IS NOT old.name OR new.role IS NOT old.role
  OR new.hash IS NOT old.hash OR (old.revoked IS NOT NULL AND new.revoked IS NULL)
  OR (julianday(new.expires_at) IS NOT NULL AND (julianday(old.expires_at) IS NULL
    OR julianday(new.expires_at) > julianday(old.expires_at))))
BEGIN
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'outside the service', 'outside edit refused', NULL,
      'token ' || old.token_id || ' ' || c.field, c.o, c.n FROM (
    SELECT 'token_id' AS field, json_quote(old.token_id) AS o, json_quote(new.token_id) AS n WHERE old.token_id IS NOT new.token_id
    UNION ALL SELECT 'name', json_quote(old.name), json_quote(new.name) WHERE old.name IS NOT new.name
    UNION ALL SELECT 'role', json_quote(old.role), json_quote(new.role) WHERE old.role IS NOT new.role
    UNION ALL SELECT 'hash', '"an argon2 hash"', '"another hash"' WHERE old.hash IS NOT new.hash
    UNION ALL SELECT 'expires_at', json_quote(old.expires_at), json_quote(new.expires_at) WHERE old.expires_at IS NOT new.expires_at
    UNION ALL SELECT 'revoked', json_quote(old.revoked), json_quote(new.revoked) WHERE old.revoked IS NOT new.revoked
    UNION ALL SELECT 'created_at', json_quote(old.created_at), json_quote(new.created_at) WHERE old.created_at IS NOT new.created_at) AS c;
  SELECT RAISE(IGNORE);
END;
DROP TRIGGER IF EXISTS tokens_outside_update;
CREATE TRIGGER tokens_outside_update AFTER UPDATE ON tokens
WHEN NOT EXISTS (SELECT 1 FROM outfall_service)
BEGIN
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    SELECT strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'outside the service', 'outside edit', NULL,
      'token ' || old.token_id || ' ' || c.field, c.o, c.n FROM (
    SELECT 'token_id' AS field, json_quote(old.token_id) AS o, json_quote(new.token_id) AS n WHERE old.token_id IS NOT new.token_id
    UNION ALL SELECT 'name', json_quote(old.name), json_quote(new.name) WHERE old.name IS NOT new.name
    UNION ALL SELECT 'role', json_quote(old.role), json_quote(new.role) WHERE old.role IS NOT new.role
    UNION ALL SELECT 'hash', '"an argon2 hash"', '"another hash"' WHERE old.hash IS NOT new.hash
    UNION ALL SELECT 'expires_at', json_quote(old.expires_at), json_quote(new.expires_at) WHERE old.expires_at IS NOT new.expires_at
    UNION ALL SELECT 'revoked', json_quote(old.revoked), json_quote(new.revoked) WHERE old.revoked IS NOT new.revoked
    UNION ALL SELECT 'created_at', json_quote(old.created_at), json_quote(new.created_at) WHERE old.created_at IS NOT new.created_at) AS c;
END;
DROP TRIGGER IF EXISTS tokens_outside_delete;
CREATE TRIGGER tokens_outside_delete AFTER DELETE ON tokens
WHEN NOT EXISTS (SELECT 1 FROM outfall_service)
BEGIN
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'outside the service', 'outside edit', NULL, 'token ' || old.token_id,
      json_quote(old.role || ', ' || old.name), '"deleted"');
END;
