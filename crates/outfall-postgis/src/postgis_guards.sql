-- The guards of a PostGIS registry (`guard`): created again at every open and whenever the
-- server finds one missing, changed or disabled. Never a migration: this file is what they
-- are now. `@schema@` is the registry's schema: each function looks only there (then
-- pg_temp, last), so no session can hide a table of theirs behind a temporary one.
--
-- The service's marker: its transactions set `outfall.writer` to the server's writer key,
-- a random value that never leaves the server (`store.rs`); the triggers stand aside when
-- the key's SHA-256 is in `outfall_writers`. A session that sets any other value is audited.
CREATE OR REPLACE FUNCTION outfall_outside() RETURNS boolean LANGUAGE sql STABLE
  SET search_path = @schema@, pg_temp AS
$$ SELECT NOT EXISTS (SELECT 1 FROM outfall_writers WHERE hash = encode(sha256(convert_to(
     coalesce(current_setting('outfall.writer', true), ''), 'UTF8')), 'hex')) $$;
CREATE OR REPLACE FUNCTION outfall_now() RETURNS text LANGUAGE sql VOLATILE AS
  $$ SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;
CREATE OR REPLACE FUNCTION outfall_outside_note(site TEXT, field TEXT, old_value TEXT,
  new_value TEXT) RETURNS void LANGUAGE sql SET search_path = @schema@, pg_temp AS
  $$ INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
     VALUES (outfall_now(), 'outside the service', 'outside edit', site, field, old_value,
       new_value) $$;
-- A registered writer key is audited: a program that lists a key of its own to pass as the
-- service leaves a row naming its database role.
CREATE OR REPLACE FUNCTION outfall_writer_noted() RETURNS trigger LANGUAGE plpgsql
  SET search_path = @schema@, pg_temp AS $$
BEGIN
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    VALUES (outfall_now(), session_user, 'writer key', NULL, 'outfall_writers',
      CASE WHEN TG_OP = 'DELETE' THEN to_jsonb(left(OLD.hash, 12))::text END,
      CASE WHEN TG_OP = 'INSERT' THEN to_jsonb(left(NEW.hash, 12))::text END);
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER writers_noted AFTER INSERT OR DELETE ON outfall_writers
  FOR EACH ROW EXECUTE FUNCTION outfall_writer_noted();
-- The audit trail is append-only.
CREATE OR REPLACE FUNCTION outfall_append_only() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN RAISE EXCEPTION 'the audit trail is append-only'; END $$;
CREATE OR REPLACE TRIGGER audit_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit
  FOR EACH STATEMENT EXECUTE FUNCTION outfall_append_only();
-- Every commit that changes the sites bumps the stamp and tells the listening servers.
CREATE OR REPLACE FUNCTION outfall_bump() RETURNS trigger LANGUAGE plpgsql
  SET search_path = @schema@, pg_temp AS $$
DECLARE
  stamp BIGINT;
BEGIN
  UPDATE outfall_stamp SET n = n + 1 WHERE id = 1 RETURNING n INTO stamp;
  PERFORM pg_notify('outfall_changes', stamp::text);
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER sites_bump AFTER INSERT OR UPDATE OR DELETE ON sites
  FOR EACH STATEMENT EXECUTE FUNCTION outfall_bump();
CREATE OR REPLACE TRIGGER disturbance_bump AFTER INSERT OR UPDATE OR DELETE ON disturbance
  FOR EACH STATEMENT EXECUTE FUNCTION outfall_bump();
-- Every change made outside the service (QGIS, psql) to a site or a disturbance polygon bumps
-- the site's version, so its ETag changes, and leaves audit rows by 'outside the service'.
-- The columns are compared as JSON without the geometry, which is compared on its own: a
-- curve has no GeoJSON, and an edit that writes one must be audited, not fail.
CREATE OR REPLACE FUNCTION outfall_site_outside() RETURNS trigger LANGUAGE plpgsql
  SET search_path = @schema@, pg_temp AS $$
DECLARE
  was sites;
  now_is sites;
BEGIN
  IF NOT outfall_outside() THEN RETURN coalesce(NEW, OLD); END IF;
  IF TG_OP = 'INSERT' THEN
    PERFORM outfall_outside_note(NEW.site_id, 'site', NULL, '"created"');
    RETURN NEW;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM outfall_outside_note(OLD.site_id, 'site', to_jsonb('version ' || OLD.version)::text, '"deleted"');
    RETURN OLD;
  END IF;
  -- An editor that bumped the version itself keeps its number.
  IF NEW.version = OLD.version THEN NEW.version := OLD.version + 1; END IF;
  was := OLD;
  was.geom := NULL;
  now_is := NEW;
  now_is.geom := NULL;
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    SELECT outfall_now(), 'outside the service', 'outside edit', NEW.site_id, o.key,
      o.value::text, n.value::text
    FROM jsonb_each(to_jsonb(was) - 'geom' - 'version' - 'fid') o
    JOIN jsonb_each(to_jsonb(now_is) - 'geom' - 'version' - 'fid') n USING (key)
    WHERE o.value IS DISTINCT FROM n.value ORDER BY o.key;
  IF NOT ST_OrderingEquals(OLD.geom, NEW.geom) OR (OLD.geom IS NULL) <> (NEW.geom IS NULL) THEN
    PERFORM outfall_outside_note(NEW.site_id, 'geom', NULL, '"changed"');
  END IF;
  RETURN NEW;
