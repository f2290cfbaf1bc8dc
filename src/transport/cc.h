// Congestion control plug-ins: a window in bytes (of wire size) that the sender may have in flight.
//
// dctcp_ack  The per-ACK DCTCP variant used by MPRDMA and the REPS/Spritz evaluations
//            ([REPS] sec. 4.1 "NIC congestion control"; [Spritz] sec. IV-C, V-A):
//              unmarked ACK: cwnd += MTU * acked / cwnd
//              marked ACK:   cwnd -= ecn_decrease * acked
//              NACK:         cwnd -= nack_decrease * MTU    (a trimmed packet, i.e. a drop)
//              timeout:      cwnd -= timeout_decrease * MTU
//            floor 1 MTU, ceiling max_cwnd.
// dctcp      Classic DCTCP (Alizadeh et al.): alpha <- (1-g) alpha + g F once per window of data,
//            cwnd *= (1 - alpha/2) once per window with marks, +1 MTU per window otherwise.
// none       A fixed window (init_cwnd): for analytic tests and open-loop studies.
// dcqcn, nscc, swift, hpcc  in their own files (transport/dcqcn.h, nscc.h, swift.h, hpcc.h).
//
// Optional SMaRTT techniques (Bonato et al., "SMaRTT-REPS", 2024), named by [Spritz] sec. IV-C:
//   QuickAdapt    on a NACK or timeout, at most once per base RTT, set cwnd to the bytes acknowledged
//                 during the last base RTT (what the path actually delivered) instead of shrinking it
//                 step by step; further loss signals within that base RTT cause no extra reduction.
//                 It acts only after the first base RTT of ACKs (before that there is no measurement
//                 and the plain per-loss decrease applies), and only in a severe episode: when the
//                 delivered bytes are below max_cwnd / 2^quick_adapt_gate (SMaRTT's QA gate; 3 =
//                 12.5% of the maximum window; a gate of 0 lets every loss episode through). After it
//                 fires, the congestion signals (ECN marks, NACKs) of the bytes that were in flight
//                 at that moment are stale, the window already accounts for them: they cause no
//                 further decrease until that many bytes have been acknowledged or NACKed.
//                 The measurement window (quick_adapt_window, docs/spritz.md "QuickAdapt"):
//                   base_rtt      the base RTT (the Table II / longest-path RTT)
//                   target_rtt    base RTT x quick_adapt_target_factor: SMaRTT's and UEC NSCC's period,
//                                 base RTT + target queueing delay (UEC 1.0 sec. 3.6.13 QuickAdapt:
//                                 achieved bytes over base_rtt + target_qdelay; SMaRTT scales the
//                                 base-RTT bytes by target RTT / base RTT = 1.5)
//                   measured_rtt  the flow's smoothed measured RTT (EWMA 1/8 of the ACKs' samples)
//   FastIncrease  after a whole window of ACKs without any congestion signal, grow by
//                 fast_increase_gain * acked per ACK (about doubling per RTT with gain 1) until the
//                 next ECN mark, NACK or timeout.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/prefetch.h"
#include "core/time.h"

namespace lbsim::net {
struct IntStack;
}

