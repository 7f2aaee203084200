-- Registry schema, version 4, PostGIS: every change made outside the service (QGIS, psql) to
-- a site or a disturbance polygon bumps the site's version, so its ETag changes, and leaves
-- audit rows by 'outside the service'. The service sets `outfall.service` for each of its
-- transactions (SET LOCAL), and these triggers then stand aside, so its writes, which audit
-- themselves, are not audited twice.
CREATE FUNCTION outfall_outside() RETURNS boolean LANGUAGE sql STABLE AS
  $$ SELECT coalesce(current_setting('outfall.service', true), '') <> 'on' $$;
CREATE FUNCTION outfall_now() RETURNS text LANGUAGE sql VOLATILE AS
  $$ SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;
CREATE FUNCTION outfall_outside_note(site TEXT, field TEXT, old_value TEXT, new_value TEXT)
  RETURNS void LANGUAGE sql AS
  $$ INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
     VALUES (outfall_now(), 'outside the service', 'outside edit', site, field, old_value,
       new_value) $$;
CREATE FUNCTION outfall_site_outside() RETURNS trigger LANGUAGE plpgsql AS $$
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
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    SELECT outfall_now(), 'outside the service', 'outside edit', NEW.site_id, o.key,
      o.value::text, n.value::text
    FROM jsonb_each(to_jsonb(OLD) - 'geom' - 'version' - 'fid') o
    JOIN jsonb_each(to_jsonb(NEW) - 'geom' - 'version' - 'fid') n USING (key)
    WHERE o.value IS DISTINCT FROM n.value ORDER BY o.key;
  IF NOT ST_OrderingEquals(OLD.geom, NEW.geom) OR (OLD.geom IS NULL) <> (NEW.geom IS NULL) THEN
    PERFORM outfall_outside_note(NEW.site_id, 'geom', NULL, '"changed"');
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER sites_outside BEFORE INSERT OR UPDATE OR DELETE ON sites
  FOR EACH ROW EXECUTE FUNCTION outfall_site_outside();
-- A polygon changed outside changes its site: the site's version moves (its row trigger then
-- finds the version already moved and no column changed, and adds nothing).
CREATE FUNCTION outfall_disturbance_outside() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE TRIGGER disturbance_outside AFTER INSERT OR UPDATE OR DELETE ON disturbance
  FOR EACH ROW EXECUTE FUNCTION outfall_disturbance_outside();
