-- Registry schema, version 2 (GeoPackage and PostGIS alike): the typed site record. No table
-- changes: `status` holds a code of the closed list and the approval moves from the
-- `approved_swppp` text to a `swppp_approval` object in `attributes`. The rows are converted
-- by `migrate::convert_rows` in the same transaction, each change audited by "migration".
SELECT 1;
