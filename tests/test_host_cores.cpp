// The cores the default thread counts may use: the affinity mask, lowered by a cgroup's quota.

#include <catch2/catch.hpp>

#include <sched.h>

#include "sim/host_cores.hpp"
#include "sim/machine_config.hpp"

using namespace torus;

TEST_CASE("a cgroup v2 quota buys its cores rounded up: max and malformed texts set none", "[host]") {
  CHECK(cores_of_cpu_max("100000 100000") == 1u);
  CHECK(cores_of_cpu_max("150000 100000\n") == 2u);  // --cpus 1.5: a second core, partly
  CHECK(cores_of_cpu_max("400000 100000") == 4u);
  CHECK(cores_of_cpu_max("5000 100000") == 1u);  // a twentieth of a core is still one thread
  CHECK_FALSE(cores_of_cpu_max("max 100000"));
  CHECK_FALSE(cores_of_cpu_max(""));
  CHECK_FALSE(cores_of_cpu_max("100000"));
  CHECK_FALSE(cores_of_cpu_max("abc 100000"));
  CHECK_FALSE(cores_of_cpu_max("100000 0"));
}

TEST_CASE("a cgroup v1 quota of -1 sets none: otherwise its cores rounded up", "[host]") {
  CHECK_FALSE(cores_of_cfs_quota(-1, 100000));
  CHECK(cores_of_cfs_quota(250000, 100000) == 3u);
  CHECK(cores_of_cfs_quota(50000, 50000) == 1u);
  CHECK_FALSE(cores_of_cfs_quota(100000, 0));
}

TEST_CASE("threads 0 resolves to the cores the process may use, never more than its affinity mask", "[host]") {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  REQUIRE(sched_getaffinity(0, sizeof(allowed), &allowed) == 0);
  MachineConfig machine;
  machine.threads = 0;
  CHECK(machine.host_threads() == host_cores());
  CHECK(host_cores() >= 1u);
  CHECK(host_cores() <= static_cast<unsigned>(CPU_COUNT(&allowed)));
  machine.threads = 7;  // asked for: honoured as given
  CHECK(machine.host_threads() == 7u);
}
