// SPDX-License-Identifier: GPL-2.0
/*
 * A thermal sensor whose temperature the test sets, for the arm64 board of
 * kernel/arm64/run.sh.  qemu's virt machine has no temperature sensor and
 * Debian's arm64 kernel has no CONFIG_THERMAL_EMULATION, so this module gives
 * the device tree's thermal zone (thermal-sensors = <&sensor 0>) its sensor.
 *
 *   echo 70000 > /sys/module/tp_test_sensor/parameters/temp   (millicelsius)
 *
 * A write updates the zone at once, so the zone's governor (step_wise) acts on it
 * without waiting for the next poll.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mod_devicetable.h>
#include <linux/platform_device.h>
#include <linux/thermal.h>

static int temp_mc = 40000;
static struct thermal_zone_device *tp_tz;

static int tp_sensor_get_temp(struct thermal_zone_device *tz, int *temp)
{
	*temp = READ_ONCE(temp_mc);
	return 0;
}

static const struct thermal_zone_device_ops tp_sensor_ops = {
	.get_temp = tp_sensor_get_temp,
};

static int tp_temp_set(const char *val, const struct kernel_param *kp)
{
	int ret = param_set_int(val, kp);

	if (!ret && tp_tz)
		thermal_zone_device_update(tp_tz, THERMAL_EVENT_UNSPECIFIED);
	return ret;
}

static const struct kernel_param_ops tp_temp_ops = {
	.set = tp_temp_set,
	.get = param_get_int,
};
module_param_cb(temp, &tp_temp_ops, &temp_mc, 0644);
MODULE_PARM_DESC(temp, "temperature the sensor reports, millicelsius");

static int tp_sensor_probe(struct platform_device *pdev)
{
	struct thermal_zone_device *tz;

	tz = devm_thermal_of_zone_register(&pdev->dev, 0, NULL, &tp_sensor_ops);
	if (IS_ERR(tz))
		return dev_err_probe(&pdev->dev, PTR_ERR(tz), "no thermal zone\n");
	tp_tz = tz;
	return 0;
}

static int tp_sensor_remove(struct platform_device *pdev)
{
	tp_tz = NULL;
	return 0;
}

static const struct of_device_id tp_sensor_of_match[] = {
	{ .compatible = "thermpress,test-sensor" },
	{ }
};
MODULE_DEVICE_TABLE(of, tp_sensor_of_match);

static struct platform_driver tp_sensor_driver = {
	.probe = tp_sensor_probe,
	.remove = tp_sensor_remove,
	.driver = {
		.name = "tp-test-sensor",
		.of_match_table = tp_sensor_of_match,
	},
};
module_platform_driver(tp_sensor_driver);

MODULE_DESCRIPTION("thermpress test: a thermal sensor with a settable temperature");
MODULE_LICENSE("GPL");
