-- One row a case. The case itself is JSON in its API shape; the columns
-- beside it are what the store needs to seed and filter without decoding.
CREATE TABLE cases (
    id         TEXT PRIMARY KEY,
    data       TEXT NOT NULL,          -- the case as JSON (API shape, without url)
    updated_at TEXT NOT NULL,          -- RFC 3339, copied from the case
    private    INTEGER NOT NULL DEFAULT 0,
    origin     TEXT NOT NULL,          -- corpus | api
    deleted    INTEGER NOT NULL DEFAULT 0,  -- a tombstone keeps a deleted corpus case from returning
    written_at TEXT NOT NULL
);
