// Layered routing as InfiniBand tables that OpenSM loads ([SlimFly] sec. 5.1 "Routing", 5.2
// "Deadlock-Freedom", 5.4): LIDs with LMC, linear forwarding tables (LFTs) for every switch, and for
// the deadlock-free lanes the SL of every route and the SL-to-VL tables of every switch.
//
// Files (grammars documented in docs/layered-routing.md, each parsed back by the functions below):
//  * lfts.dump — the unicast dump format of `ibroute` / `dump_lfts.sh` / OpenSM's opensm-lfts.dump,
//    which OpenSM's file routing engine loads (`opensm -R file -U lfts.dump`). One block per switch,
//    keyed by the switch's node GUID; every LID line names the destination's port GUID, so OpenSM
//    can move the entry when the fabric's LIDs differ (remap_lid: base + (LID & (2^LMC - 1)), which
//    is only right when the LIDs are LMC-aligned);
//  * guid2lid — OpenSM's persistent GUID-to-LID file (OSM_CACHE_DIR/guid2lid, the osm_db format
//    "0x<port guid> 0x<min lid> 0x<max lid>" followed by a blank line); OpenSM drops entries whose
//    range is not aligned to 2^LMC (osm_lid_mgr.c), so every endpoint block here is aligned;
//  * lids.csv — the same assignment for people (name, kind, switch port);
//  * opensm.conf — the OpenSM options that go with the files (lmc, routing_engine file, lfts_file,
//    max_op_vls, QoS);
//  * path-sl.txt — with a deadlock scheme: the SL each source uses towards each destination LID;
//  * sl2vl.dump — with a deadlock scheme: every switch's SL-to-VL table per (in port, out port) in
//    the format of OpenSM's opensm-sl2vl.dump (osm_dump.c).
//
// LID plan (sec. 5.1, 5.4): LMC = ceil(log2 |L|); endpoint e (Fabric order) owns the aligned block
// [(e+1) 2^LMC, (e+2) 2^LMC - 1] and uses LID base + o for layer o mod |L| (offsets >= |L| repeat the
// layers, so no LID of the block is left without a route). Switches (base port 0: one LID, LMC 0)
// take the 2^LMC - 1 LIDs below the first block, then the LIDs after the last block, so the top LID
// is N * 2^LMC + N_r, exactly Table 2's bound. Without endpoints (p = 0) every switch owns an aligned
// block instead (OpenSM: lmc_esp0 TRUE).
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/deadlock.h"
#include "analysis/fabric.h"
#include "routing/layered.h"

namespace lbsim::analysis {

inline constexpr int kMaxUnicastLid = 0xBFFF;

// ---- LIDs -----------------------------------------------------------------------------------
int lmc_for_layers(int layers);  // ceil(log2 layers)

struct LidPlan {
  int layers = 1, lmc = 0;
  bool switch_blocks = false;      // no endpoints: switches own 2^LMC-LID blocks (enhanced port 0)
  std::vector<int> endpoint_base;  // per Fabric endpoint: aligned base LID
  std::vector<int> switch_lid;     // per switch: its LID (its block's base with switch_blocks)
  int max_lid = 0;
  int block() const { return 1 << lmc; }
  int switch_lids() const { return switch_blocks ? block() : 1; }
};
// Throws UserError when the LIDs do not fit the unicast range (sec. 5.4, Table 2) or |L| > 128.
LidPlan make_lid_plan(const Fabric& f, int layers);

// ---- Linear forwarding tables ----------------------------------------------------------------
inline constexpr std::uint8_t kNoPort = 0xFF;  // OSM_NO_PATH
// lft[s][lid] = output port of switch s (0 = the switch itself), kNoPort = no entry.
using Lfts = std::vector<std::vector<std::uint8_t>>;
// port[l][s][d] of sec. 5.1 on the fabric's ports: endpoint LIDs use layer (offset mod |L|), switch
// LIDs the minimal layer 0 (all layers with switch_blocks). Throws if a next hop has no cable.
Lfts compute_lfts(const routing::RoutingLayers& r, const Fabric& f, const LidPlan& lids);

std::string format_lfts_dump(const Fabric& f, const LidPlan& lids, const Lfts& lft);
// format_lfts_dump in pieces, so a large dump can be written (and checked) one switch at a time:
// header() then block(s) for every switch in order give the same bytes. Each appends to `out` and
// returns the number of lines appended.
class LftsDumpFormatter {
 public:
  LftsDumpFormatter(const Fabric& f, const LidPlan& lids);
  long header(std::string& out) const;
  long block(int s, const std::vector<std::uint8_t>& lft, std::string& out) const;
  // Bytes block(s, lft) appends (to size a buffer up front).
  std::size_t block_size(const std::vector<std::uint8_t>& lft) const;

