// Congestion-control plug-ins (`transport.cc`): each registers its name, its keys, a function that
// reads those keys into the run's CcParams, and a factory that builds one instance per flow
// (core/registry.h). The [transport] section's own keys (windows, RTO, ACK coalescing, the SMaRTT
// options every window-based CC shares) are declared in registry.cpp.
#pragma once
#include <functional>
#include <memory>

#include "core/config.h"
#include "core/registry.h"
#include "transport/cc.h"

namespace lbsim::transport {

struct CcPlugin : config::PluginInfo {
  void (*configure)(const config::Config&, CcParams&) = nullptr;  // the plug-in's keys -> params
  std::function<std::unique_ptr<CongestionControl>(const CcParams&)> make;
};

config::Registry<CcPlugin>& congestion_controls();

struct RegisterCc {
  explicit RegisterCc(CcPlugin p) { congestion_controls().add(std::move(p)); }
};

// transport.preset: sets the preset's values of the keys `c` does not set itself (docs/htsim.md).
void apply_preset(config::Config& c);
// The run's CC parameters from the config: the [transport] keys, the windows and base RTT the
// simulation derived (passed in `derived`), and the selected plug-in's own keys.
CcParams cc_params(const config::Config& cfg, CcParams derived);

}  // namespace lbsim::transport
