// Shamir's t-of-n sharing of 32-byte secrets: any t shares reconstruct, t - 1 are refused.
#include <doctest/doctest.h>

#include <stdexcept>

#include "privacy/secagg/digest.hpp"
#include "privacy/secagg/shamir.hpp"

using namespace edgetrain::privacy::secagg;

TEST_CASE("exactly t shares reconstruct the secret, whichever t, t - 1 are an error") {
  const Key secret = seed_key(1, "secret", 0);
  const std::vector<uint32_t> holders{0, 3, 4, 9, 20, 21, 1000};
  Prg coefficients(seed_key(1, "coefficients", 0));
  const uint32_t t = 4;
  const auto shares = share_secret(secret, t, holders, coefficients);
  REQUIRE(shares.size() == holders.size());
  CHECK(reconstruct_secret(std::span(shares).first(t), t) == secret);
  CHECK(reconstruct_secret(std::span(shares).last(t), t) == secret);
  const std::vector<Share> mixed{shares[6], shares[1], shares[4], shares[2]};
  CHECK(reconstruct_secret(mixed, t) == secret);
  CHECK_THROWS_AS(reconstruct_secret(std::span(shares).first(t - 1), t), std::invalid_argument);
}

TEST_CASE("t - 1 shares interpolated as if t were smaller give something else") {
  const Key secret = seed_key(2, "secret", 0);
  const std::vector<uint32_t> holders{1, 2, 3, 4, 5};
  Prg coefficients(seed_key(2, "coefficients", 0));
  const auto shares = share_secret(secret, 3, holders, coefficients);
  bool differs = true;
  try {
    differs = reconstruct_secret(std::span(shares).first(2), 2) != secret;
  } catch (const std::invalid_argument&) {
    // Interpolation landed outside the 32-byte range: also not the secret.
  }
  CHECK(differs);
}

TEST_CASE("sharing refuses a threshold above the holders and repeated holders") {
  Prg coefficients(seed_key(3, "coefficients", 0));
  const Key secret{};
  const std::vector<uint32_t> two{1, 2}, repeated{1, 1, 2};
  CHECK_THROWS_AS(share_secret(secret, 3, two, coefficients), std::invalid_argument);
  CHECK_THROWS_AS(share_secret(secret, 2, repeated, coefficients), std::invalid_argument);
  auto shares = share_secret(secret, 2, two, coefficients);
  shares[1].holder = shares[0].holder;
  CHECK_THROWS_AS(reconstruct_secret(shares, 2), std::invalid_argument);
}
