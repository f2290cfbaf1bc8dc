// Failure files (failures.file) against a 16-host fat tree (radix 8). read_failure_file reads a path, so the
// input goes through an in-memory file (memfd) named by /proc/self/fd.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>

#include "config/reader.h"
#include "fuzz/fuzz_common.h"
#include "net/failures.h"
#include "topo/registry.h"

namespace {
const lbsim::topo::Topology& topology() {
  static const lbsim::topo::Topology t = [] {
    lbsim::config::Config c;
    lbsim::config::apply_override(c, "topology.hosts=16");
    lbsim::config::apply_override(c, "topology.radix=8");
    return lbsim::topo::build_topology(c);
  }();
  return t;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim;
  const auto& t = topology();
  static const int fd = memfd_create("lbsim-fuzz-failures", 0);
  if (fd < 0) std::abort();
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  fuzz::accept_user_errors([&] { (void)net::read_failure_file(path, t); });
  return 0;
}
