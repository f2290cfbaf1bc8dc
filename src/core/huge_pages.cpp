#include "core/huge_pages.h"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>

#include <unistd.h>

namespace lbsim::huge_pages {

namespace {
constexpr const char* kEnabledFile = "/sys/kernel/mm/transparent_hugepage/enabled";

// The value that `tunables` (GLIBC_TUNABLES: name=value pairs separated by colons) give
// glibc.malloc.hugetlb; none when they do not name it.
std::optional<std::string_view> hugetlb_value(const char* tunables) {
  if (tunables == nullptr) return std::nullopt;
  const std::string_view all(tunables);
  const auto at = all.find(kHugetlbTunable);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = all.substr(at + kHugetlbTunable.size());
  rest = rest.substr(0, rest.find(':'));
  if (!rest.empty() && rest[0] == '=') rest.remove_prefix(1);
  return rest;
}
}  // namespace

bool glibc_heap() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
  return false;
#endif
#endif
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
  return true;
#else
  return false;
#endif
}

std::string thp_mode(std::string_view enabled_text) {
  const auto open = enabled_text.find('[');
  if (open == std::string_view::npos) return "";
  const auto close = enabled_text.find(']', open);
  if (close == std::string_view::npos) return "";
  return std::string(enabled_text.substr(open + 1, close - open - 1));
}

std::string kernel_thp_mode() {
  std::ifstream f(kEnabledFile);
  return thp_mode(std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()));
}

std::string tunables_to_set(const char* tunables, const char* opt_out, std::string_view mode) {
  if (opt_out != nullptr && std::string_view(opt_out) == "0") return "";
  if (hugetlb_value(tunables) || mode != "madvise") return "";
  std::string v = tunables != nullptr ? tunables : "";
  if (!v.empty()) v += ':';
  v += kHugetlbTunable;
  v += "=1";
  return v;
}

std::string heap_backing() {
  if (!glibc_heap()) return "off";
  const std::string mode = kernel_thp_mode();
  if (mode == "always") return "always";
  if (mode != "madvise") return "off";
  return hugetlb_value(std::getenv("GLIBC_TUNABLES")) == "1" ? "advised" : "off";
}

void reexec(char** argv) {
  if (!glibc_heap()) return;
  const char* user = std::getenv("GLIBC_TUNABLES");
  const std::string v = tunables_to_set(user, std::getenv("LBSIM_HUGEPAGES"), kernel_thp_mode());
  if (v.empty()) return;
  const std::optional<std::string> before = user != nullptr ? std::optional<std::string>(user) : std::nullopt;
  if (setenv("GLIBC_TUNABLES", v.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Not re-executed (no /proc, say): go on as is with the user's tunables (perf.huge_pages "off").
  if (before)
    setenv("GLIBC_TUNABLES", before->c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

}  // namespace lbsim::huge_pages
