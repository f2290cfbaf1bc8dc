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
  const std::string& w = c.text("transport.quick_adapt_window");
  p.quick_adapt_window = w == "target_rtt"     ? QaWindow::TargetRtt
                         : w == "measured_rtt" ? QaWindow::MeasuredRtt
                                               : QaWindow::BaseRtt;
  p.quick_adapt_target_factor = c.real("transport.quick_adapt_target_factor");
  p.fast_increase = c.flag("transport.fast_increase");
  p.fast_increase_gain = c.real("transport.fast_increase_gain");
  p.fast_increase_from = from_us(c.real("transport.fast_increase_from_us"));
  if (const auto* e = congestion_controls().find(p.name); e && e->configure) e->configure(c, p);
  return p;
}

void apply_preset(config::Config& c) {
  const std::string& preset = c.text("transport.preset");
  if (preset == "none") return;
  // preset = "htsim": the REPS artifact (htsim)'s MPRDMA-style sender (docs/htsim.md): every key
  // the config does not set itself takes htsim's value.
  const std::string origin = "transport.preset = \"" + preset + "\"";
  const auto def = [&](std::string_view key, config::Value v) {
    if (!c.given(key)) c.set(key, std::move(v), origin);
  };
  if (preset == "laps_dcqcn" || preset == "laps_plb" || preset == "laps_conweave") {
    // The LAPS artifact's baseline senders (docs/baselines.md): window = the largest shortest-path
    // BDP, RoCE go-back-N recovery; DCQCN (its keys' defaults are the artifact's), or PLB over DCTCP
    // with g = 1/256, 50% marked ACKs per congested round, repath after 3 rounds when idle, 12 forced.
    def("transport.init_cwnd_bdp", 1.0);
    def("transport.max_cwnd_bdp", 1.0);
    def("transport.delivery", std::string("in_order"));
    def("transport.in_order_recovery", std::string("go_back_n"));
    if (preset == "laps_dcqcn" || preset == "laps_conweave") {
      def("transport.cc", std::string("dcqcn"));
      // ConWeave over DCQCN, as the artifact runs it: the switches reroute, one EV per flow.
      if (preset == "laps_conweave") {
        def("routing.algorithm", std::string("conweave"));
        def("lb.algorithm", std::string("ecmp"));
      }
    } else {
      def("transport.cc", std::string("dctcp"));
      def("transport.dctcp_g", 1.0 / 256);
      def("lb.algorithm", std::string("plb"));
      def("lb.plb_threshold", 0.5);
      def("lb.plb_rounds", std::int64_t{12});
      def("lb.plb_idle_rounds", std::int64_t{3});
    }
    return;
  }
  def("transport.cc", std::string("dctcp_ack"));
  def("transport.ecn_decrease", 0.25);     // acked / 4 per marked ACK
  def("transport.nack_decrease", 1.0);     // 1 MTU per NACK ...
  def("transport.timeout_decrease", 1.0);  // ... and per timeout
  def("transport.init_cwnd_bdp", 1.5);
  def("transport.max_cwnd_bdp", 1.5);
  def("transport.rto_model", std::string("htsim"));
}

