// Exported entry points of the Hopper MoE kernels (see csrc/sm90/): argument checks, TMA
// descriptors, launches. All sizes that depend on routing stay on the device.
#include <cmath>
#include <cstdint>
#include "../common/error.cuh"
#include "../sm90/combine.cuh"
#include "../sm90/launch.cuh"

using namespace pk::sm90;

namespace {
// variant: 0 = default, 1 = cooperative (2 warpgroups on one tile), 2 = ping-pong, 3 = dH only:
// cooperative 128 x 256 (I % 256 == 0, else 1); 4 = GEMM 1: the staged epilogue (z through
// shared memory + bulk copies, overlapping the next tile's MMAs) with 128 x 192 tiles and 4 stages
// (I % 96 == 0, else 1); dH: 128 x 256 with the epilogue in warps 1-3 of the producer warpgroup;
// 5 = dH only: the same with two gathering and two epilogue warps; 8, 9 = dH 4, 5 with z also
// prefetched into L1 two row batches ahead (EpiSwiGLUBwdWarps kPrefetchL1); 10 = dH only: 8 with a fourth
// warpgroup of epilogue warps, the whole producer warpgroup gathering (+ 32 only). (dH 6, 7 = 4, 5 with the next
// tile's z prefetched into L2 by the epilogue warps: 30B +2 %, 235B +10 %, results/session5/run1;
// removed.) variant | kVariantWait0 (GEMM 1: 4; dH: 4, 5): the same releasing each stage after
// wgmma.wait_group 0. (GEMM 1 with its SwiGLU in the
// epilogue warps, once 5 and 6, lost or tied against 4 in three runs: results/session4/run3, run4,
// run6_ncu; removed.) (GEMM 1's staged 128 x 256 form with 3 stages, once variant 3, measured
// slower than cooperative in every run and spilled 442 B with the fast-reciprocal SiLU: removed.)
// (GEMM 1 ping-pong 128 x (96 + 96) with z and h staged per warp, once variant 7 (commit 8840073; 8: h from
// the registers): +1.5..+5 % against 4 in session 10's runs 1-3, with 4 or 5 stages: removed.)
// GEMM 1: cooperative 128 x (gate 128 + up 128), or ping-pong 128 x (gate 64 + up 64).
using Gemm1Coop = GemmConfig<256, 4, BMode::kKMajorSplit, false>;
using Gemm1PP = GemmConfig<128, 6, BMode::kKMajorSplit, true>;
// variant 4 (the default where I % 96 == 0 until session 15): staged with 128 x (gate 96 + up 96) tiles, which leaves
// room for 4 pipeline stages next to the staging tile.
using Gemm1Staged192 = GemmConfig<192, 4, BMode::kKMajorSplit, false, true>;
// variant | kVariantCluster (GEMM 1: 1 or 4; dH: 3): the same with 2-CTA clusters multicasting B.
using Gemm1CoopMC = GemmConfig<256, 4, BMode::kKMajorSplit, false, false, true>;
using Gemm1Staged192MC = GemmConfig<192, 4, BMode::kKMajorSplit, false, true, true>;
// variant 4 | kVariantWait0: staged 128 x 192 releasing each stage after wgmma.wait_group 0; 4 |
// kVariantTmaStore: z's full tiles stored by TMA (session 5's run 9: 30B 1.536 vs 1.581 ms, 235B 5.90 vs 5.52; the
// default at H < 3072 from session 7 and everywhere from session 11 until variant 5 in session 15, see below).
using Gemm1Staged192W0 = GemmConfig<192, 4, BMode::kKMajorSplit, false, true, false, 0, true>;
// variant 5 (the default where I % 96 == 0): 128 x (96 + 96) tiles, 4 stages, the SwiGLU and both stores in a
// fourth warpgroup of epilogue warps (EpiSwiGLUFwdWarps); the producer warpgroup gathers as in 4.
// (Its wait_group 0 form, 5 + 32 in session 16: GEMM 1 -1..+1 %, the forward and the layer within the noise,
// results/session16/run1, run2; removed.)
using Gemm1EpiWG = GemmConfig<192, 4, BMode::kKMajorSplit, false, false, false, 0, false, true>;
// (Session 18, results/session18: its 2-CTA cluster form 5 + 16, even; the same on 128 x (128 + 128) tiles with 3
// stages and wait_group 0, +7 % at 235B back to back; cooperative 256 x (64 + 64) tiles, cuBLAS's shape for this
// product, each consumer warpgroup 128 rows, 4 stages, the SwiGLU from the registers, +13..+26 %: removed.)
// dy . W2 (W2 read as [K = H, N = I]): 128 x 128 either way; cooperative prefetches z.
using DhCoop = GemmConfig<128, 6, BMode::kMNMajor, false>;
using DhPP = GemmConfig<128, 6, BMode::kMNMajor, true>;
// variant 3 for dH: cooperative 128 x 256 (half the gathered-dy loads and m64n256 MMAs), z loaded in
// the epilogue (no registers to prefetch it next to 128 accumulators); needs I % 256 == 0.
using DhCoop256 = GemmConfig<256, 4, BMode::kMNMajor, false>;
using DhCoop256MC = GemmConfig<256, 4, BMode::kMNMajor, false, false, true>;
// variant 4 for dH (8 + 32 was the default at H < 3072 until session 15): cooperative 128 x 256 with the SwiGLU backward in warps
// 1-3 of the producer warpgroup (warp 0 gathers dy), fed through the staging tile (3 stages fit next
// to it), overlapping the next tile's MMAs; needs I % 256 == 0 and 16-byte aligned z, dz, h*w (else 3).
using DhEpiWarps = GemmConfig<256, 3, BMode::kMNMajor, false, false, false, 3>;
// variant 5 (9 + 32 was the default at H >= 3072): the same with two gathering warps and two epilogue warps.
using DhEpiWarps2 = GemmConfig<256, 3, BMode::kMNMajor, false, false, false, 2>;
// | kVariantWait0: the same with each stage released after wgmma.wait_group 0.
using DhEpiWarpsW0 = GemmConfig<256, 3, BMode::kMNMajor, false, false, false, 3, true>;
using DhEpiWarps2W0 = GemmConfig<256, 3, BMode::kMNMajor, false, false, false, 2, true>;
// variant 10 (+ 32 only; the default where I % 256 == 0): 8 with a fourth warpgroup of four epilogue warps
// and the whole producer warpgroup gathering (512 threads).
using DhEpiWGW0 = GemmConfig<256, 3, BMode::kMNMajor, false, false, false, 0, true, true>;
// (Its 2-CTA cluster form, 10 + 32 + 16 in session 18's run 1: +6 % at 30B, -1..+1 % at 235B: removed.)
// (12 + 32, session 21 run 6: 10 on 128 x 192 tiles with 4 stages and one m64n192 wgmma a k-step, lanes 24-31 of the
// epilogue warps idle: +23 % at 30B, -2 % at 235B; the layer +3.5 / +2 %; results/session21/run6; removed.)
// GEMM 2 with the combine in its epilogue (opt-in, pk_sm90_moe_gemm2_scatter): the default GEMM 2's
// tile shape (cooperative 128 x 256, 4 stages). No ping-pong form: that config spills 4 B in the
// producer (as the ping-pong GEMM 2 store does) and the plain ping-pong GEMM 2 measured slower.
using Gemm2ScatterCoop = GemmConfig<256, 4, BMode::kKMajor, false>;
// Defaults from the H200 measurements (notes/sm90_moe_kernels.md). dy . W2 without the epilogue warps
// (I % 256 != 0), timed interleaved in four runs (session 2): at H = 2048 ping-pong 128x128 (1.17-1.24 ms
// vs 1.20-1.26 cooperative 128x256, 1.31-1.38 cooperative 128x128).
// GEMM 1: staged 128 x 192 with 4 stages where I % 96 == 0 (interleaved, 15 rounds: 30B 1.64 vs 1.70
// ms cooperative, 235B 6.21 vs 6.26), else cooperative 128 x 256 (the 3-stage staged 128 x 256 loses).
// Session 7: at H < 3072 with z's full tiles stored by TMA (4 + 64): 30B 1.455 vs 1.497 ms in the rotated-order
// run 2 (results/session7/run2/interleaved.log), 1.536 vs 1.581 in session 5's run 9; at 235B it lost both
// times (6.02 vs 5.40, 5.90 vs 5.52), so H >= 3072 keeps 4.
// Session 10: at 235B the cooperative 128 x 256 form (1, 16-byte register stores since session 9) led the
// kernel A/Bs by -2.8, -3.0 and -0.4 % (runs 4, 5, final; the same kernel timed twice differs by ~2 %), but the
// whole layer with it (and GEMM 2's new default) ran even with the old defaults (run 8: 30.93 vs 30.86 ms,
// 15 interleaved rounds): not adopted.
// Session 11: with the m-fastest tile order (launch.cuh) the TMA store wins at 235B too, back to back at the power
// cap (results/session11/run5: 5.95 vs 6.06 ms, 2 s each; 3 synchronised rounds 5.34 vs 5.70): 4 + 64 everywhere.
// Session 15: 5 (the SwiGLU and the z / h stores in a fourth warpgroup of epilogue warps) against 4 + 64, in one
// process (results/session15/run7, run8: 7 and 15 rounds, then 2 s back to back): GEMM 1 back to back -0.7 / -0.7 %
// (30B), -1.1 / -1.2 % (235B), synchronised -2.9 / +0.4 % and -1.1 / -2.3 %; the forward back to back -0.3..-0.6 %.
inline int default_gemm1(int inter) {
  if (inter % 96 != 0) return 1;
  return 5;
}
// dH (session 4, interleaved, 7 rounds, results/session4/run4): 128 x 256 with the SwiGLU backward in
// epilogue warps: at H = 2048 three of them (1.06 ms vs 1.24 ping-pong, 1.36 with two: the epilogue
// warps are the limit there), at H = 4096 two (3.59 vs 3.71 with three, 3.90 cooperative 128 x 256).
// Both release each stage after wgmma.wait_group 0 (session 5, interleaved, 5 rounds, results/session5/run3:
// 30B 1.062 vs 1.104 ms, 235B 3.352 vs 3.448 with two warps) and prefetch z into L1 (variants 8, 9; 7
// rounds, results/session5/run6: 235B two warps 3.265 vs 3.361, 30B three warps 0.949 vs 0.954).
// Session 15: four gathering warps and a fourth warpgroup of four epilogue warps (10 + 32) at both shapes
// (results/session15/run2, 5 interleaved rounds / 2 s back to back: 30B 0.923 vs 1.032 / 0.952 vs 1.015 ms, 235B
// 3.188 vs 3.194 / 3.227 vs 3.298; the layer 30B -0.3 / -0.5 %, 235B -2.1 / -0.1 %).
inline int default_dh(int hidden, int inter) {
  if (inter % 256 == 0) return 10 | kVariantWait0;
  return 2;
}

inline float clamp_value(float c) { return c > 0.f ? c : INFINITY; }

// Epilogue fields shared by the SwiGLU forward and backward: out [rows, 2I] (z, or dz), out2 [rows, I]
// (h, or h*w), I, and the clamp (c <= 0: none).
inline EpilogueParams swiglu_epilogue(void* out, void* out2, int inter, float clamp) {
  EpilogueParams ep{};
  ep.out = static_cast<__nv_bfloat16*>(out);
  ep.ld_out = 2 * inter;
  ep.out2 = static_cast<__nv_bfloat16*>(out2);
  ep.ld_out2 = inter;
  ep.inter = inter;
  ep.clamp = clamp_value(clamp);
  return ep;
}
}  // namespace

