#include "lb/endpoint_table.h"

#include <algorithm>
#include <stdexcept>

namespace lbsim::lb {

double eq1_weight(SimTime latency, SimTime longest, double w_scale) {
  if (latency <= 0 || longest <= 0) return 1.0;
  const double r = static_cast<double>(longest) / static_cast<double>(latency);
  return 1.0 + w_scale * (r - 1.0);
}

EvEntryList::EvEntryList(std::vector<EvEntry> entries, double w_scale) : e_(std::move(entries)), w_scale_(w_scale) {
  if (e_.size() > 65536) throw std::length_error("EvEntryList: more than 65,536 entries (EVs are 16 bits)");
  e_.shrink_to_fit();  // the caller's push_backs may have left up to twice the room
  for (const auto& e : e_) longest_ = std::max(longest_, e.latency);
  cum_.reserve(e_.size());
  by_ev_.resize(e_.size());
  double sum = 0;
  for (std::size_t i = 0; i < e_.size(); ++i) {
    sum += weight(i);
    cum_.push_back(sum);
    by_ev_[i] = static_cast<std::uint16_t>(i);
  }
  std::sort(by_ev_.begin(), by_ev_.end(), [this](std::uint16_t a, std::uint16_t b) {
    return e_[a].ev != e_[b].ev ? e_[a].ev < e_[b].ev : a < b;
  });
}

double EvEntryList::weight(std::size_t i) const { return eq1_weight(e_[i].latency, longest_, w_scale_); }

std::size_t EvEntryList::bytes() const {
  return e_.capacity() * sizeof(EvEntry) + by_ev_.capacity() * sizeof(std::uint16_t) + cum_.capacity() * sizeof(double);
}

std::int32_t EvEntryList::index_of(std::uint32_t ev) const {
  const auto it = std::lower_bound(by_ev_.begin(), by_ev_.end(), ev,
                                   [this](std::uint16_t i, std::uint32_t v) { return e_[i].ev < v; });
  if (it == by_ev_.end() || e_[*it].ev != ev) return -1;
  return static_cast<std::int32_t>(*it);
}

std::size_t sample_cumulative(const std::vector<double>& cum, double u) {
  const double x = u * cum.back();
  const auto it = std::upper_bound(cum.begin(), cum.end(), x);
  return std::min<std::size_t>(static_cast<std::size_t>(it - cum.begin()), cum.size() - 1);
}

}  // namespace lbsim::lb
