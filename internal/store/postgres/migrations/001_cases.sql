-- One row a case: the case itself as JSON in its API shape, and the columns
-- seeding needs. Same model as the SQLite store.
CREATE TABLE cases (
    id         TEXT PRIMARY KEY,
    data       JSONB NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    private    BOOLEAN NOT NULL DEFAULT false,
    origin     TEXT NOT NULL CHECK (origin IN ('corpus', 'api')),
    deleted    BOOLEAN NOT NULL DEFAULT false,
    written_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