// Shapes every MoE entry point needs (the kernels tile H by 64 and I by 128).
static void check_moe_dims(int hidden, int inter, int topk) {
  PK_REQUIRE(hidden % 64 == 0, "hidden size must be a multiple of 64, got %d", hidden);
  PK_REQUIRE(inter % 128 == 0 && inter <= (1 << 28), "intermediate size must be a multiple of 128 up to 2^28, got %d",
             inter);
  PK_REQUIRE(topk >= 1 && topk <= 64, "topk must be in [1, 64]");
}

// GEMM 1 forward with the SwiGLU epilogue.
//   x [T, H] bf16, sorted_pair [T*K] (routing), offsets [E+1], w13 [E, 2I, H] bf16
//   z [T*K, 2I] bf16 (pre-activation, sorted rows), h [T*K, I] bf16 (sorted rows)
//   clamp <= 0: none.
PK_EXPORT int pk_sm90_moe_gemm1_swiglu(const void* x, int64_t num_tokens, int hidden, int topk,
                                       const int* sorted_pair, const int* offsets, int num_experts,
                                       const void* w13, int inter, void* z, void* h, float clamp,
                                       int variant, void* stream) {
  return pk::guarded("pk_sm90_moe_gemm1_swiglu", [&] {
    check_moe_dims(hidden, inter, topk);
    const int64_t rows = num_tokens * topk;
    if (rows == 0) return;
    int v = variant == 0 ? default_gemm1(inter) : variant;
    const bool mc = (v & kVariantCluster) != 0;
    const bool w0 = (v & kVariantWait0) != 0;
    const bool tma_out = (v & kVariantTmaStore) != 0;
    v &= ~(kVariantCluster | kVariantWait0 | kVariantTmaStore);
    PK_REQUIRE(v == 1 || v == 2 || v == 4 || (v == 5 && !mc && !w0 && !tma_out),
               "GEMM 1 variant must be 0, 1, 2, 4 or 5 (1 and 4 also plus %d: 2-CTA clusters; 4 plus %d: wait_group 0, "
               "or plus %d: TMA stores), got %d",
               kVariantCluster, kVariantWait0, kVariantTmaStore, variant);
    PK_REQUIRE(!(mc && v == 2), "GEMM 1 ping-pong has no 2-CTA cluster form (variant %d)", variant);
    PK_REQUIRE(!w0 || (v == 4 && !mc), "GEMM 1 has a wait_group 0 form of variant 4 only (variant %d)", variant);
    PK_REQUIRE(!tma_out || (v == 4 && !mc && !w0), "GEMM 1 has a TMA-store form of variant 4 only (variant %d)",
               variant);
    // z and h leave in 16-byte pieces (bulk copies, TMA or 16-byte stores): their rows are 16-byte aligned
    // (I % 128 == 0 above) when their bases are
    PK_REQUIRE(reinterpret_cast<uintptr_t>(z) % 16 == 0 && reinterpret_cast<uintptr_t>(h) % 16 == 0,
               "z and h must be 16-byte aligned");
    if ((v == 4 || v == 5) && inter % 96 != 0) v = 1;
    const bool pp = v == 2;
    const int half = pp ? 64 : v == 4 || v == 5 ? 96 : 128;  // gate (and up) columns per tile
    const CUtensorMap tb = make_tmap_bf16_3d(w13, hidden, 2ull * inter, num_experts, 64, half);
    MainloopParams mp{static_cast<const __nv_bfloat16*>(x), hidden, sorted_pair, topk, hidden, 2 * inter, inter,
                      inter / half};
    GroupInfo g{offsets, num_experts, 0, GroupMode::kOffsets, 0};
    const EpilogueParams ep = swiglu_epilogue(z, h, inter, clamp);
    auto st = static_cast<cudaStream_t>(stream);
    if (pp)
      launch_grouped_gemm<Gemm1PP, AMode::kGatherPair, EpiSwiGLUFwd<128, 2>>(tb, mp, g, ep, rows, st);
    else if (v == 5)
      launch_grouped_gemm<Gemm1EpiWG, AMode::kGatherPair, EpiSwiGLUFwdWarps<192>>(tb, mp, g, ep, rows, st);
    else if (v == 4 && mc)
      launch_grouped_gemm<Gemm1Staged192MC, AMode::kGatherPair, EpiSwiGLUFwdStaged<192>>(tb, mp, g, ep, rows, st);
    else if (v == 4 && w0)
      launch_grouped_gemm<Gemm1Staged192W0, AMode::kGatherPair, EpiSwiGLUFwdStaged<192>>(tb, mp, g, ep, rows, st);
    else if (v == 4 && tma_out)
      launch_grouped_gemm<Gemm1Staged192, AMode::kGatherPair, EpiSwiGLUFwdStaged<192, true>>(
          tb, mp, g, ep, rows, st, CUtensorMap{}, make_tmap_bf16_store(z, 2ull * inter, rows, 2ull * inter, 32));
    else if (mc)
      launch_grouped_gemm<Gemm1CoopMC, AMode::kGatherPair, EpiSwiGLUFwd<256, 1>>(tb, mp, g, ep, rows, st);
    else if (v == 4)
      launch_grouped_gemm<Gemm1Staged192, AMode::kGatherPair, EpiSwiGLUFwdStaged<192>>(tb, mp, g, ep, rows, st);
    else
      launch_grouped_gemm<Gemm1Coop, AMode::kGatherPair, EpiSwiGLUFwd<256, 1>>(tb, mp, g, ep, rows, st);
  });
}

