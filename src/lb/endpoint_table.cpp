#include "lb/endpoint_table.h"

#include <algorithm>
#include <stdexcept>

namespace lbsim::lb {

double eq1_weight(SimTime latency, SimTime longest, double w_scale, WeightScale rule) {
  if (latency <= 0 || longest <= 0) return 1.0;
  const double r = static_cast<double>(longest) / static_cast<double>(latency);
  if (rule == WeightScale::Multiply) return w_scale == 0 || latency == longest ? 1.0 : w_scale * r;
  return 1.0 + w_scale * (r - 1.0);
}

EvEntryList::EvEntryList(const std::vector<EvEntry>& entries, double w_scale, WeightScale rule)
    : w_scale_(w_scale), rule_(rule) {
  const std::size_t n = entries.size();
  if (n > 65536) throw std::length_error("EvEntryList: more than 65,536 entries (EVs are 16 bits)");
  ev_.resize(n);
  meta_.resize(n);
  lat_.resize(n);
  // In latency order, so the distinct latencies are the changes along the list (one pass).
  for (std::size_t i = 0; i < n; ++i) {
    const SimTime l = entries[i].latency;
    if (!latencies_.empty() && l < latencies_.back())
      throw std::invalid_argument("EvEntryList: entries are not in latency order");
    if (latencies_.empty() || l != latencies_.back()) latencies_.push_back(l);
    ev_[i] = entries[i].ev;
    meta_[i] = entries[i].meta;
    lat_[i] = static_cast<std::uint16_t>(latencies_.size() - 1);
  }
  latencies_.shrink_to_fit();
  if (!latencies_.empty()) longest_ = latencies_.back();
  cum_.resize(n);
  by_ev_.resize(n);
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += weight(i);
    cum_[i] = sum;
    by_ev_[i] = static_cast<std::uint16_t>(i);
  }
  std::sort(by_ev_.begin(), by_ev_.end(),
            [this](std::uint16_t a, std::uint16_t b) { return ev_[a] != ev_[b] ? ev_[a] < ev_[b] : a < b; });
}

double EvEntryList::weight(std::size_t i) const { return eq1_weight(latency(i), longest_, w_scale_, rule_); }

std::size_t EvEntryList::bytes() const {
  return ev_.capacity() * sizeof(std::uint16_t) + meta_.capacity() + lat_.capacity() * sizeof(std::uint16_t) +
         latencies_.capacity() * sizeof(SimTime) + by_ev_.capacity() * sizeof(std::uint16_t) +
         cum_.capacity() * sizeof(double);
}

std::int32_t EvEntryList::index_of(std::uint32_t ev) const {
  const auto it = std::lower_bound(by_ev_.begin(), by_ev_.end(), ev,
                                   [this](std::uint16_t i, std::uint32_t v) { return ev_[i] < v; });
  if (it == by_ev_.end() || ev_[*it] != ev) return -1;
  return static_cast<std::int32_t>(*it);
}

std::size_t sample_cumulative(const std::vector<double>& cum, double u) {
  const double x = u * cum.back();
  const auto it = std::upper_bound(cum.begin(), cum.end(), x);
  return std::min<std::size_t>(static_cast<std::size_t>(it - cum.begin()), cum.size() - 1);
}

}  // namespace lbsim::lb
