// The run configuration: one typed object, every key declared once in config.cpp with its default,
// unit and documentation (docs/config.md is generated from that table by `lbsim config --markdown`).
// Files are TOML with sections; `--set section.key=value` overrides any key. Unknown keys, wrong
// types and bad values are UserErrors naming the file, line and key, with the closest valid key.
#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace lbsim::sim {

struct Config {
  // [topology]
  std::string topo_kind = "fat_tree";
  std::int64_t hosts = 128;
  std::int64_t tiers = 2;
  std::int64_t radix = 16;
  std::int64_t hosts_per_tor = 0;
  std::int64_t oversubscription = 1;
  double host_rate_gbps = 400, tier1_rate_gbps = 400, tier2_rate_gbps = 400;
  double host_latency_ns = 500, tier1_latency_ns = 500, tier2_latency_ns = 500;
  // Dragonfly / Slim Fly
  std::int64_t p = 0;  // hosts per switch; 0 = generator default
  std::int64_t a = 8, h = 4, g = 0, q = 5;
  std::string arrangement = "consecutive";
  std::string global_map;
  double link_rate_gbps = 400;
  double local_latency_ns = 25, global_latency_ns = 500;
  // [network]
  double switch_latency_ns = 500;
  std::int64_t mtu = 4096;
  std::int64_t header_bytes = 64;
  double queue_bdp = 1.0;
  std::int64_t queue_bytes = 0;
  std::int64_t queue_packets = 0;
  std::int64_t ctrl_queue_bytes = 0;
  double kmin = 0.2, kmax = 0.8;
  bool ecn = true;
  bool trimming = true;
  std::int64_t ev_bits = 16;
  std::string bdp_path = "shortest";  // base RTT / BDP from the longest shortest or bounded path
  // [routing]
  std::string routing = "ecmp";
  std::int64_t layers = 4;
  std::string layer_scheme = "layered";
  double layer_keep_fraction = 0.6;
  std::string valiant_mode = "per_hop";  // valiant: per-hop sampling or uniform over whole paths
  std::string ugal = "local";            // ugal_l: UGAL-L or UGAL-G
  // [transport]
  std::string cc = "dctcp_ack";
  double init_cwnd_bdp = 1.5, max_cwnd_bdp = 1.5;
  double ecn_decrease = 0.5, nack_decrease = 1.0, timeout_decrease = 1.0;
  double dctcp_g = 0.0625;
  bool quick_adapt = false, fast_increase = false;
  std::int64_t quick_adapt_gate = 3;
  double fast_increase_gain = 1.0;
  double rto_us = 0;  // 0 = derived from the topology
  std::int64_t ack_every = 1;
  double ack_delay_us = 1.0;
  // [lb]
  std::string lb = "ops";
  // [lb] Spritz family ([Spritz] Table II, sec. IV, V-A)
  std::int64_t spritz_buffer_size = 8;
  std::int64_t spritz_explore_threshold = 44;
  std::int64_t spritz_ecn_threshold = 8;
  double spritz_w_scale = 3;
  double spritz_min_bias_factor = 100;
  double spritz_ecn_bias_rate = 0.9;
  double spritz_restore_us = 0;  // 0 = 10 x RTO
  double spritz_reinsert_holdoff_rtts = 0;
  double flicr_ecn_fraction = 0.5;
  std::int64_t reps_buffer_size = 8;
  bool reps_freezing = true;
  double reps_freezing_timeout_us = 0;  // 0 = the RTO
  double reps_idle_us = 0;              // 0 = a connection never counts as new again
  std::string reps_ack_mode = "plain";
  std::int64_t reps_reuse = 0;          // 0 = transport.ack_every
  double reps_failure_rtt_factor = 2.0;
  double plb_threshold = 0.25;
  std::int64_t plb_rounds = 1;
  double flowlet_timeout_us = 0;  // 0 = base RTT / 2
  std::int64_t mptcp_subflows = 8;
  std::int64_t bitmap_evs = 256;
  std::int64_t bitmap_ecn_penalty = 1, bitmap_nack_penalty = 4, bitmap_timeout_penalty = 16;
  // [workload]
  std::string wl_kind = "permutation";
  std::int64_t size_bytes = 8 << 20;
  double start_us = 0;
  std::int64_t incast_senders = 8;
  std::int64_t incast_receiver = 0;
  std::string wl_file;
  std::int64_t incast_first_sender = -1;
  bool incast_bystanders = false;
  bool outside_group = false;
  std::int64_t shift = 1;
  std::string cdf = "websearch";
  double load = 0.5;
  double duration_us = 1000;
  double warmup_us = 0;
  std::int64_t max_senders_per_receiver = 0;
  double incast_interval_us = 0;
  std::int64_t incast_bytes = 64 * 1024;
  double monitored_fraction = 0;
  std::string destinations = "uniform";
  std::int64_t ranks = 0;
  bool random_subset = false;
  std::int64_t first_host = 0;
  std::int64_t window = 1;
  std::int64_t root = 0;
  std::string butterfly = "halving_doubling";
  bool background = true;
  std::int64_t background_bytes = 0;
  std::string background_lb = "ecmp";
  std::string htsim_start_unit = "us";
  double calc_unit_ns = 1;
  std::string ns3_topology;
  double ecmp_fraction = 0;  // fraction of transfers (seeded) that use ECMP instead of lb.algorithm
  // [failures]
  std::string failures_file;
  double fail_fraction = 0;
  std::string fail_links = "tor_uplinks";
  std::string fail_kind = "down";
  double fail_start_us = 0, fail_duration_us = 0;
  double fail_rate_gbps = 200;
  double fail_loss = 0.01;
  double converge_us = 0;  // 0 = routing never reacts
  // [output]
  std::string out_dir = "results/run";
  bool flows_csv = true;
  bool ports_csv = true;
  double queue_sample_us = 0;
  std::string path_usage_tag;  // empty = no path_usage.csv
  // [run]
  std::int64_t seed = 1;
  double end_us = 100000;
  std::string progress = "auto";

  // Where the config came from (for messages and relative paths).
  std::string source_file;
};

using Field = std::variant<bool Config::*, std::int64_t Config::*, double Config::*,
                           std::string Config::*>;

struct KeyDef {
  std::string key;  // "section.name"
  Field field;
  std::string unit;
  std::string doc;
  std::vector<std::string> choices;  // for strings: allowed values (empty = any)
  double min = -1e300, max = 1e300;  // for numbers: inclusive bounds
  bool size = false;                 // integer bytes; also accepts "8MiB", "4KiB", "1GB"
};

const std::vector<KeyDef>& config_keys();
const std::vector<std::string>& config_sections();

// Read a TOML file into `cfg` (on top of what it holds).
void load_config_file(Config& cfg, const std::string& path);
// Apply one `section.key=value` override (value parsed as TOML, else taken as a string).
void apply_override(Config& cfg, const std::string& assignment);
// Cross-key checks (kmin < kmax, ...); throws UserError.
void validate(const Config& cfg);
// The resolved configuration as TOML (every key, in table order).
std::string to_toml(const Config& cfg);
// Markdown reference of every key (docs/config.md).
std::string keys_markdown();
// Closest valid key to `key` (Levenshtein), for suggestions.
std::string closest_key(const std::string& key);

}  // namespace lbsim::sim
