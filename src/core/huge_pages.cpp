#include "core/huge_pages.h"

#include <cstdlib>
#include <fstream>
#include <iterator>

#include <unistd.h>

namespace lbsim::huge_pages {

namespace {
constexpr const char* kEnabledFile = "/sys/kernel/mm/transparent_hugepage/enabled";

bool names_hugetlb(const char* tunables) {
  return tunables != nullptr && std::string_view(tunables).find(kHugetlbTunable) != std::string_view::npos;
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
  if (names_hugetlb(tunables) || mode != "madvise") return "";
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
  // The tunable's value in GLIBC_TUNABLES (name=value pairs separated by colons).
  const char* t = std::getenv("GLIBC_TUNABLES");
  if (t == nullptr) return "off";
  const std::string_view all(t);
  const auto at = all.find(kHugetlbTunable);
  if (at == std::string_view::npos) return "off";
  const std::string_view rest = all.substr(at + kHugetlbTunable.size());
  return rest.substr(0, rest.find(':')) == "=1" ? "advised" : "off";
}

void reexec(char** argv) {
  if (!glibc_heap()) return;
  const std::string v = tunables_to_set(std::getenv("GLIBC_TUNABLES"), std::getenv("LBSIM_HUGEPAGES"), kernel_thp_mode());
  if (v.empty()) return;
  const char* old = std::getenv("GLIBC_TUNABLES");
  const std::string before = old != nullptr ? old : "";
  if (setenv("GLIBC_TUNABLES", v.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);
  // Not re-executed (no /proc, say): go on as is with the user's tunables (perf.huge_pages "off").
  if (old != nullptr)
    setenv("GLIBC_TUNABLES", before.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
}

}  // namespace lbsim::huge_pages
