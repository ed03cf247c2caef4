// SPDX-License-Identifier: MIT
/* The versions of the library that is loaded, for `thermpress --version` and programs. */
#include <thermpress/experiment.h>
#include <thermpress/thermpress.h>

#ifndef TP_LIBRARY_VERSION
#error "core/meson.build passes the project version as TP_LIBRARY_VERSION"
#endif

const struct tp_version_info *tp_version(void)
{
	static const struct tp_version_info info = {
		.version = TP_LIBRARY_VERSION,
		.abi_version = TP_ABI_VERSION,
		.backend_abi_version = TP_BACKEND_ABI_VERSION,
		.trace_version = TP_TRACE_VERSION,
	};

	return &info;
}
