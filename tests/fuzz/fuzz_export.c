// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the exporter's parsers (export/listen.c).
 * Sources: tests/fuzz/fuzz_export.c export/listen.c.
 *
 * Byte 0 picks the parser, the rest is the text:
 *   0 export_parse_listen: a success is ":PORT" (every address), a host name, an IPv4
 *     address or a bracketed IPv6 one, with the port 0..65535 its text ends with; a host
 *     name is never a numeric address and holds only letters, digits, '-' and '.';
 *     writing it back and parsing that gives the same (text -> parse -> text -> parse
 *     equal), and the host of ":PORT", a name and an IPv4 address is written back as
 *     given (inet_pton takes only the canonical dotted quad); a failure names the text
 *     and the valid forms.
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
	struct export_listen a, b;
	struct tp_error err = { 0 };
	char back[300];

	if (export_parse_listen(text, &a, &err) < 0) {
		FUZZ_CHECK(strstr(err.msg, "invalid listen address") && strstr(err.msg, "[HOST]:PORT"),
			   "message '%s'", err.msg);
		return;
	}
	const char *colon = strrchr(text, ':');
	FUZZ_CHECK(colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1) &&
		   strlen(colon + 1) <= 5 && atol(colon + 1) == a.port, "port of '%s'", text);
	FUZZ_CHECK((text[0] == ':') == (a.kind == EXPORT_LISTEN_ANY), "any of '%s'", text);
	switch (a.kind) {
	case EXPORT_LISTEN_ANY:
		FUZZ_CHECK(!a.host[0] && colon == text, "':PORT' of '%s'", text);
		break;
	case EXPORT_LISTEN_ADDRESS:
		FUZZ_CHECK(a.addr.ss_family == (text[0] == '[' ? AF_INET6 : AF_INET),
			   "family of '%s'", text);
		FUZZ_CHECK(a.addr_len == (a.addr.ss_family == AF_INET ? sizeof(struct sockaddr_in)
						: sizeof(struct sockaddr_in6)), "length %u", a.addr_len);
		break;
	case EXPORT_LISTEN_NAME: {
		struct in_addr v4;
		/* a name is never a numeric address, and only letters, digits, '-' and '.' */
		FUZZ_CHECK(inet_pton(AF_INET, a.host, &v4) != 1 && text[0] != '[' &&
			   strspn(a.host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				  "0123456789-.") == strlen(a.host) &&
			   export_listen_host_name(a.host, strlen(a.host)), "name '%s'", a.host);
		break;
	}
	default:
		FUZZ_CHECK(false, "kind %d", (int)a.kind);
	}
	/* text -> parse -> text -> parse: the same listen address */
	size_t n = export_listen_text(&a, back, sizeof(back));
	FUZZ_CHECK(n < sizeof(back), "formatted length %zu", n);
	FUZZ_CHECK(export_parse_listen(back, &b, &err) == 0, "'%s' back from '%s'", back, text);
	FUZZ_CHECK(a.kind == b.kind && a.port == b.port && !strcmp(a.host, b.host) ||
		   a.kind == EXPORT_LISTEN_ADDRESS, "'%s' and '%s' differ", text, back);
	FUZZ_CHECK(a.kind != EXPORT_LISTEN_ADDRESS ||
		   (a.addr_len == b.addr_len && !memcmp(&a.addr, &b.addr, a.addr_len)),
		   "'%s' and '%s' differ", text, back);
	/* a name, ':PORT' and an IPv4 address are written back as given (the port without
	 * leading zeros, checked above) */
	size_t hl = (size_t)(colon - text) + 1;
	if (a.kind != EXPORT_LISTEN_ADDRESS || a.addr.ss_family == AF_INET)
		FUZZ_CHECK(!strncmp(back, text, hl), "'%s' written back as '%s'", text, back);
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
