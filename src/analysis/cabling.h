// Slim Fly cabling: plan, wiring order, rack-pair diagrams, ibnetdiscover parsing and verification
// ([SlimFly] sec. 3.2 "Topology structure and construction", 3.3 "Deployment
// efficiency and ease", 3.4 "Correctness verification", Fig. 3, Fig. 4, App. A.3/A.4).
//
// Physical layout (sec. 3.2, App. A.4): q racks; rack R holds subgroup 0 = the MMS switches
// (0, R, I) and subgroup 1 = (1, R, I), I = 0..q-1, so the paper's label (S, R, I) is the MMS label
// (s, x, y) itself. Switch names are "<prefix>-<S>-<R>-<I>" (default prefix "sf").
//
// Port numbering (1-based, as on the switch face plate; Fig. 4 for q = 5: ports 1-4 endpoints,
// 5-7 intra-rack, 8-11 inter-rack):
//   1 .. p                       endpoints
//   p+1 .. p+|X|                 intra-subgroup links, sorted by the peer's I
//   p+|X|+1                      the link to the other subgroup of the same rack
//   p+|X|+2 .. p+k'              one link per other rack, in increasing rack order
// so every switch of a rack uses the same port towards a given other rack (sec. 3.3). This is exactly
// topo::build_slim_fly's port order (physical port = Topology port index + 1).
//
// Wiring order (sec. 3.3): step 1 intra-subgroup links (identical in every rack), step 2 subgroup 0
// to subgroup 1 inside each rack, step 3 inter-rack links, rack pair by rack pair (2q per pair).
#pragma once
#include <array>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"
#include "topo/slim_fly.h"

namespace lbsim::analysis {

struct PlannedLink {
  int id = 0;
  int sw_a = 0, port_a = 0, sw_b = 0, port_b = 0;  // MMS switch indices, 1-based ports; sw_a < sw_b
  int step = 0;                                    // 1, 2 or 3 (sec. 3.3)
  bool inter_rack = false;                         // optical (Global) vs copper (Local)
};
// "optical" for an inter-rack link, "copper" otherwise (plan writers, verification report).
const char* cable_kind(const PlannedLink& l);

struct CablingPlan {
  int q = 0, delta = 0, k_prime = 0, p = 0;
  int switch_ports = 0;  // physical ports per switch (>= p + k')
  std::string prefix = "sf";
  std::vector<std::array<int, 3>> labels;  // (S, R, I) per MMS switch index
  std::vector<PlannedLink> links;          // in wiring order (step 1, 2, 3)
  // peer[sw][port] = link id for switch-switch ports, -1 for endpoint or unused ports (port 0 unused).
  std::vector<std::vector<int>> port_link;

