-- Registry schema, version 1 (GeoPackage 1.3: the core tables QGIS needs, then Outfall's).
CREATE TABLE IF NOT EXISTS gpkg_spatial_ref_sys (
  srs_name TEXT NOT NULL, srs_id INTEGER NOT NULL PRIMARY KEY, organization TEXT NOT NULL,
  organization_coordsys_id INTEGER NOT NULL, definition TEXT NOT NULL, description TEXT);
INSERT OR IGNORE INTO gpkg_spatial_ref_sys VALUES
  ('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system'),
  ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system'),
  ('WGS 84 geodetic', 4326, 'EPSG', 4326,
   'GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563,AUTHORITY["EPSG","7030"]],AUTHORITY["EPSG","6326"]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433,AUTHORITY["EPSG","9122"]],AXIS["Latitude",NORTH],AXIS["Longitude",EAST],AUTHORITY["EPSG","4326"]]',
   'longitude/latitude coordinates in decimal degrees on the WGS 84 spheroid');
CREATE TABLE IF NOT EXISTS gpkg_contents (
  table_name TEXT NOT NULL PRIMARY KEY, data_type TEXT NOT NULL, identifier TEXT UNIQUE,
  description TEXT DEFAULT '', last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  min_x DOUBLE, min_y DOUBLE, max_x DOUBLE, max_y DOUBLE, srs_id INTEGER,
  CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id));
CREATE TABLE IF NOT EXISTS gpkg_geometry_columns (
  table_name TEXT NOT NULL, column_name TEXT NOT NULL, geometry_type_name TEXT NOT NULL,
  srs_id INTEGER NOT NULL, z TINYINT NOT NULL, m TINYINT NOT NULL,
  CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
  CONSTRAINT uk_gc_table_name UNIQUE (table_name),
  CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
  CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id));

CREATE TABLE sites (
  fid INTEGER PRIMARY KEY AUTOINCREMENT, geom GEOMETRY, site_id TEXT NOT NULL UNIQUE,
  name TEXT, status TEXT, approved_swppp TEXT, applicant TEXT, address TEXT, parcel_ids TEXT,
  outfall TEXT, exemptions TEXT, attributes TEXT NOT NULL DEFAULT '{}',
  version INTEGER NOT NULL DEFAULT 1, retired TEXT, submitted_by TEXT);
CREATE TABLE disturbance (
  fid INTEGER PRIMARY KEY AUTOINCREMENT, geom GEOMETRY, site_id TEXT NOT NULL,
  dist_id TEXT NOT NULL, phase TEXT, start_date TEXT, end_date TEXT,
  attributes TEXT NOT NULL DEFAULT '{}');
CREATE INDEX disturbance_site ON disturbance (site_id);
CREATE TABLE inspections (
  fid INTEGER PRIMARY KEY AUTOINCREMENT, site_id TEXT NOT NULL, date TEXT NOT NULL,
  inspector TEXT NOT NULL, findings TEXT NOT NULL, corrective_actions TEXT NOT NULL,
  corrective_due TEXT, recorded_by TEXT NOT NULL, recorded_at TEXT NOT NULL);
CREATE TABLE rainfall (
  fid INTEGER PRIMARY KEY AUTOINCREMENT, date TEXT NOT NULL, rain_in REAL NOT NULL,
  source TEXT NOT NULL, recorded_by TEXT NOT NULL, recorded_at TEXT NOT NULL,
  UNIQUE (date, source));
CREATE TABLE audit (
  fid INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, who TEXT NOT NULL,
  action TEXT NOT NULL, site_id TEXT, field TEXT, old_value TEXT, new_value TEXT);
CREATE INDEX audit_site ON audit (site_id);
-- The audit trail is append-only: no program, Outfall or QGIS, may rewrite it.
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
  BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
  BEGIN SELECT RAISE(ABORT, 'the audit trail is append-only'); END;
CREATE TABLE tokens (
  token_id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL, hash TEXT NOT NULL,
  created_at TEXT NOT NULL, revoked TEXT);
CREATE TABLE outfall_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

INSERT INTO gpkg_contents (table_name, data_type, identifier, description, srs_id) VALUES
  ('sites', 'features', 'sites', 'Construction sites (Outfall registry)', 4326),
  ('disturbance', 'features', 'disturbance', 'Disturbance polygons by phase', 4326),
  ('inspections', 'attributes', 'inspections', 'Site inspections (9)(a)[2]', NULL),
  ('rainfall', 'attributes', 'rainfall', 'Rainfall entered by hand', NULL),
  ('audit', 'attributes', 'audit', 'Who changed what, when (append-only)', NULL);
INSERT INTO gpkg_geometry_columns VALUES
  ('sites', 'geom', 'GEOMETRY', 4326, 0, 0),
  ('disturbance', 'geom', 'GEOMETRY', 4326, 0, 0);
