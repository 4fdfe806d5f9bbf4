// PowerSGD (Vogels et al. 2019): a low-rank approximation of each weight matrix from one power
// iteration per step, warm-started from the previous step's right factor.
//
// A layer whose shape has 2+ dimensions is viewed as a row-major matrix M of m = shape[0] rows
// and n = numel / m columns (a conv kernel [out, in, kh, kw] is out x in*kh*kw); other layers
// (biases, 1-D) travel raw. With the effective rank r' = min(r, m, n), the sender computes
//   P = M Q;  orthonormalise P's columns (Gram-Schmidt);  Q = M^T P
// sends P and Q, and keeps Q as the next step's warm start. The receiver rebuilds M ~ P Q^T
// (= P P^T M, the projection of M onto span(P)) from the payload alone.
// Wire format, layer after layer in layout order (fp32 little-endian, see wire.hpp):
//   matrix layer: P row-major (m x r'), then Q row-major (n x r')  -> 4 r' (m + n) bytes
//   other layer:  the n_l values as fp32                            -> 4 n_l bytes
// When r' = min(m, n) the P, Q form is exact but no smaller than the raw matrix (4 m n bytes):
// it is kept anyway, so one setting gives one format for every layer.
// payload_bytes() restates these lengths; powersgd_bytes (at the end) gives them to timing-only
// runs.
// The initial Q (n x r', i.i.d. standard normal) comes from a generator seeded by
// (context.seed of the first encode, layer index). Linear algebra runs in double in plain loops:
// the matrices are small and the result is then independent of BLAS threading.
// The approximation is biased; error feedback is the caller's (ErrorFeedback).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <type_traits>

#include "compress/compressor.hpp"
#include "compress/family.hpp"
#include "compress/wire.hpp"
#include "util/format.hpp"
#include "util/seed.hpp"

