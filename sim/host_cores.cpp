#include "sim/host_cores.hpp"

#include <sched.h>
#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "kernels/text.hpp"

namespace torus {

namespace {

std::optional<std::int64_t> whole_number(std::string_view text) {
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// The file's first line, or nothing (a missing file, a directory).
std::string first_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::optional<unsigned> fewer(std::optional<unsigned> a, std::optional<unsigned> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

// The quota of one cgroup directory: v2's cpu.max, else v1's pair of files.
std::optional<unsigned> quota_in(const std::filesystem::path& dir) {
  if (const std::string v2 = first_line(dir / "cpu.max"); !v2.empty()) return cores_of_cpu_max(v2);
  const auto quota = whole_number(first_line(dir / "cpu.cfs_quota_us"));
  const auto period = whole_number(first_line(dir / "cpu.cfs_period_us"));
  return quota && period ? cores_of_cfs_quota(*quota, *period) : std::nullopt;
}

// The fewest cores along `cgroup` (a path such as /a/b) and its ancestors, under `mount`.
std::optional<unsigned> quota_along(const std::filesystem::path& mount, std::string_view cgroup) {
  std::optional<unsigned> cores = quota_in(mount);
  std::filesystem::path dir = mount;
  for (const std::filesystem::path& part : std::filesystem::path(cgroup).relative_path()) {
    if (part.empty() || part == "." || part == "..") continue;  // never above the mount
    dir /= part;
    cores = fewer(cores, quota_in(dir));
  }
  return cores;
}

}  // namespace

std::optional<unsigned> cores_of_cfs_quota(std::int64_t quota_us, std::int64_t period_us) {
  if (quota_us <= 0 || period_us <= 0) return std::nullopt;
  const std::int64_t cores = quota_us / period_us + (quota_us % period_us != 0 ? 1 : 0);
  return static_cast<unsigned>(std::clamp<std::int64_t>(cores, 1, std::numeric_limits<unsigned>::max()));
}

std::optional<unsigned> cores_of_cpu_max(std::string_view cpu_max) {
  const auto space = cpu_max.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  const auto period = whole_number(cpu_max.substr(space + 1));
  if (!period) return std::nullopt;
  const std::string_view quota = cpu_max.substr(0, space);
  if (quota == "max") return std::nullopt;
  const auto q = whole_number(quota);
  return q ? cores_of_cfs_quota(*q, *period) : std::nullopt;
}

std::optional<unsigned> cores_of_cgroup(const std::filesystem::path& root, std::string_view self_cgroup) {
  std::optional<unsigned> cores;
  for (const std::string& line : split(self_cgroup, '\n')) {
    std::vector<std::string> fields = split(line, ':');  // ID:CONTROLLERS:PATH (the path may hold ':')
    if (fields.size() < 3) continue;
    const std::string path = join({fields.begin() + 2, fields.end()}, ":");
    const std::vector<std::string> controllers = split(fields[1], ',');
    if (fields[0] == "0" && fields[1].empty()) {
      cores = fewer(cores, quota_along(root, path));
    } else if (std::find(controllers.begin(), controllers.end(), "cpu") != controllers.end()) {
      // v1 mounts the controller at cpu (often a link to cpu,cpuacct) or under its list's name.
      std::error_code unreadable;  // taken as absent
      const bool named_cpu = std::filesystem::exists(root / "cpu", unreadable);
      cores = fewer(cores, quota_along(named_cpu ? root / "cpu" : root / fields[1], path));
    }
  }
  return cores;
}

unsigned host_cores() {
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0 && CPU_COUNT(&allowed) > 0)
    cores = static_cast<unsigned>(CPU_COUNT(&allowed));
  std::ifstream self("/proc/self/cgroup");
  const std::string text((std::istreambuf_iterator<char>(self)), std::istreambuf_iterator<char>());
  if (const auto quota = cores_of_cgroup("/sys/fs/cgroup", text)) cores = std::min(cores, *quota);
  return std::max(1u, cores);
}

}  // namespace torus
