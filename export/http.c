// SPDX-License-Identifier: MIT
/*
 * The HTTP side of `thermpress export`: libmicrohttpd with a thread per connection, so
 * that a scrape waiting for its source (at most EXPORT_SCRAPE_DEADLINE_MS, scrape.c)
 * holds up only its own connection: / and the other connections are answered meanwhile.
 * The source itself is only ever touched by scrape.c's worker.
 * Read-only by construction: GET and HEAD of / and /metrics are all it answers.
 * Limits keep a bad client from costing more than a bounded amount: 64 connections,
 * 32 KiB of request per connection (longer request lines or headers get 414 or 431 from
 * libmicrohttpd) and 10 s of idleness.
 *
 * RFC 9112: pipelined requests are answered in order on their connection (9.3.2); the
 * request target may be in origin form or absolute form (3.2.1, 3.2.2: an absolute-form
 * target is routed by its path, its authority ignored); the path is percent-decoded here,
 * strictly (a '%' not followed by two hex digits is 400), and only a path that decodes to
 * exactly "/" or "/metrics" is found: "/metrics%00.html" is 404.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

#include "export.h"

#define HTTP_MAX_CONNECTIONS 64
#define HTTP_MEMORY_PER_CONNECTION (32 * 1024)
#define HTTP_IDLE_TIMEOUT_S 10

static const char index_page[] =
	"<!DOCTYPE html>\n"
	"<html><head><meta charset=\"utf-8\"><title>thermpress exporter</title></head>\n"
	"<body><h1>thermpress exporter</h1>\n"
	"<p>CPU capacity and thermal pressure as the scheduler sees them, for Prometheus: "
	"<a href=\"/metrics\">/metrics</a>.</p>\n"
	"</body></html>\n";

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, void *body,
			     size_t len, enum MHD_ResponseMemoryMode mode, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, mode);
	enum MHD_Result ret;

	if (!r) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned status, const char *text)
{
	return reply(conn, status, (void *)text, strlen(text), MHD_RESPMEM_PERSISTENT,
		     "text/plain; charset=utf-8");
}

/* libmicrohttpd's own decoding turned off: the target is decoded by export_route. */
static size_t keep_escaped(void *cls, struct MHD_Connection *conn, char *uri)
{
	(void)cls;
	(void)conn;
	return strlen(uri);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **req)
{
	static int seen;
	struct export_source *es = cls;

	/* the first call comes with the headers: answer once the whole request is in, so the
	 * connection stays open for the next (a response queued earlier closes it) */
	if (!*req) {
		*req = &seen;
		return MHD_YES;
	}
	/* a body: ignored */
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "405 method not allowed: this exporter is read-only (GET, HEAD)\n");
	switch (export_route(url)) {
	case EXPORT_ROUTE_INDEX:
		return reply(conn, MHD_HTTP_OK, (void *)index_page, sizeof(index_page) - 1,
			     MHD_RESPMEM_PERSISTENT, "text/html; charset=utf-8");
	case EXPORT_ROUTE_METRICS:
		break;
	case EXPORT_ROUTE_BAD:
		return reply_text(conn, MHD_HTTP_BAD_REQUEST, "400 bad request: the request "
				  "target's percent-encoding is malformed ('%' takes two hex "
				  "digits)\n");
	default:
		return reply_text(conn, MHD_HTTP_NOT_FOUND, "404 not found: see /metrics\n");
	}

	const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);
	enum export_format fmt = export_accept_openmetrics(accept) ? EXPORT_OPENMETRICS
								   : EXPORT_TEXT_004;
	struct export_buf b = { 0 };

	(void)export_scrape(es, &b, fmt);	/* up or down, b has the metrics */
	/* the buffer goes to libmicrohttpd, which frees it with the response */
	return reply(conn, MHD_HTTP_OK, b.data, b.len, MHD_RESPMEM_MUST_FREE,
		     fmt == EXPORT_OPENMETRICS ? EXPORT_CONTENT_TYPE_OPENMETRICS
					       : EXPORT_CONTENT_TYPE_TEXT);
}

