#include "topo/export.h"

#include <fmt/core.h>
#include <fmt/ostream.h>

#include "core/error.h"
#include "core/text.h"

namespace lbsim::topo {

namespace {

const char* node_kind(const Node& n) { return n.kind == NodeKind::Host ? "host" : "switch"; }

// Labels are generated (e.g. "sw(0,1,4)", "g0s3") but escaped anyway: CSV quotes and XML entities
// (core/text.h), DOT quotes.
std::string dot_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    o += c;
  }
  return o + "\"";
}
double rate_gbps(BitsPerSec r) { return static_cast<double>(r) / 1e9; }

}  // namespace

GraphFormat parse_graph_format(const std::string& s) {
  if (s == "csv") return GraphFormat::Csv;
  if (s == "graphml") return GraphFormat::GraphMl;
  if (s == "dot") return GraphFormat::Dot;
  throw UserError(fmt::format("--format: '{}' is not a graph format (expected csv, graphml or dot)", s));
}

void write_edges_csv(const Topology& t, std::ostream& out) {
  out << "link,a,a_label,a_port,b,b_label,b_port,kind,rate_gbps,latency_ns\n";
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    const auto& l = t.links[i];
    fmt::print(out, "{},{},{},{},{},{},{},{},{:g},{:g}\n", i, l.a, csv_field(t.nodes[l.a].label), l.port_a, l.b,
               csv_field(t.nodes[l.b].label), l.port_b, link_kind_name(l.kind), rate_gbps(l.rate), to_ns(l.latency));
  }
}

void write_nodes_csv(const Topology& t, std::ostream& out) {
  out << "id,label,kind,group,tier,ports\n";
  for (std::int32_t n = 0; n < t.size(); ++n) {
    const auto& v = t.nodes[n];
    fmt::print(out, "{},{},{},{},{},{}\n", n, csv_field(v.label), node_kind(v), v.group, v.tier, t.ports[n].size());
  }
}

void write_graphml(const Topology& t, std::ostream& out) {
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\">\n"
         "  <key id=\"label\" for=\"node\" attr.name=\"label\" attr.type=\"string\"/>\n"
         "  <key id=\"kind\" for=\"node\" attr.name=\"kind\" attr.type=\"string\"/>\n"
         "  <key id=\"group\" for=\"node\" attr.name=\"group\" attr.type=\"int\"/>\n"
         "  <key id=\"tier\" for=\"node\" attr.name=\"tier\" attr.type=\"int\"/>\n"
         "  <key id=\"ports\" for=\"node\" attr.name=\"ports\" attr.type=\"int\"/>\n"
         "  <key id=\"link\" for=\"edge\" attr.name=\"link\" attr.type=\"int\"/>\n"
         "  <key id=\"a_port\" for=\"edge\" attr.name=\"a_port\" attr.type=\"int\"/>\n"
         "  <key id=\"b_port\" for=\"edge\" attr.name=\"b_port\" attr.type=\"int\"/>\n"
         "  <key id=\"lkind\" for=\"edge\" attr.name=\"kind\" attr.type=\"string\"/>\n"
         "  <key id=\"rate_gbps\" for=\"edge\" attr.name=\"rate_gbps\" attr.type=\"double\"/>\n"
         "  <key id=\"latency_ns\" for=\"edge\" attr.name=\"latency_ns\" attr.type=\"double\"/>\n";
  fmt::print(out, "  <graph id=\"{}\" edgedefault=\"undirected\">\n", xml_escape(t.kind));
  for (std::int32_t n = 0; n < t.size(); ++n) {
    const auto& v = t.nodes[n];
    fmt::print(out,
               "    <node id=\"n{}\"><data key=\"label\">{}</data><data key=\"kind\">{}</data>"
               "<data key=\"group\">{}</data><data key=\"tier\">{}</data><data key=\"ports\">{}</data></node>\n",
               n, xml_escape(v.label), node_kind(v), v.group, v.tier, t.ports[n].size());
  }
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    const auto& l = t.links[i];
    fmt::print(out,
               "    <edge id=\"e{}\" source=\"n{}\" target=\"n{}\"><data key=\"link\">{}</data>"
               "<data key=\"a_port\">{}</data><data key=\"b_port\">{}</data><data key=\"lkind\">{}</data>"
               "<data key=\"rate_gbps\">{:g}</data><data key=\"latency_ns\">{:g}</data></edge>\n",
               i, l.a, l.b, i, l.port_a, l.port_b, link_kind_name(l.kind), rate_gbps(l.rate), to_ns(l.latency));
  }
  out << "  </graph>\n</graphml>\n";
}

void write_dot(const Topology& t, std::ostream& out) {
  fmt::print(out, "graph {} {{\n", dot_str(t.kind));
  for (std::int32_t n = 0; n < t.size(); ++n) {
    const auto& v = t.nodes[n];
    fmt::print(out, "  n{} [label={}, kind={}, group={}, tier={}, ports={}, shape={}];\n", n, dot_str(v.label),
               node_kind(v), v.group, v.tier, t.ports[n].size(), v.kind == NodeKind::Host ? "point" : "box");
  }
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    const auto& l = t.links[i];
    fmt::print(out, "  n{} -- n{} [link={}, a_port={}, b_port={}, kind={}, rate_gbps={:g}, latency_ns={:g}];\n", l.a,
               l.b, i, l.port_a, l.port_b, link_kind_name(l.kind), rate_gbps(l.rate), to_ns(l.latency));
  }
  out << "}\n";
}

void write_graph(const Topology& t, GraphFormat format, std::ostream& out) {
  switch (format) {
    case GraphFormat::Csv:
      write_edges_csv(t, out);
      return;
    case GraphFormat::GraphMl:
      write_graphml(t, out);
      return;
    case GraphFormat::Dot:
      write_dot(t, out);
      return;
  }
}

}  // namespace lbsim::topo
