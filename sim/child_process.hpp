#pragma once
// Child processes, started with an argument vector and never through a shell, so that names
// holding quotes, spaces or ';' reach the program as they are.

#include <string>
#include <sys/types.h>
#include <vector>

namespace torus {

struct ChildExit {
  int code = 0;    // the exit status, when the child exited
  int signal = 0;  // the signal that ended it, or 0
  // The code a shell would report: the exit status, or 128 + the signal.
  int shell_code() const { return signal != 0 ? 128 + signal : code; }
};

// Starts args[0] (looked up on PATH when it holds no '/') with the default signal mask and
// dispositions, whatever the parent blocks; stdout and stderr go to `log` when it is set.
// `tied`: the child, if it is torus-sim, dies (SIGKILL) when this process dies, so that the
// points of an MPI rank that is killed do not run on unseen; it inherits no descriptor but
// 0, 1 and 2. Throws std::runtime_error when
// the program cannot be started.
pid_t spawn_child(const std::vector<std::string>& args, const std::string& log = "", bool tied = false);

// Called first thing by torus-sim: when its parent started it `tied`, asks the kernel to kill
// it when the parent dies (PR_SET_PDEATHSIG), and dies at once if the parent is already gone.
void die_with_parent_if_tied();

// What a wait status says about how a child ended.
ChildExit child_exit(int wait_status);

// Runs args to completion, output to ours; its shell code (exit status or 128 + signal).
int run_child(const std::vector<std::string>& args);

}  // namespace torus
