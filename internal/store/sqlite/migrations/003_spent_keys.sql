-- Keys that may be used once (correction forms sent, desk sessions ended),
-- each kept until it runs out.
CREATE TABLE spent_keys (
    key   TEXT PRIMARY KEY,
    until TEXT NOT NULL -- RFC 3339 with nanoseconds, UTC
);
CREATE INDEX spent_keys_until ON spent_keys (until);
