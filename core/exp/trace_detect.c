// SPDX-License-Identifier: MIT
/* Telling a trace from a cap profile, and its format, by how the file starts
 * (docs/experiments.md). */
#include <string.h>

#include <thermpress/experiment.h>

/* Whether the len bytes at p start with the NUL-terminated word. */
static int starts_with(const char *p, size_t len, const char *word)
{
	size_t n = strlen(word);

	return len >= n && memcmp(p, word, n) == 0;
}

/* Whether the len bytes at p hold the NUL-terminated word anywhere. */
static int contains(const char *p, size_t len, const char *word)
{
	for (size_t n = strlen(word); len >= n; p++, len--)
		if (memcmp(p, word, n) == 0)
			return 1;
	return 0;
}

int tp_trace_detect(const char *head, size_t len, enum tp_trace_format *format)
{
	static const char csv_header_start[] = "time_ns,";
	size_t i = 0;

	while (i < len && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
		i++;
	head += i;
	len -= i;
	if (len && head[0] == '{') {
		/* the Perfetto writer's object opens with these keys; a JSON-lines trace's
		 * first object is its metadata, which has neither */
		*format = contains(head, len, "\"displayTimeUnit\"") ||
			  contains(head, len, "\"traceEvents\"") ? TP_TRACE_PERFETTO : TP_TRACE_JSONL;
		return 1;
	}
	if (starts_with(head, len, TP_TRACE_CSV_MAGIC) || starts_with(head, len, csv_header_start)) {
		*format = TP_TRACE_CSV;
		return 1;
	}
	return 0;
}
