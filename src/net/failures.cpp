#include "net/failures.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/rng.h"

namespace lbsim::net {

const char* failure_kind_name(FailureKind k) {
  switch (k) {
    case FailureKind::Down:
      return "down";
    case FailureKind::Degrade:
      return "degrade";
    case FailureKind::Loss:
      return "loss";
    case FailureKind::SwitchDown:
      return "switch_down";
  }
  return "?";
}

namespace {

std::int32_t find_node(const topo::Topology& t, const std::string& label) {
  for (std::int32_t n = 0; n < t.size(); ++n)
    if (t.nodes[n].label == label) return n;
  return -1;
}

std::int32_t link_between(const topo::Topology& t, std::int32_t a, std::int32_t b) {
  for (const auto& p : t.ports[a])
    if (p.peer == b) return p.link;
  return -1;
}

bool parse_double(const std::string& s, double& out) {
  const char* b = s.data();
  const char* e = b + s.size();
  auto [ptr, ec] = std::from_chars(b, e, out);
  return ec == std::errc() && ptr == e && std::isfinite(out);
}

}  // namespace

std::vector<Failure> read_failure_file(const std::string& path, const topo::Topology& t) {
  std::ifstream in(path);
  if (!in) throw UserError("cannot open failure file '" + path + "' (failures.file)");
  std::vector<Failure> out;
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    const auto where = [&] { return path + ":" + std::to_string(line) + ": "; };
    if (const auto h = raw.find('#'); h != std::string::npos) raw.resize(h);
    std::istringstream ss(raw);
    std::vector<std::string> tok;
    for (std::string w; ss >> w;) tok.push_back(w);
    if (tok.empty()) continue;
    if (tok.size() < 3) throw UserError(where() + "expected '<start_us> <kind> <target> [key=value ...]'");
    Failure f;
    f.line = line;
    double start = 0;
    if (!parse_double(tok[0], start) || start < 0)
      throw UserError(where() + "start time '" + tok[0] + "' is not a non-negative number of us");
    if (!fits_sim_time(start * 1e6))
      throw UserError(where() + "start time " + tok[0] + " us is beyond the largest simulated time (9e12 us)");
    f.start = from_us(start);
    const std::string& kind = tok[1];
    if (kind == "down")
      f.kind = FailureKind::Down;
    else if (kind == "degrade")
      f.kind = FailureKind::Degrade;
    else if (kind == "loss")
      f.kind = FailureKind::Loss;
    else if (kind == "switch_down")
      f.kind = FailureKind::SwitchDown;
    else
      throw UserError(where() + "unknown failure kind '" + kind + "' (down, degrade, loss, switch_down)");
    const std::string& target = tok[2];
    if (f.kind == FailureKind::SwitchDown) {
      f.node = find_node(t, target);
      if (f.node < 0 || t.is_host(f.node)) throw UserError(where() + "'" + target + "' is not a switch label");
    } else if (target.rfind("link:", 0) == 0) {
      double id = -1;
      if (!parse_double(target.substr(5), id) || id < 0 || id >= static_cast<double>(t.links.size()) ||
          id != std::floor(id))
        throw UserError(where() + "link id in '" + target + "' does not exist (0.." +
                        std::to_string(t.links.size() - 1) + ")");
      f.link = static_cast<std::int32_t>(id);
    } else {
      for (std::size_t dash = target.find('-'); dash != std::string::npos && f.link < 0;
           dash = target.find('-', dash + 1)) {
        const auto a = find_node(t, target.substr(0, dash)), b = find_node(t, target.substr(dash + 1));
        if (a >= 0 && b >= 0) f.link = link_between(t, a, b);
      }
      if (f.link < 0)
        throw UserError(where() + "'" + target +
                        "' is not a link: use <nodeA>-<nodeB> with two connected node labels, or link:<id>");
    }
    bool have_rate = false, have_prob = false;
    for (std::size_t i = 3; i < tok.size(); ++i) {
      const auto eq = tok[i].find('=');
      if (eq == std::string::npos) throw UserError(where() + "expected key=value, got '" + tok[i] + "'");
      const std::string k = tok[i].substr(0, eq), v = tok[i].substr(eq + 1);
      double x = 0;
      if (k == "queue") {
        if (v != "scale" && v != "keep")
          throw UserError(where() + "queue=" + v + ": expected queue=scale or queue=keep");
        if (f.kind != FailureKind::Degrade) throw UserError(where() + "queue= applies to degrade failures only");
        f.queue = v == "scale" ? 1 : 0;
        continue;
      }
      if (k == "from") {
        f.from = find_node(t, v);
        if (f.from < 0 || f.link < 0 || (t.links[f.link].a != f.from && t.links[f.link].b != f.from))
          throw UserError(where() + "from=" + v + ": not an end of the failed link");
        continue;
      }
      if (!parse_double(v, x)) throw UserError(where() + k + "=" + v + ": not a number");
      if (k == "for_us") {
        if (x < 0) throw UserError(where() + "for_us must not be negative");
        if (!fits_sim_time(x * 1e6)) throw UserError(where() + "for_us is beyond the largest simulated time (9e12 us)");
        f.duration = from_us(x);
      } else if (k == "rate_gbps") {
        if (x <= 0) throw UserError(where() + "rate_gbps must be positive");
        f.rate = static_cast<BitsPerSec>(std::llround(x * 1e9));
        have_rate = true;
      } else if (k == "prob") {
        if (x < 0 || x > 1) throw UserError(where() + "prob must be in [0, 1]");
        f.loss = x;
        have_prob = true;
      } else {
        throw UserError(where() + "unknown option '" + k + "' (for_us, from, rate_gbps, prob, queue)");
      }
    }
    if (f.kind == FailureKind::Degrade && !have_rate) throw UserError(where() + "degrade needs rate_gbps=");
    if (f.kind == FailureKind::Loss && !have_prob) throw UserError(where() + "loss needs prob=");
    out.push_back(f);
  }
  return out;
}