// Backward of GEMM 2 + SwiGLU: dA = gathered dy . W2[e] (W2 [E, H, I]), then
//   dz [T*K, 2I] bf16 = d[g|u] with the routing weight folded in, hw [T*K, I] bf16 = h * w,
//   part [T*K, I/128] fp32 = partial <dA, h> per 128 columns (summed by pk_sm90_token_combine).
PK_EXPORT int pk_sm90_moe_dh_swiglu_bwd(const void* dy, int64_t num_tokens, int hidden, int topk,
                                        const int* sorted_pair, const int* offsets, int num_experts,
                                        const void* w2, int inter, const void* z, const float* topk_w,
                                        void* dz, void* hw, float* part, float clamp, int variant,
                                        void* stream) {
  return pk::guarded("pk_sm90_moe_dh_swiglu_bwd", [&] {
    check_moe_dims(hidden, inter, topk);
    const int64_t rows = num_tokens * topk;
    if (rows == 0) return;
    int v = variant == 0 ? default_dh(hidden, inter) : variant;
    const bool mc = (v & kVariantCluster) != 0;
    const bool w0 = (v & kVariantWait0) != 0;
    v &= ~(kVariantCluster | kVariantWait0);
    PK_REQUIRE(((v >= 1 && v <= 5) || v == 8 || v == 9 || (v == 10 && w0)) && (!mc || v == 3) &&
                   (!w0 || (v >= 4 && !mc)),
               "dH variant must be 0..5, 8, 9, 3 plus %d (2-CTA clusters), 4, 5, 8, 9 plus %d (wait_group 0) "
               "or 10 plus %d, got %d",
               kVariantCluster, kVariantWait0, kVariantWait0, variant);
    const auto misaligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 != 0; };
    if (v >= 4 && (misaligned(z) || misaligned(dz) || misaligned(hw))) v = 3;
    if (v >= 3 && inter % 256 != 0) v = 1;
    // W2 [E, H, I] read as B[K = H][N = I], N contiguous.
    const CUtensorMap tb = make_tmap_bf16_3d(w2, inter, hidden, num_experts, 64, 64);
    MainloopParams mp{static_cast<const __nv_bfloat16*>(dy), hidden, sorted_pair, topk, hidden, inter, 0,
                      inter / (v >= 3 ? 256 : 128)};
    GroupInfo g{offsets, num_experts, 0, GroupMode::kOffsets, 0};
    EpilogueParams ep = swiglu_epilogue(dz, hw, inter, clamp);
    ep.z = static_cast<const __nv_bfloat16*>(z);
    ep.ld_z = 2 * inter;
    ep.topk_w = topk_w;
    ep.sorted_pair = sorted_pair;
    ep.part = part;
    auto st = static_cast<cudaStream_t>(stream);
    if (v == 2)
      launch_grouped_gemm<DhPP, AMode::kGatherPair, EpiSwiGLUBwd<128, 2, false>>(tb, mp, g, ep, rows, st);
    else if (v == 3 && mc)
      launch_grouped_gemm<DhCoop256MC, AMode::kGatherPair, EpiSwiGLUBwd<256, 1, false>>(tb, mp, g, ep, rows, st);
    else if (v == 3)
      launch_grouped_gemm<DhCoop256, AMode::kGatherPair, EpiSwiGLUBwd<256, 1, false>>(tb, mp, g, ep, rows, st);
    else if (v == 10)
      launch_grouped_gemm<DhEpiWGW0, AMode::kGatherPair, EpiSwiGLUBwdWarps<256, true>>(tb, mp, g, ep, rows, st);
    else if (v == 8 && w0)
      launch_grouped_gemm<DhEpiWarpsW0, AMode::kGatherPair, EpiSwiGLUBwdWarps<256, true>>(tb, mp, g, ep, rows, st);
    else if (v == 9 && w0)
      launch_grouped_gemm<DhEpiWarps2W0, AMode::kGatherPair, EpiSwiGLUBwdWarps<256, true>>(tb, mp, g, ep, rows, st);
    else if (v == 8)
      launch_grouped_gemm<DhEpiWarps, AMode::kGatherPair, EpiSwiGLUBwdWarps<256, true>>(tb, mp, g, ep, rows, st);
    else if (v == 9)
      launch_grouped_gemm<DhEpiWarps2, AMode::kGatherPair, EpiSwiGLUBwdWarps<256, true>>(tb, mp, g, ep, rows, st);
    else if (v == 4 && w0)
      launch_grouped_gemm<DhEpiWarpsW0, AMode::kGatherPair, EpiSwiGLUBwdWarps<256>>(tb, mp, g, ep, rows, st);
    else if (v == 5 && w0)
      launch_grouped_gemm<DhEpiWarps2W0, AMode::kGatherPair, EpiSwiGLUBwdWarps<256>>(tb, mp, g, ep, rows, st);
    else if (v == 4)
      launch_grouped_gemm<DhEpiWarps, AMode::kGatherPair, EpiSwiGLUBwdWarps<256>>(tb, mp, g, ep, rows, st);
    else if (v == 5)
      launch_grouped_gemm<DhEpiWarps2, AMode::kGatherPair, EpiSwiGLUBwdWarps<256>>(tb, mp, g, ep, rows, st);
    else
      launch_grouped_gemm<DhCoop, AMode::kGatherPair, EpiSwiGLUBwd<128, 1, true>>(tb, mp, g, ep, rows, st);
  });
}