namespace {
std::vector<std::string> cc_names() { return congestion_controls().names(); }

[[maybe_unused]] const bool declared = [] {
  using namespace config;
  declare({
      text("transport.cc", "dctcp_ack", "Congestion control (the plug-ins below).").one_of(&cc_names),
      real("transport.init_cwnd_bdp", 1.5, "BDP", "Initial congestion window.").range(1e-6, 1e6),
      real("transport.max_cwnd_bdp", 1.5, "BDP", "Maximum congestion window.").range(1e-6, 1e6),
      integer("transport.cwnd_packets", 0, "packets",
              "Initial and maximum congestion window in full packets (network.mtu + header_bytes), as htsim's -cwnd; 0 "
              "= use init_cwnd_bdp / max_cwnd_bdp.")
          .range(0, 1e9),
      real("transport.nack_decrease", 1.0, "MTUs", "Window decrease per NACK (trimmed packet).").range(0, 1e6),
      real("transport.timeout_decrease", 1.0, "MTUs", "Window decrease per retransmission timeout.").range(0, 1e6),
      flag("transport.quick_adapt", false,
           "SMaRTT QuickAdapt: on NACK/timeout set the window to the bytes delivered in the last base RTT, once per "
           "base RTT, when that is below max window / 2^quick_adapt_gate; the congestion signals of the bytes then in "
           "flight cause no further decrease (src/transport/cc.h)."),
      integer("transport.quick_adapt_gate", 3, "",
              "SMaRTT QA gate: QuickAdapt acts only when the bytes delivered in the last base RTT are below max window "
              "/ 2^gate (3 = 12.5%); 0 = every loss episode.")
          .range(0, 30),
      text("transport.quick_adapt_window", "base_rtt",
           "QuickAdapt's measurement window (the bytes delivered over it become the window; also its once-per-window "
           "period): base_rtt = the base RTT; target_rtt = base RTT x quick_adapt_target_factor (SMaRTT / UEC NSCC: "
           "base RTT + target queueing delay); measured_rtt = the flow's smoothed measured RTT (EWMA 1/8). "
           "docs/spritz.md \"QuickAdapt\".")
          .one_of({"base_rtt", "target_rtt", "measured_rtt"}),
      real("transport.quick_adapt_target_factor", 1.5, "base RTTs",
           "quick_adapt_window = target_rtt: the window's length in base RTTs (SMaRTT's target RTT / base RTT).")
          .range(1, 100),
      flag("transport.fast_increase", false,
           "SMaRTT FastIncrease: after a window of unmarked ACKs grow by fast_increase_gain x acked per ACK."),
      real("transport.fast_increase_gain", 1.0, "", "FastIncrease growth per acked byte.").range(0, 100),
      real("transport.fast_increase_from_us", 0, "us",
           "With fast_increase: FastIncrease acts only from this simulated time on (htsim switches it on mid-run in a "
           "failure scenario; REPS artifact (htsim), docs/htsim.md); 0 = from the start.")
          .range(0, 1e12),
      real("transport.rto_us", 0, "us", "Retransmission timeout; 0 = computed as transport.rto_model says.")
          .range(0, 1e9),
      text("transport.rto_model", "lbsim",
           "The RTO when rto_us = 0: lbsim = max unloaded RTT + drain time of every full switch queue on the longest "
           "path, both directions (the NIC's queue not counted); htsim = max unloaded RTT + drain time of one full "
           "queue per link of the longest path, data direction only (REPS artifact (htsim); docs/htsim.md).")
          .one_of({"lbsim", "htsim"}),
      text("transport.preset", "none",
           "A set of defaults: none; htsim (the REPS artifact's MPRDMA-style sender: cc = dctcp_ack, ecn_decrease = "
           "0.25, nack_decrease = 1, timeout_decrease = 1, init/max_cwnd_bdp = 1.5, rto_model = htsim; docs/htsim.md); "
           "laps_dcqcn / laps_plb (the LAPS artifact's baseline senders: init/max_cwnd_bdp = 1, delivery = in_order, "
           "in_order_recovery = go_back_n, and cc = dcqcn, or cc = dctcp with dctcp_g = 1/256 and lb.algorithm = plb, "
           "plb_threshold = 0.5, plb_rounds = 12, plb_idle_rounds = 3; laps_conweave: laps_dcqcn with "
           "routing.algorithm = conweave and lb.algorithm = ecmp; docs/baselines.md). Keys the config sets itself win.")
          .one_of({"none", "htsim", "laps_dcqcn", "laps_plb", "laps_conweave"}),
      text("transport.pinned_acks", "pinned",
           "ACKs and NACKs of pinned flows (lb = via_group:<g> or pinned_ecmp): pinned = they return over the "
           "source-guided path their echoed EV names, whatever the run's routing (so a pinned background is the same, "
           "both ways, in every row of a comparison; under source_guided routing this is what every ACK does); "
           "run_routing = the run's switch routing routes them. docs/spritz.md \"Valiant readings\".")
          .one_of({"pinned", "run_routing"}),
      integer("transport.ack_every", 1, "packets", "ACK coalescing: one ACK per n data packets (1 = per-packet ACKs).")
          .range(1, 64),
      real("transport.ack_delay_us", 1.0, "us",
           "With ACK coalescing (ack_every > 1 or ack_bytes): send a partial ACK after this delay.")
          .range(0, 1e9),
      // The authors' Spritz code's receiver and sender (htsim uec.cpp; docs/spritz.md "Paper and code"),
      // for every load balancer; lb.spritz_reading = "code" sets them.
      bytes("transport.ack_bytes", 0,
            "ACK coalescing by bytes: one ACK once the data packets' wire bytes since the last ACK reach this "
            "(the authors' Spritz code: 16 KiB, every 4th packet of 4160 B); 0 = by packets (ack_every).")
          .range(0, 1e9),
      flag("transport.ack_on_ecn", false,
           "With ACK coalescing: an ECN-marked data packet is ACKed at once, the ACK naming its EV and mark (the "
           "authors' Spritz code)."),
      flag("transport.ack_request", false,
           "The sender asks for an immediate ACK (a flag on the data packet) when its bytes in flight plus one more "
           "packet reach the window, on the flow's last packet and on every retransmission; the receiver ACKs those "
           "and the flow's first packet at once (the authors' Spritz code, htsim's AR flag)."),
      text("transport.last_hop_trim", "nack",
           "What the load balancer hears of a packet trimmed at its last hop (the queue into its destination host): "
           "nack = a NACK like any trim; ack = the ACK of its path, marked if the packet was (the authors' Spritz "
           "code: the path is not at fault). The congestion control sees a NACK either way.")
          .one_of({"nack", "ack"}),
      text("transport.delivery", "ooo",
           "Receiver: ooo = place packets in any order; in_order = deliver in PSN order like RoCE, an out-of-order "
           "arrival (PSN != expected, [Flowcut] sec. III-C2) is handled by transport.in_order_recovery. Both count "
           "ooo_packets and max_reorder.")
          .one_of({"ooo", "in_order"}),
      text("transport.in_order_recovery", "buffer",
           "in_order delivery: buffer = hold out-of-order packets in a reorder buffer (occupancy in summary.json); "
           "go_back_n = discard them and NACK the expected PSN, the sender resends from there.")
          .one_of({"buffer", "go_back_n"}),
      text("transport.nic_scheduler", "ready",
           "How the NIC picks the next flow to send from (round robin either way, the same packets in the same order): "
           "ready = a list of the flows that can send, O(1) per packet; scan = visit every active flow of the host "
           "(the reference the tests compare the ready list with).")
          .one_of({"ready", "scan"}),
      real("transport.pause_timeout_us", 0, "us",
           "A flow paused by a switch (Flowcut XOFF) or held by flowcut_nic's drain resumes after this long without "
           "XON / without its ACKs ([Flowcut] sec. IV-A); 0 = the RTO.")
          .range(0, 1e9),
  });
  declare_preset("transport.preset", apply_preset);
  // While a transport.preset is still to be applied (when the simulation is built), a run may use
  // whatever it chooses for a selecting key not given (config::check_keys_read).
  for (const char* key : {"routing.algorithm", "lb.algorithm", "transport.cc"})
    declare_selection(key, [key](const Config& c) {
      return c.text("transport.preset") != "none" && !c.given(key) ? std::vector<std::string>{"*"}
                                                                   : std::vector<std::string>{};
    });
  declare_check([](const Config& c) {
    if (c.integer("transport.ack_bytes") > 0 && c.integer("transport.ack_every") != 1)
      throw UserError(fmt::format("{}transport.ack_bytes ({}) and transport.ack_every ({}) both coalesce ACKs: set one",
                                  c.where_any({"transport.ack_bytes", "transport.ack_every"}),
                                  c.integer("transport.ack_bytes"), c.integer("transport.ack_every")));
    if (c.real("transport.max_cwnd_bdp") < c.real("transport.init_cwnd_bdp"))
      throw UserError(fmt::format("{}transport.max_cwnd_bdp ({}) is below transport.init_cwnd_bdp ({})",
                                  c.where_any({"transport.max_cwnd_bdp", "transport.init_cwnd_bdp"}),
                                  c.real("transport.max_cwnd_bdp"), c.real("transport.init_cwnd_bdp")));
  });
  return true;
}();
}  // namespace

}  // namespace lbsim::transport
