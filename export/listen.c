// SPDX-License-Identifier: MIT
/* What export parses: --listen ADDR:PORT, the HTTP Accept header and request target. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <thermpress/text.h>

#include "export.h"

#define LISTEN_VALID "expected ADDR:PORT: a numeric IPv4 address or an IPv6 one in brackets, " \
	"and a port 0..65535, as 127.0.0.1:9465 or [::1]:9465"

/* The text as given, safe for a terminal and short enough to leave room for the valid form. */
static int bad_listen(const char *text, struct tp_error *err)
{
	char shown[64];
	size_t n = tp_text_terminal(shown, sizeof(shown), text, strlen(text), 0);

	return tp_error_set(err, -EINVAL, "invalid listen address '%s%s' (" LISTEN_VALID ")",
			    shown, n >= sizeof(shown) ? "..." : "");
}

int export_parse_listen(const char *text, struct sockaddr_storage *addr, socklen_t *len,
			struct tp_error *err)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *colon, *port_text;
	size_t hl;
	unsigned long port = 0;
	bool v6 = text[0] == '[';

	if (v6) {
		const char *close = strchr(text, ']');
		if (!close || close[1] != ':')
			goto bad;
		colon = close + 1;
		hl = (size_t)(close - text - 1);
		if (hl >= sizeof(host))
			goto bad;
		memcpy(host, text + 1, hl);
	} else {
		colon = strrchr(text, ':');
		if (!colon)
			goto bad;
		hl = (size_t)(colon - text);
		if (hl >= sizeof(host))
			goto bad;
		memcpy(host, text, hl);
	}
	host[hl] = '\0';
	/* the port: 1 to 5 decimal digits, no sign, no space, at most 65535 */
	port_text = colon + 1;
	if (!*port_text || strlen(port_text) > 5)
		goto bad;
	for (const char *p = port_text; *p; p++) {
		if (*p < '0' || *p > '9')
			goto bad;
		port = port * 10 + (unsigned long)(*p - '0');
	}
	if (port > 65535)
		goto bad;

	memset(addr, 0, sizeof(*addr));
	if (v6) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)addr;
		/* inet_pton also takes "::ffff:1.2.3.4"; no zone ids ("%eth0") */
		if (inet_pton(AF_INET6, host, &a6->sin6_addr) != 1)
			goto bad;
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a6);
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)addr;
		/* inet_pton takes only the dotted quad: no "127.1", no octal, no host names */
		if (inet_pton(AF_INET, host, &a4->sin_addr) != 1)
			goto bad;
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		*len = sizeof(*a4);
	}
	return 0;
bad:
	return bad_listen(text, err);
}

size_t export_format_listen(const struct sockaddr *addr, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];

	if (addr->sa_family == AF_INET6) {
		const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)addr;
		inet_ntop(AF_INET6, &a6->sin6_addr, host, sizeof(host));
		return (size_t)snprintf(buf, len, "[%s]:%u", host, ntohs(a6->sin6_port));
	}
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)addr;
	inet_ntop(AF_INET, &a4->sin_addr, host, sizeof(host));
	return (size_t)snprintf(buf, len, "%s:%u", host, ntohs(a4->sin_port));
}

/* ---- Accept ----------------------------------------------------------------------- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* [s, e) without the spaces around it. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && is_space(**s))
		(*s)++;
	while (*e > *s && is_space((*e)[-1]))
		(*e)--;
}

static bool token_is(const char *s, const char *e, const char *word)
{
	size_t n = strlen(word);
	return (size_t)(e - s) == n && !strncasecmp(s, word, n);
}

/*
 * An HTTP quality value (RFC 9110, 12.4.2): "0" to "1" with at most three decimals,
 * in thousandths; -1 when malformed.
 */
static int parse_qvalue(const char *s, const char *e)
{
	int q, digits = 0;

	if (s == e || (*s != '0' && *s != '1'))
		return -1;
	q = (*s - '0') * 1000;
	s++;
	if (s == e)
		return q;
	if (*s++ != '.')
		return -1;
	for (int scale = 100; s < e; s++, scale /= 10) {
		if (*s < '0' || *s > '9' || ++digits > 3)
			return -1;
		q += (*s - '0') * scale;
	}
	return q > 1000 ? -1 : q;
}

bool export_accept_openmetrics(const char *accept)
{
	int om_q = -1, text_q = -1;

	if (!accept)
		return false;
	/* media-range *( ";" parameter ), separated by commas */
	for (const char *p = accept; *p;) {
		const char *end = p + strcspn(p, ",");
		const char *type_end = p + strcspn(p, ",;");
		const char *ts = p, *te = type_end;
		int q = 1000;
		bool version_ok = true;

		trim(&ts, &te);
		for (const char *param = type_end; param < end && *param == ';';) {
			const char *pe = param + 1 + strcspn(param + 1, ",;");
			const char *ks = param + 1, *eq = memchr(ks, '=', (size_t)(pe - ks));

			if (eq) {
				const char *ke = eq, *vs = eq + 1, *ve = pe;
				trim(&ks, &ke);
				trim(&vs, &ve);
				if (token_is(ks, ke, "q"))
					q = parse_qvalue(vs, ve);
				else if (token_is(ks, ke, "version"))
					version_ok = ve > vs && *vs == '1' && (ve - vs == 1 || vs[1] == '.');
			}
			param = pe;
		}
		if (q > 0) {
			if (token_is(ts, te, "application/openmetrics-text") && version_ok && q > om_q)
				om_q = q;
			else if (token_is(ts, te, "text/plain") && q > text_q)
				text_q = q;
		}
		p = *end ? end + 1 : end;
	}
	return om_q > 0 && om_q >= text_q;
}

/* ---- the request target ------------------------------------------------------------- */

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

enum export_route export_route(const char *target)
{
	char path[16];	/* longer than "/metrics": found nowhere */
	size_t n = 0;
	const char *p = target;
	bool too_long = false;

	if (*p != '/') {
		/* absolute form (3.2.2): scheme "://" authority, then the path; the authority is
		 * ignored (we serve one host) and an empty path is "/" (RFC 3986, 6.2.3) */
		if (!strncasecmp(p, "http://", 7))
			p += 7;
		else if (!strncasecmp(p, "https://", 8))
			p += 8;
		else
			return EXPORT_ROUTE_BAD;
		p += strcspn(p, "/?#");
		if (*p != '/')
			return (*p == '\0' || *p == '?') ? EXPORT_ROUTE_INDEX : EXPORT_ROUTE_BAD;
	}
	for (; *p && *p != '?'; p++) {
		int c = (unsigned char)*p;

		if (c == '#')
			return EXPORT_ROUTE_BAD;	/* no fragment in a request target */
		if (c == '%') {
			int hi = hex_value(p[1]), lo = hi < 0 ? -1 : hex_value(p[2]);

			if (lo < 0)
				return EXPORT_ROUTE_BAD;
			c = hi * 16 + lo;
			p += 2;
			if (c == 0)
				too_long = true;	/* no path holds a NUL: found nowhere */
		}
		if (n + 1 < sizeof(path))
			path[n++] = (char)c;
		else
			too_long = true;
	}
	path[n] = '\0';
	if (too_long)
		return EXPORT_ROUTE_NOT_FOUND;
	if (!strcmp(path, "/"))
		return EXPORT_ROUTE_INDEX;
	if (!strcmp(path, "/metrics"))
		return EXPORT_ROUTE_METRICS;
	return EXPORT_ROUTE_NOT_FOUND;
}