// GEMM 2 fused with the weighted combine (opt-in alternative to the m-grouped GEMM 2 writing o
// [T*K, H] + pk_sm90_token_combine): for each sorted row p of expert e (pair = sorted_pair[p]),
//   y32[pair / topk, :] += topk_w[pair] * (h[p, :] . W2[e]^T)      (red.global.add.v4.f32)
//   h [T*K, I] bf16 (sorted rows, from GEMM 1), w2 [E, H, I] bf16, topk_w [T*K] fp32,
//   y32 [T, H] fp32, zeroed by the caller (tokens with no valid slot stay 0); the caller rounds it
//   to bf16. The summation order of a token's K rows is whatever order the atomics land in: y32 is
//   not bitwise reproducible run to run (the gather-sum combine is).
// variant: 0, 1, 3 = cooperative 128 x 256 (3: no staged form, nothing is stored); 2 (ping-pong) is
// refused rather than silently replaced.
PK_EXPORT int pk_sm90_moe_gemm2_scatter(const void* h, int64_t num_tokens, int hidden, int topk,
                                        const int* sorted_pair, const int* offsets, int num_experts,
                                        const void* w2, int inter, const float* topk_w, float* y32, int variant,
                                        void* stream) {
  return pk::guarded("pk_sm90_moe_gemm2_scatter", [&] {
    PK_REQUIRE(hidden % 64 == 0, "hidden size must be a multiple of 64, got %d", hidden);
    PK_REQUIRE(inter % 64 == 0 && inter > 0, "intermediate size must be a positive multiple of 64, got %d", inter);
    PK_REQUIRE(topk >= 1 && topk <= 64, "topk must be in [1, 64]");
    PK_REQUIRE(variant == 0 || variant == 1 || variant == 3,
               "the scatter GEMM 2 has only the cooperative kernel (variant 0, 1 or 3), got %d", variant);
    PK_REQUIRE(reinterpret_cast<uintptr_t>(y32) % 16 == 0, "y32 must be 16-byte aligned (vector reductions)");
    const int64_t rows = num_tokens * topk;
    if (rows == 0) return;
    constexpr int bn = Gemm2ScatterCoop::BN;
    const CUtensorMap tb = make_tmap_bf16_3d(w2, inter, hidden, num_experts, 64, bn);
    MainloopParams mp{static_cast<const __nv_bfloat16*>(h), inter, nullptr, 1, inter, hidden, 0,
                      (hidden + bn - 1) / bn};
    GroupInfo g{offsets, num_experts, 0, GroupMode::kOffsets, 0};
    EpilogueParams ep{};
    ep.part = y32;  // EpiScatterAddF32's field use: part = y32, ld_out = its row stride, inter = topk
    ep.ld_out = hidden;
    ep.n_out = hidden;
    ep.sorted_pair = sorted_pair;
    ep.topk_w = topk_w;
    ep.inter = topk;
    auto st = static_cast<cudaStream_t>(stream);
    launch_grouped_gemm<Gemm2ScatterCoop, AMode::kContiguous, EpiScatterAddF32<bn, 1>>(tb, mp, g, ep, rows, st);
  });
}

