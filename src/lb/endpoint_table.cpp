#include "lb/endpoint_table.h"

#include <algorithm>

namespace lbsim::lb {

double eq1_weight(SimTime latency, SimTime longest, double w_scale) {
  if (latency <= 0 || longest <= 0) return 1.0;
  const double r = static_cast<double>(longest) / static_cast<double>(latency);
  return 1.0 + w_scale * (r - 1.0);
}

EvEntryList::EvEntryList(std::vector<EvEntry> entries, double w_scale) : e_(std::move(entries)) {
  SimTime longest = 0;
  for (const auto& e : e_) longest = std::max(longest, e.latency);
  cum_.reserve(e_.size());
  by_ev_.reserve(e_.size());
  double sum = 0;
  for (std::size_t i = 0; i < e_.size(); ++i) {
    e_[i].weight = eq1_weight(e_[i].latency, longest, w_scale);
    sum += e_[i].weight;
    cum_.push_back(sum);
    by_ev_.emplace_back(e_[i].ev, static_cast<std::uint32_t>(i));
  }
  std::sort(by_ev_.begin(), by_ev_.end());
}

std::int32_t EvEntryList::index_of(std::uint32_t ev) const {
  const auto it = std::lower_bound(by_ev_.begin(), by_ev_.end(), ev,
                                   [](const auto& p, std::uint32_t v) { return p.first < v; });
  if (it == by_ev_.end() || it->first != ev) return -1;
  return static_cast<std::int32_t>(it->second);
}

std::size_t sample_cumulative(const std::vector<double>& cum, double u) {
  const double x = u * cum.back();
  const auto it = std::upper_bound(cum.begin(), cum.end(), x);
  return std::min<std::size_t>(static_cast<std::size_t>(it - cum.begin()), cum.size() - 1);
}

}  // namespace lbsim::lb
