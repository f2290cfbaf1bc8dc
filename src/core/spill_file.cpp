#include "core/spill_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/core.h>

#include "core/error.h"

namespace lbsim {

SpillFile::SpillFile(std::string what) : what_(std::move(what)) {}

SpillFile::~SpillFile() {
  if (fd_ >= 0) close(fd_);
}

SpillFile::SpillFile(SpillFile&& o) noexcept
    : what_(std::move(o.what_)), fd_(std::exchange(o.fd_, -1)), size_(std::exchange(o.size_, 0)) {}

SpillFile& SpillFile::operator=(SpillFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    what_ = std::move(o.what_);
    fd_ = std::exchange(o.fd_, -1);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

void SpillFile::write_at(std::uint64_t offset, const void* data, std::size_t bytes) {
  if (fd_ < 0) {
    const char* dir = std::getenv("TMPDIR");
    std::string tmpl = std::string(dir && *dir ? dir : "/tmp") + "/lbsim-spill-XXXXXX";
    fd_ = mkstemp(tmpl.data());
    if (fd_ < 0)
      throw UserError(fmt::format("cannot create a temporary file for {} in {} ({}); set TMPDIR to a writable folder",
                                  what_, tmpl, std::strerror(errno)));
    unlink(tmpl.c_str());
  }
  const char* p = static_cast<const char*>(data);
  if (offset + bytes > size_) size_ = offset + bytes;
  while (bytes > 0) {
    const ssize_t w = pwrite(fd_, p, bytes, static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      throw UserError(
          fmt::format("cannot write the temporary file of {} ({}); free space in TMPDIR or set TMPDIR to "
                      "another folder",
                      what_, w < 0 ? std::strerror(errno) : "nothing written"));
    p += w;
    offset += static_cast<std::uint64_t>(w);
    bytes -= static_cast<std::size_t>(w);
  }
}

void SpillFile::read_at(std::uint64_t offset, void* data, std::size_t bytes) const {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t r = fd_ < 0 ? 0 : pread(fd_, p, bytes, static_cast<off_t>(offset));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      throw UserError(fmt::format("cannot read back the temporary file of {} ({})", what_,
                                  r < 0 ? std::strerror(errno) : "shorter than written"));
    p += r;
    offset += static_cast<std::uint64_t>(r);
    bytes -= static_cast<std::size_t>(r);
  }
}

void SpillFile::copy_to(std::ostream& os) const {
  std::vector<char> buf(std::size_t{1} << 16);
  for (std::uint64_t at = 0; at < size_;) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), size_ - at));
    read_at(at, buf.data(), n);
    os.write(buf.data(), static_cast<std::streamsize>(n));
    at += n;
  }
}

void SpillFile::discard(std::uint64_t offset, std::uint64_t bytes) {
  if (fd_ < 0 || bytes == 0) return;
  (void)fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(offset),
                  static_cast<off_t>(bytes));
}

}  // namespace lbsim
