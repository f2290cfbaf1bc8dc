#include "metrics/value_log.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/core.h>

#include "core/stats.h"

namespace lbsim::metrics {

std::size_t& ValueLog::default_memory_records() {
  static std::size_t n = kDefaultMemoryRecords;
  return n;
}

ValueLog::ValueLog(std::size_t memory_records)
    : cap_(std::max<std::size_t>(1, memory_records)), file_("the summary values of the finished transfers") {}

void ValueLog::push(const TransferValues& v) {
  mem_.push_back(v);
  if (mem_.size() >= cap_) spill();
}

void ValueLog::spill() {
  file_.append(mem_.data(), mem_.size() * sizeof(TransferValues));
  spilled_ += mem_.size();
  mem_.clear();  // keeps its capacity: one block for the whole run
}

void ValueLog::for_each(const std::function<void(const TransferValues&)>& fn) const {
  if (spilled_ > 0) {
    std::vector<TransferValues> buf(std::min<std::size_t>(cap_, 4096));
    for (std::size_t at = 0; at < spilled_; at += buf.size()) {
      const std::size_t n = std::min(buf.size(), spilled_ - at);
      file_.read_at(at * sizeof(TransferValues), buf.data(), n * sizeof(TransferValues));
      for (std::size_t i = 0; i < n; ++i) fn(buf[i]);
    }
  }
  for (const auto& v : mem_) fn(v);
}

namespace {
// Doubles to unsigned integers of the same order (negatives below positives, -0 just below +0).
constexpr std::uint64_t kSign = std::uint64_t{1} << 63;
std::uint64_t key_of(double d) {
  const auto b = std::bit_cast<std::uint64_t>(d);
  return (b & kSign) ? ~b : (b | kSign);
}
double value_of(std::uint64_t k) { return std::bit_cast<double>((k & kSign) ? (k & ~kSign) : ~k); }
}  // namespace

std::vector<double> order_statistics(const ValueSource& each, const std::vector<std::uint64_t>& ranks,
                                     std::size_t collect_limit) {
  constexpr int kDigit = 16;
  constexpr std::size_t kBuckets = std::size_t{1} << kDigit;
  // One per requested rank: the bits of its value known so far (above `shift`) and its rank among
  // the values that share them; then either counters of the next digit or the values themselves.
  struct Open {
    std::uint64_t rank = 0, prefix = 0;
    int shift = 64;
    bool collect = false, done = false;
    std::vector<std::uint64_t> hist;
    std::vector<double> vals;
    double value = 0;
  };
  std::vector<Open> open(ranks.size());
  for (std::size_t i = 0; i < ranks.size(); ++i) open[i].rank = ranks[i];
  std::uint64_t n = 0;
  bool first = true;
  for (;;) {
    std::vector<Open*> walk;
    for (auto& o : open)
      if (!o.done) {
        if (!o.collect) o.hist.assign(kBuckets, 0);
        walk.push_back(&o);
      }
    if (walk.empty()) break;
    std::uint64_t seen = 0;
    each([&](double v) {
      ++seen;
      const std::uint64_t k = key_of(v);
      for (Open* o : walk) {
        if (o->shift < 64 && (k >> o->shift) != (o->prefix >> o->shift)) continue;
        if (o->collect)
          o->vals.push_back(v);
        else
          ++o->hist[(k >> (o->shift - kDigit)) & (kBuckets - 1)];
      }
    });
    if (first) {
      n = seen;
      for (const auto& o : open)
        if (o.rank >= n) throw std::logic_error(fmt::format("order statistic {} of {} values", o.rank, n));
      first = false;
    } else if (seen != n) {
      throw std::logic_error("order_statistics: the source changed between walks");
    }
    for (Open* o : walk) {
      if (o->collect) {
        std::nth_element(o->vals.begin(), o->vals.begin() + static_cast<std::ptrdiff_t>(o->rank), o->vals.end());
        o->value = o->vals[o->rank];
        o->done = true;
        std::vector<double>().swap(o->vals);
        continue;
      }
      std::uint64_t below = 0, d = 0;
      while (below + o->hist[d] <= o->rank) below += o->hist[d++];
      const std::uint64_t in_bucket = o->hist[d];
      std::vector<std::uint64_t>().swap(o->hist);
      o->rank -= below;
      o->shift -= kDigit;
      o->prefix |= d << o->shift;
      if (o->shift == 0) {
        o->value = value_of(o->prefix);
        o->done = true;
      } else if (in_bucket <= collect_limit) {
        o->collect = true;
        o->vals.reserve(in_bucket);
      }
    }
  }
  std::vector<double> out;
  out.reserve(open.size());
  for (const auto& o : open) out.push_back(o.value);
  return out;
}

Distribution distribution_of(const ValueSource& each, std::size_t collect_limit) {
  Distribution d;
  double sum = 0;
  each([&](double v) {
    if (d.count == 0 || d.max < v) d.max = v;  // the first of equal values, as std::max_element
    if (d.count == 0 || v < d.min) d.min = v;
    sum += v;
    ++d.count;
  });
  if (d.count == 0) return d;
  d.mean = sum / static_cast<double>(d.count);  // core/stats.h mean: summed in order
  if (d.count == 1) {
    d.p50 = d.p99 = d.min;
    return d;
  }
  const auto p50 = percentile_ranks(d.count, 50), p99 = percentile_ranks(d.count, 99);
  std::vector<double> v;
  if (d.count <= collect_limit) {  // few values: held and sorted (at most collect_limit doubles)
    std::vector<double> all;
    all.reserve(d.count);
    each([&](double x) { all.push_back(x); });
    std::sort(all.begin(), all.end());
    v = {all[p50.lo], all[p50.hi], all[p99.lo], all[p99.hi]};
  } else {
    v = order_statistics(each, {p50.lo, p50.hi, p99.lo, p99.hi}, collect_limit);
  }
  d.p50 = p50.interpolate(v[0], v[1]);
  d.p99 = p99.interpolate(v[2], v[3]);
  return d;
}

}  // namespace lbsim::metrics
