// The compiled half of the Python module `lbsim` (docs/python.md): one simulation run, in process,
// through the same sim::Simulation and run-folder writer as `lbsim run`, so the folder it writes is
// the CLI's byte for byte (flows.csv, ports.csv, queues.csv, summary.json). The Python half
// (lbsim/__init__.py) turns configs into overrides and the folder into pandas DataFrames.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "config/reader.h"
#include "core/error.h"
#include "core/progress.h"
#include "sim/simulation.h"

namespace py = pybind11;

namespace {

// Runs `config` (a TOML file, or "" for the defaults) with `overrides` ("section.key=value") and writes
// the run folder `out`. Returns (exit code as `lbsim run` would give it, summary.json as text).
py::tuple run(const std::string& config, const std::vector<std::string>& overrides, const std::string& out,
              const std::string& progress) {
  auto cfg = lbsim::config::load(config, overrides);
  cfg.set("output.dir", out, "lbsim.run");
  if (!progress.empty()) lbsim::config::apply_override(cfg, "run.progress=\"" + progress + "\"");
  int rc = 0;
  std::string summary;
  {
    py::gil_scoped_release nogil;  // the run touches no Python object
    lbsim::sim::check_output_dir(out);
    lbsim::sim::Simulation s(cfg);
    rc = s.run();
    s.write_outputs(out);
    summary = s.summary().dump();
  }
  return py::make_tuple(rc, summary);
}

// The resolved configuration (every key) as TOML, as `lbsim config --check` prints it.
std::string resolve(const std::string& config, const std::vector<std::string>& overrides) {
  return lbsim::config::to_toml(lbsim::config::load(config, overrides));
}

}  // namespace

PYBIND11_MODULE(_lbsim, m) {
  m.doc() = "lbsim simulation core (use the `lbsim` package)";
  // Bad input reaches Python as ValueError with the CLI's message (file, line, key, expectation).
  py::register_exception<lbsim::UserError>(m, "UserError", PyExc_ValueError);
  m.def("run", &run, py::arg("config"), py::arg("overrides"), py::arg("out"), py::arg("progress") = "");
  m.def("resolve", &resolve, py::arg("config"), py::arg("overrides"));
}
