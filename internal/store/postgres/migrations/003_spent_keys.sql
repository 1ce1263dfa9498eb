-- Keys that may be used once (correction forms sent, desk sessions ended),
-- each kept until it runs out.
CREATE TABLE spent_keys (
    key   TEXT PRIMARY KEY,
    until TIMESTAMPTZ NOT NULL
);
CREATE INDEX spent_keys_until ON spent_keys (until);
