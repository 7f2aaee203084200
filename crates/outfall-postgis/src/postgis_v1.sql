-- Registry schema, version 1, on PostgreSQL with PostGIS: the GeoPackage's tables, with
-- PostGIS geometry columns in EPSG:4326.
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE TABLE sites (
  fid BIGSERIAL PRIMARY KEY, geom geometry(Geometry, 4326), site_id TEXT NOT NULL UNIQUE,
  name TEXT, status TEXT, approved_swppp TEXT, applicant TEXT, address TEXT, parcel_ids TEXT,
  outfall TEXT, exemptions TEXT, attributes TEXT NOT NULL DEFAULT '{}',
  version BIGINT NOT NULL DEFAULT 1, retired TEXT, submitted_by TEXT);
CREATE INDEX sites_geom ON sites USING GIST (geom);
CREATE TABLE disturbance (
  fid BIGSERIAL PRIMARY KEY, geom geometry(Geometry, 4326), site_id TEXT NOT NULL,
  dist_id TEXT NOT NULL, phase TEXT, start_date TEXT, end_date TEXT,
  attributes TEXT NOT NULL DEFAULT '{}');
CREATE INDEX disturbance_site ON disturbance (site_id);
CREATE INDEX disturbance_geom ON disturbance USING GIST (geom);
CREATE TABLE inspections (
  fid BIGSERIAL PRIMARY KEY, site_id TEXT NOT NULL, date TEXT NOT NULL,
  inspector TEXT NOT NULL, findings TEXT NOT NULL, corrective_actions TEXT NOT NULL,
  corrective_due TEXT, recorded_by TEXT NOT NULL, recorded_at TEXT NOT NULL);
CREATE TABLE rainfall (
  fid BIGSERIAL PRIMARY KEY, date TEXT NOT NULL, rain_in DOUBLE PRECISION NOT NULL,
  source TEXT NOT NULL, recorded_by TEXT NOT NULL, recorded_at TEXT NOT NULL,
  UNIQUE (date, source));
CREATE TABLE audit (
  fid BIGSERIAL PRIMARY KEY, at TEXT NOT NULL, who TEXT NOT NULL,
  action TEXT NOT NULL, site_id TEXT, field TEXT, old_value TEXT, new_value TEXT);
CREATE INDEX audit_site ON audit (site_id);
CREATE FUNCTION outfall_append_only() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN RAISE EXCEPTION 'the audit trail is append-only'; END $$;
CREATE TRIGGER audit_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit
  FOR EACH STATEMENT EXECUTE FUNCTION outfall_append_only();
CREATE TABLE tokens (
  token_id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL, hash TEXT NOT NULL,
  created_at TEXT NOT NULL, revoked TEXT);
CREATE TABLE outfall_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- Every commit that changes the sites bumps the stamp, so other servers (and edits made in
-- QGIS over PostGIS) are seen without a restart: the role of SQLite's data_version.
CREATE TABLE outfall_stamp (id INT PRIMARY KEY, n BIGINT NOT NULL);
INSERT INTO outfall_stamp VALUES (1, 0);
CREATE FUNCTION outfall_bump() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN UPDATE outfall_stamp SET n = n + 1 WHERE id = 1; RETURN NULL; END $$;
CREATE TRIGGER sites_bump AFTER INSERT OR UPDATE OR DELETE ON sites
  FOR EACH STATEMENT EXECUTE FUNCTION outfall_bump();
CREATE TRIGGER disturbance_bump AFTER INSERT OR UPDATE OR DELETE ON disturbance
  FOR EACH STATEMENT EXECUTE FUNCTION outfall_bump();
