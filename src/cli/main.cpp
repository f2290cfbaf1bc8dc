// lbsim: one binary, one subcommand per tool. Errors reach the user as one clear line and a
// non-zero exit code (2 for usage/config errors), never as a crash.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "cli/commands.h"
#include "core/config.h"
#include "core/error.h"
#include "core/huge_pages.h"

int main(int argc, char** argv) {
  // Once, before anything else: the heap on transparent huge pages (core/huge_pages.h).
  lbsim::huge_pages::reexec(argv);
  using namespace lbsim::cli;
  CLI::App app{
      "lbsim: packet-level simulator and toolkit for routing and load balancing in "
      "datacenter and HPC networks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "lbsim 0.1.0");
  Commands cmds;
  add_run_commands(app, cmds);
  add_paths_commands(app, cmds);
  add_cabling_commands(app, cmds);
  add_scale_commands(app, cmds);
  add_layers_commands(app, cmds);
  add_mat_commands(app, cmds);
  add_balls_commands(app, cmds);
  add_workflow_commands(app, cmds);
  add_flowcut_commands(app, cmds);
  // A misspelled command ("lbsim rn"): CLI11 would say only "A subcommand is required".
  if (argc > 1 && argv[1][0] != '-') {
    std::vector<std::string> names;
    for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), argv[1]) == names.end()) {
      const std::string hint = lbsim::config::did_you_mean(argv[1], names);
      fmt::print(stderr, "lbsim: error: unknown command '{}'{} (`lbsim --help` lists the commands)\n", argv[1], hint);
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version end with success; every argument error (missing file, unknown
    // subcommand or flag, bad number) prints CLI11's message and exits 2 like any bad input,
    // not with CLI11's own codes (104-109). One contract: 0 ok, 2 bad input, 3 unfinished,
    // 70 internal.
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    for (auto& c : cmds)
      if (c.app && c.app->parsed()) return c.run();
  } catch (const lbsim::UserError& e) {
    fmt::print(stderr, "lbsim: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "lbsim: internal error: {}\n", e.what());
    return 70;
  }
  return 0;
}
