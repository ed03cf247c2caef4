/* SPDX-License-Identifier: MIT */
/*
 * export: thermpress's metrics for Prometheus (docs/export.md), behind `thermpress export`.
 *
 *	metrics.c	a snapshot (and the source's zones and cooling devices) written in
 *			the Prometheus text format 0.0.4 or OpenMetrics 1.0
 *	scrape.c	one scrape: the source opened on demand, reopened after it vanished,
 *			read by a worker thread within a deadline
 *	listen.c	the --listen [HOST]:PORT, Accept header and request target parsers
 *	http.c		the HTTP server (libmicrohttpd)
 *	textfile.c	the --textfile mode for node_exporter's textfile collector
 *
 * Like core/, nothing here prints but export_run(), which reports what it serves and
 * why it stopped on stderr.
 */
#ifndef TP_EXPORT_H
#define TP_EXPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>

#include <thermpress/thermpress.h>

/* ---- metrics.c: rendering ------------------------------------------------ */

enum export_format {
	EXPORT_TEXT_004,	/* text/plain; version=0.0.4 */
	EXPORT_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
};

#define EXPORT_CONTENT_TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define EXPORT_CONTENT_TYPE_OPENMETRICS \
	"application/openmetrics-text; version=1.0.0; charset=utf-8"

