// Layering: the repository obeys docs/architecture.md's layer table (includes and CMake
// dependencies) and src/sim, src/net name no plug-in (plugin_check.h), and the checkers catch planted
// violations in small fake trees.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/config.h"
#include "layer_check.h"
#include "lb/registry.h"
#include "plugin_check.h"
#include "routing/registry.h"
#include "topo/registry.h"
#include "transport/registry.h"
#include "workload/registry.h"

namespace fs = std::filesystem;
using lbsim::archcheck::check_layers;
using lbsim::archcheck::Finding;
using lbsim::archcheck::LayerReport;

namespace {

// A throw-away repository tree under the temp directory.
class FakeRepo {
 public:
  explicit FakeRepo(const std::string& name)
      : root_(fs::temp_directory_path() / ("lbsim_arch_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  ~FakeRepo() {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  void write(const std::string& rel, const std::string& text) const {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  void remove(const std::string& rel) const { fs::remove(root_ / rel); }
  const fs::path& root() const { return root_; }

 private:
  fs::path root_;
};

std::string arch_md(const std::string& rows) {
  return "# Architecture\n\nIntro.\n\n## Layers\n\nProse.\n\n"
         "| layer | what it holds | depends on |\n"
         "|---|---|---|\n" +
         rows + "\n## The event loop\n\nMore prose.\n";
}

// src/CMakeLists.txt shaped like the real one: one library per layer from a foreach.
std::string cmake(const std::string& layers, const std::string& links) {
  return "foreach(layer " + layers +
         ")\n"
         "  file(GLOB _srcs ${CMAKE_CURRENT_SOURCE_DIR}/${layer}/*.cpp)\n"
         "  add_library(lbsim_${layer} STATIC ${_srcs})\n"
         "  target_link_libraries(lbsim_${layer} PUBLIC fmt::fmt)\n"
         "endforeach()\n" +
         links;
}

int count_kind(const LayerReport& r, Finding::Kind k) {
  return static_cast<int>(
      std::count_if(r.findings.begin(), r.findings.end(), [&](const Finding& f) { return f.kind == k; }));
}

}  // namespace

TEST(Architecture, RepositoryFollowsTheLayerTable) {
  const LayerReport r = check_layers(LBSIM_SOURCE_DIR);
  EXPECT_TRUE(r.ok()) << "layering violations (rules: docs/architecture.md, ## Layers):\n" << r.str();
  // The check must have seen the real tree, not passed on an empty one.
  EXPECT_GE(r.table.order.size(), 10u);
  EXPECT_TRUE(r.table.has("core") && r.table.has("cli"));
  EXPECT_GT(r.files_scanned, 50);
  EXPECT_GT(r.edges.size(), 50u);
  EXPECT_TRUE(r.cmake_deps.count("sim") && r.cmake_deps.at("sim").count("config"))
      << "the layer libraries' links were not found";
}

TEST(Architecture, PlantedIncludeViolationIsReportedWithFileAndLine) {
  FakeRepo repo("planted");
  repo.write("docs/architecture.md", arch_md("| `a` | upper | - |\n| `b` | lower | - |\n"));
  repo.write("src/CMakeLists.txt", cmake("a b", ""));
  repo.write("src/a/x.h",
             "// layer a\n"
             "#pragma once\n"
             "#include <vector>\n"
             "#include \"a/z.h\"\n"
             "#include \"b/y.h\"\n");
  repo.write("src/a/z.h", "#pragma once\n");
  repo.write("src/b/y.h", "#pragma once\n");
  const LayerReport r = check_layers(repo.root());
  ASSERT_EQ(r.findings.size(), 1u) << r.str();
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.kind, Finding::Kind::Include);
  EXPECT_EQ(f.file, "src/a/x.h");
  EXPECT_EQ(f.line, 5);
  EXPECT_NE(f.message.find("\"b/y.h\""), std::string::npos) << f.message;
  EXPECT_NE(r.str().find("src/a/x.h:5: "), std::string::npos) << r.str();

