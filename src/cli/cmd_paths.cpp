// Placeholder until the paths command lands: registers nothing, so `lbsim paths` is an unknown command.
#include "cli/commands.h"

namespace lbsim::cli {
void add_paths_commands(CLI::App&, Commands&) {}
}  // namespace lbsim::cli
