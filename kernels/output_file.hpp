#pragma once
// Every file torus-sim writes (results, reports, tables, traces) goes through here: it is
// written under a temporary name in the target's folder, every write is checked, and only a
// complete file is renamed into place, so a reader never sees a truncated file that looks
// complete and a full disk is an error, not a silent cut.
//
// The target must be a regular file or not exist yet. A symbolic link is followed: the file
// it points to is replaced, the link stays. Devices, FIFOs, sockets and directories are
// refused (as root, a rename over /dev/null would turn it into a regular file).

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace torus {

// The path a write to `path` replaces: `path` with symbolic links followed to their end.
// Throws std::invalid_argument for a loop of links.
std::filesystem::path output_target(const std::string& path);

// Checks, before any work, that `path` can be written: its folder exists and is writable, and
// what is there is a regular file or nothing. Throws std::invalid_argument naming `key` (the
// parameter), the path and what is allowed.
void check_output_path(std::string_view key, const std::string& path);

// A named path of a run: the parameter (or "scenario") and the path; empty paths are skipped.
struct NamedPath {
  std::string key;
  std::string path;
};
// Refuses an output that names the same file as an input or as another output (a run once
// replaced its own scenario file with its result): throws std::invalid_argument naming both
// parameters and the path. The same file: equivalent when both exist, else the same path once
// symbolic links are followed and it is made absolute and normal.
void check_distinct_files(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

// One output file being written. Destroyed without commit(), it leaves nothing behind.
class AtomicFile {
 public:
  // Throws std::runtime_error naming the path when the temporary cannot be made or the
  // target is not a regular file.
  explicit AtomicFile(const std::string& path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  // Throws std::runtime_error naming the path and the system's reason (disk full, ...).
  void write(std::string_view bytes);
  // Flushes, closes and renames the temporary into place; throws like write().
  void commit();

 private:
  [[noreturn]] void fail(const std::string& what);
  void discard();

  std::string path_;  // as given, for messages
  std::filesystem::path target_, temporary_;
  int fd_ = -1;
};

// Writes `contents` to `path` through an AtomicFile.
void write_file_atomically(const std::string& path, std::string_view contents);

}  // namespace torus
