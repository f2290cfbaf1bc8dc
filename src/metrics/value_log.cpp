#include "metrics/value_log.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/core.h>

#include "core/error.h"
#include "core/stats.h"

namespace lbsim::metrics {

std::size_t& ValueLog::default_memory_records() {
  static std::size_t n = kDefaultMemoryRecords;
  return n;
}

ValueLog::ValueLog(std::size_t memory_records) : cap_(std::max<std::size_t>(1, memory_records)) {}

ValueLog::~ValueLog() {
  if (fd_ >= 0) close(fd_);
}

ValueLog::ValueLog(ValueLog&& o) noexcept
    : cap_(o.cap_), mem_(std::move(o.mem_)), spilled_(std::exchange(o.spilled_, 0)), fd_(std::exchange(o.fd_, -1)) {}

ValueLog& ValueLog::operator=(ValueLog&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) close(fd_);
    cap_ = o.cap_;
    mem_ = std::move(o.mem_);
    spilled_ = std::exchange(o.spilled_, 0);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

void ValueLog::push(const TransferValues& v) {
  mem_.push_back(v);
  if (mem_.size() >= cap_) spill();
}

void ValueLog::spill() {
  if (fd_ < 0) {
    const char* dir = std::getenv("TMPDIR");
    std::string tmpl = std::string(dir && *dir ? dir : "/tmp") + "/lbsim-values-XXXXXX";
    fd_ = mkstemp(tmpl.data());
    if (fd_ < 0)
      throw UserError(fmt::format("cannot create a temporary file for the summary values of the finished transfers in "
                                  "{} ({}); set TMPDIR to a writable folder",
                                  tmpl, std::strerror(errno)));
    unlink(tmpl.c_str());  // nameless: gone with the descriptor, also when the process dies
  }
  const char* p = reinterpret_cast<const char*>(mem_.data());
  std::size_t left = mem_.size() * sizeof(TransferValues);
  while (left > 0) {
    const ssize_t w = write(fd_, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      throw UserError(fmt::format("cannot write the temporary file of the summary values ({}); free space in TMPDIR "
                                  "or set TMPDIR to another folder",
                                  w < 0 ? std::strerror(errno) : "nothing written"));
    p += w;
    left -= static_cast<std::size_t>(w);
  }
  spilled_ += mem_.size();
  mem_.clear();  // keeps its capacity: one block for the whole run
}

void ValueLog::for_each(const std::function<void(const TransferValues&)>& fn) const {
  if (spilled_ > 0) {
    std::vector<TransferValues> buf(std::min<std::size_t>(cap_, 4096));
    const std::size_t total = spilled_ * sizeof(TransferValues);
    std::size_t off = 0;
    while (off < total) {
      const std::size_t want = std::min(total - off, buf.size() * sizeof(TransferValues));
      std::size_t got = 0;
      while (got < want) {
        const ssize_t r = pread(fd_, reinterpret_cast<char*>(buf.data()) + got, want - got, static_cast<off_t>(off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
          throw UserError(fmt::format("cannot read back the temporary file of the summary values ({})",
                                      r < 0 ? std::strerror(errno) : "shorter than written"));
        got += static_cast<std::size_t>(r);
      }
      for (std::size_t i = 0; i < want / sizeof(TransferValues); ++i) fn(buf[i]);
      off += want;
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
  const auto v = order_statistics(each, {p50.lo, p50.hi, p99.lo, p99.hi}, collect_limit);
  d.p50 = p50.interpolate(v[0], v[1]);
  d.p99 = p99.interpolate(v[2], v[3]);
  return d;
}

}  // namespace lbsim::metrics
