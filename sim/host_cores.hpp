#pragma once
// The cores this process may use, for the default thread counts: those its affinity mask
// allows (taskset, a container's cpuset), and no more than its cgroup's CPU quota buys (a
// container started with --cpus 1.5 gets 2). Without a quota, the mask alone decides.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string_view>

namespace torus {

// A cgroup v2 `cpu.max` text, "QUOTA PERIOD" (microseconds) or "max PERIOD": the whole cores
// the quota covers, rounded up, at least 1; nothing for "max" or a text not of that form.
std::optional<unsigned> cores_of_cpu_max(std::string_view cpu_max);
// The same from cgroup v1's cpu.cfs_quota_us and cpu.cfs_period_us (a quota of -1: none).
std::optional<unsigned> cores_of_cfs_quota(std::int64_t quota_us, std::int64_t period_us);

// The fewest cores a quota allows along the process's cgroup and each of its ancestors, read
// under `root` (the cgroup mount, /sys/fs/cgroup) for the cgroups that `self_cgroup` (the text
// of /proc/self/cgroup) names: v2's unified one, and v1's cpu controller's. Nothing when no
// quota is set. In a container with its own cgroup namespace the path is "/", and the root's
// quota is the container's.
std::optional<unsigned> cores_of_cgroup(const std::filesystem::path& root, std::string_view self_cgroup);

// The affinity mask's cores, lowered to the quota's; at least 1.
unsigned host_cores();

}  // namespace torus
