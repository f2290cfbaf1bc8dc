// Placeholder until the layers command lands: registers nothing, so `lbsim layers` is an unknown command.
#include "cli/commands.h"

namespace lbsim::cli {
void add_layers_commands(CLI::App&, Commands&) {}
}  // namespace lbsim::cli