/* A growing text buffer; abort()s when out of memory, as a scrape cannot half-fail. */
struct export_buf {
	char *data;
	size_t len, alloc;
};
void export_buf_add(struct export_buf *b, const char *s, size_t n);
void export_buf_printf(struct export_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void export_buf_free(struct export_buf *b);

/*
 * A label value from outside (a domain name, a zone type, an error message): invalid
 * UTF-8 and control characters become U+FFFD (core/text.c), then '\' and '"' are
 * escaped, so the value is one valid line in both formats.
 */
void export_label_value(struct export_buf *b, const char *s);

/* What one scrape found: the snapshot, or why there is none. */
struct export_scrape {
	bool up;
	const char *error;			/* when !up: the reason, one sentence */
	const char *source_kind;		/* "patched", "sim", "stock", or NULL */
	const char *source_description;		/* tp_source_describe(), or NULL */
	bool simulated;				/* the simulator (tp_source_info), served or not */
	const struct tp_snapshot *snap;		/* when up */
	const struct tp_thermal *thermal;	/* tp_thermal_read(); NULL: the source has none */
	double duration_s;			/* the scrape's time so far (reading the source) */
};

/*
 * Who computed a CPU's averaged pressure, the origin label: "estimated" (its own
 * estimate, avg_estimated: the source does not report it), "simulator" (the
 * simulator, in process or served), "kernel" (read from the kernel).
 */
const char *export_avg_origin(const struct tp_cpu *c, bool simulated);

/* Append every metric of sc to b, ending with "# EOF" in OpenMetrics. */
void export_render(struct export_buf *b, const struct export_scrape *sc, enum export_format fmt);

/* ---- listen.c: parsers ---------------------------------------------------- */

#define EXPORT_DEFAULT_LISTEN "127.0.0.1:9465"
#define EXPORT_LISTEN_HOST_MAX 253	/* a host name's longest (RFC 1123) */

/* --listen, as node_exporter's --web.listen-address takes it (Go's net.Listen). */
struct export_listen {
	enum {
		EXPORT_LISTEN_ANY,	/* ":9465": every address, IPv6 and IPv4 (or IPv4 alone) */
		EXPORT_LISTEN_ADDRESS,	/* "127.0.0.1:9465", "[::1]:9465": addr */
		EXPORT_LISTEN_NAME,	/* "localhost:9465": host, resolved when listening */
	} kind;
	char host[EXPORT_LISTEN_HOST_MAX + 1];	/* as given, without brackets; "" for ANY */
	uint16_t port;				/* 0: any free port */
	struct sockaddr_storage addr;		/* ADDRESS */
	socklen_t addr_len;
};

/*
 * ":PORT" (every address), "HOST:PORT" with a host name (RFC 1123: letters, digits,
 * hyphens, dots; its last label not all digits) or a numeric IPv4 address, "[IPv6]:PORT";
 * a decimal port 0..65535 (0: any free port).  Nothing is resolved here.  -EINVAL with
 * one sentence naming the text and the valid forms.
 */
int export_parse_listen(const char *text, struct export_listen *l, struct tp_error *err);
/* Whether host[0..n) is a host name as export_parse_listen takes one. */
bool export_listen_host_name(const char *host, size_t n);
/* l back as text, which export_parse_listen gives l again; snprintf-style return. */
size_t export_listen_text(const struct export_listen *l, char *buf, size_t len);
/* The address back in the same form ("[::1]:9465"); snprintf-style return. */
size_t export_format_listen(const struct sockaddr *addr, char *buf, size_t len);

/*
 * Whether an HTTP Accept header prefers OpenMetrics: it lists the media type
 * application/openmetrics-text (any version 1.x, or none) with a quality above 0 and
 * not below that of any text/plain it also lists.  NULL: no.
 */
bool export_accept_openmetrics(const char *accept);

/* What a request target names (RFC 9112, 3.2): origin form "/metrics?x", or absolute
 * form "http://host:port/metrics" routed by its path; the path percent-decoded. */
enum export_route {
	EXPORT_ROUTE_NOT_FOUND,	/* anything else, and a path decoding to a NUL byte */
	EXPORT_ROUTE_INDEX,	/* "/" */
	EXPORT_ROUTE_METRICS,	/* "/metrics" */
	EXPORT_ROUTE_BAD,	/* not a request target: malformed '%', or no form at all */
};
enum export_route export_route(const char *target);

/* ---- scrape.c: the source ---------------------------------------------------- */

struct export_source;

/*
 * How long a scrape waits for the source: past it, the scrape answers thermpress_up 0
 * with the reason (the source is stuck: a FUSE server stopped, a FIFO under --root).
 * 2 s: a fifth of Prometheus's default scrape timeout (10 s), and some hundred times what
 * a scrape of 4096 CPUs takes (docs/export.md, "Cost").
 */
#define EXPORT_SCRAPE_DEADLINE_MS 2000

/*
 * Keeps a copy of *opts (its strings must outlive the export_source) to reopen the
 * source, and takes over src (opened from opts, or NULL: opened at the first scrape).
 * NULL when out of memory.
 */
struct export_source *export_source_new(const struct tp_open_options *opts,
					struct tp_source *src);
void export_source_free(struct export_source *es);
/*
 * One scrape into b in fmt, by es's worker thread: opens the source when it is not open,
 * takes a snapshot, and on failure renders thermpress_up 0 with the error and closes the
 * source, so the next scrape opens it again.  Waits at most EXPORT_SCRAPE_DEADLINE_MS
 * (one scrape reads at a time; the wait for another counts): past it, renders
 * thermpress_up 0 with the reason and returns -ETIMEDOUT.  After export_source_stop, or
 * with the watched flag set, returns -ECANCELED at once (with thermpress_up 0 in b).
 * Safe from any number of threads.  0 when the source was read (up or down).
 */
int export_scrape(struct export_source *es, struct export_buf *b, enum export_format fmt);
/* Every scrape waiting, and every later one, returns -ECANCELED at once. */
void export_source_stop(struct export_source *es);
/*
 * For a thread that waits for stop signals itself (the textfile mode): while a scrape
 * waits, the signals not in mask are let in, and *flag set is export_source_stop.
 */
void export_source_watch(struct export_source *es, const volatile sig_atomic_t *flag,
			 const sigset_t *mask);

/* ---- the command ------------------------------------------------------------ */

struct export_config {
	struct export_listen listen;	/* HTTP mode */
	const char *textfile_dir;	/* NULL: HTTP mode */
	uint64_t interval_ns;		/* textfile mode: how often the file is written */
};

#define EXPORT_DEFAULT_INTERVAL_NS 15000000000ull	/* 15 s, Prometheus's default */
#define EXPORT_TEXTFILE_NAME "thermpress.prom"

/*
 * Serve es's metrics over HTTP, a thread per connection (libmicrohttpd), until
 * export_http_stop.
 * where: the address listened on (port 0: the port chosen).  0, or -errno with err.
 * The thread inherits the caller's signal mask: block the stop signals first.
 */
struct export_http;
int export_http_start(struct export_source *es, const struct export_config *cfg,
		      struct export_http **out, char *where, size_t wlen, struct tp_error *err);
/* Stops es's scrapes (export_source_stop), then closes every connection and the socket. */
void export_http_stop(struct export_http *h, struct export_source *es);
/* Write the metrics once to DIR/thermpress.prom, atomically; -ECANCELED (nothing
 * written, err not set) when the scrape was stopped. */
int export_textfile_write(struct export_source *es, const char *dir, struct tp_error *err);

#endif
