/* SPDX-License-Identifier: MIT */
/*
 * "did you mean 'show'?" for a misspelled command or option, as git's help.c does: the
 * candidates nearest the word by Damerau-Levenshtein distance (optimal string alignment:
 * an adjacent swap costs one, as an insertion, a deletion or a substitution), taken
 * from the command tree by the caller.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define SUGGEST_MAX_LEN 64	/* longer words get no suggestion */

size_t cmd_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return (size_t)-1;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

/*
 * The candidates at the least distance from word, when it is small enough to be a slip
 * (at most 2, and less than a third of the word, leading dashes aside, rounded up):
 * "'show'" or "'cap set' or 'cap get'" in out, with prefix before each; else "".
 */
void cmd_suggest(const char *word, const struct cmd_cands *cands, const char *prefix, char *out,
		 size_t len)
{
	size_t best = (size_t)-1, body = strlen(word + strspn(word, "-"));
	size_t limit = body >= 6 ? 2 : 1;

	out[0] = '\0';
	if (body < 2)
		return;
	for (size_t k = 0; k < cands->n; k++) {
		size_t dist = cmd_edit_distance(word, cands->v[k]);

		if (dist < best)
			best = dist;
	}
	if (best == 0 || best > limit)
		return;
	for (size_t k = 0; k < cands->n; k++) {
		size_t l = strlen(out);

		if (cmd_edit_distance(word, cands->v[k]) == best)
			snprintf(out + l, len - l, "%s'%s%s%s'", l ? " or " : "", prefix,
				 *prefix ? " " : "", cands->v[k]);
	}
}
