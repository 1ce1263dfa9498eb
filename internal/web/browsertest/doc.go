// Package browsertest drives the web site in headless Chromium: a reader's
// path through the pages, screenshots at desktop and phone widths, a crawl
// of every internal link, and axe-core accessibility checks. It holds only
// tests; they skip unless Chromium and node_modules/axe-core are present,
// and INCIDENTLIB_BROWSER_TESTS=1 turns a skip into a failure.
package browsertest
