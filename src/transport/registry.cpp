#include "transport/registry.h"

#include <fmt/core.h>

#include "core/error.h"

namespace lbsim::transport {

config::Registry<CcPlugin>& congestion_controls() {
  static config::Registry<CcPlugin> r("congestion control", "transport.cc");
  return r;
}

std::unique_ptr<CongestionControl> make_cc(const CcParams& p) { return congestion_controls().get(p.name).make(p); }

CcParams cc_params(const config::Config& c, CcParams p) {
  p.name = c.text("transport.cc");
  p.nack_decrease = c.real("transport.nack_decrease");
  p.timeout_decrease = c.real("transport.timeout_decrease");
  p.quick_adapt = c.flag("transport.quick_adapt");
  p.quick_adapt_gate = static_cast<int>(c.integer("transport.quick_adapt_gate"));
  p.fast_increase = c.flag("transport.fast_increase");
  p.fast_increase_gain = c.real("transport.fast_increase_gain");
  if (const auto* e = congestion_controls().find(p.name); e && e->configure) e->configure(c, p);
  return p;
}

namespace {
std::vector<std::string> cc_names() { return congestion_controls().names(); }

[[maybe_unused]] const bool declared = [] {
  using namespace config;
  declare({
      text("transport.cc", "dctcp_ack", "Congestion control (the plug-ins below).").one_of(&cc_names),
      real("transport.init_cwnd_bdp", 1.5, "BDP", "Initial congestion window.").range(1e-6, 1e6),
      real("transport.max_cwnd_bdp", 1.5, "BDP", "Maximum congestion window.").range(1e-6, 1e6),
      real("transport.nack_decrease", 1.0, "MTUs", "Window decrease per NACK (trimmed packet).").range(0, 1e6),
      real("transport.timeout_decrease", 1.0, "MTUs", "Window decrease per retransmission timeout.").range(0, 1e6),
      flag("transport.quick_adapt", false, "SMaRTT QuickAdapt: on NACK/timeout set the window to the bytes delivered in the last base RTT, once per base RTT, when that is below max window / 2^quick_adapt_gate; the congestion signals of the bytes then in flight cause no further decrease (src/transport/cc.h)."),
      integer("transport.quick_adapt_gate", 3, "", "SMaRTT QA gate: QuickAdapt acts only when the bytes delivered in the last base RTT are below max window / 2^gate (3 = 12.5%); 0 = every loss episode.").range(0, 30),
      flag("transport.fast_increase", false, "SMaRTT FastIncrease: after a window of unmarked ACKs grow by fast_increase_gain x acked per ACK."),
      real("transport.fast_increase_gain", 1.0, "", "FastIncrease growth per acked byte.").range(0, 100),
      real("transport.rto_us", 0, "us", "Retransmission timeout; 0 = max unloaded RTT + drain time of every full queue on the longest path, both directions.").range(0, 1e9),
      integer("transport.ack_every", 1, "packets", "ACK coalescing: one ACK per n data packets (1 = per-packet ACKs).").range(1, 64),
      real("transport.ack_delay_us", 1.0, "us", "With ack_every > 1: send a partial ACK after this delay.").range(0, 1e9),
      text("transport.delivery", "ooo", "Receiver: ooo = place packets in any order; in_order = deliver in PSN order like RoCE, an out-of-order arrival (PSN != expected, [Flowcut] sec. III-C2) is handled by transport.in_order_recovery. Both count ooo_packets and max_reorder.").one_of({"ooo", "in_order"}),
      text("transport.in_order_recovery", "buffer", "in_order delivery: buffer = hold out-of-order packets in a reorder buffer (occupancy in summary.json); go_back_n = discard them and NACK the expected PSN, the sender resends from there.").one_of({"buffer", "go_back_n"}),
      real("transport.pause_timeout_us", 0, "us", "A flow paused by a switch (Flowcut XOFF) or held by flowcut_nic's drain resumes after this long without XON / without its ACKs ([Flowcut] sec. IV-A); 0 = the RTO.").range(0, 1e9),
  });
  declare_check([](const Config& c) {
    if (c.real("transport.max_cwnd_bdp") < c.real("transport.init_cwnd_bdp"))
      throw UserError(fmt::format("{}transport.max_cwnd_bdp ({}) is below transport.init_cwnd_bdp ({})",
                                  c.where_any({"transport.max_cwnd_bdp", "transport.init_cwnd_bdp"}), c.real("transport.max_cwnd_bdp"),
                                  c.real("transport.init_cwnd_bdp")));
  });
  return true;
}();
}  // namespace

}  // namespace lbsim::transport
