// End-to-end: `lbsim cabling plan` / `verify` exit codes and files (skipped if the lbsim binary has
// not been built in this build tree).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

int run(const std::string& cmd) {
  const int rc = std::system((cmd + " >/dev/null 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(CablingCli, PlanVerifyExitCodes) {
  const fs::path bin = fs::path(LBSIM_BINARY_DIR) / "lbsim";
  if (!fs::exists(bin)) GTEST_SKIP() << "lbsim binary not built";
  const fs::path dir = fs::path(LBSIM_BINARY_DIR) / "test-cabling-cli";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "sf.toml") << "[topology]\nkind = \"slim_fly\"\nq = 5\n[cabling]\nswitch_ports = 36\n";
  const std::string b = bin.string(), d = dir.string();
  ASSERT_EQ(run(b + " cabling plan " + d + "/sf.toml --out " + d + "/plan --emit-ibnetdiscover " + d + "/fabric.txt"),
            0);
  EXPECT_TRUE(fs::exists(dir / "plan" / "links.csv"));
  EXPECT_TRUE(fs::exists(dir / "plan" / "cables.csv"));
  EXPECT_TRUE(fs::exists(dir / "plan" / "sheets" / "rack_0.csv"));
  EXPECT_TRUE(fs::exists(dir / "plan" / "sheets" / "rack_4.html"));
  EXPECT_TRUE(fs::exists(dir / "plan" / "plan.json"));
  EXPECT_TRUE(fs::exists(dir / "plan" / "ports.csv"));
  EXPECT_TRUE(fs::exists(dir / "plan" / "wiring.txt"));
  int svgs = 0;
  for (const auto& e : fs::directory_iterator(dir / "plan" / "racks")) svgs += e.path().extension() == ".svg";
  EXPECT_EQ(svgs, 10);  // q(q-1)/2 rack pairs
  EXPECT_EQ(run(b + " cabling verify " + d + "/sf.toml --discovered " + d + "/fabric.txt"), 0);
  // Drop the first switch-switch link line of the first switch (and its mirror) -> differs -> 1.
  std::string dump = slurp(dir / "fabric.txt");
  const auto at = dump.find("[5]\t\"S-");
  ASSERT_NE(at, std::string::npos);
  dump.erase(at, dump.find('\n', at) + 1 - at);
  const auto mirror = dump.find("\"S-0002c90300a00000\"[5]");
  ASSERT_NE(mirror, std::string::npos);
  const auto ls = dump.rfind('\n', mirror) + 1;
  dump.erase(ls, dump.find('\n', mirror) + 1 - ls);
  std::ofstream(dir / "missing.txt") << dump;
  EXPECT_EQ(run(b + " cabling verify " + d + "/sf.toml --discovered " + d + "/missing.txt --report " + d + "/r.txt"),
            1);
  EXPECT_NE(slurp(dir / "r.txt").find("MISSING (1)"), std::string::npos) << slurp(dir / "r.txt");
  // Malformed dump and bad config are user errors -> 2.
  std::ofstream(dir / "bad.txt") << "Switch\t36 \"S-01\"\n[1] nonsense\n";
  EXPECT_EQ(run(b + " cabling verify " + d + "/sf.toml --discovered " + d + "/bad.txt"), 2);
  std::ofstream(dir / "bad.toml") << "[topology]\nkind = \"slim_fly\"\nq = 6\n";
  EXPECT_EQ(run(b + " cabling plan " + d + "/bad.toml --out " + d + "/x"), 2);
  EXPECT_EQ(run(b + " cabling plan " + d + "/missing.toml --out " + d + "/x"), 2);
  EXPECT_EQ(run(b + " cabling plan " + d + "/sf.toml --set topology.q=7 --out " + d + "/q7"), 0);
  EXPECT_NE(slurp(dir / "q7" / "plan.json").find("\"q\": 7"), std::string::npos);
  EXPECT_EQ(run(b + " scale --table2"), 0);
  EXPECT_EQ(run(b + " scale --config " + d + "/missing.toml"), 2);
}
