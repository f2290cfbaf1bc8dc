// RCCC, the receiver-credit congestion control (transport/rccc.h has the rules; UEC 1.0 sec. 3.6;
// [EQDS]; docs/rccc.md): the sender's credit request in every data packet, the receivers' pull pacers
// and their CREDIT packets, the sender's credit, and the transport.receiver_cc / rccc_* keys.
// Defaults as the UEC htsim model runs RCCC (its UecPullPacer / UecSrc): 4 x 4096 B of credit per
// pull, the pacer at 0.99 x the link rate, 1.5 BDP of initial credit and at most 1.5 BDP held.
#include "transport/rccc.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/error.h"
#include "transport/transport.h"

namespace lbsim::transport {

using net::Packet;
using net::PacketType;

// The request: what was granted so far plus what the sender still needs beyond its credit. "Needs" is
// the wire bytes still to send (new PSNs and the retransmit queue, each retransmission counted as a
// full packet), at most rccc_max_credit and the sender's window + 1 packet (so that a window-limited
// sender does not ask for credit it cannot use; the UEC htsim's pull target). While speculating it
// asks for at least one packet, so that a short flow's receiver knows of it (htsim does the same).
void Transport::rccc_on_send(FlowState& f, Packet& p, Bytes wire) {
  auto& L = *f.live;
  auto& c = rccc_flows_[f.id];
  L.rc_credit -= static_cast<std::int32_t>(wire);
  const Bytes full = p_.header + p_.mtu;
  const Bytes sent_payload = std::min<Bytes>(f.spec->bytes, static_cast<Bytes>(L.next_new) * p_.mtu);
  const Bytes backlog = f.spec->bytes - sent_payload + static_cast<Bytes>(f.npkts - L.next_new) * p_.header +
                        static_cast<Bytes>(L.rtx.size() - L.rtx_head) * full;
  Bytes want = std::min(backlog, p_.rccc.max_credit);
  want = std::min(want, static_cast<Bytes>(L.cc->cwnd()) + full);
  Bytes need = std::max<Bytes>(0, want - L.rc_credit);
  if (L.rc_speculating && backlog > 0) need = std::max(need, full);
  p.cum_ack = c.seen + credit_quanta(need);
}

// The receiver side of a data packet: the highest request counts (requests are cumulative, so a
// reordered older one changes nothing); a trimmed header adds its packet's wire bytes, which the
// sender spent credit on and must send again (no request of the sender can hold them yet: it learns
// of the trim from the NACK this header causes). A flow with credit still to grant joins the pull
// queue of its receiving host.
void Transport::rccc_on_arrival(FlowState& f, FlowLive&, const Packet& p) {
  if (f.finished || !f.live) return;  // every byte is here: nothing more to pull
  auto& c = rccc_flows_[f.id];
  c.asked = std::max(c.asked, p.cum_ack);
  if (p.trimmed()) c.trims += credit_quanta(packet_bytes(f, p.psn));
  c.wanted = c.asked + c.trims;
  if (!c.in_pull && c.wanted > c.granted) {
    c.in_pull = true;
    pacers_[static_cast<std::size_t>(p.dst)].queue.push_back(f.id);
    rccc_arm(p.dst);
  }
}

void Transport::rccc_arm(std::int32_t host) {
  auto& q = pacers_[static_cast<std::size_t>(host)];
  if (q.armed) return;
  q.armed = true;
  net_.events().push(std::max(q.free_at, net_.now()), net::kEvCreditPace, static_cast<std::uint32_t>(host));
}

// The host's pull pacer: the flow at the head of the queue gets up to credit_per_pull bytes of what it
// asked for in one CREDIT packet (through the NIC's control queue), goes to the back if it wants more,
// and the pacer waits for those bytes' time at pull_rate x the host's link rate: the grants, and so
// the data they pull, never exceed that rate. Flows whose receiver finished leave the queue here.
void Transport::rccc_pace(std::int32_t host) {
  auto& q = pacers_[static_cast<std::size_t>(host)];
  q.armed = false;
  while (!q.queue.empty()) {
    const std::uint32_t id = q.queue.front();
    q.queue.pop_front();
    if (!held(id)) continue;
    auto& f = at(id);
    if (!f.live) continue;
    auto& c = rccc_flows_[id];
    if (f.finished || c.wanted <= c.granted) {
      c.in_pull = false;
      continue;
    }
    const auto per_pull = credit_quanta(p_.rccc.credit_per_pull);
    const std::uint32_t grant = std::min(per_pull, c.wanted - c.granted);
    c.granted += grant;
    const SimTime now = net_.now();
    const std::uint32_t ki = net_.packets().alloc();
    Packet& k = net_.pkt(ki);
    k.type = PacketType::Credit;
    k.flow = id;
    k.src = f.spec->dst;
    k.dst = f.spec->src;
    k.cum_ack = c.granted;
    k.ev = f.live->ack_last_ev;
    k.size = static_cast<std::uint32_t>(f.lb ? control_bytes(f, k.ev) : p_.header);
    k.sent_time = now;
    if (f.pinned && p_.pin_acks) k.flags |= net::kFlagPinned;
    ++credits_sent_;
    net_.send_control(host, ki);
    if (c.wanted > c.granted)
      q.queue.push_back(id);
    else
      c.in_pull = false;
    const double rate = static_cast<double>(net_.port(net_.nic_port(host)).rate) * p_.rccc.pull_rate;
    q.free_at = now + serialization_ps(static_cast<Bytes>(grant) * kCreditQuantum, std::llround(rate));
    if (!q.queue.empty()) rccc_arm(host);
    return;
  }
}

// A CREDIT packet: the first feedback ends the speculation; the grant (cumulative, so a late or
// duplicate one adds nothing) becomes credit, at most rccc_max_credit.
void Transport::on_credit(std::uint32_t pkt) {
  const Packet& k = net_.pkt(pkt);
  auto& f = at(k.flow);
  if (f.sender_done || !f.live) return;
  auto& L = *f.live;
  auto& c = rccc_flows_[f.id];
  rccc_stop_speculating(L);
  if (k.cum_ack > c.seen) {
    const Bytes credit = static_cast<Bytes>(L.rc_credit) + static_cast<Bytes>(k.cum_ack - c.seen) * kCreditQuantum;
    L.rc_credit = static_cast<std::int32_t>(std::min(credit, p_.rccc.max_credit));
    c.seen = k.cum_ack;
  }
  refresh(f);
  net_.kick_nic(f.spec->src);
}

RcccParams receiver_cc_params(const config::Config& c, Bytes bdp) {
  RcccParams r;
  r.on = c.text("transport.receiver_cc") == "rccc";
  const auto of_bdp = [&](const char* key) {
    return std::max<Bytes>(1, std::llround(c.real(key) * static_cast<double>(bdp)));
  };
  r.initial_credit = of_bdp("transport.rccc_initial_credit_bdp");
  r.max_credit = of_bdp("transport.rccc_max_credit_bdp");
  r.credit_per_pull = c.integer("transport.rccc_credit_per_pull");
  // The sender's credit is a 32-bit count of bytes (FlowLive::rc_credit).
  for (const auto& [key, b] : {std::pair{"transport.rccc_initial_credit_bdp", r.initial_credit},
                               std::pair{"transport.rccc_max_credit_bdp", r.max_credit}})
    if (r.on && b > (Bytes{1} << 30))
      throw UserError(fmt::format("{}{} = {} gives {} bytes of credit; at most 1 GiB (2^30 bytes)", c.where(key), key,
                                  c.real(key), b));
  r.pull_rate = c.real("transport.rccc_pull_rate");
  return r;
}

namespace {
[[maybe_unused]] const bool declared = [] {
  using namespace config;
  declare({
      text("transport.receiver_cc", "none",
           "Receiver-driven congestion control beside transport.cc: none; rccc = UEC's receiver-credit CC (a pull "
           "pacer per receiving host grants credit at rccc_pull_rate x its link rate, senders send only against "
           "credit after their initial credit; with any transport.cc: a window AND credit). docs/rccc.md.")
          .one_of({"none", "rccc"}),
      real("transport.rccc_initial_credit_bdp", 1.5, "BDP",
           "RCCC: a new flow's speculative credit, spent before any feedback (what is left is dropped at the first "
           "ACK, NACK or CREDIT).")
          .range(1e-6, 1e6),
      real("transport.rccc_max_credit_bdp", 1.5, "BDP",
           "RCCC: the most credit a sender holds, and the most it asks for beyond what it holds.")
          .range(1e-6, 1e6),
      bytes("transport.rccc_credit_per_pull", 16384,
            "RCCC: bytes of credit per CREDIT packet (rounded up to 256-byte quanta; 4 x 4096 B as UEC's default).")
          .range(256, 1e9),
      real("transport.rccc_pull_rate", 0.99, "",
           "RCCC: the pull pacer's rate as a fraction of the receiving host's link rate.")
          .range(0.01, 1.0),
  });
  declare_check([](const Config& c) {
    if (c.text("transport.receiver_cc") == "rccc" && c.text("transport.delivery") == "in_order" &&
        c.text("transport.in_order_recovery") == "go_back_n")
      throw UserError(fmt::format(
          "{}transport.receiver_cc = \"rccc\" does not combine with in_order_recovery = \"go_back_n\" (a rewind "
          "resends packets the receiver's credit already paid for); use in_order_recovery = \"buffer\" or delivery = "
          "\"ooo\"",
          c.where_any({"transport.receiver_cc", "transport.in_order_recovery"})));
  });
  return true;
}();
}  // namespace

}  // namespace lbsim::transport
