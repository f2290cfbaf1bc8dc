// Placeholder until the scale command lands: registers nothing, so `lbsim scale` is an unknown command.
#include "cli/commands.h"

namespace lbsim::cli {
void add_scale_commands(CLI::App&, Commands&) {}
}  // namespace lbsim::cli
