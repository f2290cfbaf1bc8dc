#include "core/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <fmt/core.h>

namespace lbsim::progress {

double eta_seconds(double done, double total, double elapsed_s) {
  if (total <= 0 || done >= total) return 0;
  if (done <= 0 || elapsed_s <= 0) return -1;
  return elapsed_s * (total - done) / done;
}

std::string format_duration(double s) {
  if (s < 0 || !std::isfinite(s)) return "?";
  const auto t = static_cast<long long>(std::llround(s));
  if (t < 60) return fmt::format("{} s", t);
  if (t < 3600) return fmt::format("{} min {:02} s", t / 60, t % 60);
  return fmt::format("{} h {:02} min", t / 3600, (t % 3600) / 60);
}

Mode mode_for(std::string_view setting, bool tty) {
  if (setting == "off") return Mode::Off;
  if (setting == "on") return Mode::Bar;
  if (setting == "log") return Mode::Log;
  return tty ? Mode::Bar : Mode::Log;
}

Mode mode_for_stderr(std::string_view setting) { return mode_for(setting, isatty(STDERR_FILENO) != 0); }

std::size_t terminal_columns() {
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long n = std::strtol(c, &end, 10);
    if (end != c && *end == '\0' && n > 0 && n < 10000) return static_cast<std::size_t>(n);
  }
  return 80;
}

namespace {
double steady_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Rate in a readable unit: "1.23 M packets/s", "450 runs/min" for slow counts.
std::string rate_text(double done, double elapsed, const std::string& unit) {
  if (elapsed <= 0 || done <= 0) return "";
  const double r = done / elapsed;
  if (r >= 1e6) return fmt::format("{:.2f} M {}/s", r / 1e6, unit);
  if (r >= 1e3) return fmt::format("{:.1f} k {}/s", r / 1e3, unit);
  if (r >= 1) return fmt::format("{:.1f} {}/s", r, unit);
  return fmt::format("{:.1f} {}/min", r * 60, unit);
}
}  // namespace

Meter::Meter(std::string label, Mode mode, std::string unit)
    : label_(std::move(label)), unit_(std::move(unit)), mode_(mode), now_(steady_now) {
  start_ = now_();
  last_ = start_;
}

Meter::~Meter() { finish(); }

void Meter::set_clock(std::function<double()> now_s) {
  now_ = std::move(now_s);
  start_ = now_();
  last_ = start_;
}

void Meter::restart() {
  start_ = now_();
  last_ = start_;
}

void Meter::set_intervals(double bar_s, double log_s) {
  bar_s_ = bar_s;
  log_s_ = log_s;
}

void Meter::set_sink(std::function<void(const std::string&)> sink) { sink_ = std::move(sink); }

double Meter::elapsed() const { return now_() - start_; }

void Meter::emit(const std::string& s) {
  if (sink_) {
    sink_(s);
  } else {
    std::fputs(s.c_str(), stderr);
    std::fflush(stderr);
  }
}

std::string Meter::line(double done, double total, std::string_view detail) const {
  const double el = elapsed();
  const double frac = total > 0 ? std::clamp(done / total, 0.0, 1.0) : 0.0;
  const std::string pct = fmt::format("{:.1f}%", 100 * frac);
  const std::string counts = fmt::format(" ({:.0f}/{:.0f} {})", done, total, unit_);
  const std::string rate = rate_text(done, el, unit_);
  const std::string elapsed_text = "  elapsed " + format_duration(el);
  const std::string eta = "  ETA " + format_duration(eta_seconds(done, total, el));
  if (mode_ != Mode::Bar) {  // a log line: everything
    return label_ + ": " + pct + counts + (rate.empty() ? "" : "  " + rate) + elapsed_text + eta +
           (detail.empty() ? "" : "  " + std::string(detail));
  }
  const std::size_t cols = columns_ > 0 ? columns_ : terminal_columns();
  const std::size_t fit = cols > 1 ? cols - 1 : 1;
  bool with_detail = !detail.empty(), with_counts = true, with_rate = !rate.empty(), with_elapsed = true;
  int bar = 24;
  const auto compose = [&] {
    std::string s = label_ + ": ";
    if (bar > 0)
      s += "[" + std::string(static_cast<std::size_t>(frac * bar), '#') +
           std::string(static_cast<std::size_t>(bar - static_cast<int>(frac * bar)), '.') + "] ";
    s += pct;
    if (with_counts) s += counts;
    if (with_rate) s += "  " + rate;
    if (with_elapsed) s += elapsed_text;
    s += eta;
    if (with_detail) s += "  " + std::string(detail);
    return s;
  };
  std::string s = compose();
  for (bool* part : {&with_detail, &with_counts, &with_rate, &with_elapsed}) {
    if (s.size() <= fit) return s;
    *part = false;
    s = compose();
  }
  while (s.size() > fit && bar > 0) {  // a shorter bar, down to 8 marks, then none
    bar = bar > 8 ? std::max(8, bar - static_cast<int>(s.size() - fit)) : 0;
    s = compose();
  }
  if (s.size() > fit) s.resize(fit);  // a label wider than the terminal
  return s;
}

void Meter::update(double done, double total, std::string_view detail) {
  if (mode_ == Mode::Off) return;
  const double now = now_();
  if (now - last_ < (mode_ == Mode::Bar ? bar_s_ : log_s_)) return;
  last_ = now;
  const std::string s = line(done, total, detail);
  ++drawn_;
  if (mode_ == Mode::Bar) {
    const std::size_t pad = width_ > s.size() ? width_ - s.size() : 0;
    width_ = s.size();
    emit("\r" + s + std::string(pad, ' '));
  } else {
    emit(s + "\n");
  }
}

void Meter::finish() {
  if (mode_ == Mode::Bar && width_ > 0) emit("\r" + std::string(width_, ' ') + "\r");
  width_ = 0;
}

}  // namespace lbsim::progress
