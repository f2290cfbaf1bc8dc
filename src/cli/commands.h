// Subcommand registration. Each command file adds its subcommand(s) to the app and returns a
// Command whose `run` is called when the user chose it. main() knows only this list.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>
#include <nlohmann/json.hpp>

namespace lbsim::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;  // returns the process exit code
};
using Commands = std::vector<Command>;

void add_run_commands(CLI::App& app, Commands& out);       // run, topo, config (cmd_run.cpp)
void add_paths_commands(CLI::App& app, Commands& out);     // paths (cmd_paths.cpp)
void add_cabling_commands(CLI::App& app, Commands& out);   // cabling plan|verify (cmd_cabling.cpp)
void add_scale_commands(CLI::App& app, Commands& out);     // scale (cmd_scale.cpp)
void add_layers_commands(CLI::App& app, Commands& out);    // layers, routes, deadlock (cmd_layers.cpp)
void add_mat_commands(CLI::App& app, Commands& out);       // mat (cmd_mat.cpp)
void add_balls_commands(CLI::App& app, Commands& out);     // balls evs|queue|theorem (cmd_balls.cpp)
void add_workflow_commands(CLI::App& app, Commands& out);  // sweep, plot, reproduce (cmd_workflow.cpp)
void add_flowcut_commands(CLI::App& app, Commands& out);   // flowcut-memory (cmd_flowcut.cpp)

// A summary.json statistic for a table: "-" when it is missing (null: over no transfer), never 0.
inline std::string stat_text(const nlohmann::json& v, int decimals = 2) {
  return v.is_number() ? fmt::format("{:.{}f}", v.get<double>(), decimals) : std::string("-");
}

}  // namespace lbsim::cli
