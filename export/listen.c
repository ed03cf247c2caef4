// SPDX-License-Identifier: MIT
/* What export parses: --listen [HOST]:PORT, the HTTP Accept header and request target. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <thermpress/text.h>

#include "export.h"

#define LISTEN_VALID "expected [HOST]:PORT: :PORT for every address, a host name, an IPv4 " \
	"address or [IPv6], and a port 0..65535, as :9465, localhost:9465, 127.0.0.1:9465 or " \
	"[::1]:9465"

/* The text as given, safe for a terminal and short enough to leave room for the valid form. */
static int bad_listen(const char *text, struct tp_error *err)
{
	char shown[40];
	size_t n = tp_text_terminal(shown, sizeof(shown), text, strlen(text), 0);

	_Static_assert(sizeof("invalid listen address '...' ()") + sizeof(shown) +
		       sizeof(LISTEN_VALID) <= sizeof(err->msg), "the valid forms always fit");
	return tp_error_set(err, -EINVAL, "invalid listen address '%s%s' (" LISTEN_VALID ")",
			    shown, n >= sizeof(shown) ? "..." : "");
}

/* 1 to 5 decimal digits, no sign, no space, at most 65535. */
static bool parse_port(const char *text, uint16_t *port)
{
	unsigned long v = 0;
	size_t n = strlen(text);

	if (!n || n > 5)
		return false;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v > 65535)
		return false;
	*port = (uint16_t)v;
	return true;
}

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/*
 * A host name as RFC 1123 has it: labels of letters, digits and inner hyphens, 1..63
 * bytes each, dots between them, at most 253 bytes, the last label not all digits (so
 * "127.1" or "1.2.3.4.5" is no name: a bad address, never resolved).
 */
bool export_listen_host_name(const char *host, size_t n)
{
	size_t label = 0;
	bool digits = true;

	if (!n || n > EXPORT_LISTEN_HOST_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = host[i];
		if (c == '.') {
			if (!label || host[i - 1] == '-')
				return false;
			label = 0;
			digits = true;
			continue;
		}
		if (!is_alnum(c) && !(c == '-' && label))
			return false;
		if (++label > 63)
			return false;
		digits &= c >= '0' && c <= '9';
	}
	return label && host[n - 1] != '-' && !digits;
}

/* A numeric address into l (v6: it was in brackets); false when it is not one. */
static bool parse_numeric(struct export_listen *l, bool v6)
{
	memset(&l->addr, 0, sizeof(l->addr));
	if (v6) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&l->addr;
		/* inet_pton also takes "::ffff:1.2.3.4"; no zone ids ("%eth0") */
		if (inet_pton(AF_INET6, l->host, &a6->sin6_addr) != 1)
			return false;
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(l->port);
		l->addr_len = sizeof(*a6);
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)&l->addr;
		/* inet_pton takes only the dotted quad: no "127.1", no octal */
		if (inet_pton(AF_INET, l->host, &a4->sin_addr) != 1)
			return false;
		a4->sin_family = AF_INET;
		a4->sin_port = htons(l->port);
		l->addr_len = sizeof(*a4);
	}
	l->kind = EXPORT_LISTEN_ADDRESS;
	return true;
}

int export_parse_listen(const char *text, struct export_listen *l, struct tp_error *err)
{
	const char *colon;
	size_t hl;
	bool v6 = text[0] == '[';

	memset(l, 0, sizeof(*l));
	if (v6) {
		const char *close = strchr(text, ']');
		if (!close || close[1] != ':')
			return bad_listen(text, err);
		colon = close + 1;
		hl = (size_t)(close - text - 1);
	} else {
		colon = strchr(text, ':');
		if (!colon || strchr(colon + 1, ':'))	/* one colon: "::1:80" wants brackets */
			return bad_listen(text, err);
		hl = (size_t)(colon - text);
	}
	if (hl >= sizeof(l->host) || !parse_port(colon + 1, &l->port))
		return bad_listen(text, err);
	memcpy(l->host, text + v6, hl);
	l->host[hl] = '\0';
	if (!v6 && !hl) {
		l->kind = EXPORT_LISTEN_ANY;	/* ":9465": every address, as Go's net.Listen */
		return 0;
	}
	if (parse_numeric(l, v6))
		return 0;
	if (v6 || !export_listen_host_name(l->host, hl))
		return bad_listen(text, err);
	l->kind = EXPORT_LISTEN_NAME;
	return 0;
}

size_t export_listen_text(const struct export_listen *l, char *buf, size_t len)
{
	if (l->kind == EXPORT_LISTEN_ADDRESS)
		return export_format_listen((const struct sockaddr *)&l->addr, buf, len);
	return (size_t)snprintf(buf, len, "%s:%u", l->host, l->port);
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