  // Control: once the table and CMake allow a -> b the same tree passes.
  repo.write("docs/architecture.md", arch_md("| `a` | upper | b |\n| `b` | lower | - |\n"));
  repo.write("src/CMakeLists.txt", cmake("a b", "target_link_libraries(lbsim_a PUBLIC lbsim_b)\n"));
  const LayerReport ok = check_layers(repo.root());
  EXPECT_TRUE(ok.ok()) << ok.str();
}

TEST(Architecture, TransitiveIncludesAllowedAndEveryIncludeSpellingChecked) {
  FakeRepo repo("forms");
  // a -> c -> b: a may include b through c; b may include nothing.
  repo.write("docs/architecture.md", arch_md("| a | top | c |\n| b | bottom | - |\n| c | mid | b |\n"));
  repo.write("src/CMakeLists.txt", cmake("a b c",
                                         "target_link_libraries(lbsim_a PUBLIC lbsim_c)\n"
                                         "target_link_libraries(lbsim_c PUBLIC lbsim_b)\n"));
  repo.write("src/a/x.cpp", "#include \"c/w.h\"\n#include \"b/y.h\"\n");
  repo.write("src/c/w.h", "#pragma once\n#include \"b/y.h\"\n");
  repo.write("src/b/y.h", "#pragma once\n");
  repo.write("src/b/v.cpp",
             "#include \"../c/w.h\"\n"   // relative path into another layer
             "#include <c/w.h>\n"        // angle brackets resolve against src/ too
             "// #include \"a/x.h\"\n"   // a comment, not an include
             "#include \"y.h\"\n"        // same folder
             "#include <net/if.h>\n"     // a system header, not under src/
             "#  include \"c/w.h\"\n");  // spaces after '#'
  const LayerReport r = check_layers(repo.root());
  ASSERT_EQ(r.findings.size(), 3u) << r.str();
  for (const Finding& f : r.findings) {
    EXPECT_EQ(f.kind, Finding::Kind::Include) << r.str();
    EXPECT_EQ(f.file, "src/b/v.cpp");
  }
  EXPECT_EQ(r.findings[0].line, 1);
  EXPECT_EQ(r.findings[1].line, 2);
  EXPECT_EQ(r.findings[2].line, 6);
}

TEST(Architecture, CmakeMismatchIsReported) {
  FakeRepo repo("cmake");
  repo.write("docs/architecture.md", arch_md("| a | upper | b |\n| b | lower | - |\n"));
  repo.write("src/a/x.h", "#pragma once\n#include \"b/y.h\"\n");
  repo.write("src/b/y.h", "#pragma once\n");
  // a -> b missing (the commented-out call does not count), b -> a extra (a multi-line call).
  repo.write("src/CMakeLists.txt", cmake("a b",
                                         "# target_link_libraries(lbsim_a PUBLIC lbsim_b)\n"
                                         "target_link_libraries(lbsim_b PUBLIC\n"
                                         "  fmt::fmt lbsim_a)\n"));
  const LayerReport r = check_layers(repo.root());
  ASSERT_EQ(r.findings.size(), 2u) << r.str();
  ASSERT_EQ(count_kind(r, Finding::Kind::Cmake), 2) << r.str();
  const std::string s = r.str();
  EXPECT_NE(s.find("lbsim_a does not link lbsim_b"), std::string::npos) << s;
  EXPECT_NE(s.find("src/CMakeLists.txt:7: cmake dependency: lbsim_b links lbsim_a"), std::string::npos) << s;

  // A layer's own layer.cmake counts: moving the link there fixes the missing edge.
  repo.write("src/CMakeLists.txt", cmake("a b", ""));
  repo.write("src/a/layer.cmake", "target_link_libraries(lbsim_a PUBLIC lbsim_b)\n");
  const LayerReport ok = check_layers(repo.root());
  EXPECT_TRUE(ok.ok()) << ok.str();
}

TEST(Architecture, UnusedDependencyAndUnlistedFolderAreReported) {
  FakeRepo repo("unused");
  repo.write("docs/architecture.md", arch_md("| a | upper | b |\n| b | lower | - |\n"));
  repo.write("src/CMakeLists.txt", cmake("a b", "target_link_libraries(lbsim_a PUBLIC lbsim_b)\n"));
  repo.write("src/a/x.h", "#pragma once\n");
  repo.write("src/b/y.h", "#pragma once\n");
  const LayerReport r = check_layers(repo.root());
  ASSERT_EQ(r.findings.size(), 1u) << r.str();
  EXPECT_EQ(r.findings[0].kind, Finding::Kind::UnusedDependency);
  EXPECT_EQ(r.findings[0].file, "docs/architecture.md");
  EXPECT_EQ(r.findings[0].line, 11);  // the row of a

  repo.write("src/a/x.h", "#pragma once\n#include \"b/y.h\"\n");
  repo.write("src/d/z.h", "#pragma once\n");
  const LayerReport r2 = check_layers(repo.root());
  ASSERT_EQ(r2.findings.size(), 1u) << r2.str();
  EXPECT_EQ(r2.findings[0].kind, Finding::Kind::Folder);
  EXPECT_EQ(r2.findings[0].file, "src/d");
}

TEST(Architecture, TableErrorsAreClearFailures) {
  FakeRepo repo("table");
  repo.write("src/CMakeLists.txt", cmake("a", ""));
  repo.write("src/a/x.h", "#pragma once\n");

  // No file at all.
  LayerReport r = check_layers(repo.root());
  ASSERT_EQ(r.findings.size(), 1u) << r.str();
  EXPECT_EQ(r.str(), "docs/architecture.md:0: layer table: file not found\n");

  // A "## Layers" section without a table (a table in a later section does not count).
  repo.write("docs/architecture.md",
             "# Architecture\n\n## Layers\n\nNo table here.\n\n## Other\n\n"
             "| layer | what it holds | depends on |\n|---|---|---|\n| a | x | - |\n");
  r = check_layers(repo.root());
  ASSERT_EQ(r.findings.size(), 1u) << r.str();
  EXPECT_EQ(r.findings[0].kind, Finding::Kind::Table);
  EXPECT_EQ(r.findings[0].line, 3);
  EXPECT_NE(r.findings[0].message.find("no layer table under '## Layers'"), std::string::npos) << r.str();

  // A dependency that is prose, not a layer list.
  repo.write("docs/architecture.md", arch_md("| a | x | everything above |\n"));
  r = check_layers(repo.root());
  ASSERT_EQ(count_kind(r, Finding::Kind::Table), 1) << r.str();
  EXPECT_NE(r.str().find("'everything above' in the 'depends on' of a is not a layer name"), std::string::npos)
      << r.str();

  // A dependency on a layer without a row, and a cycle.
  repo.write("docs/architecture.md", arch_md("| a | x | b, zz |\n| b | y | a |\n"));
  r = check_layers(repo.root());
  const std::string s = r.str();
  EXPECT_NE(s.find("a depends on 'zz', which is not a row of the table"), std::string::npos) << s;
  EXPECT_NE(s.find("dependency cycle: a -> b -> a"), std::string::npos) << s;
}

// ---- sim/ and net/ name no plug-in (plugin_check.h) --------------------------------------------

namespace {

// Every registered plug-in name (and summary.json block) and every key a plug-in declared.
lbsim::archcheck::PluginNames registered_plugins() {
  lbsim::archcheck::PluginNames n;
  const auto add = [&](const auto& registry) {
    for (const auto& e : registry.entries()) n.names.emplace(e.name, registry.what());
  };
  add(lbsim::lb::balancers());
  add(lbsim::routing::routings());
  add(lbsim::topo::topologies());
  add(lbsim::workload::workloads());
  add(lbsim::transport::congestion_controls());
  for (const auto& e : lbsim::lb::balancers().entries())
    if (!e.summary_key.empty()) n.names.emplace(e.summary_key, "summary.json block of a load balancer");
  for (const auto& e : lbsim::routing::routings().entries())
    if (!e.summary_key.empty()) n.names.emplace(e.summary_key, "summary.json block of a switch routing");
  for (const auto& k : lbsim::config::keys())
    if (!k.owner.empty()) n.keys.emplace(k.key, k.owner);
  return n;
}

}  // namespace

TEST(Architecture, SimAndNetNameNoPlugin) {
  const auto names = registered_plugins();
  // The registries were read, not empty (every layer's registrars are linked into this test).
  ASSERT_GT(names.names.size(), 40u);
  ASSERT_GT(names.keys.size(), 40u);
  ASSERT_TRUE(names.names.count("valiant") && names.keys.count("routing.valiant_mode"));
  const auto r = lbsim::archcheck::check_plugin_names(LBSIM_SOURCE_DIR, names, {"sim", "net"});
  EXPECT_TRUE(r.ok()) << "sim/ and net/ must reach plug-ins through their registries and hooks "
                         "(docs/architecture.md \"Adding a plug-in\"):\n"
                      << r.str();
  EXPECT_GT(r.files_scanned, 15);
  EXPECT_GT(r.literals_scanned, 300);
  EXPECT_GT(r.includes_scanned, 50);
}

TEST(Architecture, PlantedPluginNamesAreReported) {
  FakeRepo repo("plugins");
  repo.write("src/routing/foo.h", "#pragma once\nclass FooRouter {};\n");
  repo.write("src/routing/foo.cpp",
             "#include \"routing/foo.h\"\n"
             "const RegisterRouting kFoo{{{\"foo\", \"Foo.\", {text(\"routing.foo_mode\", \"a\", \"doc\")}, {}}}};\n");
  repo.write("src/routing/tables.h", "#pragma once\n");  // no registrar: not a plug-in's header
  repo.write("src/lb/bar.h", "#pragma once\nstruct BarPolicy {};\n");
  repo.write("src/lb/bar_registrar.cpp", "static RegisterLb kBar({\"bar_x\"});\n");        // not bar.cpp: bar.h is free
  repo.write("src/lb/baz.h", "#pragma once\ninline const RegisterLb kBaz{{\"baz\"}};\n");  // header-only plug-in
  repo.write("src/sim/x.cpp",
             "#include \"routing/tables.h\"\n"
             "#include \"routing/foo.h\"\n"  // line 2
             "#include \"lb/bar.h\"\n"
             "// #include \"lb/baz.h\" and \"foo\" in a comment\n"
             "/* \"foo\"\n"
             "   #include \"lb/baz.h\" */\n"
             "#include <lb/baz.h>\n"  // line 7
             "bool f(const Cfg& c) {\n"
             "  const char q = '\"';\n"
             "  return c.text(\"routing.algorithm\") == \"foo\"\n"                            // line 10
             "      || c.text(\"routing.foo_mode\") == \"b\"\n"                               // line 11
             "      || c.text(\"lb.algorithm\").starts_with(\"bar_\")\n"                      // line 12
             "      || c.text(\"x\") == R\"(foo)\" || c.text(\"y\") == \"foo \\\"x\\\"\";\n"  // line 13
             "}\n");
  repo.write("src/net/y.h", "#pragma once\n// \"foo\"\nconst char* k = \"food\";\n");
  lbsim::archcheck::PluginNames names;
  names.names = {{"foo", "switch routing"}, {"bar_x", "load balancer"}, {"baz", "load balancer"}};
  names.keys = {{"routing.foo_mode", "foo"}};
  const auto r = lbsim::archcheck::check_plugin_names(repo.root(), names, {"sim", "net"});
  EXPECT_EQ(r.files_scanned, 2);
  ASSERT_EQ(r.findings.size(), 6u) << r.str();
  const std::string s = r.str();
  EXPECT_NE(s.find("src/sim/x.cpp:2: plug-in header included: includes \"routing/foo.h\", the header of the "
                   "plug-in(s) registered in src/routing/foo.cpp"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("src/sim/x.cpp:7: plug-in header included: includes \"lb/baz.h\""), std::string::npos) << s;
  EXPECT_NE(s.find("src/sim/x.cpp:10: plug-in named: \"foo\" names the switch routing 'foo'"), std::string::npos) << s;
  EXPECT_NE(s.find("src/sim/x.cpp:11: plug-in key named: \"routing.foo_mode\" is a key of the plug-in 'foo'"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("src/sim/x.cpp:12: plug-in named: \"bar_\" names plug-ins by their prefix (bar_x)"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("src/sim/x.cpp:13: plug-in named: \"foo\""), std::string::npos) << s;  // the raw string

  // Control: the same tree without the planted names passes.
  repo.write("src/sim/x.cpp",
             "#include \"routing/tables.h\"\n#include \"routing/registry.h\"\n"
             "bool f(const Cfg& c) { return c.text(\"routing.algorithm\") == c.text(\"z\"); }\n");
  const auto ok = lbsim::archcheck::check_plugin_names(repo.root(), names, {"sim", "net"});
  EXPECT_TRUE(ok.ok()) << ok.str();
}

TEST(Architecture, StringLiteralsSkipCommentsAndCharacters) {
  const auto lits = lbsim::archcheck::string_literals(
      "a = \"one\"; // \"two\"\n"
      "b = '\"'; c = \"th\\\"ree\"; /* \"four\"\n\"five\" */ d = R\"x(si\")x\"; e = \"seven\";\n"
      "f = LR\"(eight)\"; u8\"nine\";\n");
  ASSERT_EQ(lits.size(), 6u);
  EXPECT_EQ(lits[0].text, "one");
  EXPECT_EQ(lits[0].line, 1);
  EXPECT_EQ(lits[1].text, "th\\\"ree");
  EXPECT_EQ(lits[1].line, 2);
  EXPECT_EQ(lits[2].text, "si\"");
  EXPECT_EQ(lits[2].line, 3);
  EXPECT_EQ(lits[3].text, "seven");
  EXPECT_EQ(lits[4].text, "eight");
  EXPECT_EQ(lits[5].text, "nine");
  EXPECT_EQ(lits[5].line, 4);
}
