#include "cli/commands.h"
namespace lbsim::cli {
void add_run_commands(CLI::App&, Commands&) {}
}  // namespace lbsim::cli
