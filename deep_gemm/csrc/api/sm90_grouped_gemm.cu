// Exported entry point of the generic sm90 m-grouped bf16 GEMM with a plain bf16 store:
//   out[p, n] = sum_k A[row(p), k] * B[g(p)](n, k)      (b_mn_major = 0: B [G, N, K])
//   out[p, n] = sum_k A[row(p), k] * B[g(p)](k, n)      (b_mn_major = 1: B [G, K, N])
// Rows p of group g: offsets layout (p in [offsets[g], offsets[g+1])) or masked layout
// (p = g*max_m + i, i < masked_m[g]). row(p) = p, or a_index[p] / topk when a_index is given
// (gather of token rows for the MoE). Used by the MoE (GEMM 2 forward, dX backward) and by the
// public m-grouped contiguous / masked GEMMs.
#include <cstdint>
#include <type_traits>
#include "../common/error.cuh"
#include "../sm90/launch.cuh"

using namespace pk::sm90;

namespace {
// variant: 0 = default, 1 = cooperative 128 x 256 (2 warpgroups on one tile), 2 = ping-pong 128 x 128,
// 3 = cooperative 128 x 256 with the staged epilogue (smem + bulk-copy store overlapping the next
// tile's MMAs; 3 pipeline stages instead of 4 to make room for the 66 KiB staging tile), 4 = ping-pong
// 128 x 192 staged per warp (CfgPP192).
// variant | kVariantCluster (1 or 3 only): the same with 2-CTA clusters multicasting B.
// variant | kVariantWait0 (1 or 3, contiguous A by TMA only; otherwise the plain form): the same
// releasing each stage after wgmma.wait_group 0. 3 | kVariantTmaStore (also with kVariantWait0; the
// same restriction, and no out_rows): full tiles stored by TMA tensor stores.
template <bool PP, BMode BM, bool MC = false, bool W0 = false>
using Cfg = GemmConfig<PP ? 128 : 256, PP ? 6 : 4, BM, PP, false, MC, 0, W0>;
template <BMode BM, bool MC = false, bool W0 = false>
using CfgStaged = GemmConfig<256, 3, BM, false, true, MC, 0, W0>;
// variant 4: ping-pong 128 x 192, 4 stages, stored through per-warp staging rows (EpiStoreBf16WarpStaged;
// N need not divide by 192: the weight's TMA fills columns past N with zeros, the epilogue stores
// columns < N). Without the staging (register stores) it lost 10-26 % (session 9, run 5).
template <BMode BM>
using CfgPP192 = GemmConfig<192, 4, BM, true, true>;
// Default (interleaved A/B on the H200, results/session2/interleaved_staged.log): with contiguous A
// (TMA-loaded), the staged epilogue overlaps the store with the next tile's MMAs and wins for K-major
// B (MoE GEMM 2: 30B 0.80 ms vs 0.92 ping-pong vs 1.02 cooperative; 235B 2.57 vs 2.94 vs 3.51) and
// for MN-major B up to K = 2048 (dX 30B, K = 1536: 1.37 vs 1.52 cooperative; at K = 3072 cooperative
// wins, 5.68 vs 6.04). Gathered A (cp.async): cooperative.
// Session 5 (results/session5/run3): with MN-major B the staged form releasing each stage after
// wgmma.wait_group 0 beats both at every K (dX 30B 1.434 vs 1.497 staged; 235B 5.91 vs 6.03
// cooperative, 6.26 staged); with K-major B it does not (GEMM 2 235B 3.22 vs 3.09).
// Then (run 8, 7 rounds): full tiles stored by TMA as well, for both B majors: GEMM 2 30B 0.709 vs
// 0.788 ms staged, 235B 2.92 vs 3.07; dX 30B 1.308 vs 1.396 (staged wait0), 235B 5.66 vs 5.87.
// Session 10 (results/session10/run1-3, 5-7 shuffled rounds each): ping-pong 128 x 192 staged per warp (4)
// beats that for the MoE GEMM 2 (K-major B, N = H: 30B -4.0 / -4.8 / -3.9 %, 235B -3.3 / -6.4 / -2.0 %) and the
// 30B dX (MN-major B, K = 1536: -6.3 / -4.6 / -3.6 %), not for the 235B dX (K = 3072: +3.7 / +1.3 / -0.1 %). Taken
// for the contiguous layout (the MoE path; masked and psum layouts unmeasured) with N >= 1536 (192-column tiles
// waste little). Session 11 (m-fastest tile order, back to back at the power cap, results/session11/run5): the
// 235B dX (MN-major B, K = 3072) too, 5.53 vs 5.65 ms (3 synchronised rounds 5.46 vs 5.57), so any K.
// Session 34 (H100, results/session34/run1-4, 5-21 interleaved rounds): with five HBM stacks the MN-major B case
// (dX) is faster staged with wait_group 0 and TMA stores: 30B 1.45-1.48 vs 1.64-1.65 ms, 235B 5.42-5.49 vs 5.75-5.81;
// the layer fwd+bwd -2.0 / -2.2 % (30B), -0.4 / -2.4 % (235B). The ping-pong dX is the kernel that an H100's lower
// bandwidth slows most (30B: 1.50-1.61 ms on H100s against 1.23 on session 31's H200, where GEMM 1 and dW1 take the
// same time on both cards), so the H200 (six stacks) keeps the ping-pong form that session 10 measured faster there.
inline int default_variant(const int* a_index, int group_mode, int n, bool b_mn_major) {
  if (a_index != nullptr) return 1;
  if (group_mode == 0 && n >= 1536 && !(b_mn_major && memory_bus_bits() < 6144)) return 4;
  return 3 | kVariantWait0 | kVariantTmaStore;
}

// A rows: gathered (a_index) by cp.async; contiguous by TMA when a_tma and A is dense ([rows, K],
// lda == K) with a 16-byte aligned base, else by cp.async.
template <class C>
void dispatch_a(const CUtensorMap& tb, const MainloopParams& mp, const GroupInfo& g, const EpilogueParams& ep,
                int64_t max_rows, bool a_tma, cudaStream_t s) {
  using E = std::conditional_t<
      C::kStagedStore, std::conditional_t<C::kPingPong, EpiStoreBf16WarpStaged<C::BN>, EpiStoreBf16Staged<C::BN>>,
      EpiStoreBf16<C::BN, C::kMI>>;
  if (mp.a_index != nullptr) {
    launch_grouped_gemm<C, AMode::kGatherPair, E>(tb, mp, g, ep, max_rows, s);
  } else if (a_tma && mp.lda == mp.k && reinterpret_cast<uintptr_t>(mp.a) % 16 == 0 && max_rows > 0) {
    const CUtensorMap ta = make_tmap_bf16_3d(mp.a, mp.k, max_rows, 1, kBK, kBM);
    launch_grouped_gemm<C, AMode::kContiguousTma, E>(tb, mp, g, ep, max_rows, s, ta);
  } else {
    launch_grouped_gemm<C, AMode::kContiguous, E>(tb, mp, g, ep, max_rows, s);
  }
}

// Forms that exist for contiguous A by TMA only (elsewhere config C with its plain epilogue runs):
// W = C's wait_group 0 form (or C itself), kTma = full tiles stored by TMA (staged configs).
template <class C, class W, bool kTma = false>
void dispatch_a_tma_only(const CUtensorMap& tb, const MainloopParams& mp, const GroupInfo& g,
                         const EpilogueParams& ep, int64_t max_rows, bool a_tma, cudaStream_t s) {
  static_assert(!kTma || W::kStagedStore, "the TMA store is a staged epilogue");
  using E = std::conditional_t<W::kStagedStore, EpiStoreBf16Staged<W::BN, kTma>, EpiStoreBf16<W::BN, W::kMI>>;
  const bool tma_out_ok = !kTma || (ep.out_rows == nullptr && reinterpret_cast<uintptr_t>(ep.out) % 16 == 0);
  if (mp.a_index == nullptr && a_tma && mp.lda == mp.k && reinterpret_cast<uintptr_t>(mp.a) % 16 == 0 &&
      max_rows > 0 && tma_out_ok) {
    const CUtensorMap ta = make_tmap_bf16_3d(mp.a, mp.k, max_rows, 1, kBK, kBM);
    CUtensorMap tout{};
    if constexpr (kTma) tout = make_tmap_bf16_store(ep.out, ep.n_out, max_rows, ep.ld_out);
    launch_grouped_gemm<W, AMode::kContiguousTma, E>(tb, mp, g, ep, max_rows, s, ta, tout);
  } else {
    dispatch_a<C>(tb, mp, g, ep, max_rows, a_tma, s);
  }
}

// The config a variant's flags select, for one B major (ping-pong, staged, 2-CTA cluster, wait_group 0,
// TMA store; the wait_group 0 and TMA-store forms exist for contiguous A by TMA only).
template <BMode BM>
void dispatch_variant(const CUtensorMap& tb, const MainloopParams& mp, const GroupInfo& g, const EpilogueParams& ep,
                      int64_t max_rows, bool a_tma, bool pp, bool staged, bool mc, bool w0, bool tma_out,
                      bool pp192, cudaStream_t s) {
  if (pp) dispatch_a<Cfg<true, BM>>(tb, mp, g, ep, max_rows, a_tma, s);
  else if (pp192) dispatch_a<CfgPP192<BM>>(tb, mp, g, ep, max_rows, a_tma, s);
  else if (staged && w0 && tma_out)
    dispatch_a_tma_only<CfgStaged<BM>, CfgStaged<BM, false, true>, true>(tb, mp, g, ep, max_rows, a_tma, s);
  else if (staged && tma_out)
    dispatch_a_tma_only<CfgStaged<BM>, CfgStaged<BM>, true>(tb, mp, g, ep, max_rows, a_tma, s);
  else if (staged && w0)
    dispatch_a_tma_only<CfgStaged<BM>, CfgStaged<BM, false, true>>(tb, mp, g, ep, max_rows, a_tma, s);
  else if (w0) dispatch_a_tma_only<Cfg<false, BM>, Cfg<false, BM, false, true>>(tb, mp, g, ep, max_rows, a_tma, s);
  else if (staged && mc) dispatch_a<CfgStaged<BM, true>>(tb, mp, g, ep, max_rows, a_tma, s);
  else if (staged) dispatch_a<CfgStaged<BM>>(tb, mp, g, ep, max_rows, a_tma, s);
  else if (mc) dispatch_a<Cfg<false, BM, true>>(tb, mp, g, ep, max_rows, a_tma, s);
  else dispatch_a<Cfg<false, BM>>(tb, mp, g, ep, max_rows, a_tma, s);
}
}  // namespace

