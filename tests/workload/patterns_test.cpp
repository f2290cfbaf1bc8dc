#include "workload/patterns.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "core/error.h"
#include "workload/validate.h"

namespace lbsim::workload {
namespace {

// Each host appears exactly once as a sender and once as a receiver, never to itself.
void expect_permutation(const Workload& w, std::int32_t n) {
  ASSERT_EQ(w.flows.size(), static_cast<std::size_t>(n));
  std::vector<int> sends(n, 0), recvs(n, 0);
  for (const auto& f : w.flows) {
    EXPECT_NE(f.src, f.dst);
    ++sends[f.src];
    ++recvs[f.dst];
  }
  for (int h = 0; h < n; ++h) {
    EXPECT_EQ(sends[h], 1) << "host " << h;
    EXPECT_EQ(recvs[h], 1) << "host " << h;
  }
}

TEST(Permutation, EveryHostSendsAndReceivesExactlyOnce) {
  for (std::int32_t n : {2, 3, 7, 128, 1056}) {
    PermutationParams p;
    p.bytes = 4 << 20;
    p.start = us(3);
    auto w = make_permutation(p, n, 42);
    expect_permutation(w, n);
    for (const auto& f : w.flows) {
      EXPECT_EQ(f.bytes, 4 << 20);
      EXPECT_EQ(f.start, us(3));
      EXPECT_FALSE(f.is_compute());
    }
    validate_workload(w, n);
  }
}

TEST(Permutation, SeededAndDeterministic) {
  PermutationParams p;
  auto a = make_permutation(p, 64, 7);
  auto b = make_permutation(p, 64, 7);
  auto c = make_permutation(p, 64, 8);
  std::vector<int> da, db, dc;
  for (auto& f : a.flows) da.push_back(f.dst);
  for (auto& f : b.flows) db.push_back(f.dst);
  for (auto& f : c.flows) dc.push_back(f.dst);
  EXPECT_EQ(da, db);
  EXPECT_NE(da, dc);  // 64 hosts: two seeds giving the same derangement has probability ~1e-89
}

TEST(Permutation, UniformOverDerangements) {
  // 4 hosts have D(4) = 9 derangements; 90,000 draws give each 10,000 +- 5 sigma (sigma = sqrt(n p q)).
  Rng rng(5, hash_name("test"), 0);
  std::map<std::vector<std::int32_t>, int> count;
  for (int i = 0; i < 90000; ++i) ++count[random_derangement({0, 1, 2, 3}, rng)];
  ASSERT_EQ(count.size(), 9u);
  for (const auto& [perm, c] : count) {
    for (int h = 0; h < 4; ++h) EXPECT_NE(perm[h], h);
    EXPECT_NEAR(c, 10000, 5 * std::sqrt(90000.0 * (1.0 / 9) * (8.0 / 9)));
  }
}

TEST(Permutation, GroupConstraintKeepsReceiversOutsideTheGroup) {
  PermutationParams p;
  p.group_size = 8;  // e.g. Dragonfly groups of 8 hosts
  auto w = make_permutation(p, 96, 3);
  expect_permutation(w, 96);
  for (const auto& f : w.flows) EXPECT_NE(f.src / 8, f.dst / 8);
}

TEST(Permutation, InfeasibleGroupIsAnError) {
  PermutationParams p;
  p.group_size = 8;
  EXPECT_THROW(make_permutation(p, 8, 1), UserError);   // a single group
  EXPECT_THROW(make_permutation(p, 12, 1), UserError);  // group 0 holds 8 of 12 hosts
  EXPECT_THROW(make_permutation(PermutationParams{}, 1, 1), UserError);
}

TEST(Tornado, HostSendsToItsTwinInTheOtherHalf) {
  auto w = make_tornado(TornadoParams{}, 128);
  expect_permutation(w, 128);
  // [REPS] sec. 4.2: with 128 nodes, node 0 sends to 64 and vice-versa, node 1 to 65, ...
  EXPECT_EQ(w.flows[0].dst, 64);
  EXPECT_EQ(w.flows[64].dst, 0);
  EXPECT_EQ(w.flows[1].dst, 65);
  EXPECT_EQ(w.flows[127].dst, 63);
  expect_permutation(make_tornado(TornadoParams{}, 7), 7);  // odd N: shift by 3, still a derangement
}

TEST(Incast, LowestIdsSendToTheReceiver) {
  IncastParams p;
  p.receiver = 160;
  p.senders = 32;
  p.bytes = 4 << 20;
  auto w = make_incast(p, 1056, 1);
  ASSERT_EQ(w.flows.size(), 32u);
  for (int i = 0; i < 32; ++i) {
    EXPECT_EQ(w.flows[i].src, i);
    EXPECT_EQ(w.flows[i].dst, 160);
  }
}

TEST(Incast, ReceiverIsSkippedAndRandomSendersAreDistinct) {
  IncastParams p;
  p.receiver = 2;
  p.senders = 4;
  auto w = make_incast(p, 10, 1);
  std::vector<int> src;
  for (auto& f : w.flows) src.push_back(f.src);
  EXPECT_EQ(src, (std::vector<int>{0, 1, 3, 4}));

  p.random_senders = true;
  p.senders = 9;  // all other hosts
  auto r = make_incast(p, 10, 5);
  std::set<int> s;
  for (auto& f : r.flows) {
    EXPECT_NE(f.src, 2);
    s.insert(f.src);
  }
  EXPECT_EQ(s.size(), 9u);
}

TEST(Incast, BystandersFormADisjointPermutation) {
  // [Spritz] sec. V-C: 1056 hosts, 32 senders -> 1 receiver, 1023 bystander flows.
  IncastParams p;
  p.receiver = 160;
  p.senders = 32;
  p.bystanders = true;
  auto w = make_incast(p, 1056, 9);
  ASSERT_EQ(w.flows.size(), 32u + 1023u);
  const auto incast = w.tag("incast");
  const auto bystander = w.tag("bystander");
  std::vector<int> sends(1056, 0), recvs(1056, 0);
  for (const auto& f : w.flows) {
    if (f.dst == 160) {
      EXPECT_EQ(f.tag, incast);
      continue;
    }
    EXPECT_EQ(f.tag, bystander);
    EXPECT_TRUE(f.src >= 32 && f.src != 160);
    EXPECT_TRUE(f.dst >= 32 && f.dst != 160);
    ++sends[f.src];
    ++recvs[f.dst];
  }
  for (int h = 32; h < 1056; ++h)
    if (h != 160) {
      EXPECT_TRUE(sends[h] == 1 && recvs[h] == 1) << h;
    }
}

TEST(Incast, BadParametersAreErrors) {
  IncastParams p;
  p.receiver = 10;
  EXPECT_THROW(make_incast(p, 10, 1), UserError);
  p.receiver = 0;
  p.senders = 10;
  EXPECT_THROW(make_incast(p, 10, 1), UserError);
  p.senders = 2;
  p.sender_list = {1, 0};
  EXPECT_THROW(make_incast(p, 10, 1), UserError);
  p.sender_list = {1, 1};
  EXPECT_THROW(make_incast(p, 10, 1), UserError);
}

TEST(FlowsCsv, ParsesColumnsInAnyOrderWithTagsAndLb) {
  std::istringstream in(
      "# a comment\n"
      "start_us,src,dst,bytes,tag,lb\n"
      "0,0,5,1048576,monitored,reps\n"
      "\n"
      "12.5,3,5,65536,,\n");
  auto w = parse_flows_csv(in, "flows.csv", 8);
  ASSERT_EQ(w.flows.size(), 2u);
  EXPECT_EQ(w.flows[0].src, 0);
  EXPECT_EQ(w.flows[0].dst, 5);
  EXPECT_EQ(w.flows[0].bytes, 1048576);
  EXPECT_EQ(w.flows[0].start, 0);
  EXPECT_EQ(w.tags[w.flows[0].tag], "monitored");
  EXPECT_EQ(w.flows[0].lb, "reps");
  EXPECT_EQ(w.flows[1].start, 12'500'000);  // 12.5 us in ps
  EXPECT_EQ(w.flows[1].tag, 0);
  EXPECT_EQ(w.flows[1].lb, "");
}

std::string error_of(const std::string& text, std::int32_t hosts = 8) {
  std::istringstream in(text);
  try {
    parse_flows_csv(in, "f.csv", hosts);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(FlowsCsv, ErrorsNameTheLine) {
  EXPECT_NE(error_of("src,dst,bytes,start_us\n0,1,100,0\n0,x,100,0\n").find("f.csv:3:"), std::string::npos);
  EXPECT_NE(error_of("src,dst,bytes,start_us\n\n0,1,100\n").find("f.csv:3: 3 fields, expected 4"), std::string::npos);
  EXPECT_NE(error_of("src,dst,bytes,start_us\n0,8,100,0\n").find("f.csv:2: dst 8 is out of range"), std::string::npos);
  EXPECT_NE(error_of("src,dst,bytes,start_us\n1,1,100,0\n").find("f.csv:2:"), std::string::npos);
  EXPECT_NE(error_of("src,dst,bytes,start_us\n1,2,-5,0\n").find("f.csv:2: bytes -5 is negative"), std::string::npos);
  EXPECT_NE(error_of("src,dst,bytes,start_us\n1,2,5,-1\n").find("f.csv:2: start_us"), std::string::npos);
  EXPECT_NE(error_of("src,dst,bytes,start_us\n1,2,5,1e13\n")
                .find("f.csv:2: start_us 10000000000000 is beyond the largest simulated time"),
            std::string::npos);
  EXPECT_NE(error_of("src,dst,size,start_us\n").find("f.csv:1: unknown column 'size'"), std::string::npos);
  EXPECT_NE(error_of("src,dst,bytes\n").find("f.csv:1: header lacks the required column 'start_us'"),
            std::string::npos);
  EXPECT_NE(error_of("# only a comment\n").find("no header"), std::string::npos);
}

}  // namespace
}  // namespace lbsim::workload

namespace lbsim::workload {

// Issue 14: a message of 2^32 + 1 packets became one packet through a uint32 count; sizes at the
// edge are errors naming the entry and the limit, and the byte total saturates instead of overflowing.
TEST(MessageLimits, PacketCountAboveThirtyTwoBitsIsAnError) {
  Workload w;
  w.tags = {"default"};
  FlowSpec f;
  f.src = 0;
  f.dst = 1;
  f.bytes = kMaxMessagePackets * 4096;  // exactly the limit
  w.flows.push_back(f);
  EXPECT_NO_THROW(check_packet_counts(w, 4096, "c.toml:3: "));
  w.flows[0].bytes = (std::int64_t{1} << 44) + 4096;  // 2^32 + 1 packets of 4 KiB
  try {
    check_packet_counts(w, 4096, "c.toml:3: ");
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(
        std::string(e.what()).find("c.toml:3: workload entry 0 (0 -> 1): 17592186048512 bytes are 4294967297 packets"),
        std::string::npos)
        << e.what();
  }
  w.flows[0].bytes = std::numeric_limits<std::int64_t>::max();  // no overflow in the count
  EXPECT_THROW(check_packet_counts(w, 4096, ""), UserError);
  w.flows.push_back(w.flows[0]);
  EXPECT_EQ(workload_stats(w).total_bytes, std::numeric_limits<std::int64_t>::max());
}

}  // namespace lbsim::workload
