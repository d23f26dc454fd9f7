#pragma once
// The cores this process may use, for the default thread counts: those its affinity mask
// allows (taskset, a container's cpuset), and no more than its cgroup's CPU quota buys (a
// container started with --cpus 1.5 gets 2). Without a quota, the mask alone decides.

#include <cstdint>
#include <optional>
#include <string_view>

namespace torus {

// A cgroup v2 `cpu.max` text, "QUOTA PERIOD" (microseconds) or "max PERIOD": the whole cores
// the quota covers, rounded up, at least 1; nothing for "max" or a text not of that form.
std::optional<unsigned> cores_of_cpu_max(std::string_view cpu_max);
// The same from cgroup v1's cpu.cfs_quota_us and cpu.cfs_period_us (a quota of -1: none).
std::optional<unsigned> cores_of_cfs_quota(std::int64_t quota_us, std::int64_t period_us);

// The affinity mask's cores, lowered to the quota's when the process's cgroup (v2, or v1's cpu
// controller) sets one; at least 1.
unsigned host_cores();

}  // namespace torus
