/* SPDX-License-Identifier: MIT */
/* version: the library's version and interfaces, as text or JSON. */
#include <json-c/json.h>

#include "commands.h"

static int exec_version(struct cmd_ctx *ctx, const struct cmd_args *args)
{
	/* the library's: the one loaded, whatever the command was built with */
	const struct tp_version_info *v = tp_version();

	if (ctx->cmd_json) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "schema_version", json_object_new_int(1));
		json_object_object_add(o, "version", json_object_new_string(v->version));
		json_object_object_add(o, "abi_version", json_object_new_int(v->abi_version));
		json_object_object_add(o, "backend_abi_version",
				       json_object_new_int64(v->backend_abi_version));
		json_object_object_add(o, "trace_version", json_object_new_int(v->trace_version));
		out_json(ctx, o);
		return 0;
	}
	out_printf(ctx, "thermpress %s\n", v->version);
	return 0;
}

const struct cmd_entry cmd_version_entry = {
	.path = "version",
	.summary = "show the version",
	.help = "Shows thermpress's version; with --json, an object with the version, the "
		"kernel interface it reads (abi_version, docs/abi.md), the backend plugin "
		"interface it loads (backend_abi_version) and the trace format it writes "
		"(trace_version).",
	.flags = CMD_JSON,
	.exec = exec_version,
};
