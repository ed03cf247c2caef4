// SPDX-License-Identifier: MIT
/* The tick rates (CONFIG_HZ) the simulator runs at: one list for checks, messages and completion. */
#include <thermpress/thermpress.h>

static const int sim_rates[] = { TP_HZ_RATES };

bool tp_sim_hz_valid(int hz)
{
	for (size_t i = 0; i < sizeof(sim_rates) / sizeof(sim_rates[0]); i++)
		if (sim_rates[i] == hz)
			return true;
	return false;
}

size_t tp_sim_hz_rates(const int **rates)
{
	*rates = sim_rates;
	return sizeof(sim_rates) / sizeof(sim_rates[0]);
}

const char *tp_sim_hz_rates_text(void)
{
	return TP_HZ_RATES_TEXT;
}