namespace edgetrain::compress {

namespace {

// Box-Muller on the generator's raw bits: the same on every standard library, unlike
// std::normal_distribution.
double standard_normal(std::mt19937_64& rng) {
  const double u1 = (static_cast<double>(rng() >> 11) + 1.0) * 0x1.0p-53;  // (0, 1]: log is finite
  const double u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// Row-major rows x cols matrix of doubles.
struct Dense {
  int64_t rows = 0, cols = 0;
  std::vector<double> a;
  double& at(int64_t i, int64_t j) { return a[static_cast<size_t>(i * cols + j)]; }
  double at(int64_t i, int64_t j) const { return a[static_cast<size_t>(i * cols + j)]; }
  double column_norm(int64_t j) const {
    double s = 0;
    for (int64_t i = 0; i < rows; ++i) s += at(i, j) * at(i, j);
    return std::sqrt(s);
  }
  // Removes from column j its components along the (orthonormal) columns 0..j-1.
  void project_out_previous(int64_t j) {
    for (int64_t k = 0; k < j; ++k) {
      double dot = 0;
      for (int64_t i = 0; i < rows; ++i) dot += at(i, k) * at(i, j);
      for (int64_t i = 0; i < rows; ++i) at(i, j) -= dot * at(i, k);
    }
  }
};

// Modified Gram-Schmidt, twice per column for orthogonality in floating point. A column that is
// (numerically) in the span of the previous ones is replaced by the standard basis vector with
// the largest component outside that span, so P stays orthonormal and P Q^T stays the
// projection P P^T M. Returns which columns were replaced.
std::vector<bool> orthonormalise(Dense& p) {
  double reference = 0;
  for (int64_t j = 0; j < p.cols; ++j) reference = std::max(reference, p.column_norm(j));
  std::vector<bool> replaced(static_cast<size_t>(p.cols), false);
  for (int64_t j = 0; j < p.cols; ++j) {
    p.project_out_previous(j);
    p.project_out_previous(j);
    double norm = p.column_norm(j);
    if (reference == 0 || norm <= 1e-9 * reference) {
      replaced[static_cast<size_t>(j)] = true;
      // Residual of e_k against the previous columns: 1 - sum_k' p(k, k')^2. Some k leaves at
      // least (rows - j) / rows since j < rows.
      int64_t best = 0;
      double best_residual = -1;
      for (int64_t k = 0; k < p.rows; ++k) {
        double in_span = 0;
        for (int64_t c = 0; c < j; ++c) in_span += p.at(k, c) * p.at(k, c);
        if (1 - in_span > best_residual) best_residual = 1 - in_span, best = k;
      }
      for (int64_t i = 0; i < p.rows; ++i) p.at(i, j) = i == best ? 1.0 : 0.0;
      p.project_out_previous(j);
      p.project_out_previous(j);
      norm = p.column_norm(j);
    }
    for (int64_t i = 0; i < p.rows; ++i) p.at(i, j) /= norm;
  }
  return replaced;
}

// Calls f with the rank as a compile-time constant for the usual small ranks (0 otherwise), so
// the loops over the rank unroll; the arithmetic is the same either way.
template <typename F>
void with_rank(int64_t r, F&& f) {
  switch (r) {
    case 1: f(std::integral_constant<int64_t, 1>{}); break;
    case 2: f(std::integral_constant<int64_t, 2>{}); break;
    case 4: f(std::integral_constant<int64_t, 4>{}); break;
    default: f(std::integral_constant<int64_t, 0>{}); break;
  }
}

// P += M Q (P zero on entry): each P(i, k) summed over j in increasing order. R: the rank when
// known at compile time, else 0 and r_dynamic.
template <int64_t R>
void multiply_mq(const float* m_values, int64_t m, int64_t n, int64_t r_dynamic, const double* __restrict q,
                 double* __restrict p) {
  const int64_t r = R > 0 ? R : r_dynamic;
  for (int64_t i = 0; i < m; ++i) {
    double* prow = p + i * r;
    const float* mrow = m_values + i * n;
    for (int64_t j = 0; j < n; ++j) {
      const double mij = mrow[j];
      for (int64_t k = 0; k < r; ++k) prow[k] += mij * q[j * r + k];
    }
  }
}

// Q += M^T P (Q zero on entry): each Q(j, k) summed over i in increasing order.
template <int64_t R>
void multiply_mtp(const float* m_values, int64_t m, int64_t n, int64_t r_dynamic, const double* __restrict p,
                  double* __restrict q) {
  const int64_t r = R > 0 ? R : r_dynamic;
  for (int64_t i = 0; i < m; ++i) {
    const double* prow = p + i * r;
    const float* mrow = m_values + i * n;
    for (int64_t j = 0; j < n; ++j) {
      const double mij = mrow[j];
      for (int64_t k = 0; k < r; ++k) q[j * r + k] += mij * prow[k];
    }
  }
}

struct MatrixLayer {
  int64_t m = 0, n = 0, rank = 0;  // rank: the effective r' = min(r, m, n)
  std::optional<Dense> warm_q;     // sender state, created on the first encode
  std::mt19937_64 rng;             // draws the initial Q and refills dead warm-start columns
};

class PowerSgd final : public Compressor {
 public:
  PowerSgd(const Config& c, const std::vector<Layer>& layers)
      : Compressor(detail::layout_size(layers)), layers_(layers), matrices_(layers.size()) {
    for (size_t li = 0; li < layers_.size(); ++li) {
      const Layer& l = layers_[li];
      if (l.shape.size() < 2 || l.numel == 0) continue;
      const int64_t m = l.shape[0];
      if (m <= 0 || l.numel % m != 0)
        throw CompressError("compress: layer \"" + l.name + "\" has " + std::to_string(l.numel) +
                            " entries, not a multiple of its first dimension " + std::to_string(m));
      MatrixLayer& matrix = matrices_[li].emplace();
      matrix.m = m;
      matrix.n = l.numel / m;
      matrix.rank = std::min({c.rank, matrix.m, matrix.n});
    }
  }

  // The length of every payload: P and Q of each matrix layer, the other layers raw.
  size_t payload_bytes() const {
    size_t bytes = 0;
    for (size_t li = 0; li < layers_.size(); ++li) {
      const auto& mat = matrices_[li];
      bytes += 4 * static_cast<size_t>(mat ? mat->rank * (mat->m + mat->n) : layers_[li].numel);
    }
    return bytes;
  }

  Encoded encode(std::span<const float> update, const Context& context) override {
    detail::check_update_size(update.size(), size());
    detail::check_finite(update);
    Encoded out;
    out.payload.reserve(payload_bytes());
    ByteWriter writer(out.payload);
    for (size_t li = 0; li < layers_.size(); ++li) {
      const Layer& layer = layers_[li];
      const auto values = update.subspan(static_cast<size_t>(layer.offset), static_cast<size_t>(layer.numel));
      if (!matrices_[li]) {
        writer.f32s(values);
      } else {
        encode_matrix(values, layer, li, *matrices_[li], context, writer);
      }
    }
    return out;
  }

 protected:
  void decode_to(std::span<const uint8_t> payload, const Context&, const Sink& sink) const override {
    ByteReader reader(payload);
    for (size_t li = 0; li < layers_.size(); ++li) {
      const Layer& layer = layers_[li];
      const auto offset = static_cast<size_t>(layer.offset);
      if (!matrices_[li]) {
        sink.fill(offset, static_cast<size_t>(layer.numel), [&](size_t) { return read_finite(reader); });
        continue;
      }
      const MatrixLayer& mat = *matrices_[li];
      const Dense p = read_matrix(reader, mat.m, mat.rank), q = read_matrix(reader, mat.n, mat.rank);
      with_rank(mat.rank, [&](auto rank) {
        const int64_t r = rank() > 0 ? rank() : mat.rank;
        for (int64_t i = 0; i < mat.m; ++i) {
          const double* prow = p.a.data() + i * r;
          sink.fill(offset + static_cast<size_t>(i * mat.n), static_cast<size_t>(mat.n), [&](size_t j) {
            const double* qrow = q.a.data() + static_cast<int64_t>(j) * r;
            double s = 0;
            for (int64_t k = 0; k < r; ++k) s += prow[k] * qrow[k];
            // Finite factors can still multiply past fp32; an encoder's orthonormal P never does.
            const auto f = static_cast<float>(s);
            if (!std::isfinite(f)) beyond_fp32(layer, s);
            return f;
          });
        }
      });
    }
    reader.expect_end();
  }

 private:
  [[noreturn]] static void beyond_fp32(const Layer& layer, double value) {
    throw CompressError("compressed payload: powersgd factors of layer \"" + layer.name +
                        "\" rebuild an entry beyond fp32 (" + util::format_number(value) + ")");
  }

  static float read_finite(ByteReader& in) {
    const float v = in.f32();
    if (!std::isfinite(v)) throw CompressError("compressed payload: non-finite powersgd value");
    return v;
  }

  static Dense read_matrix(ByteReader& in, int64_t rows, int64_t cols) {
    Dense d{rows, cols, std::vector<double>(static_cast<size_t>(rows * cols))};
    for (double& v : d.a) v = read_finite(in);
    return d;
  }

  static void fill_normal(Dense& q, int64_t column, std::mt19937_64& rng) {
    for (int64_t i = 0; i < q.rows; ++i) q.at(i, column) = standard_normal(rng);
  }

  void encode_matrix(std::span<const float> values, const Layer& layer, size_t index, MatrixLayer& mat,
                     const Context& context, ByteWriter& writer) {
    const int64_t m = mat.m, n = mat.n, r = mat.rank;
    if (!mat.warm_q) {
      mat.rng.seed(util::derive_seed(context.seed, "compress.powersgd", index));
      mat.warm_q = Dense{n, r, std::vector<double>(static_cast<size_t>(n * r))};
      for (int64_t k = 0; k < r; ++k) fill_normal(*mat.warm_q, k, mat.rng);
    }
    Dense& q = *mat.warm_q;
    Dense p{m, r, std::vector<double>(static_cast<size_t>(m * r), 0.0)};
    with_rank(r, [&](auto rank) { multiply_mq<rank()>(values.data(), m, n, r, q.a.data(), p.a.data()); });
    const std::vector<bool> replaced = orthonormalise(p);
    std::fill(q.a.begin(), q.a.end(), 0.0);
    with_rank(r, [&](auto rank) { multiply_mtp<rank()>(values.data(), m, n, r, p.a.data(), q.a.data()); });
    // What is sent is what the receiver rebuilds from: fp32 of P and Q.
    for (const Dense* d : {&p, &q}) {
      for (double v : d->a) {
        const auto f = static_cast<float>(v);
        if (!std::isfinite(f))
          throw CompressError("compress: powersgd factor of layer \"" + layer.name + "\" overflows fp32");
        writer.f32(f);
      }
    }
    // A column whose P direction was made up carries no power-iteration information: restart
    // its warm start randomly, or M Q would keep it degenerate for good.
    for (int64_t k = 0; k < r; ++k) {
      if (replaced[static_cast<size_t>(k)]) fill_normal(q, k, mat.rng);
    }
  }

  std::vector<Layer> layers_;
  std::vector<std::optional<MatrixLayer>> matrices_;  // per layer; empty: sent raw
};

}  // namespace

std::unique_ptr<Compressor> make_powersgd(const Config& c, const std::vector<Layer>& layers) {
  if (c.rank < 1) throw ConfigError("rank", "must be >= 1, got " + std::to_string(c.rank));
  return std::make_unique<PowerSgd>(c, layers);
}

int64_t powersgd_bytes(const Config& c, const std::vector<Layer>& layers) {
  return static_cast<int64_t>(PowerSgd(c, layers).payload_bytes());
}

}  // namespace edgetrain::compress
