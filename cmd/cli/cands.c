/* SPDX-License-Identifier: MIT */
/* Lists of completion candidates, each word once with its description. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "grow.h"

void cands_add_desc(struct cmd_cands *c, const char *word, const char *desc)
{
	/* once each (the examples are told apart by their descriptions, the words) */
	bool example = !strcmp(word, CMD_COMPLETE_EXAMPLE);
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i], word) &&
		    (!example || (desc && c->desc[i] && !strcmp(c->desc[i], desc))))
			return;
	if (c->n == c->alloc) {
		size_t alloc = array_capacity(c->alloc, c->n + 1, 16);
		char **v = realloc(c->v, alloc * sizeof(*v));
		char **d = v ? realloc(c->desc, alloc * sizeof(*d)) : NULL;
		if (!v || !d)
			abort();
		c->v = v;
		c->desc = d;
		c->alloc = alloc;
	}
	c->v[c->n] = strdup(word);
	if (!c->v[c->n])
		abort();
	c->desc[c->n] = desc ? strdup(desc) : NULL;
	if (desc && !c->desc[c->n])
		abort();
	c->n++;
}

void cands_add(struct cmd_cands *c, const char *word)
{
	cands_add_desc(c, word, NULL);
}

void cands_free(struct cmd_cands *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i]);
		free(c->desc[i]);
	}
	free(c->v);
	free(c->desc);
	memset(c, 0, sizeof(*c));
}
