package incidentlib

import (
	"net"
	"strings"
)

// DefaultAddr is where `incidentlib serve` listens unless told otherwise.
const DefaultAddr = "127.0.0.1:8080"

// DefaultBaseURL is the public address of a site served at DefaultAddr: the
// base URL case URLs are derived from when none is configured, by serve and
// by the commands that print cases (show, export).
const DefaultBaseURL = "http://localhost:8080"

// BaseURLFor is the base URL of a server listening on addr when no base URL
// is configured. A loopback or unspecified host (127.0.0.1, ::1, 0.0.0.0,
// none) is named localhost, so that the default address gives
// DefaultBaseURL and the links a page prints work from the same machine.
func BaseURLFor(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if ip := net.ParseIP(host); host == "" || host == "localhost" || (ip != nil && (ip.IsLoopback() || ip.IsUnspecified())) {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// CasePath is the root-relative path of a case's page.
func CasePath(id string) string { return "/cases/" + id }

// CaseURL is a case's canonical address under baseURL.
func CaseURL(baseURL, id string) string {
	return strings.TrimRight(baseURL, "/") + CasePath(id)
}