  int num_switches() const { return static_cast<int>(labels.size()); }
  int radix() const { return p + k_prime; }
  int intra_ports() const { return (q - delta) / 2 + 1; }  // switch ports inside the rack
  std::string name(int sw) const;
  std::optional<int> find(std::string_view name) const;  // switch index by name
  // Port at switch `sw` towards rack `rack` (!= own rack).
  int port_to_rack(int sw, int rack) const;
  // The planned peer of (sw, port): {peer switch, peer port}, or nothing.
  std::optional<std::pair<int, int>> peer(int sw, int port) const;
  // The port of `sw` cabled to switch `neighbour` (the one port model: forwarding tables, LFTs and
  // cabling sheets all take their port numbers from here); -1 when they are not neighbours.
  int port_to(int sw, int neighbour) const;
  int num_endpoints() const { return num_switches() * p; }
  // (neighbour, port) per switch, sorted by neighbour: the index behind port_to.
  std::vector<std::vector<std::pair<int, int>>> neighbour_port;
};

// switch_ports = -1 means p + k'; throws UserError if smaller than p + k'.
CablingPlan make_cabling_plan(int q, int p = -1, int switch_ports = -1, const std::string& prefix = "sf");
// The plan of a config: the Slim Fly of [topology] (kind = "slim_fly", q, p) with the [cabling] keys
// switch_ports and name_prefix. Errors name the key and where its value came from.
CablingPlan make_cabling_plan(const config::Config& cfg);

// Writers (formats documented in docs/slimfly-toolkit.md).
std::string plan_links_csv(const CablingPlan& plan);
std::string plan_ports_csv(const CablingPlan& plan);  // one row per switch port (placement + role)

// ---- Cable sheets ------------------------------------------------------------------------------
// Floor layout for length estimates (the [cabling] keys): racks in rows of racks_per_row (0 = one
// row), rack R at row R / racks_per_row, position R % racks_per_row; switch (S, R, I) in slot
// S * q + I from the top (1 U each). A cable between racks runs up to the overhead tray, along it
// (rack_pitch per position, row_pitch per row) and down; inside a rack it runs between the slots;
// an endpoint cable is host_cable_m long (hosts beside their rack). Every estimate adds slack_m and
// is rounded up to the next stock length; copper DAC up to dac_max_m, optical AOC beyond.
struct CableLayout {
  double rack_pitch_m = 0.6, row_pitch_m = 2.4, tray_m = 0.5, slack_m = 1.0, host_cable_m = 2.0, dac_max_m = 3.0;
  int racks_per_row = 0;
  static constexpr double kRackUnitM = 0.0445;
};
struct Cable {
  std::string id;  // "L<link>" switch-switch, "E<endpoint>" endpoint
  std::string a_rack, a_device, b_rack, b_device;
  int a_port = 0, b_port = 0;
  std::string media;  // "DAC" or "AOC"
  double estimate_m = 0, length_m = 0;
  std::string label_a, label_b;  // what to print on the label at each end
};
std::vector<Cable> plan_cables(const CablingPlan& plan, const CableLayout& layout);  // switch cables, then endpoints
CableLayout cable_layout(const config::Config& cfg);
std::string cables_csv(const std::vector<Cable>& cables);
// Per rack: the cables with an end in rack R (CSV, and a printable HTML page).
std::string rack_cables_csv(const CablingPlan& plan, const std::vector<Cable>& cables, int rack);
std::string rack_cables_html(const CablingPlan& plan, const std::vector<Cable>& cables, int rack);
std::string plan_json(const CablingPlan& plan);         // whole plan: racks, switches, ports, links, steps
std::string plan_wiring_text(const CablingPlan& plan);  // human 3-step instructions
std::string rack_pair_svg(const CablingPlan& plan, int rack_a, int rack_b);  // Fig. 4-style diagram
// A dump in ibnetdiscover's text format for the planned fabric (switches and one HCA per endpoint
// port); node descriptions carry the planned switch names. GUIDs are deterministic.
std::string emit_ibnetdiscover(const CablingPlan& plan);

// Names and identities of the planned fabric, shared by the ibnetdiscover emitter, the cabling
// sheets and the OpenSM tables so that every file names a node the same way. GUIDs are 16 lowercase
// hex digits; endpoint e is the HCA on port e % p + 1 of switch e / p.
std::string switch_guid(int sw);
std::string ca_node_guid(int endpoint);
std::string ca_port_guid(int endpoint);                            // the HCA's port 1
std::string switch_description(const CablingPlan& plan, int sw);   // "MF0;sf-0-1-2:SX6036/U1"
std::string endpoint_name(const CablingPlan& plan, int endpoint);  // "sf-0-1-2-n3" (switch port 3)

// ---- ibnetdiscover parsing -------------------------------------------------------------------
struct IbNode {
  char type = 'S';   // 'S' switch, 'H' channel adapter (Ca), 'R' router (Rt)
  std::string guid;  // 16 lowercase hex digits
  int nports = 0;
  std::string desc;  // NodeDescription (without quotes)
  int line = 0;
};
struct IbEnd {
  std::string guid;
  int port = 0;
  bool operator<(const IbEnd& o) const { return guid != o.guid ? guid < o.guid : port < o.port; }
  bool operator==(const IbEnd& o) const { return guid == o.guid && port == o.port; }
};
struct IbFabric {
  std::string source;
  std::string format;  // "ibnetdiscover" or "lst"
  std::vector<IbNode> nodes;
  std::map<std::string, int> by_guid;           // guid -> index in nodes
  std::map<std::string, char> type;             // guid -> 'S'/'H'/'R', from headers and link lines
  std::map<IbEnd, std::pair<IbEnd, int>> peer;  // both directions; value = (peer end, line)
  std::map<IbEnd, std::string> port_guid;       // port GUIDs of CA/router ports, where the dump names them
};
// Parses a discovered fabric; malformed input throws UserError "source:line: message". Accepted:
//  * ibnetdiscover output, with or without -g (chassis grouping: "Chassis N (guid ...)",
//    "Non-Chassis Nodes", "Hostname: ..." lines, "# Chassis ..." comments after attributes, [ext N]);
//  * the LST topology format written by OpenSM (opensm-subnet.lst) and ibdiagnet (ibdiagnet2.lst):
//    one "{ SW Ports:.. NodeGUID:.. PortGUID:.. {desc} LID:.. PN:.. } { ... } PHY=.." line per port.
// The format is detected from the first non-comment line.
IbFabric parse_ibnetdiscover(std::istream& in, const std::string& source);
IbFabric parse_ibnetdiscover_text(std::string_view text, const std::string& source);
IbFabric parse_lst_text(std::string_view text, const std::string& source);

// Node-name map ("0x<guid> "<name>"" per line, as OpenSM's node-name-map; '#' comments).
std::map<std::string, std::string> parse_name_map(std::istream& in, const std::string& source);
std::string normalize_guid(std::string_view hex);  // "0x2C9..." -> 16 lowercase hex digits; "" if bad

// ---- discovered switches -> planned switches ----------------------------------------------------
// A GUID in the mapping file wins; otherwise a token of the node description equal to a planned name
// ("MF0;sf-0-1-2:SX6036/U1"). Throws UserError when the dump has no switch at all (empty or not a
// dump), when no discovered switch matches (with a hint to use --map) and when two switches map to
// the same planned name.
struct SwitchMapping {
  std::map<std::string, int> guid_sw;  // discovered switch GUID -> planned switch index
  std::vector<int> sw_node;            // planned switch -> index in IbFabric::nodes, -1 = not discovered
  int discovered = 0, mapped = 0, by_file = 0;
  std::vector<std::string> unexpected;  // discovered switches matching no planned name
  std::vector<std::string> warnings;    // mapping-file entries naming no planned switch / absent GUIDs
};
SwitchMapping map_switches(const CablingPlan& plan, const IbFabric& fabric,
                           const std::map<std::string, std::string>* name_map = nullptr);

// ---- verification ----------------------------------------------------------------------------
struct VerifyReport {
  int planned = 0, matched = 0;
  std::vector<std::string> missing;     // planned links not present
  std::vector<std::string> miswired;    // present cables on planned ports, with the fix
  std::vector<std::string> unexpected;  // cables on ports the plan leaves free / unknown switches
  std::vector<std::string> warnings;    // e.g. empty endpoint ports, unmapped CAs
  std::vector<std::string> mapping;     // how discovered switches were matched to the plan
  bool ok() const { return missing.empty() && miswired.empty() && unexpected.empty(); }
  std::string text() const;
};
VerifyReport verify_cabling(const CablingPlan& plan, const IbFabric& fabric,
                            const std::map<std::string, std::string>* name_map = nullptr);

}  // namespace lbsim::analysis
