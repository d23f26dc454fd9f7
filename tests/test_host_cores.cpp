// The cores the default thread counts may use: the affinity mask, lowered by a cgroup's quota.

#include <catch2/catch.hpp>

#include <sched.h>

#include <fstream>

#include "sim/host_cores.hpp"
#include "sim/machine_config.hpp"
#include "tests/temp_dir.hpp"

using namespace torus;

namespace {

void write(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << text << "\n";
}

}  // namespace

TEST_CASE("a cgroup v2 quota buys its cores rounded up: max and malformed texts set none", "[host]") {
  CHECK(cores_of_cpu_max("100000 100000") == 1u);
  CHECK(cores_of_cpu_max("150000 100000") == 2u);  // --cpus 1.5: a second core, partly
  CHECK(cores_of_cpu_max("400000 100000") == 4u);
  CHECK(cores_of_cpu_max("5000 100000") == 1u);  // a twentieth of a core is still one thread
  CHECK_FALSE(cores_of_cpu_max("max 100000"));
  CHECK_FALSE(cores_of_cpu_max(""));
  CHECK_FALSE(cores_of_cpu_max("100000"));
  CHECK_FALSE(cores_of_cpu_max("abc 100000"));
  CHECK_FALSE(cores_of_cpu_max("100000 0"));
  CHECK_FALSE(cores_of_cpu_max("-1 100000"));
  CHECK_FALSE(cores_of_cpu_max("100000  100000"));  // not the kernel's form: none rather than a guess
}

TEST_CASE("a quota too large to count in cores is capped: never 0 and no overflow", "[host]") {
  CHECK(cores_of_cpu_max("4294967296000 1000") == 4294967295u);  // 2^32 cores would wrap to 0
  CHECK(cores_of_cpu_max("9223372036854775807 100000") == 4294967295u);
  CHECK(cores_of_cfs_quota(9223372036854775807, 1) == 4294967295u);
}

TEST_CASE("a cgroup v1 quota of -1 sets none: otherwise its cores rounded up", "[host]") {
  CHECK_FALSE(cores_of_cfs_quota(-1, 100000));
  CHECK(cores_of_cfs_quota(250000, 100000) == 3u);
  CHECK(cores_of_cfs_quota(50000, 50000) == 1u);
  CHECK_FALSE(cores_of_cfs_quota(100000, 0));
}

TEST_CASE("the quota of the process's cgroup or of any ancestor limits the cores: the fewest wins", "[host]") {
  TempDir dir;
  const std::filesystem::path root = dir.path();
  SECTION("v2: the unified cgroup's path, walked from the mount down") {
    write(root / "cpu.max", "max 100000");
    write(root / "jobs" / "cpu.max", "300000 100000");
    write(root / "jobs" / "run7" / "cpu.max", "max 100000");
    CHECK(cores_of_cgroup(root, "0::/jobs/run7\n") == 3u);  // the parent's quota holds
    write(root / "jobs" / "run7" / "cpu.max", "150000 100000");
    CHECK(cores_of_cgroup(root, "0::/jobs/run7\n") == 2u);  // its own, fewer
    CHECK_FALSE(cores_of_cgroup(root, "0::/\n"));           // the root sets none
    CHECK_FALSE(cores_of_cgroup(root, "0::/elsewhere\n"));  // a cgroup not mounted here: only the root is read
    write(root / "a:b" / "cpu.max", "200000 100000");
    CHECK(cores_of_cgroup(root, "0::/a:b\n") == 2u);  // a ':' in the path is the path's own
  }
  SECTION("v1: the cpu controller's line, its quota over its period") {
    write(root / "cpu" / "cpu.cfs_quota_us", "-1");
    write(root / "cpu" / "cpu.cfs_period_us", "100000");
    write(root / "cpu" / "box" / "cpu.cfs_quota_us", "250000");
    write(root / "cpu" / "box" / "cpu.cfs_period_us", "100000");
    CHECK(cores_of_cgroup(root, "9:memory:/box\n3:cpu,cpuacct:/box\n1:name=systemd:/\n") == 3u);
    CHECK_FALSE(cores_of_cgroup(root, "9:memory:/box\n3:cpuacct:/box\n"));  // no cpu controller listed
  }
  SECTION("no files at all: no quota") { CHECK_FALSE(cores_of_cgroup(root, "0::/a/b\n3:cpu:/a\n")); }
}

TEST_CASE("threads 0 resolves to the host's cores: at least 1, never more than the affinity mask allows", "[host]") {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  REQUIRE(sched_getaffinity(0, sizeof(allowed), &allowed) == 0);
  MachineConfig machine;
  machine.threads = 0;
  CHECK(machine.host_threads() >= 1u);
  CHECK(machine.host_threads() <= static_cast<unsigned>(CPU_COUNT(&allowed)));
  machine.threads = 7;  // asked for: honoured as given
  CHECK(machine.host_threads() == 7u);
}
