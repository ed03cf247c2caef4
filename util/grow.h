/* SPDX-License-Identifier: MIT */
/*
 * Growable arrays: the one grow-by-doubling policy (util/README.md).
 *
 *	struct item *v = array_grow(list->v, &list->alloc, list->n + 1, sizeof(*v), 16);
 *	if (!v)
 *		return -ENOMEM;		(list->v and list->alloc are unchanged)
 *	list->v = v;
 *	list->v[list->n++] = item;
 */
#ifndef THERMPRESS_UTIL_GROW_H
#define THERMPRESS_UTIL_GROW_H

#include <stddef.h>

/*
 * The capacity for at least need elements when alloc are there: alloc itself when it
 * is enough, else first (when alloc is 0) doubled until it holds need; 0 when that
 * does not fit a size_t.  For parallel arrays that share one capacity.
 */
size_t array_capacity(size_t alloc, size_t need, size_t first);

/*
 * items (malloc'ed or NULL, *alloc elements of elem bytes) with room for need
 * elements: items itself when it has room, else realloc'ed to array_capacity() and
 * *alloc updated.  NULL when out of memory (or the size overflows): items is then
 * still valid and *alloc unchanged.
 */
void *array_grow(void *items, size_t *alloc, size_t need, size_t elem, size_t first);

#endif
