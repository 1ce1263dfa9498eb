-- Readers' corrections: never served publicly; editors close them at the desk.
CREATE TABLE corrections (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    case_id    TEXT NOT NULL,
    field      TEXT NOT NULL,
    what       TEXT NOT NULL,
    source     TEXT NOT NULL,
    contact    TEXT NOT NULL DEFAULT '',
    lang       TEXT NOT NULL DEFAULT 'ko',
    status     TEXT NOT NULL DEFAULT 'open',
    note       TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL,           -- RFC 3339 with nanoseconds, UTC
    closed_at  TEXT
);
CREATE INDEX corrections_status_created ON corrections (status, created_at);
