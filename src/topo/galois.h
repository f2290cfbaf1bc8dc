// Arithmetic in the finite field GF(q), q = p^n a prime power, as needed by the Slim Fly (MMS)
// construction ([SlimFly] App. A.2: "base ring" Z_q, primitive element xi, generator
// sets X and X'). For prime q this is plain arithmetic mod q; for q = p^n (n > 1) "Z_q" must be read
// as the field F_q = F_p[t] / (f(t)) with f an irreducible polynomial of degree n — the integers
// mod 4, 8, 9, ... are not a field and give no Slim Fly.
//
// Encoding: an element is an int in [0, q). Its base-p digits are the coefficients of a polynomial
// of degree < n (digit i = coefficient of t^i). So for prime q the encoding is the residue itself,
// 0 is the additive and 1 the multiplicative identity in every case.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace lbsim::topo {

// If q = p^n for a prime p and n >= 1, returns {p, n}; otherwise nothing (q < 2 included).
struct PrimePower {
  int p = 0, n = 0;
};
std::optional<PrimePower> prime_power(int q);

class GaloisField {
 public:
  // Builds GF(q); throws lbsim::UserError if q is not a prime power (or is too large for tables).
  explicit GaloisField(int q);

  int order() const { return q_; }
  int characteristic() const { return p_; }
  int degree() const { return n_; }
  // Coefficients of the monic irreducible modulus f(t), lowest degree first (size n+1); for prime
  // q this is t (i.e. {0, 1}) and plays no role.
  const std::vector<int>& modulus() const { return modulus_; }

  int add(int a, int b) const { return add_[idx(a, b)]; }
  int sub(int a, int b) const { return add(a, neg(b)); }
  int neg(int a) const { return neg_[a]; }
  int mul(int a, int b) const { return mul_[idx(a, b)]; }
  // a^e for e >= 0.
  int pow(int a, std::int64_t e) const;
  // Multiplicative order of a != 0 (smallest e > 0 with a^e = 1).
  int mult_order(int a) const;
  // The smallest (in the int encoding) element of multiplicative order q-1. Deterministic.
  int primitive_element() const;

 private:
  std::size_t idx(int a, int b) const {
    return static_cast<std::size_t>(a) * static_cast<std::size_t>(q_) + static_cast<std::size_t>(b);
  }
  int q_ = 0, p_ = 0, n_ = 0;
  std::vector<int> modulus_;
  std::vector<int> add_, mul_, neg_;  // q*q, q*q and q tables
};

}  // namespace lbsim::topo
