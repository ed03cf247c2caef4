/* SPDX-License-Identifier: MIT */
/*
 * What an entry's argument data says, written out: its options (--json last), the
 * synopsis and the option labels that help, the man page and every usage error show.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* --json, for the entries that print JSON (CMD_JSON): one spelling for all. */
const struct cmd_arg args_opt_json = {
	.name = "--json",
	.help = "print the result as JSON (docs/json.md)",
};

size_t args_count(const struct cmd_arg *a)
{
	size_t n = 0;

	while (a && a[n].name)
		n++;
	return n;
}

const struct cmd_arg *args_option(const struct cmd_entry *e, size_t i)
{
	size_t n = args_count(e->opts);

	if (i < n)
		return &e->opts[i];
	if (i == n && (e->flags & CMD_JSON))
		return &args_opt_json;
	return NULL;
}

const struct cmd_arg *args_after_dashes(const struct cmd_entry *e, size_t *index)
{
	size_t k = 0;

	for (const struct cmd_arg *p = e->pos; p && p->name; p++, k++)
		if (p->flags & ARG_AFTER_DASHES) {
			*index = k;
			return p;
		}
	return NULL;
}

/* The word as the synopsis shows a value: "DURATION", "csv|jsonl|perfetto". */
static void value_label(const struct cmd_arg *a, char *buf, size_t len)
{
	size_t l = 0;

	buf[0] = '\0';
	if (a->value_name) {
		snprintf(buf, len, "%s", a->value_name);
		return;
	}
	for (const char *const *v = a->values; v && *v; v++) {
		snprintf(buf + l, len - l, "%s%s", l ? "|" : "", *v);
		l = strlen(buf);
	}
	if (!l)
		for (const char *k = a->kind->name; *k && l + 1 < len; k++, l++)
			buf[l] = (char)toupper((unsigned char)*k), buf[l + 1] = '\0';
}

void args_option_label(const struct cmd_arg *a, char *buf, size_t len)
{
	char value[96] = "";

	if (a->kind)
		value_label(a, value, sizeof(value));
	if (a->kind && (a->flags & ARG_VALUE_INLINE))
		snprintf(buf, len, "%s[=%s]", a->name, value);
	else
		snprintf(buf, len, "%s%s%s%s%s%s%s", a->short_name ? a->short_name : "",
			 a->short_name ? ", " : "", a->name, a->no_name ? ", " : "",
			 a->no_name ? a->no_name : "", a->kind ? " " : "", value);
}

/* One option as the synopsis shows it: "[--via scaling_max_freq|cooling]", "-o FILE". */
void args_synopsis_option(const struct cmd_arg *a, char *buf, size_t len)
{
	char value[96] = "";
	bool req = a->flags & ARG_REQUIRED;

	if (a->kind)
		value_label(a, value, sizeof(value));
	snprintf(buf, len, "%s%s%s%s%s%s%s", req ? "" : "[",
		 a->short_name ? a->short_name : a->name, a->no_name ? "|" : "",
		 a->no_name ? a->no_name : "",
		 !a->kind ? "" : (a->flags & ARG_VALUE_INLINE) ? "[=" : " ", value,
		 req ? "" : (a->flags & ARG_VALUE_INLINE) ? "]]" : "]");
}

void args_append(char *buf, size_t len, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	if (l >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + l, len - l, fmt, ap);
	va_end(ap);
}

void args_synopsis(const struct cmd_entry *e, char *buf, size_t len)
{
	const struct cmd_arg *a;
	char part[160];
	size_t k;

	buf[0] = '\0';
	for (a = e->pos; a && a->name; a++) {
		if (a->flags & ARG_AFTER_DASHES)
			continue;
		bool opt = a->flags & ARG_OPTIONAL;
		if (a->value_name)
			args_append(buf, len, "%s%s", *buf ? " " : "", a->value_name);
		else
			args_append(buf, len, "%s%s%s%s%s", *buf ? " " : "", opt ? "[" : "", a->name,
			       (a->flags & (ARG_REPEAT | ARG_RAW)) ? "..." : "", opt ? "]" : "");
	}
	for (size_t i = 0; (a = args_option(e, i)); i++) {
		args_synopsis_option(a, part, sizeof(part));
		args_append(buf, len, "%s%s", *buf ? " " : "", part);
	}
	if ((a = args_after_dashes(e, &k))) {
		bool opt = a->flags & ARG_OPTIONAL;
		args_append(buf, len, "%s%s-- %s ...%s", *buf ? " " : "", opt ? "[" : "", a->name,
		       opt ? "]" : "");
	}
}
