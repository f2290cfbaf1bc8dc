// Placeholder until the mat command lands: registers nothing, so `lbsim mat` is an unknown command.
#include "cli/commands.h"

namespace lbsim::cli {
void add_mat_commands(CLI::App&, Commands&) {}
}  // namespace lbsim::cli