// Timing-diagnostic builds only (-DPK_SM90_DIAG_RING_TIMES, ci/build_diag_libraries.sh ring): copies GEMM 1's and dH's
// ring counters (mainloop.cuh, g_diag_ring: 8 values) to host memory `out`, then zeroes them when `reset` is set.
// benchmarks/ring_times.py reads them.
PK_EXPORT int pk_sm90_diag_ring_stats(unsigned long long* out, int reset) {
  return pk::guarded("pk_sm90_diag_ring_stats", [&] {
#ifdef PK_SM90_DIAG_RING_TIMES
    PK_CUDA_CHECK(cudaMemcpyFromSymbol(out, pk::sm90::g_diag_ring, 8 * sizeof(unsigned long long)));
    if (reset) {
      const unsigned long long zeros[8] = {};
      PK_CUDA_CHECK(cudaMemcpyToSymbol(pk::sm90::g_diag_ring, zeros, sizeof(zeros)));
    }
#else
    (void)out;
    (void)reset;
    PK_REQUIRE(false, "pk_sm90_diag_ring_stats needs a library built with -DPK_SM90_DIAG_RING_TIMES");
#endif
  });
}

// y[t] = sum_k w[t,k] * rows[pair_to_sorted[t*K+k]] (weights may be null: plain sum), and when
// dweights is given, dweights[t,k] = sum_j part[pair_to_sorted[t*K+k], j] (0 for masked slots).
PK_EXPORT int pk_sm90_token_combine(const void* rows, int hidden, int64_t num_tokens, int topk,
                                    const int* pair_to_sorted, const float* weights, void* out,
                                    const float* part, int num_parts, float* dweights, void* stream) {
  return pk::guarded("pk_sm90_token_combine", [&] {
    PK_REQUIRE(hidden % 8 == 0, "hidden size must be a multiple of 8, got %d", hidden);
    PK_REQUIRE(topk >= 1 && topk <= 64, "topk must be in [1, 64]");
    PK_REQUIRE(num_tokens < (int64_t(1) << 31), "too many tokens");
    if (num_tokens == 0) return;
    token_combine_kernel<<<(unsigned)num_tokens, kCombineThreads, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const __nv_bfloat16*>(rows), hidden, topk, pair_to_sorted, weights,
        static_cast<__nv_bfloat16*>(out), part, num_parts, dweights);
    PK_CHECK_LAUNCH();
  });
}
