// End-to-end: `lbsim cabling plan` -> fabric dump with other GUIDs -> `lbsim layers --tables
// [--fabric]` writes OpenSM files whose self-check (LFT walk, SL/VL cycle check) passes (skipped if
// the lbsim binary has not been built in this build tree).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/opensm.h"

namespace fs = std::filesystem;

namespace {

int run(const std::string& cmd, const fs::path& log) {
  const int rc = std::system((cmd + " >" + log.string() + " 2>&1").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
    s.replace(at, from.size(), to);
  return s;
}

}  // namespace

TEST(LayersTablesCli, PlanAndDiscoveredFabric) {
  const fs::path bin = fs::path(LBSIM_BINARY_DIR) / "lbsim";
  if (!fs::exists(bin)) GTEST_SKIP() << "lbsim binary not built";
  const fs::path dir = fs::path(LBSIM_BINARY_DIR) / "test-layers-tables-cli";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "sf.toml") << "[topology]\nkind = \"slim_fly\"\nq = 5\np = 4\n[cabling]\nswitch_ports = 36\n";
  const std::string b = bin.string(), d = dir.string();
  ASSERT_EQ(run(b + " cabling plan " + d + "/sf.toml --out " + d + "/plan --emit-ibnetdiscover " + d + "/fabric.txt",
                dir / "log0"),
            0)
      << slurp(dir / "log0");
  // Tables on the plan, with three-lane SLs.
  ASSERT_EQ(run(b + " layers " + d + "/sf.toml --layers 4 --out " + d + "/t --tables --vls 3 --deadlock three-lane",
                dir / "log1"),
            0)
      << slurp(dir / "log1");
  for (const char* f :
       {"lfts.dump", "guid2lid", "lids.csv", "opensm.conf", "path-sl.txt", "sl2vl.dump", "forwarding.txt"})
    EXPECT_TRUE(fs::exists(dir / "t" / f)) << f;
  EXPECT_FALSE(fs::exists(dir / "t" / "lft.txt"));
  auto js = nlohmann::json::parse(slurp(dir / "t" / "layers.json"));
  EXPECT_EQ(js["tables"]["walk_failed"].get<long>(), 0);
  EXPECT_EQ(js["tables"]["walk_delivered"].get<long>(), 250L * 850);
  EXPECT_TRUE(js["deadlock"]["tables_acyclic"].get<bool>());
  const auto conf = lbsim::analysis::parse_opensm_conf(slurp(dir / "t" / "opensm.conf"), "opensm.conf");
  EXPECT_EQ(conf.at("lfts_file"), fs::absolute(dir / "t" / "lfts.dump").lexically_normal().string());
  // A discovered fabric with other GUIDs: the tables carry them.
  std::string dump =
      replace_all(replace_all(slurp(dir / "fabric.txt"), "2c90300a", "8f10500b"), "2c90300c", "8f10500d");
  std::ofstream(dir / "site.txt") << dump;
  ASSERT_EQ(run(b + " layers " + d + "/sf.toml --layers 8 --out " + d + "/s --tables --fabric " + d + "/site.txt",
                dir / "log2"),
            0)
      << slurp(dir / "log2");
  const std::string lfts = slurp(dir / "s" / "lfts.dump");
  EXPECT_NE(lfts.find("guid 0x0008f10500b00000 "), std::string::npos);
  EXPECT_EQ(lfts.find("0x0002c90300a"), std::string::npos);
  js = nlohmann::json::parse(slurp(dir / "s" / "layers.json"));
  EXPECT_EQ(js["tables"]["lmc"].get<int>(), 3);
  EXPECT_EQ(js["tables"]["walk_failed"].get<long>(), 0);
  EXPECT_EQ(js["tables"]["walk_delivered"].get<long>(), 250L * (200 * 8 + 50));
  // Errors: an empty dump, --fabric without --tables.
  std::ofstream(dir / "empty.txt") << "";
  EXPECT_EQ(run(b + " layers " + d + "/sf.toml --out " + d + "/e --tables --fabric " + d + "/empty.txt", dir / "log3"),
            2);
  EXPECT_NE(slurp(dir / "log3").find("lists no switch"), std::string::npos) << slurp(dir / "log3");
  EXPECT_EQ(run(b + " layers " + d + "/sf.toml --fabric " + d + "/site.txt", dir / "log4"), 2);
}
