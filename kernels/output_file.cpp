#include "kernels/output_file.hpp"

#include <cerrno>
#include <cstring>
#include <random>
#include <stdexcept>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace torus {
namespace {

namespace fs = std::filesystem;

// Linux gives up on a chain of links after 40; so do we.
constexpr int max_links = 40;

std::string system_reason(int error) { return std::strerror(error); }

// "" for a regular file or nothing at all; else what is there, as a phrase.
std::string refused_kind(const fs::path& target) {
  std::error_code error;
  const fs::file_status status = fs::status(target, error);
  switch (status.type()) {
    case fs::file_type::not_found:
    case fs::file_type::regular: return "";
    case fs::file_type::directory: return "a directory";
    case fs::file_type::character: return "a character device";
    case fs::file_type::block: return "a block device";
    case fs::file_type::fifo: return "a FIFO";
    case fs::file_type::socket: return "a socket";
    default: return error ? "not accessible (" + error.message() + ")" : "not a regular file";
  }
}

// "KIND (the link leads to ...); allowed: ..."
std::string refusal(const std::string& path, const fs::path& target, const std::string& kind) {
  const std::string via = target.string() == path ? "" : " (the link leads to '" + target.string() + "')";
  return kind + via + "; allowed: a new file or an existing regular file (or a link to one)";
}

fs::path folder_of(const fs::path& target) { return target.parent_path().empty() ? fs::path(".") : target.parent_path(); }

// Creates a new file next to `target` that no one else is using (O_EXCL), mode 0666 less the
// umask like any new file.
int create_temporary(const fs::path& target, fs::path& temporary) {
  std::random_device entropy;
  for (int attempt = 0; attempt < 100; ++attempt) {
    temporary = folder_of(target) / (target.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                                     std::to_string(entropy()));
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

}  // namespace

fs::path output_target(const std::string& path) {
  fs::path at(path);
  for (int hops = 0; hops < max_links; ++hops) {
    std::error_code error;
    if (!fs::is_symlink(fs::symlink_status(at, error))) return at;
    const fs::path next = fs::read_symlink(at, error);
    if (error) return at;
    at = next.is_absolute() ? next : folder_of(at) / next;
  }
  throw std::invalid_argument("'" + path + "' is a loop of symbolic links");
}

void check_output_path(std::string_view key, const std::string& path) {
  if (path.empty()) return;
  const std::string name(key);
  fs::path target;
  try {
    target = output_target(path);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(name + ": " + e.what());
  }
  const fs::path folder = folder_of(target);
  std::error_code error;
  if (!fs::is_directory(folder, error))
    throw std::invalid_argument(name + ": folder '" + folder.string() + "' does not exist");
  if (const std::string kind = refused_kind(target); !kind.empty())
    throw std::invalid_argument(name + ": '" + path + "' is " + refusal(path, target, kind));
  fs::path probe;
  const int fd = create_temporary(target, probe);
  if (fd < 0) throw std::invalid_argument(name + ": cannot write in folder '" + folder.string() + "' (" + system_reason(errno) + ")");
  ::close(fd);
  ::unlink(probe.c_str());
}

namespace {

bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  const fs::path x = output_target(a), y = output_target(b);
  if (fs::exists(x, error) && fs::exists(y, error)) return fs::equivalent(x, y, error);
  const fs::path cx = fs::weakly_canonical(fs::absolute(x, error), error);
  const fs::path cy = fs::weakly_canonical(fs::absolute(y, error), error);
  return cx.lexically_normal() == cy.lexically_normal();
}

}  // namespace

void check_distinct_files(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const NamedPath& out = outputs[i];
    if (out.path.empty()) continue;
    const auto refuse = [&](const NamedPath& other, const char* role) {
      throw std::invalid_argument(out.key + ": '" + out.path + "' is the same file as " + other.key + " ('" + other.path +
                                  "'), which the run " + role + "; allowed: a path that no other input or output of the run names");
    };
    for (const NamedPath& in : inputs)
      if (!in.path.empty() && same_file(out.path, in.path)) refuse(in, "reads");
    for (std::size_t j = 0; j < i; ++j)
      if (!outputs[j].path.empty() && same_file(out.path, outputs[j].path)) refuse(outputs[j], "also writes");
  }
}

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
  try {
    target_ = output_target(path);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("cannot write: ") + e.what());
  }
  if (const std::string kind = refused_kind(target_); !kind.empty())
    throw std::runtime_error("cannot write '" + path + "': it is " + refusal(path, target_, kind));
  fd_ = create_temporary(target_, temporary_);
  if (fd_ < 0) {
    const int error = errno;
    temporary_.clear();
    fail("cannot create a file in folder '" + folder_of(target_).string() + "' (" + system_reason(error) + ")");
  }
  // A file replaced keeps its permissions.
  struct stat existing {};
  if (::stat(target_.c_str(), &existing) == 0) ::fchmod(fd_, existing.st_mode & 07777);
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  temporary_.clear();
}

void AtomicFile::fail(const std::string& what) {
  discard();
  throw std::runtime_error("cannot write '" + path_ + "': " + what);
}

void AtomicFile::write(std::string_view bytes) {
  if (fd_ < 0) throw std::logic_error("AtomicFile::write after commit");
  while (!bytes.empty()) {
    const ssize_t written = ::write(fd_, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) fail(written < 0 ? system_reason(errno) : "the system accepted no bytes");
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
}

void AtomicFile::commit() {
  if (fd_ < 0) throw std::logic_error("AtomicFile::commit twice");
  // A full disk or a failing device may only say so when the data reaches it.
  if (::fsync(fd_) != 0 && errno != EINVAL) fail(system_reason(errno));
  const int closed = ::close(fd_);
  fd_ = -1;
  if (closed != 0) fail(system_reason(errno));
  // What is at the target may have changed since the run began; never rename over a device.
  if (const std::string kind = refused_kind(target_); !kind.empty()) fail("it is now " + refusal(path_, target_, kind));
  if (::rename(temporary_.c_str(), target_.c_str()) != 0) fail("rename failed (" + system_reason(errno) + ")");
  temporary_.clear();
}

void write_file_atomically(const std::string& path, std::string_view contents) {
  AtomicFile file(path);
  file.write(contents);
  file.commit();
}

}  // namespace torus
