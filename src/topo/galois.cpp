#include "topo/galois.h"

#include <fmt/core.h>

#include "core/error.h"

namespace lbsim::topo {

namespace {

// Tables are q*q ints each; 1024 keeps them at 4 MiB (and a Slim Fly with q = 1024 already has two
// million switches, far beyond anything we simulate or cable).
constexpr int kMaxFieldOrder = 1024;

using Poly = std::vector<int>;  // coefficients mod p, lowest degree first

void trim(Poly& a) {
  while (!a.empty() && a.back() == 0) a.pop_back();
}

// Remainder of a modulo the monic polynomial m, coefficients mod p.
Poly poly_mod(Poly a, const Poly& m, int p) {
  trim(a);
  const std::size_t dm = m.size() - 1;
  while (a.size() >= m.size()) {
    const int lead = a.back();
    const std::size_t shift = a.size() - 1 - dm;
    for (std::size_t i = 0; i <= dm; ++i) a[shift + i] = ((a[shift + i] - lead * m[i]) % p + p) % p;
    trim(a);
  }
  return a;
}

// Monic polynomial of degree d whose lower coefficients are the base-p digits of `code`.
Poly monic_from_code(int code, int d, int p) {
  Poly f(static_cast<std::size_t>(d) + 1, 0);
  for (int i = 0; i < d; ++i) {
    f[static_cast<std::size_t>(i)] = code % p;
    code /= p;
  }
  f[static_cast<std::size_t>(d)] = 1;
  return f;
}

int ipow(int b, int e) {
  int r = 1;
  for (int i = 0; i < e; ++i) r *= b;
  return r;
}

// f (monic, degree n) is irreducible over F_p iff no monic polynomial of degree 1..n/2 divides it.
bool irreducible(const Poly& f, int p) {
  const int n = static_cast<int>(f.size()) - 1;
  for (int d = 1; 2 * d <= n; ++d)
    for (int code = 0; code < ipow(p, d); ++code)
      if (poly_mod(f, monic_from_code(code, d, p), p).empty()) return false;
  return true;
}

}  // namespace

std::optional<PrimePower> prime_power(int q) {
  if (q < 2) return std::nullopt;
  int p = 2;
  while (p * p <= q && q % p != 0) ++p;
  if (q % p != 0) p = q;  // q itself is prime
  int n = 0, r = q;
  while (r % p == 0) {
    r /= p;
    ++n;
  }
  if (r != 1) return std::nullopt;
  return PrimePower{p, n};
}

GaloisField::GaloisField(int q) : q_(q) {
  const auto pp = prime_power(q);
  if (!pp)
    throw UserError(
        fmt::format("GF(q): q = {} is not a prime power (a finite field of order q exists "
                    "only for q = p^n, p prime, n >= 1)",
                    q));
  if (q > kMaxFieldOrder)
    throw UserError(fmt::format("GF(q): q = {} is larger than the supported maximum {}", q, kMaxFieldOrder));
  p_ = pp->p;
  n_ = pp->n;
  const auto qs = static_cast<std::size_t>(q);

  // The smallest monic irreducible polynomial of degree n (by coefficient code): deterministic, so a
  // given q always yields the same field encoding and therefore the same switch labels.
  if (n_ == 1) {
    modulus_ = {0, 1};
  } else {
    for (int code = 0; code < q; ++code) {
      Poly f = monic_from_code(code, n_, p_);
      if (irreducible(f, p_)) {
        modulus_ = std::move(f);
        break;
      }
    }
  }

  auto digit = [&](int a, int i) { return (a / ipow(p_, i)) % p_; };
  add_.assign(qs * qs, 0);
  neg_.assign(qs, 0);
  for (int a = 0; a < q; ++a) {
    int na = 0;
    for (int i = 0; i < n_; ++i) na += ((p_ - digit(a, i)) % p_) * ipow(p_, i);
    neg_[static_cast<std::size_t>(a)] = na;
    for (int b = 0; b < q; ++b) {
      int s = 0;
      for (int i = 0; i < n_; ++i) s += ((digit(a, i) + digit(b, i)) % p_) * ipow(p_, i);
      add_[idx(a, b)] = s;
    }
  }

  // times_t[a] = a * t mod f; scalar[c*q + a] = c * a (c in F_p). Then a*b follows by Horner's rule
  // over b's digits: a*b = (...((b_{n-1} a) t + b_{n-2} a) t + ...) + b_0 a.
  std::vector<int> times_t(qs, 0), scalar(static_cast<std::size_t>(p_) * qs, 0);
  for (int a = 0; a < q; ++a) {
    for (int c = 0; c < p_; ++c) {
      int s = 0;
      for (int i = 0; i < n_; ++i) s += ((c * digit(a, i)) % p_) * ipow(p_, i);
      scalar[static_cast<std::size_t>(c) * qs + static_cast<std::size_t>(a)] = s;
    }
    if (n_ > 1) {
      Poly shifted(static_cast<std::size_t>(n_) + 1, 0);
      for (int i = 0; i < n_; ++i) shifted[static_cast<std::size_t>(i) + 1] = digit(a, i);
      const Poly r = poly_mod(shifted, modulus_, p_);
      int v = 0;
      for (std::size_t i = 0; i < r.size(); ++i) v += r[i] * ipow(p_, static_cast<int>(i));
      times_t[static_cast<std::size_t>(a)] = v;
    }
  }
  mul_.assign(qs * qs, 0);
  for (int a = 0; a < q; ++a)
    for (int b = 0; b < q; ++b) {
      if (n_ == 1) {
        mul_[idx(a, b)] = static_cast<int>((static_cast<std::int64_t>(a) * b) % q);
        continue;
      }
      int r = 0;
      for (int i = n_ - 1; i >= 0; --i) {
        r = times_t[static_cast<std::size_t>(r)];
        r = add(r, scalar[static_cast<std::size_t>(digit(b, i)) * qs + static_cast<std::size_t>(a)]);
      }
      mul_[idx(a, b)] = r;
    }
}

int GaloisField::pow(int a, std::int64_t e) const {
  int r = 1, b = a;
  while (e > 0) {
    if (e & 1) r = mul(r, b);
    b = mul(b, b);
    e >>= 1;
  }
  return r;
}

int GaloisField::mult_order(int a) const {
  if (a == 0) throw UserError("GF(q): 0 has no multiplicative order");
  int x = a;
  for (int e = 1; e < q_; ++e) {
    if (x == 1) return e;
    x = mul(x, a);
  }
  return q_ - 1;  // unreachable in a field: the order divides q-1
}

int GaloisField::primitive_element() const {
  if (q_ == 2) return 1;
  for (int a = 2; a < q_; ++a)
    if (mult_order(a) == q_ - 1) return a;
  return 1;  // unreachable: every finite field has a primitive element
}

}  // namespace lbsim::topo
