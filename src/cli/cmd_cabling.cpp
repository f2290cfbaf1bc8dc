// Placeholder until the cabling command lands: registers nothing, so `lbsim cabling` is an unknown command.
#include "cli/commands.h"

namespace lbsim::cli {
void add_cabling_commands(CLI::App&, Commands&) {}
}  // namespace lbsim::cli
