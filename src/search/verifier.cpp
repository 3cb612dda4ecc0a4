#include "ugs/search/verifier.h"

#include "ugs/util/hash.h"

namespace ugs {

Verifier::Verifier(const KernelGraph& program, Backend& backend, FieldKind field, uint64_t seed, int confirm_tests,
                   double float_tolerance)
    // Confirmation draws from a stream the fingerprint never used.
    : backend_(backend),
      confirm_(program, {field, confirm_tests, splitmix64(seed + 0x636f6e6669726dull), true, float_tolerance}) {}

bool Verifier::fingerprint_matches(const KernelGraph& candidate, FingerprintContext* ctx) const {
  const KernelGraph* one = &candidate;
  Fingerprints f;
  backend_.fingerprint_with(std::span(&one, 1), f, ctx);
  return f.match[0];
}

VerifyResult Verifier::confirm(const KernelGraph& candidate) const { return confirm_.verify(candidate); }

}  // namespace ugs
