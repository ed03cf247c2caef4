// SPDX-License-Identifier: MIT
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

size_t array_capacity(size_t alloc, size_t need, size_t first)
{
	size_t cap;

	if (need <= alloc)
		return alloc;
	cap = alloc ? alloc : (first ? first : 1);
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			return 0;
		cap *= 2;
	}
	return cap;
}

void *array_grow(void *items, size_t *alloc, size_t need, size_t elem, size_t first)
{
	size_t cap = array_capacity(*alloc, need, first);
	void *p;

	if (cap == *alloc && items)
		return items;
	if (cap == 0 || elem == 0 || cap > SIZE_MAX / elem)
		return NULL;
	p = realloc(items, cap * elem);
	if (!p)
		return NULL;
	*alloc = cap;
	return p;
}
