// SPDX-License-Identifier: MIT
/*
 * The HTTP side of `thermpress export`: libmicrohttpd with one internal thread, so
 * scrapes run one after another and the source is only ever touched by that thread.
 * Read-only by construction: GET and HEAD of / and /metrics are all it answers.
 * Limits keep a bad client from costing more than a bounded amount: 64 connections,
 * 32 KiB of request per connection (longer request lines or headers get 414 or 431 from
 * libmicrohttpd) and 10 s of idleness.
 */
#include <errno.h>
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

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size, void **req)
{
	struct export_source *es = cls;

	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				  "405 method not allowed: this exporter is read-only (GET, HEAD)\n");
	/* a GET with a body: wait for the whole request, and ignore the body */
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (!strcmp(url, "/"))
		return reply(conn, MHD_HTTP_OK, (void *)index_page, sizeof(index_page) - 1,
			     MHD_RESPMEM_PERSISTENT, "text/html; charset=utf-8");
	if (strcmp(url, "/metrics"))
		return reply_text(conn, MHD_HTTP_NOT_FOUND, "404 not found: see /metrics\n");

	const char *accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);
	enum export_format fmt = export_accept_openmetrics(accept) ? EXPORT_OPENMETRICS
								   : EXPORT_TEXT_004;
	struct export_buf b = { 0 };

	export_scrape(es, &b, fmt);
	/* the buffer goes to libmicrohttpd, which frees it with the response */
	return reply(conn, MHD_HTTP_OK, b.data, b.len, MHD_RESPMEM_MUST_FREE,
		     fmt == EXPORT_OPENMETRICS ? EXPORT_CONTENT_TYPE_OPENMETRICS
					       : EXPORT_CONTENT_TYPE_TEXT);
}

/* A listening socket on cfg's address, named in where (port 0: the one chosen); -errno. */
static int listen_on(const struct export_config *cfg, char *where, size_t wlen,
		     struct tp_error *err)
{
	const struct sockaddr *sa = (const struct sockaddr *)&cfg->listen;
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	int one = 1;
	int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	export_format_listen(sa, where, wlen);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, sa, cfg->listen_len) < 0 || listen(fd, 128) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return tp_error_set(err, -e, "cannot listen on %s: %s", where, strerror(e));
	}
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
	d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, on_request, es,
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

void export_http_stop(struct export_http *h)
{
	/* waits for the scrape in progress; closes the connections and the listening socket */
	if (h)
		MHD_stop_daemon((struct MHD_Daemon *)h);
}
