package api

import _ "embed"

// OpenAPI is the API's OpenAPI 3.1 document; {{BASE_URL}} is replaced by the
// server's base URL when served. A test keeps it true to the routes and to
// the fields the handlers write.
//
//go:embed openapi.json
var OpenAPI []byte