namespace lbsim::transport {

// dcqcn (transport/dcqcn.h): the reaction point's constants; defaults = the LAPS artifact's run
// (g = 1/256, AI 5 Mb/s, HAI 50 Mb/s, minimum 100 Mb/s, decrease interval 4 us, RP timer 300 us,
// alpha interval 1 us, one fast-recovery stage).
struct DcqcnParams {
  double g = 1.0 / 256;                   // alpha EWMA gain
  double rate_ai = 5e6;                   // bits/s, additive increase of the target rate
  double rate_hai = 50e6;                 // bits/s, hyper increase
  double min_rate = 100e6;                // bits/s
  SimTime decrease_interval = 4'000'000;  // ps between decrease checks
  SimTime rp_timer = 300'000'000;         // ps between rate-increase ticks
  SimTime alpha_interval = 1'000'000;     // ps between alpha updates
  std::uint32_t fast_recovery = 1;        // F: increase ticks of fast recovery before additive increase
  bool clamp_target = false;              // RT = RC on every decrease (else only from stage > 0)
  double rate_on_first_cnp = 1.0;         // RC and RT on the first CNP, as a fraction of RC
  SimTime cnp_interval = 0;               // at most one CNP per interval (0 = every marked ACK)
};

// nscc (transport/nscc.h): UEC NSCC's constants as the specification names them (UEC 1.0 sec. 3.6.13);
// the gains are in MTUs at the reference network (100 Gb/s, 12 us base RTT) and scaled to the flow's
// BDP and target delay by the plug-in. Defaults = the UEC htsim's NSCC (initNsccParams).
struct NsccParams {
  SimTime target_qdelay = 0;              // ps; 0 = 0.75 x base RTT with trimming, else the base RTT
  bool trimming = true;                   // the network trims (sets the default target_qdelay)
  double gamma = 0.8;                     // multiplicative decrease gain
  double max_md_jump = 0.5;               // largest fraction one multiplicative decrease removes
  double alpha = 4.0;                     // proportional increase, MTUs per RTT at zero delay (x a x b)
  double fi = 5.0;                        // fair increase, MTUs per RTT (x a)
  double eta = 0.15;                      // additive increase per adjustment period, MTUs (x a)
  double fi_scale = 0.25;                 // fast increase: window growth per acked byte (x a)
  SimTime fast_increase_delay = 1000000;  // ps; fast increase below this queueing delay (0 = off)
  double delay_alpha = 0.0125;            // EWMA gain of the average queueing delay
  bool quick_adapt = true;
  int qa_gate = 3;            // QuickAdapt acts below max_cwnd / 2^qa_gate achieved bytes
  double qa_threshold = 4.0;  // QuickAdapt also on a delay above this many target_qdelays
  double adjust_bytes = 8.0;  // MTUs acknowledged between window adjustments
  SimTime adjust_period = 0;  // ps between eta increases; 0 = the base RTT
  bool pacing = true;         // pace at cwnd / base RTT (capped at line rate)
};

// swift (transport/swift.h): Swift's constants ([Swift] sec. 3, Algorithm 1); windows in packets.
struct SwiftParams {
  SimTime base_target = 0;       // ps; 0 = the run's base RTT (CcParams::base_rtt)
  SimTime per_hop = 1'000'000;   // ps of target added per switch the data packet crossed (h)
  double fs_range = 5.0;         // flow scaling: the most target it adds, in base targets
  double fs_min_cwnd = 0.1;      // packets: window at which flow scaling adds fs_range
  double fs_max_cwnd = 100.0;    // packets: window at and above which it adds nothing
  double ai = 1.0;               // packets of additive increase per RTT
  double beta = 0.8;             // multiplicative decrease factor
  double max_mdf = 0.5;          // largest fraction one decrease removes
  double min_cwnd = 0.001;       // packets
  std::uint32_t retx_reset = 5;  // consecutive timeouts that reset the window to min_cwnd
};

// hpcc (transport/hpcc.h): HPCC's constants ([HPCC] sec. 3, Algorithm 1); defaults = the paper's.
struct HpccParams {
  double eta = 0.95;            // target utilisation
  std::uint32_t max_stage = 5;  // additive-increase stages before a multiplicative update
  double wai_bytes = 0;         // W_AI; 0 = line rate x T / 2500 (the authors' 10 Mb/s per 25 Gb/s)
  SimTime t = 0;                // ps; T, 0 = the run's base RTT
  std::uint32_t int_hops = 5;   // hops the INT header has room for: 2 + 8 x int_hops bytes on the wire
};

// QuickAdapt's measurement window (above).
enum class QaWindow { BaseRtt, TargetRtt, MeasuredRtt };

struct CcParams {
  std::string name = "dctcp_ack";
  Bytes mtu = 4160;               // wire bytes of a full data packet
  Bytes init_cwnd = 0;            // bytes
  Bytes max_cwnd = 0;             // bytes
  SimTime base_rtt = 0;           // unloaded RTT of the longest path
  double ecn_decrease = 0.5;      // dctcp_ack: fraction of acked bytes removed per marked ACK
  double nack_decrease = 1.0;     // MTUs removed per NACK
  double timeout_decrease = 1.0;  // MTUs removed per timeout
  double dctcp_g = 1.0 / 16.0;    // dctcp: EWMA gain
  bool quick_adapt = false;
  int quick_adapt_gate = 3;  // QuickAdapt fires only below max_cwnd >> gate delivered bytes
  QaWindow quick_adapt_window = QaWindow::BaseRtt;
  double quick_adapt_target_factor = 1.5;  // target_rtt window = base_rtt x this
  bool fast_increase = false;
  double fast_increase_gain = 1.0;
  SimTime fast_increase_from = 0;  // FastIncrease acts only from this time on (htsim turns it on mid-run)
  // The plug-ins' own blocks, last (not prefetched per ACK: see CongestionControl::prefetch).
  DcqcnParams dcqcn;
  NsccParams nscc;
  SwiftParams swift;
  HpccParams hpcc;
  bool uses_int = false;  // the plug-in reads INT (on_int): the switches stamp it, the packets carry it
};

class CongestionControl {
 public:
  explicit CongestionControl(const CcParams& p);
  virtual ~CongestionControl() = default;
  double cwnd() const { return cwnd_; }
  // Hint (Transport::prefetch_pull / prefetch_arrival): ask the cache for the lines an ACK and the
  // window check read: the shared parameters (the object's first bytes, up to the plug-ins' own
  // blocks at the end of CcParams, which the plug-ins read from their own copies) and the window.
  void prefetch() const {
    prefetch_range(
        this, static_cast<std::size_t>(reinterpret_cast<const char*>(&p_.dcqcn) - reinterpret_cast<const char*>(this)));
    __builtin_prefetch(&cwnd_);
  }
  // `acked` bytes newly acknowledged by one ACK, `marked` of them carried an ECN mark; `rtt` the
  // ACK's round-trip sample (< 0: none); `hops` the switches the acknowledged data packet crossed.
  void on_ack(Bytes acked, Bytes marked, SimTime now, SimTime rtt = -1, std::uint32_t hops = 0);
  // A trimmed (NACKed) or timed-out packet of `bytes`; `inflight` = bytes still in flight after it.
  void on_nack(SimTime now, Bytes bytes, Bytes inflight);
  void on_timeout(SimTime now, Bytes bytes, Bytes inflight);
  std::uint64_t quick_adapts() const { return quick_adapts_; }
  // Rate-based CCs (dcqcn): the rate in bits/s the NIC paces the flow at, after the CC's timers due
  // up to `now` ran; 0 = not paced (window only). paced() is fixed at construction.
  virtual BitsPerSec rate(SimTime) { return 0; }
  bool paced() const { return paced_; }
  // The flow's NIC rate (set by the transport when the flow starts).
  virtual void set_line_rate(BitsPerSec) {}
  // CCs with CcParams::uses_int (hpcc): an ACK's INT records, before its on_ack; `sent` = when the
  // acknowledged data packet was sent.
  virtual void on_int(const net::IntStack&, SimTime /*sent*/, SimTime /*now*/) {}

