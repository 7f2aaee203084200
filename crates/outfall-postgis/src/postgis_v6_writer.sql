-- Registry schema, version 6, PostGIS: the service's marker could be set by any session
-- (`SET LOCAL outfall.service = 'on'`). From now on each server draws a random writer key at
-- start, keeps it in memory, and stores only its SHA-256 here; its transactions set the key
-- (`outfall.writer`, SET LOCAL), and the guards stand aside only when its hash is listed.
CREATE TABLE outfall_writers (hash TEXT PRIMARY KEY, registered_at TEXT NOT NULL);
