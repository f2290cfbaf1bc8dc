// Progress of long commands on stderr (docs/outputs.md "Progress"): a bar with rate and ETA on a
// terminal, redrawn in place on one line that fits the terminal's width, one plain line per minute
// otherwise (logs), nothing when off. The ETA is based on the
// work done (e.g. data packets delivered out of the packets the workload sends, runs finished out of
// the runs of a sweep), never on an extrapolation of simulated time to run.end_us.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace lbsim::progress {

// Seconds left when `done` of `total` units took `elapsed_s`, at the rate so far:
// elapsed * (total - done) / done. Negative (unknown) while nothing is done; 0 when all is.
double eta_seconds(double done, double total, double elapsed_s);

// "45 s", "12 min 03 s", "2 h 05 min"; "?" for a negative (unknown) duration.
std::string format_duration(double s);

enum class Mode : std::uint8_t { Off, Bar, Log };
// The run.progress setting: "off" -> Off, "on" -> Bar, "log" -> Log, "auto" -> Bar when `tty`, else
// Log (one line per minute).
Mode mode_for(std::string_view setting, bool tty);
// mode_for(setting, isatty(stderr)).
Mode mode_for_stderr(std::string_view setting);
// The width of the terminal on stderr in columns: its window size, else $COLUMNS, else 80.
std::size_t terminal_columns();

class Meter {
 public:
  // `label` starts every line ("lbsim run", "compare ops (2/3)"); `unit` names what is counted
  // ("packets", "runs"). Output goes to stderr unless a sink is set.
  Meter(std::string label, Mode mode, std::string unit);
  Meter(const Meter&) = delete;
  Meter& operator=(const Meter&) = delete;
  ~Meter();

  // For tests: the clock (seconds, any origin), the drawing intervals and where the text goes.
  void set_clock(std::function<double()> now_s);
  void set_intervals(double bar_s, double log_s);
  void set_sink(std::function<void(const std::string&)> sink);
  void set_label(std::string label) { label_ = std::move(label); }
  // The width a bar line must fit (0, the default: the terminal's, read at each redraw).
  void set_columns(std::size_t columns) { columns_ = columns; }
  // Starts the clock again (elapsed time and the next drawing count from now).
  void restart();

  // `done` of `total` units so far; draws when due (bar: every bar interval, 0.5 s by default;
  // log: every log interval, 60 s by default). `detail` is appended to the line.
  void update(double done, double total, std::string_view detail = {});
  // Ends the bar (erases it); a log meter prints nothing more.
  void finish();

  Mode mode() const { return mode_; }
  double elapsed() const;
  std::size_t drawn() const { return drawn_; }  // lines (log) or redraws (bar) written so far
  // The text of one update without the carriage return / newline (what a line shows). A bar line
  // fits in one column less than the width (a line that reaches the last column wraps on some
  // terminals): the detail, the counts, the rate, the elapsed time and the bar give way, in that
  // order, to the percentage and the ETA.
  std::string line(double done, double total, std::string_view detail) const;

 private:
  void emit(const std::string& s);

  std::string label_, unit_;
  Mode mode_;
  std::function<double()> now_;
  std::function<void(const std::string&)> sink_;
  double start_ = 0, last_ = 0;
  double bar_s_ = 0.5, log_s_ = 60;
  std::size_t drawn_ = 0;
  std::size_t width_ = 0;    // characters of the bar last drawn (to erase it)
  std::size_t columns_ = 0;  // set_columns; 0: the terminal's
};

}  // namespace lbsim::progress
