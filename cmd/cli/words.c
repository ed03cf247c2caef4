/* SPDX-License-Identifier: MIT */
/* Splitting a command line into words, as a POSIX shell would (quotes, escapes, #). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cmd_free_words(char **argv, int argc)
{
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
}

int cmd_split(const char *line, char ***argvp, int *argcp, char *msg, size_t msglen)
{
	size_t len = strlen(line);
	char **argv = calloc(CMD_MAX_WORDS + 1, sizeof(*argv));
	char *word = malloc(len + 1);
	int argc = 0;
	const char *p = line;

	if (!argv || !word)
		abort();
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			break;
		size_t wl = 0;
		char quote = 0;
		while (*p && (quote || (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r'))) {
			if (quote) {
				if (*p == quote)
					quote = 0;
				else if (*p == '\\' && quote == '"' && p[1])
					word[wl++] = *++p;
				else
					word[wl++] = *p;
			} else if (*p == '\'' || *p == '"') {
				quote = *p;
			} else if (*p == '\\' && p[1]) {
				word[wl++] = *++p;
			} else {
				word[wl++] = *p;
			}
			p++;
		}
		if (quote) {
			snprintf(msg, msglen, "unterminated %s quote",
				 quote == '"' ? "double" : "single");
			free(word);
			cmd_free_words(argv, argc);
			return EXIT_USAGE;
		}
		if (argc == CMD_MAX_WORDS) {
			snprintf(msg, msglen, "too many words (at most %d)", CMD_MAX_WORDS);
			free(word);
			cmd_free_words(argv, argc);
			return EXIT_USAGE;
		}
		word[wl] = '\0';
		argv[argc] = strdup(word);
		if (!argv[argc])
			abort();
		argc++;
	}
	free(word);
	*argvp = argv;
	*argcp = argc;
	return 0;
}
