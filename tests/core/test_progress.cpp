// core/progress.h: the ETA comes from the work done, the bar is for terminals, logs get one line
// per interval.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/progress.h"

namespace lbsim::progress {
namespace {

TEST(Progress, EtaFromWorkDone) {
  // Halfway through the bytes after t seconds: t seconds left at the same rate.
  EXPECT_DOUBLE_EQ(eta_seconds(50, 100, 10), 10);
  // A quarter done in 6 s: 18 s left.
  EXPECT_DOUBLE_EQ(eta_seconds(25, 100, 6), 18);
  EXPECT_DOUBLE_EQ(eta_seconds(100, 100, 7), 0);  // all done
  EXPECT_LT(eta_seconds(0, 100, 5), 0);           // nothing done yet: unknown, not infinite
  EXPECT_DOUBLE_EQ(eta_seconds(3, 0, 5), 0);      // nothing to do
}

TEST(Progress, DurationText) {
  EXPECT_EQ(format_duration(-1), "?");
  EXPECT_EQ(format_duration(45.4), "45 s");
  EXPECT_EQ(format_duration(723), "12 min 03 s");
  EXPECT_EQ(format_duration(7500), "2 h 05 min");
}

TEST(Progress, ModeFollowsTerminal) {
  EXPECT_EQ(mode_for("auto", true), Mode::Bar);
  EXPECT_EQ(mode_for("auto", false), Mode::Log);
  EXPECT_EQ(mode_for("on", false), Mode::Bar);
  EXPECT_EQ(mode_for("log", true), Mode::Log);
  EXPECT_EQ(mode_for("off", true), Mode::Off);
}

struct Fake {
  double t = 0;
  std::vector<std::string> out;
};

void attach(Meter& m, Fake& f) {
  m.set_clock([&f] { return f.t; });
  m.set_sink([&f](const std::string& s) { f.out.push_back(s); });
}

TEST(Progress, LogModeWritesOneLinePerMinute) {
  Fake f;
  Meter m("lbsim run", Mode::Log, "packets");
  attach(m, f);
  // Updates every 1/8 s of wall time for 10 minutes: one line per minute, not 4800.
  for (int i = 1; i <= 4800; ++i) {
    f.t = 0.125 * i;
    m.update(i, 4800);
  }
  EXPECT_EQ(f.out.size(), 10u);
  for (const auto& s : f.out) {
    EXPECT_EQ(s.back(), '\n');
    EXPECT_EQ(s.find('\r'), std::string::npos);  // no terminal control in logs
  }
  // The first line, after 60 s with 480 of 4800 packets: 10 %, ETA 9 minutes.
  EXPECT_NE(f.out[0].find("10.0%"), std::string::npos) << f.out[0];
  EXPECT_NE(f.out[0].find("ETA 9 min 00 s"), std::string::npos) << f.out[0];
  m.finish();
  EXPECT_EQ(f.out.size(), 10u);  // nothing to erase in a log
}

TEST(Progress, BarRedrawsAtMostTwiceASecondWithRate) {
  Fake f;
  Meter m("lbsim run", Mode::Bar, "packets");
  attach(m, f);
  m.set_columns(160);
  for (int i = 1; i <= 80; ++i) {  // 10 s in steps of 1/8 s
    f.t = 0.125 * i;
    m.update(1250.0 * i, 1e5);
  }
  EXPECT_EQ(f.out.size(), 20u);
  EXPECT_EQ(f.out.back().front(), '\r');
  EXPECT_NE(f.out.back().find("[##"), std::string::npos) << f.out.back();
  // 100000 packets in 10 s: 10 k packets/s, all done: ETA 0 s.
  EXPECT_NE(f.out.back().find("10.0 k packets/s"), std::string::npos) << f.out.back();
  EXPECT_NE(f.out.back().find("ETA 0 s"), std::string::npos) << f.out.back();
  m.finish();
  EXPECT_EQ(f.out.back().find_first_not_of(" \r"), std::string::npos);  // the bar is erased
}

// Issue 52 item 7: the bar line was 156-163 characters whatever the terminal; in 80 columns a 13 s
// run printed 25 broken lines and its ETA never showed. It now fits one column less than the width
// (a full last column wraps on some terminals) and keeps the percentage and the ETA.
TEST(Progress, BarFitsTheTerminalWidthAndKeepsTheEta) {
  const std::string detail = "entries 3/16  t = 123456.7 us  1.23 M events/s";  // as `lbsim run` shows
  for (const std::size_t cols : {80u, 60u, 40u}) {
    Fake f;
    Meter m("lbsim run", Mode::Bar, "packets");
    attach(m, f);
    m.set_columns(cols);
    for (int i = 1; i <= 104; ++i) {  // 13 s in steps of 1/8 s
      f.t = 0.125 * i;
      m.update(1250.0 * i, 130000, detail);
    }
    ASSERT_EQ(f.out.size(), 26u);
    for (const auto& s : f.out) {
      EXPECT_EQ(s.front(), '\r') << s;  // redrawn in place
      EXPECT_EQ(s.find('\n'), std::string::npos) << s;
      EXPECT_LE(s.size() - 1, cols - 1) << cols << " columns: " << s;
      EXPECT_NE(s.find("ETA "), std::string::npos) << cols << " columns: " << s;
    }
    // Half-way (6.5 s, 65000 of 130000 packets): 50 %, 6.5 s to go, shown as 7 s.
    EXPECT_NE(f.out[12].find("50.0%"), std::string::npos) << f.out[12];
    EXPECT_NE(f.out[12].find("ETA 7 s"), std::string::npos) << f.out[12];
  }
  // Wide enough: everything, the detail included.
  Meter wide("lbsim run", Mode::Bar, "packets");
  wide.set_columns(200);
  EXPECT_NE(wide.line(100, 200, detail).find(detail), std::string::npos);
  // A log line (not a terminal) keeps everything whatever the width.
  Meter log("lbsim run", Mode::Log, "packets");
  log.set_columns(40);
  EXPECT_NE(log.line(100, 200, detail).find(detail), std::string::npos);
}

TEST(Progress, OffWritesNothing) {
  Fake f;
  Meter m("x", Mode::Off, "steps");
  attach(m, f);
  for (int i = 0; i < 100; ++i) {
    f.t = 100.0 * i;
    m.update(i, 100);
  }
  m.finish();
  EXPECT_TRUE(f.out.empty());
}

}  // namespace
}  // namespace lbsim::progress