namespace {

// One failure of the random class on `link` (only the direction transmitted by `from`; -1 = both).
Failure failure_of(const RandomFailures& r, std::int32_t link, std::int32_t from) {
  Failure f;
  f.kind = r.kind;
  f.start = r.start;
  f.duration = r.duration;
  f.link = link;
  f.from = from;
  f.rate = r.rate;
  f.loss = r.loss;
  return f;
}

// failures.random_links = "first_uplinks": htsim's "X% failed cables" (REPS artifact (htsim), the
// fat tree's failed-links option) fails, at every ToR, its first uplinks in port order and only in
// the ToR-to-upper-tier direction; no random draw.
std::vector<Failure> first_uplinks(const RandomFailures& r, const topo::Topology& t) {
  std::vector<Failure> out;
  for (std::int32_t s = 0; s < t.num_switches(); ++s) {
    const std::int32_t tor = t.switch_node(s);
    if (t.nodes[tor].tier != 1 || t.hosts_of(tor).empty()) continue;
    std::vector<std::int32_t> up;  // uplinks in port order
    for (const auto& p : t.ports[tor])
      if (!t.is_host(p.peer) && t.nodes[p.peer].tier > 1) up.push_back(p.link);
    if (up.empty()) continue;
    const auto n = std::clamp<std::size_t>(
        static_cast<std::size_t>(std::llround(r.fraction * static_cast<double>(up.size()))), 1, up.size());
    for (std::size_t i = 0; i < n; ++i) out.push_back(failure_of(r, up[i], tor));
  }
  if (out.empty())
    throw UserError(
        "failures.random_links = \"first_uplinks\": the topology has no ToR with uplinks (a fat tree of two or more "
        "tiers)");
  return out;
}

}  // namespace