 private:
  const Fabric* f_;
  const LidPlan* lids_;
  std::vector<std::pair<char, int>> owner_;     // per LID: ('S' | 'H', index), kind 0 = none
  std::vector<std::string> sw_text_, ep_text_;  // " : (<info>)\n" per switch / endpoint
};
std::string format_guid2lid(const Fabric& f, const LidPlan& lids);
std::string format_lid_csv(const Fabric& f, const LidPlan& lids);
// `lfts_file` is written as given (make it absolute); vls = 0: no deadlock scheme.
std::string format_opensm_conf(const LidPlan& lids, const std::string& lfts_file, const std::string& scheme, int vls);
int op_vls_code(
    int vls);  // PortInfo:OperationalVLs for V data lanes: 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14

// ---- Service levels and SL-to-VL tables (sec. 5.2) ------------------------------------------
struct SlTables {
  std::string scheme;  // "dfsssp" or "three-lane"
  int vls = 0, layers = 0, switches = 0;
  // SL of the route of layer l from switch s to switch d: sl[(l * n + s) * n + d] (0 when s == d).
  std::vector<std::uint8_t> route_sl;
  // sl2vl[s][(in * (nports + 1) + out) * 16 + sl] for switch s (ports 0..nports).
  std::vector<std::vector<std::uint8_t>> sl2vl;
  std::array<std::uint8_t, 16> ca_sl2vl{};  // HCA ports
  int sl(int l, int s, int d) const {
    return route_sl[(static_cast<std::size_t>(l) * static_cast<std::size_t>(switches) + static_cast<std::size_t>(s)) *
                        static_cast<std::size_t>(switches) +
                    static_cast<std::size_t>(d)];
  }
};
// DFSSSP: SL = the route's lane, SL-to-VL the identity. Three-lane: SL = colour of the route's second
// switch; a switch maps (in port, SL) to the lane subset of the hop class it infers: an endpoint port
// or port 0 -> first hop, SL equal to its colour -> second hop, otherwise third hop.
SlTables make_sl_tables(const routing::RoutingLayers& r, const Fabric& f, const VlAssignment& a,
                        const std::vector<Route>& routes);
std::string format_path_sl(const Fabric& f, const LidPlan& lids, const SlTables& t);
std::string format_sl2vl_dump(const Fabric& f, const LidPlan& lids, const SlTables& t);

// ---- Parse-back, following the grammar of each file's consumer -------------------------------
// lfts.dump as OpenSM's file routing engine reads it (osm_ucast_file.c): lines starting with
// "Unicast lids" open a switch and must contain " guid 0x<hex>" followed by a blank; lines starting
// with "0x" give "<hex lid> <decimal port>" (each followed by a blank) and optionally
// " portguid 0x<hex>" followed by a blank or ':'; '#' lines and all other lines are ignored.
struct LftEntry {
  std::uint64_t port_guid = 0;  // the GUID the line names (has_port_guid)
  int lid = 0;
  std::uint16_t port = 0;
  bool has_port_guid = false;  // false when the line names none
};
struct LftDumpSwitch {
  std::string guid;
  int line = 0;
  std::vector<LftEntry> entries;
};
// `line_offset`: lines before `text` in the file (for parsing a file piece by piece; errors name
// the file's line numbers).
std::vector<LftDumpSwitch> parse_lfts_dump(std::string_view text, const std::string& source, long line_offset = 0);
// guid2lid as osm_db_restore reads it: a key at column 0 starts an entry, the rest of the line is the
// value, following non-blank lines continue it, a blank line ends it; the key must be a number and
// the value "<min lid> <max lid>" (base 0 numbers). Returns port GUID -> (min, max).
std::map<std::string, std::pair<int, int>> parse_guid2lid(std::string_view text, const std::string& source);
// opensm.conf: "key value" lines and '#' comments.
std::map<std::string, std::string> parse_opensm_conf(std::string_view text, const std::string& source);
// path-sl.txt (our format): switch GUID -> per LID its SL (-1 = none).
struct PathSlTable {
  std::string scheme;
  std::map<std::string, std::vector<int>> by_switch;
};
PathSlTable parse_path_sl(std::string_view text, const std::string& source);
// sl2vl.dump in OpenSM's dump format: port GUID -> rows (in port, out port) -> 16 VLs.
struct Sl2VlDump {
  std::map<std::string, std::map<std::pair<int, int>, std::array<int, 16>>> by_guid;
};
Sl2VlDump parse_sl2vl_dump(std::string_view text, const std::string& source);

// ---- What OpenSM would program, and whether every route arrives -------------------------------
// The LFTs as the file routing engine installs them on a fabric whose ports got the LIDs of
// `assigned` (port GUID -> (min, max), e.g. a parsed guid2lid): blocks of unknown switch GUIDs are
// skipped (counted), and an entry naming a port GUID whose range does not hold its LID is moved to
// min + (LID & (2^lmc - 1)) of that port (osm_ucast_file.c remap_lid).
struct InstalledTables {
  Lfts lft;                                      // by Fabric switch index
  std::vector<std::pair<int, int>> switch_lids;  // per switch (min, max); (0, -1) = none
  std::vector<std::pair<int, int>> endpoint_lids;
  int unknown_switches = 0, switches_without_table = 0;
};
InstalledTables install_like_opensm(const Fabric& f, const std::vector<LftDumpSwitch>& dump,
                                    const std::map<std::string, std::pair<int, int>>& assigned);
// install_like_opensm one switch block at a time (add the blocks in file order, then finish()):
// the same tables without holding every parsed entry of a large dump at once.
class OpenSmInstaller {
 public:
  OpenSmInstaller(const Fabric& f, const std::map<std::string, std::pair<int, int>>& assigned);
  void add(const LftDumpSwitch& block);
  InstalledTables finish();