 protected:
  virtual void ack_unmarked(Bytes acked) = 0;
  virtual void ack_marked(Bytes acked, Bytes marked) = 0;
  virtual void loss(double mtus) = 0;
  // A retransmission timeout (default: the same as a NACK's loss).
  virtual void timeout(double mtus) { loss(mtus); }
  void clamp();
  const CcParams p_;
  double cwnd_;
  SimTime now_ = 0;         // time of the call being handled (on_ack / on_nack / on_timeout)
  SimTime rtt_ = -1;        // on_ack: the ACK's RTT sample (< 0: none), for delay-based CCs (nscc, swift)
  Bytes inflight_ = 0;      // on_nack / on_timeout: bytes still in flight after the loss
  std::uint32_t hops_ = 0;  // on_ack: switches the acknowledged data packet crossed (swift)
  bool paced_ = false;      // set by rate-based CCs

 private:
  bool quick_adapt(SimTime now, Bytes inflight);
  // True (and the bytes counted) while the feedback of the packets in flight at the last
  // QuickAdapt is still arriving.
  bool stale(Bytes bytes) {
    if (ignored_ >= to_ignore_) return false;
    ignored_ += bytes;
    return true;
  }
  void roll_window(SimTime now);
  // QuickAdapt bookkeeping: bytes acked in the current and previous measurement windows of
  // period_ (the base RTT, the target RTT, or the smoothed measured RTT taken at each roll).
  SimTime period_ = 0;
  double srtt_ = -1;
  SimTime first_ack_ = -1;  // QuickAdapt needs one full base RTT of delivery history first
  SimTime win_start_ = 0;
  Bytes acked_cur_ = 0, acked_prev_ = 0;
  SimTime qa_quiet_until_ = -1;
  Bytes to_ignore_ = 0, ignored_ = 0;  // stale feedback after a QuickAdapt
  std::uint64_t quick_adapts_ = 0;
  // FastIncrease: bytes acked since the last congestion signal.
  Bytes clean_bytes_ = 0;
};

// The congestion control p.name names (transport/registry.h), built with p.
std::unique_ptr<CongestionControl> make_cc(const CcParams& p);

}  // namespace lbsim::transport