std::vector<Failure> random_failures(const RandomFailures& r, const topo::Topology& t, std::uint64_t seed) {
  if (r.fraction <= 0) return {};
  if (r.links == "first_uplinks") return first_uplinks(r, t);
  std::vector<std::int32_t> cand;
  for (std::int32_t l = 0; l < static_cast<std::int32_t>(t.links.size()); ++l) {
    const auto k = t.links[l].kind;
    if (r.links == "all" || (r.links == "switch_links" && k != topo::LinkKind::HostLink) ||
        (r.links == "tor_uplinks" && k == topo::LinkKind::Tier1))
      cand.push_back(l);
  }
  if (cand.empty()) throw UserError("failures.random_links = \"" + r.links + "\": the topology has no such links");
  const auto n = std::clamp<std::size_t>(
      static_cast<std::size_t>(std::llround(r.fraction * static_cast<double>(cand.size()))), 1, cand.size());
  Rng rng(seed, hash_name("failures"));
  for (std::size_t i = 0; i < n; ++i)  // partial Fisher-Yates
    std::swap(cand[i], cand[i + rng.below(cand.size() - i)]);
  std::vector<Failure> out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(failure_of(r, cand[i], -1));
  return out;
}

std::vector<std::uint32_t> failure_ports(const Failure& f, const Network& net) {
  const auto& t = net.topology();
  std::vector<std::uint32_t> ports;
  if (f.kind == FailureKind::SwitchDown) {
    for (std::size_t l = 0; l < t.ports[f.node].size(); ++l) {
      const auto& p = t.ports[f.node][l];
      ports.push_back(net.port_id(f.node, static_cast<std::int32_t>(l)));
      ports.push_back(net.port_id(p.peer, p.peer_port));
    }
    return ports;
  }
  const auto& link = t.links[f.link];
  if (f.from < 0 || f.from == link.a) ports.push_back(net.port_id(link.a, link.port_a));
  if (f.from < 0 || f.from == link.b) ports.push_back(net.port_id(link.b, link.port_b));
  return ports;
}

void ActiveFailures::start(Network& net, std::uint32_t index) {
  for (const auto id : failure_ports(failures_[index], net)) {
    active_[id].push_back(index);
    recompute(net, id);
  }
}

void ActiveFailures::end(Network& net, std::uint32_t index) {
  for (const auto id : failure_ports(failures_[index], net)) {
    auto it = active_.find(id);
    if (it == active_.end()) continue;
    auto& v = it->second;
    if (const auto pos = std::find(v.begin(), v.end(), index); pos != v.end()) v.erase(pos);
    recompute(net, id);
    if (v.empty()) active_.erase(it);
  }
}

void ActiveFailures::recompute(Network& net, std::uint32_t id) const {
  Port& p = net.port(id);
  bool up = true;
  BitsPerSec rate = net.topology().links[p.link].rate;
  double keep = 1.0;    // probability a packet survives every active loss failure
  double single = 0.0;  // the loss of a lone loss failure, kept exact (1 - (1 - p) is not always p)
  int losses = 0;
  bool scale = false;  // a degrade failure asks for the queue to follow the rate
  if (const auto it = active_.find(id); it != active_.end())
    for (const auto i : it->second) {
      const Failure& f = failures_[i];
      switch (f.kind) {
        case FailureKind::Down:
        case FailureKind::SwitchDown:
          up = false;
          break;
        case FailureKind::Degrade:
          rate = std::min(rate, f.rate);
          scale = scale || f.queue == 1 || (f.queue < 0 && scale_queues_);
          break;
        case FailureKind::Loss:
          keep *= 1.0 - f.loss;
          single = f.loss;
          ++losses;
          break;
      }
    }
  p.up = up;
  p.loss_prob = losses == 0 ? 0.0 : losses == 1 ? single : 1.0 - keep;
  p.lossy = p.loss_prob > 0.0;
  if (p.rate != rate) p.set_rate(rate);
  const BitsPerSec full = net.topology().links[p.link].rate;
  net.scale_queue(id, scale && rate != full ? static_cast<double>(rate) / static_cast<double>(full) : 1.0);
}

}  // namespace lbsim::net