END $$;
CREATE OR REPLACE TRIGGER sites_outside BEFORE INSERT OR UPDATE OR DELETE ON sites
  FOR EACH ROW EXECUTE FUNCTION outfall_site_outside();
-- A polygon changed outside changes its site: the site's version moves (its row trigger then
-- finds the version already moved and no column changed, and adds nothing).
CREATE OR REPLACE FUNCTION outfall_disturbance_outside() RETURNS trigger LANGUAGE plpgsql
  SET search_path = @schema@, pg_temp AS $$
DECLARE
  site TEXT;
  dist TEXT;
BEGIN
  IF NOT outfall_outside() THEN RETURN NULL; END IF;
  IF TG_OP = 'DELETE' THEN site := OLD.site_id; dist := OLD.dist_id;
  ELSE site := NEW.site_id; dist := NEW.dist_id; END IF;
  UPDATE sites SET version = version + 1 WHERE site_id = site;
  IF TG_OP = 'UPDATE' AND OLD.site_id <> NEW.site_id THEN
    UPDATE sites SET version = version + 1 WHERE site_id = OLD.site_id;
  END IF;
  PERFORM outfall_outside_note(site, 'disturbance ' || dist, NULL,
    to_jsonb(CASE TG_OP WHEN 'INSERT' THEN 'created' WHEN 'DELETE' THEN 'deleted'
      ELSE 'changed' END)::text);
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER disturbance_outside AFTER INSERT OR UPDATE OR DELETE ON disturbance
  FOR EACH ROW EXECUTE FUNCTION outfall_disturbance_outside();
-- A stored time as the server reads it (RFC 3339, or a date at midnight UTC), or NULL when
-- it reads as none.
CREATE OR REPLACE FUNCTION outfall_time(t TEXT) RETURNS timestamptz LANGUAGE plpgsql
  IMMUTABLE SET TimeZone = 'UTC' AS $$
BEGIN
  RETURN t::timestamptz;
EXCEPTION WHEN others THEN
  RETURN NULL;
END $$;
-- Tokens changed outside the service. A change that could grant access (a new token; another
-- id, name, role or secret hash; a revocation undone; an expiry made later, or readable
-- again) is refused: the row is left as it was and the attempt is audited as 'outside edit
-- refused'. One that only takes access away (a revocation, an earlier or unreadable expiry,
-- a deletion) is kept and audited as 'outside edit'.
CREATE OR REPLACE FUNCTION outfall_token_outside() RETURNS trigger LANGUAGE plpgsql
  SET search_path = @schema@, pg_temp AS $$
DECLARE
  refused BOOLEAN;
  action TEXT;
BEGIN
  IF NOT outfall_outside() THEN RETURN coalesce(NEW, OLD); END IF;
  IF TG_OP = 'INSERT' THEN
    INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
      VALUES (outfall_now(), 'outside the service', 'outside edit refused', NULL,
        'token ' || coalesce(NEW.token_id, ''), NULL,
        to_jsonb('created: ' || coalesce(NEW.role, '') || ', ' || coalesce(NEW.name, ''))::text);
    RETURN NULL;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM outfall_outside_note(NULL, 'token ' || OLD.token_id,
      to_jsonb(OLD.role || ', ' || OLD.name)::text, '"deleted"');
    RETURN OLD;
  END IF;
  refused := NEW.token_id IS DISTINCT FROM OLD.token_id OR NEW.name IS DISTINCT FROM OLD.name
    OR NEW.role IS DISTINCT FROM OLD.role OR NEW.hash IS DISTINCT FROM OLD.hash
    OR (OLD.revoked IS NOT NULL AND NEW.revoked IS NULL)
    OR (outfall_time(NEW.expires_at) IS NOT NULL AND (outfall_time(OLD.expires_at) IS NULL
      OR outfall_time(NEW.expires_at) > outfall_time(OLD.expires_at)));
  action := CASE WHEN refused THEN 'outside edit refused' ELSE 'outside edit' END;
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    SELECT outfall_now(), 'outside the service', action, NULL,
      'token ' || OLD.token_id || ' ' || o.key,
      CASE WHEN o.key = 'hash' THEN '"an argon2 hash"' ELSE o.value::text END,
      CASE WHEN o.key = 'hash' THEN '"another hash"' ELSE n.value::text END
    FROM jsonb_each(to_jsonb(OLD)) o JOIN jsonb_each(to_jsonb(NEW)) n USING (key)
    WHERE o.value IS DISTINCT FROM n.value ORDER BY o.key;
  IF refused THEN RETURN NULL; END IF;
  RETURN NEW;
END $$;
CREATE OR REPLACE TRIGGER tokens_outside BEFORE INSERT OR UPDATE OR DELETE ON tokens
  FOR EACH ROW EXECUTE FUNCTION outfall_token_outside();