// group_mode 0: sizes = offsets [G+1]; 1: sizes = masked_m [G] with max_m rows per group;
// 2: sizes = psum ends [G], groups aligned to max_m rows.
// max_rows: rows of A's sorted layout (offsets / psum) — an upper bound for the persistent grid.
// out_rows (nullable): sorted row p is stored to output row out_rows[p] (scatter back).
// a_tma: 1 = load contiguous A rows by TMA when A is dense and aligned (the default from Python),
// 0 = always by cp.async (A/B timing).
PK_EXPORT int pk_sm90_m_grouped_gemm_bf16(const void* a, int64_t lda, const int* a_index, int topk,
                                          const void* b, int b_mn_major, int num_groups, int n, int k,
                                          int group_mode, const int* sizes, int max_m, int64_t max_rows,
                                          void* out, int64_t ld_out, const int* out_rows, int variant,
                                          int a_tma, void* stream) {
  return pk::guarded("pk_sm90_m_grouped_gemm_bf16", [&] {
    PK_REQUIRE(k % 64 == 0 && k > 0, "K must be a positive multiple of 64, got %d", k);
    PK_REQUIRE(n % 8 == 0 && n > 0, "N must be a positive multiple of 8, got %d", n);
    PK_REQUIRE(lda % 8 == 0 && ld_out % 8 == 0, "row strides must be multiples of 8 elements");
    PK_REQUIRE(group_mode >= 0 && group_mode <= 2, "group_mode must be 0, 1 or 2");
    PK_REQUIRE(group_mode == 0 || max_m > 0, "max_m (rows per group / alignment) must be positive");
    PK_REQUIRE(a_index == nullptr || topk >= 1, "topk must be >= 1 with a gather index");
    GroupInfo g{sizes, num_groups, max_m, static_cast<GroupMode>(group_mode), 0};
    int v = variant == 0 ? default_variant(a_index, group_mode, n, b_mn_major != 0) : variant;
    const bool mc = (v & kVariantCluster) != 0;
    const bool w0 = (v & kVariantWait0) != 0;
    const bool tma_out = (v & kVariantTmaStore) != 0;
    v &= ~(kVariantCluster | kVariantWait0 | kVariantTmaStore);
    PK_REQUIRE(v >= 1 && v <= 4 && !(mc && (v == 2 || v == 4)) && !(w0 && (v == 2 || v == 4 || mc)) &&
                   !(tma_out && (v != 3 || mc)),
               "variant must be 0..4, or 1 or 3 plus %d (2-CTA clusters) or plus %d (wait_group 0), or 3 (+ %d) plus "
               "%d (TMA stores), got %d",
               kVariantCluster, kVariantWait0, kVariantWait0, kVariantTmaStore, variant);
    // The staged store writes whole 16-byte pieces with bulk copies: needs a 16-byte aligned base
    // (ld_out % 8 == 0 is required above); otherwise the plain cooperative kernel does the job.
    if ((v == 3 || v == 4) && reinterpret_cast<uintptr_t>(out) % 16 != 0) v = 1;
    const bool pp = v == 2;
    const bool staged = v == 3;
    const bool pp192 = v == 4;
    const int bn = pp ? 128 : pp192 ? 192 : 256;
    MainloopParams mp{static_cast<const __nv_bfloat16*>(a), lda, a_index, topk > 0 ? topk : 1, k, n, 0,
                      (n + bn - 1) / bn};
    EpilogueParams ep{};
    ep.out = static_cast<__nv_bfloat16*>(out);
    ep.ld_out = ld_out;
    ep.n_out = n;
    ep.out_rows = out_rows;
    auto s = static_cast<cudaStream_t>(stream);
    if (b_mn_major) {
      PK_REQUIRE(n % 64 == 0, "MN-major B needs N a multiple of 64, got %d", n);
      dispatch_variant<BMode::kMNMajor>(make_tmap_bf16_3d(b, n, k, num_groups, 64, 64), mp, g, ep, max_rows,
                                        a_tma != 0, pp, staged, mc, w0, tma_out, pp192, s);
    } else {
      // with a cluster each CTA loads half of the B rows: a box of bn / 2
      dispatch_variant<BMode::kKMajor>(make_tmap_bf16_3d(b, k, n, num_groups, 64, mc ? bn / 2 : bn), mp, g, ep,
                                       max_rows, a_tma != 0, pp, staged, mc, w0, tma_out, pp192, s);
    }
  });
}
