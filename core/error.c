// SPDX-License-Identifier: MIT
/* Error reporting: the library fills a message, the caller decides who sees it. */
#include <stdarg.h>
#include <stdio.h>

#include <thermpress/thermpress.h>

int tp_error_set(struct tp_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}
