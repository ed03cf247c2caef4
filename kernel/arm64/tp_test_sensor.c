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
 *
 * With model=1 the temperature follows a thermal model of the CPUs in model_cpus
 * instead (kernel/arm64/vm-effect.sh): every 100 ms their power is their busy
 * fraction times (f / f_max)^3, f their cpufreq limit (dynamic power at a voltage
 * that scales with frequency), and the temperature moves towards 50 C plus 100 C at
 * full power with a time constant of 5 s, over the time that really passed, never
 * above 110 C (the critical trip, 115 C, would power the board off).  It runs in the
 * kernel, on a high-priority workqueue, because a user-space model is starved under
 * TCG while the workload forks.  Writing temp sets the model's state (a reset);
 * model_steps, model_max and model_min_khz give its steps, its hottest value and the
 * lowest frequency limit it saw since then.
 */
#include <linux/module.h>
#include <linux/version.h>
#include <linux/moduleparam.h>
#include <linux/mod_devicetable.h>
#include <linux/platform_device.h>
#include <linux/thermal.h>
#include <linux/cpufreq.h>
#include <linux/cpumask.h>
#include <linux/workqueue.h>
#include <linux/ktime.h>

static int temp_mc = 40000;
static struct thermal_zone_device *tp_tz;

#define TP_MODEL_PERIOD_MS	100
#define TP_MODEL_TAU_MS		5000
#define TP_MODEL_BASE_MC	50000
#define TP_MODEL_SPAN_MC	100000	/* at full power */
#define TP_MODEL_MAX_MC		110000

static bool model_on;
static char model_cpus[32] = "4-7";
module_param_string(model_cpus, model_cpus, sizeof(model_cpus), 0644);
MODULE_PARM_DESC(model_cpus, "the CPUs the model heats with (read when model is set)");
static int model_steps, model_max;
module_param(model_steps, int, 0444);
MODULE_PARM_DESC(model_steps, "the model's steps since temp was last written");
module_param(model_max, int, 0444);
MODULE_PARM_DESC(model_max, "the model's hottest temperature since temp was last written");
static unsigned int model_min_khz;
module_param(model_min_khz, uint, 0444);
MODULE_PARM_DESC(model_min_khz, "the lowest frequency limit the model saw since temp was last written");

static struct cpumask model_mask;
static u64 model_idle[NR_CPUS], model_wall[NR_CPUS];
static ktime_t model_last;
static struct delayed_work model_work;
static DEFINE_MUTEX(model_lock);	/* model on and off */
static DEFINE_SPINLOCK(temp_lock);	/* a model step against a write of temp */

/* The busy fraction of the model's CPUs since the last call, in 1/1000 */
static unsigned int model_busy(void)
{
	u64 busy = 0, total = 0;
	int cpu;

	for_each_cpu(cpu, &model_mask) {
		u64 wall, idle = get_cpu_idle_time(cpu, &wall, 0);
		u64 dw = wall - model_wall[cpu], di = idle - model_idle[cpu];

		total += dw;
		busy += dw > di ? dw - di : 0;
		model_wall[cpu] = wall;
		model_idle[cpu] = idle;
	}
	return total ? div64_u64(busy * 1000, total) : 0;
}

static void model_step(struct work_struct *work)
{
	int cpu = cpumask_first(&model_mask);
	unsigned int r = 1000, f, fmax, u, p;
	int t, target;
	ktime_t now;
	s64 dt;

	f = cpufreq_quick_get_max(cpu);
	fmax = cpufreq_get_hw_max_freq(cpu);
	if (f && fmax)
		r = min(f * 1000ULL / fmax, 1000ULL);

	spin_lock(&temp_lock);
	now = ktime_get();
	dt = min_t(s64, ktime_ms_delta(now, model_last), TP_MODEL_TAU_MS / 10);
	u = model_busy();
	p = u * r / 1000 * r / 1000 * r / 1000;
	target = TP_MODEL_BASE_MC + p * (TP_MODEL_SPAN_MC / 1000);
	t = temp_mc;
	t += (int)((s64)(target - t) * dt / TP_MODEL_TAU_MS);
	t = min(t, TP_MODEL_MAX_MC);
	model_last = now;
	WRITE_ONCE(temp_mc, t);
	model_steps++;
	model_max = max(model_max, t);
	if (f && (!model_min_khz || f < model_min_khz))
		model_min_khz = f;
	spin_unlock(&temp_lock);

	if (tp_tz)
		thermal_zone_device_update(tp_tz, THERMAL_EVENT_UNSPECIFIED);
	queue_delayed_work(system_highpri_wq, &model_work,
			   msecs_to_jiffies(TP_MODEL_PERIOD_MS));
}

static int tp_model_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	if (ret)
		return ret;
	mutex_lock(&model_lock);
	if (on && !model_on) {
		ret = cpulist_parse(model_cpus, &model_mask);
		if (!ret && cpumask_empty(&model_mask))
			ret = -EINVAL;
		if (!ret) {
			model_busy();
			model_last = ktime_get();
			queue_delayed_work(system_highpri_wq, &model_work,
					   msecs_to_jiffies(TP_MODEL_PERIOD_MS));
			model_on = true;
		}
	} else if (!on && model_on) {
		cancel_delayed_work_sync(&model_work);
		model_on = false;
	}
	mutex_unlock(&model_lock);
	return ret;
}

static const struct kernel_param_ops tp_model_ops = {
	.set = tp_model_set,
	.get = param_get_bool,
};
module_param_cb(model, &tp_model_ops, &model_on, 0644);
MODULE_PARM_DESC(model, "1: the temperature follows the thermal model of model_cpus");

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
	int ret;

	spin_lock(&temp_lock);
	ret = param_set_int(val, kp);
	if (!ret) {
		model_steps = 0;
		model_max = temp_mc;
		model_min_khz = 0;
	}
	spin_unlock(&temp_lock);
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

/* .remove returns void since Linux 6.11 (6.1's returns int) */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
static void tp_sensor_remove(struct platform_device *pdev)
{
	tp_tz = NULL;
}
#else
static int tp_sensor_remove(struct platform_device *pdev)
{
	tp_tz = NULL;
	return 0;
}
#endif

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
static int __init tp_sensor_init(void)
{
	INIT_DELAYED_WORK(&model_work, model_step);
	return platform_driver_register(&tp_sensor_driver);
}
module_init(tp_sensor_init);

static void __exit tp_sensor_exit(void)
{
	cancel_delayed_work_sync(&model_work);
	platform_driver_unregister(&tp_sensor_driver);
}
module_exit(tp_sensor_exit);

MODULE_DESCRIPTION("thermpress test: a thermal sensor with a settable temperature");
MODULE_LICENSE("GPL");
