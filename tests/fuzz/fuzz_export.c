// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the exporter's parsers (export/listen.c).
 * Sources: tests/fuzz/fuzz_export.c export/listen.c.
 *
 * Byte 0 picks the parser, the rest is the text:
 *   0 export_parse_listen: a success is an IPv4 or IPv6 address with a port 0..65535
 *     whose text has exactly one port and the documented shape; formatting it and parsing
 *     that gives the same address (format -> parse equal); the IPv4 host is written back
 *     as given (inet_pton takes only the canonical dotted quad); a failure names the text
 *     and the valid form.
 *   1 export_accept_openmetrics: adding a media range with q=0 changes nothing; adding
 *     application/openmetrics-text with the default quality always gives OpenMetrics;
 *     adding text/plain;q=1 gives OpenMetrics only if some OpenMetrics range has q=1.
 *   2 export_route: a target in origin form routes as its absolute form
 *     "http://127.0.0.1" + target does; a query added changes nothing; a target without
 *     '%' and '#' routes by its path as it is; no origin-form target with "%00" in its
 *     path is found.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "fuzz_common.h"

static char *join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 1);

	if (!s)
		abort();
	memcpy(s, a, la);
	memcpy(s + la, b, lb + 1);
	return s;
}

static void fuzz_listen(const char *text)
{
	struct sockaddr_storage a, b;
	socklen_t la, lb;
	struct tp_error err = { 0 };
	char back[80];

	if (export_parse_listen(text, &a, &la, &err) < 0) {
		FUZZ_CHECK(strstr(err.msg, "invalid listen address") && strstr(err.msg, "ADDR:PORT"),
			   "message '%s'", err.msg);
		return;
	}
	FUZZ_CHECK(a.ss_family == AF_INET || a.ss_family == AF_INET6, "family %d", a.ss_family);
	FUZZ_CHECK(la == (a.ss_family == AF_INET ? sizeof(struct sockaddr_in)
						   : sizeof(struct sockaddr_in6)), "length %u", la);
	const char *colon = strrchr(text, ':');
	FUZZ_CHECK(colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1) &&
		   strlen(colon + 1) <= 5 && atol(colon + 1) <= 65535, "port of '%s'", text);
	FUZZ_CHECK((text[0] == '[') == (a.ss_family == AF_INET6), "brackets of '%s'", text);
	size_t n = export_format_listen((struct sockaddr *)&a, back, sizeof(back));
	FUZZ_CHECK(n < sizeof(back), "formatted length %zu", n);
	FUZZ_CHECK(export_parse_listen(back, &b, &lb, &err) == 0, "'%s' back from '%s'", back, text);
	FUZZ_CHECK(la == lb && !memcmp(&a, &b, la), "'%s' and '%s' differ", text, back);
	if (a.ss_family == AF_INET) {
		size_t hl = (size_t)(colon - text);
		FUZZ_CHECK(!strncmp(back, text, hl) && back[hl] == ':', "host of '%s' is '%s'", text,
			   back);
	}
}

static void fuzz_accept(const char *text)
{
	bool om = export_accept_openmetrics(text);
	char *s;

	s = join(text, ",text/plain;q=0");
	FUZZ_CHECK(export_accept_openmetrics(s) == om, "q=0 text/plain changed '%s'", text);
	free(s);
	s = join(text, ",application/openmetrics-text;q=0");
	FUZZ_CHECK(export_accept_openmetrics(s) == om, "q=0 openmetrics changed '%s'", text);
	free(s);
	s = join(text, ",application/openmetrics-text");
	FUZZ_CHECK(export_accept_openmetrics(s), "openmetrics q=1 refused after '%s'", text);
	free(s);
	/* with text/plain at q=1 only an OpenMetrics range at q=1 still wins */
	s = join(text, ",text/plain;q=1");
	bool with_text = export_accept_openmetrics(s);
	free(s);
	s = join(text, ",text/plain;q=1,application/openmetrics-text;q=0.999");
	FUZZ_CHECK(export_accept_openmetrics(s) == with_text, "q=0.999 won over text/plain q=1 "
		   "after '%s'", text);
	free(s);
	FUZZ_CHECK(!with_text || om, "text/plain;q=1 turned '%s' into OpenMetrics", text);
}

static void fuzz_route(const char *text)
{
	enum export_route r = export_route(text);
	size_t path_len = strcspn(text, "?");
	char *abs, *query;

	FUZZ_CHECK(r == EXPORT_ROUTE_NOT_FOUND || r == EXPORT_ROUTE_INDEX ||
		   r == EXPORT_ROUTE_METRICS || r == EXPORT_ROUTE_BAD, "route %d", r);
	if (text[0] == '/') {
		abs = join("http://127.0.0.1", text);
		FUZZ_CHECK(export_route(abs) == r, "'%s' and its absolute form differ", text);
		free(abs);
		if (!strpbrk(text, "%#")) {
			enum export_route want = EXPORT_ROUTE_NOT_FOUND;

			if (path_len == 1)
				want = EXPORT_ROUTE_INDEX;
			else if (path_len == 8 && !strncmp(text, "/metrics", 8))
				want = EXPORT_ROUTE_METRICS;
			FUZZ_CHECK(r == want, "'%s': %d, not %d", text, r, want);
		}
	}
	if (!strpbrk(text, "?#")) {
		query = join(text, "?x=%00#");
		FUZZ_CHECK(export_route(query) == r, "a query changed the route of '%s'", text);
		free(query);
	}
	if (text[0] == '/' && (r == EXPORT_ROUTE_INDEX || r == EXPORT_ROUTE_METRICS)) {
		char *path = strndup(text, path_len);

		FUZZ_CHECK(path && !strstr(path, "%00"), "'%s' found with a NUL in its path", text);
		free(path);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *text = fuzz_cstring(data + 1, size - 1);

	if (data[0] % 3 == 0)
		fuzz_listen(text);
	else if (data[0] % 3 == 1)
		fuzz_accept(text);
	else
		fuzz_route(text);
	free(text);
	return 0;
}
