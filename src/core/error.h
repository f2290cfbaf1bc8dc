// Errors shown to users: one exception type with a complete, human-readable message (file, line,
// key, what was expected). The CLI prints it and exits non-zero; nothing else catches it.
#pragma once
#include <stdexcept>
#include <string>

namespace lbsim {

class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace lbsim
