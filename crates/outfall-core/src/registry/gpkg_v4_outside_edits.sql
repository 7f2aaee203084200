-- Registry schema, version 4, GeoPackage: every change made outside the service (QGIS,
-- sqlite3) to a site or a disturbance polygon bumps the site's version, so its ETag changes,
-- and leaves audit rows by 'outside the service'. The service's own transactions hold a row
-- in `outfall_writer` (never committed), and these triggers then stand aside, so its writes,
-- which audit themselves, are not audited twice.
CREATE TRIGGER sites_outside_update AFTER UPDATE ON sites
WHEN NOT EXISTS (SELECT 1 FROM outfall_writer)
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
CREATE TRIGGER sites_outside_insert AFTER INSERT ON sites
WHEN NOT EXISTS (SELECT 1 FROM outfall_writer)
BEGIN
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'outside the service', 'outside edit',
      new.site_id, 'site', NULL, '"created"');
END;
CREATE TRIGGER sites_outside_delete AFTER DELETE ON sites
WHEN NOT EXISTS (SELECT 1 FROM outfall_writer)
BEGIN
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'outside the service', 'outside edit',
      old.site_id, 'site', json_quote('version ' || old.version), '"deleted"');
END;
-- A polygon changed outside changes its site: the site's version moves (its row trigger
-- then finds the version already moved and no column changed, and adds nothing).
CREATE TRIGGER disturbance_outside_insert AFTER INSERT ON disturbance
WHEN NOT EXISTS (SELECT 1 FROM outfall_writer)
BEGIN
  UPDATE sites SET version = version + 1 WHERE site_id = new.site_id;
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'outside the service', 'outside edit',
      new.site_id, 'disturbance ' || new.dist_id, NULL, '"created"');
END;
CREATE TRIGGER disturbance_outside_update AFTER UPDATE ON disturbance
WHEN NOT EXISTS (SELECT 1 FROM outfall_writer)
BEGIN
  UPDATE sites SET version = version + 1 WHERE site_id IN (old.site_id, new.site_id);
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'outside the service', 'outside edit',
      new.site_id, 'disturbance ' || new.dist_id, NULL, '"changed"');
END;
CREATE TRIGGER disturbance_outside_delete AFTER DELETE ON disturbance
WHEN NOT EXISTS (SELECT 1 FROM outfall_writer)
BEGIN
  UPDATE sites SET version = version + 1 WHERE site_id = old.site_id;
  INSERT INTO audit (at, who, action, site_id, field, old_value, new_value)
    VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), 'outside the service', 'outside edit',
      old.site_id, 'disturbance ' || old.dist_id, NULL, '"deleted"');
END;
