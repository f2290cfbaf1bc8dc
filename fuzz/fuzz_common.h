// Shared by the libFuzzer harnesses (docs/fuzzing.md). A parser may reject its input with a
// UserError (that is its contract: a message naming the file and line); anything else - another
// exception, a crash, a sanitizer report, a leak - is a bug that libFuzzer reports.
#pragma once
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "core/error.h"

namespace lbsim::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Runs `f`, accepting a UserError as a valid outcome. Returns true when `f` completed.
template <class F>
bool accept_user_errors(F&& f) {
  try {
    f();
    return true;
  } catch (const UserError&) {
    return false;
  }
}

}  // namespace lbsim::fuzz
