// Topology export (`lbsim topo CONFIG --edges FILE [--format csv|graphml|dot] [--nodes FILE]`):
// the graph of any topology kind as a link list (CSV), GraphML (NetworkX, Gephi, yEd) or Graphviz
// DOT, so that the network can be inspected and checked outside lbsim (docs/topologies.md "Export",
// columns in docs/outputs.md).
#pragma once
#include <ostream>
#include <string>

#include "topo/topology.h"

namespace lbsim::topo {

enum class GraphFormat { Csv, GraphMl, Dot };

// "csv" | "graphml" | "dot"; throws UserError naming the value otherwise.
GraphFormat parse_graph_format(const std::string& s);

// One row per link: link,a,a_label,a_port,b,b_label,b_port,kind,rate_gbps,latency_ns (a < b is not
// guaranteed: a is the side that `connect` was called with first).
void write_edges_csv(const Topology& t, std::ostream& out);
// One row per node: id,label,kind,group,tier,ports.
void write_nodes_csv(const Topology& t, std::ostream& out);
// Undirected graph with node attributes (label, kind, group, tier, ports) and edge attributes
// (link id, ports at both ends, link kind, rate in Gb/s, latency in ns).
void write_graphml(const Topology& t, std::ostream& out);
void write_dot(const Topology& t, std::ostream& out);
// The edges in `format` (CSV: the link list; GraphML / DOT: nodes and edges).
void write_graph(const Topology& t, GraphFormat format, std::ostream& out);

}  // namespace lbsim::topo