 private:
  InstalledTables t_;
  int top_ = 0;
  std::unordered_map<std::string, int> sw_of_;
  std::unordered_map<std::uint64_t, std::pair<int, int>> range_by_guid_;
  std::uint64_t last_guid_ = 0;
  std::pair<int, int> last_range_{0, -1};
  bool have_last_ = false;
};

struct WalkReport {
  long routes = 0, delivered = 0;
  int max_switch_hops = 0;
  std::vector<std::string> failures;  // the first few
  long failed = 0;
  bool ok() const { return failed == 0 && routes > 0; }
  std::string text() const;
};
// Follows every (source, destination LID) pair through the installed LFTs over the fabric's cables:
// sources are all endpoints and all switches (port 0), destinations every assigned LID. A route is
// delivered when it leaves through the port of the destination HCA or ends at the destination
// switch's port 0; it fails on a missing entry, an uncabled port, a wrong endpoint or a loop.
WalkReport walk_routes(const Fabric& f, const InstalledTables& t);

// With SLs: the VL of every hop (SL from path-sl, VL from the switch's SL-to-VL row of (in, out)),
// and whether the dependency graph over (channel, VL) has no cycle (sec. 5.2).
struct VlCheck {
  long routes = 0, hops = 0;
  int vls_used = 0;
  bool acyclic = false;
  std::string problem;  // first problem found ("" when fine)
};
VlCheck check_vls(const Fabric& f, const InstalledTables& t, const PathSlTable& sls, const Sl2VlDump& sl2vl);

}  // namespace lbsim::analysis