/* A socket bound to sa and listening, or -errno. */
static int bind_listen(const struct sockaddr *sa, socklen_t len, bool dual_stack)
{
	int one = 1, zero = 0;
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	/* ":PORT" on [::] takes IPv4 too, whatever net.ipv6.bindv6only says, as Go does */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (dual_stack && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)) < 0) ||
	    bind(fd, sa, len) < 0 || listen(fd, 128) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* A host name's address to listen on: its first IPv4 one, else its first (as Go's
 * net.Listen takes one address of a name). */
static int resolve(const struct export_listen *l, struct sockaddr_storage *ss, socklen_t *len,
		   struct tp_error *err)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *pick;
	char port[8];
	int rc;

	snprintf(port, sizeof(port), "%u", l->port);
	rc = getaddrinfo(l->host, port, &hints, &res);
	if (rc != 0)
		return tp_error_set(err, -EADDRNOTAVAIL, "cannot listen on %s:%u: the host name does "
				    "not resolve (%s)", l->host, l->port, gai_strerror(rc));
	pick = res;
	for (struct addrinfo *a = res; a; a = a->ai_next)
		if (a->ai_family == AF_INET) {
			pick = a;
			break;
		}
	memcpy(ss, pick->ai_addr, pick->ai_addrlen);
	*len = pick->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* A listening socket on cfg's address, named in where (port 0: the one chosen); -errno. */
static int listen_on(const struct export_config *cfg, char *where, size_t wlen,
		     struct tp_error *err)
{
	const struct export_listen *l = &cfg->listen;
	struct sockaddr_storage ss = l->addr, bound;
	socklen_t len = l->addr_len, blen = sizeof(bound);
	int fd;

	export_listen_text(l, where, wlen);
	if (l->kind == EXPORT_LISTEN_NAME && resolve(l, &ss, &len, err) < 0)
		return err->code;
	if (l->kind == EXPORT_LISTEN_ANY) {
		struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(l->port),
					   .sin6_addr = IN6ADDR_ANY_INIT };
		struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(l->port),
					  .sin_addr.s_addr = htonl(INADDR_ANY) };

		fd = bind_listen((struct sockaddr *)&a6, sizeof(a6), true);
		/* no IPv6 on this machine: every IPv4 address */
		if (fd == -EAFNOSUPPORT || fd == -EADDRNOTAVAIL)
			fd = bind_listen((struct sockaddr *)&a4, sizeof(a4), false);
	} else {
		fd = bind_listen((struct sockaddr *)&ss, len, false);
	}
	if (fd < 0)
		return tp_error_set(err, fd, "cannot listen on %s: %s", where, strerror(-fd));
	/* port 0 chose a free one: say which */
	if (getsockname(fd, (struct sockaddr *)&bound, &blen) == 0)
		export_format_listen((struct sockaddr *)&bound, where, wlen);
	return fd;
}

int export_http_start(struct export_source *es, const struct export_config *cfg,
		      struct export_http **out, char *where, size_t wlen, struct tp_error *err)
{
	int fd = listen_on(cfg, where, wlen, err);
	struct MHD_Daemon *d;

	if (fd < 0)
		return fd;
	/* its thread starts with the caller's mask: the stop signals stay with the caller */
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			     MHD_USE_POLL, 0, NULL, NULL, on_request, es,
			     MHD_OPTION_UNESCAPE_CALLBACK, keep_escaped, NULL,
			     MHD_OPTION_LISTEN_SOCKET, fd,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CONNECTIONS,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTP_MEMORY_PER_CONNECTION,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)HTTP_IDLE_TIMEOUT_S,
			     MHD_OPTION_END);
	if (!d) {
		close(fd);
		return tp_error_set(err, -EIO, "cannot start the HTTP server on %s", where);
	}
	*out = (struct export_http *)d;
	return 0;
}

void export_http_stop(struct export_http *h, struct export_source *es)
{
	/* no scrape waits for the source any more: the connections' threads end at once */
	export_source_stop(es);
	if (h)
		MHD_stop_daemon((struct MHD_Daemon *)h);
}
