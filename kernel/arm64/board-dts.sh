#!/usr/bin/env bash
# board-dts.sh VIRT_DTS: prints the device tree of the arm64 board that
# kernel/arm64/run.sh boots, made from qemu's own virt tree (-M virt,dumpdtb=,
# decompiled with dtc) plus the amendments below: a Hikey960-like big.LITTLE.
#
#   CPUs 0-3 "little": capacity-dmips-mhz 592, fixed clock and OPPs up to 1844 MHz
#   CPUs 4-7 "big":    capacity-dmips-mhz 1024, fixed clock and OPPs up to 2362 MHz
#
# The kernel's capacity is dmips x max frequency, normalised to the biggest:
# 592 x 1844 / (1024 x 2362) x 1024 = 462 and 1024, as on Hikey960 (whose hi3660.dtsi
# has the same dmips and OPP frequencies).  Each cluster has an opp-shared OPP v2 table
# (one cpufreq policy per cluster, cpufreq-dt), #cooling-cells (one cpufreq cooling
# device per policy) and dynamic-power-coefficient (an energy model).  The thermal
# zone "big-thermal" reads the test sensor (tp_test_sensor.ko, settable temperature)
# and binds the big cluster's cooling device to a passive trip, for step_wise.
set -euo pipefail
virt=$1
[ -f "$virt" ] || { echo "board-dts.sh: $virt is missing" >&2; exit 2; }

# cluster NAME FREQ_MHZ:MICROVOLT...: a fixed clock at the top frequency and an OPP table
cluster() {
	local name=$1 top
	shift
	top=${*: -1}
	top=${top%%:*}
	cat <<EOF2
	clk_$name: clock-cpu-$name {
		compatible = "fixed-clock";
		#clock-cells = <0>;
		clock-frequency = <${top}000000>;
		clock-output-names = "cpu-$name";
	};

	opp_$name: opp-table-$name {
		compatible = "operating-points-v2";
		opp-shared;
EOF2
	local o mhz uv
	for o in "$@"; do
		mhz=${o%%:*} uv=${o##*:}
		cat <<EOF2
		opp-${mhz}000000 {
			opp-hz = /bits/ 64 <${mhz}000000>;
			opp-microvolt = <$uv>;
			clock-latency-ns = <200000>;
		};
EOF2
	done
	echo "	};"
}

# cpu N CLUSTER DMIPS POWER_COEFF
cpu() {
	cat <<EOF2
&{/cpus/cpu@$1} {
	capacity-dmips-mhz = <$3>;
	clocks = <&clk_$2>;
	operating-points-v2 = <&opp_$2>;
	#cooling-cells = <2>;
	dynamic-power-coefficient = <$4>;
};
EOF2
}

cat "$virt"
echo
echo "/ {"
cluster little 533:700000 999:800000 1402:880000 1709:990000 1844:1040000
echo
cluster big 903:700000 1421:800000 1805:860000 2112:930000 2362:1000000
cat <<'EOF2'

	tp_sensor: thermal-sensor-tp {
		compatible = "thermpress,test-sensor";
		#thermal-sensor-cells = <1>;
	};

	thermal-zones {
		big-thermal {
			polling-delay-passive = <100>;
			polling-delay = <1000>;
			thermal-sensors = <&tp_sensor 0>;

			trips {
				big_alert: big-alert {
					temperature = <65000>;
					hysteresis = <2000>;
					type = "passive";
				};
				big_crit: big-crit {
					temperature = <115000>;
					hysteresis = <0>;
					type = "critical";
				};
			};

			cooling-maps {
				map0 {
					trip = <&big_alert>;
					cooling-device = <&{/cpus/cpu@4} 0xffffffff 0xffffffff>;
				};
			};
		};
	};
};

&{/cpus} {
	/delete-node/ cpu-map;
	cpu-map {
		cluster0 {
			core0 { cpu = <&{/cpus/cpu@0}>; };
			core1 { cpu = <&{/cpus/cpu@1}>; };
			core2 { cpu = <&{/cpus/cpu@2}>; };
			core3 { cpu = <&{/cpus/cpu@3}>; };
		};
		cluster1 {
			core0 { cpu = <&{/cpus/cpu@4}>; };
			core1 { cpu = <&{/cpus/cpu@5}>; };
			core2 { cpu = <&{/cpus/cpu@6}>; };
			core3 { cpu = <&{/cpus/cpu@7}>; };
		};
	};
};

EOF2
for n in 0 1 2 3; do cpu $n little 592 110; done
for n in 4 5 6 7; do cpu $n big 1024 550; done
