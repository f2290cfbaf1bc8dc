// Placeholder until the workflow commands land: registers nothing.
#include "cli/commands.h"

namespace lbsim::cli {
void add_workflow_commands(CLI::App&, Commands&) {}
}  // namespace lbsim::cli
