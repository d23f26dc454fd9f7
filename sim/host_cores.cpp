#include "sim/host_cores.hpp"

#include <sched.h>
#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace torus {

namespace {

std::optional<std::int64_t> whole_number(std::string_view text) {
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::optional<unsigned> cores_of_quota() {
  // A container's cgroup namespace shows its own cgroup at the root of the mount.
  if (const std::string v2 = first_line("/sys/fs/cgroup/cpu.max"); !v2.empty()) return cores_of_cpu_max(v2);
  const auto quota = whole_number(first_line("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"));
  const auto period = whole_number(first_line("/sys/fs/cgroup/cpu/cpu.cfs_period_us"));
  if (!quota || !period) return std::nullopt;
  return cores_of_cfs_quota(*quota, *period);
}

}  // namespace

std::optional<unsigned> cores_of_cfs_quota(std::int64_t quota_us, std::int64_t period_us) {
  if (quota_us <= 0 || period_us <= 0) return std::nullopt;
  return static_cast<unsigned>(std::max<std::int64_t>(1, (quota_us + period_us - 1) / period_us));
}

std::optional<unsigned> cores_of_cpu_max(std::string_view cpu_max) {
  while (!cpu_max.empty() && (cpu_max.back() == '\n' || cpu_max.back() == ' ')) cpu_max.remove_suffix(1);
  const auto space = cpu_max.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const auto period = whole_number(cpu_max.substr(space + 1));
  if (!period) return std::nullopt;
  const std::string_view quota = cpu_max.substr(0, space);
  if (quota == "max") return std::nullopt;
  const auto q = whole_number(quota);
  return q ? cores_of_cfs_quota(*q, *period) : std::nullopt;
}

unsigned host_cores() {
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 && CPU_COUNT(&allowed) > 0)
    cores = static_cast<unsigned>(CPU_COUNT(&allowed));
  if (const auto quota = cores_of_quota()) cores = std::min(cores, *quota);
  return cores;
}

}  // namespace torus
