// PsnRing (transport/psn_ring.h): the per-PSN bits and entries of the PSNs in play, in a ring that
// doubles when a PSN beyond it is claimed and drops the blocks below the cumulative point. Checked
// against a plain per-PSN model of the whole message under random claims, sets and advances.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "transport/psn_ring.h"

using lbsim::transport::PsnRing;

namespace {

struct Value {
  std::uint32_t v = 0;
};

}  // namespace

// Bits read as set below the ring and clear beyond it; an entry claimed beyond the ring grows it
// (doubling) and keeps what the ring held, also after the ring has wrapped around.
TEST(PsnRing, GrowsKeepingItsBlocksAndReadsOutsideAsSetBelowClearBeyond) {
  PsnRing<Value> r;
  EXPECT_TRUE(r.empty());
  EXPECT_FALSE(r.test(0));
  EXPECT_EQ(r.find(0), nullptr);
  r.entry(5).v = 55;
  r.set(5);
  EXPECT_EQ(r.blocks(), 1u);
  for (std::uint32_t p = 0; p < 64; ++p) r.set(p);
  r.advance(64);  // block 0 all set: it leaves the ring, whose one slot now holds block 1
  EXPECT_EQ(r.lo(), 64u);
  EXPECT_TRUE(r.test(5));  // below the ring: set
  EXPECT_EQ(r.word(0), ~0ULL);
  EXPECT_EQ(r.find(5), nullptr);
  EXPECT_EQ(r.find(64)->v, 0u);  // the slot was cleared for block 1
  r.entry(70).v = 70;
  r.set(70);
  r.entry(64 * 3 + 1).v = 193;  // block 3: the ring doubles twice to cover blocks 1-4
  EXPECT_EQ(r.blocks(), 4u);
  EXPECT_EQ(r.find(70)->v, 70u);
  EXPECT_TRUE(r.test(70));
  EXPECT_FALSE(r.test(71));
  EXPECT_EQ(r.word(1), 1ULL << 6);
  EXPECT_FALSE(r.test(64 * 5));  // beyond the ring: clear
  EXPECT_EQ(r.word(5), 0u);
  EXPECT_EQ(r.find(64 * 5), nullptr);
  // Blocks 1 and 2 leave, 5 and 6 take their slots (wrapped); growing again keeps every value.
  for (std::uint32_t p = 64; p < 192; ++p) r.set(p);
  r.advance(192);
  r.entry(64 * 6 + 2).v = 386;
  EXPECT_EQ(r.blocks(), 4u);
  r.entry(64 * 9).v = 576;
  EXPECT_EQ(r.blocks(), 8u);
  EXPECT_EQ(r.find(193)->v, 193u);
  EXPECT_EQ(r.find(386)->v, 386u);
  EXPECT_EQ(r.find(576)->v, 576u);
  EXPECT_EQ(r.find(387)->v, 0u);
  r.release();
  EXPECT_EQ(r.bytes(), 0u);
}

// Random claims up to `span` PSNs past the cumulative point, in any order, with the cumulative point
// following the set bits: every bit, word and entry reads as the whole-message model does, and the
// ring stays within the widest range in play (rounded up to whole blocks and a power of two).
TEST(PsnRing, MatchesAWholeMessageModel) {
  for (std::uint32_t seed = 1; seed <= 6; ++seed) {
    std::mt19937 rng(seed);
    const std::uint32_t span = 16u << (seed % 6);  // 32 ... 1,024 PSNs in play
    constexpr std::uint32_t kPsns = 20'000;
    std::vector<bool> bit(kPsns + 2'048, false);
    std::vector<std::uint32_t> value(bit.size(), 0);
    PsnRing<Value> r;
    std::uint32_t cum = 0, high = 0;
    while (cum < kPsns) {
      const std::uint32_t psn = cum + static_cast<std::uint32_t>(rng() % span);
      high = std::max(high, psn);
      if (rng() % 3) {
        r.entry(psn).v = value[psn] = static_cast<std::uint32_t>(rng());
      } else {
        r.set(psn);
        bit[psn] = true;
        while (bit[cum]) ++cum;
        r.advance(cum);
      }
      // A few reads anywhere near the PSNs in play.
      for (int k = 0; k < 4; ++k) {
        const std::uint32_t q =
            cum + static_cast<std::uint32_t>(rng() % (span + 256)) - std::min<std::uint32_t>(cum, 128);
        ASSERT_EQ(r.test(q), q < cum || bit[q]) << "seed " << seed << " psn " << q;
        const std::uint32_t w = q >> 6;
        std::uint64_t want = 0;
        for (std::uint32_t i = 0; i < 64; ++i)
          if (64 * w + i < cum || bit[64 * w + i]) want |= 1ULL << i;
        ASSERT_EQ(r.word(w), want) << "seed " << seed << " word " << w;
        if (q >= r.lo() && q <= high) {
          ASSERT_NE(r.find(q), nullptr);
          ASSERT_EQ(r.find(q)->v, value[q]) << "seed " << seed << " psn " << q;
        }
      }
      ASSERT_LE(r.blocks(), std::bit_ceil(span / 64 + 2)) << "seed " << seed;
    }
  }
}
