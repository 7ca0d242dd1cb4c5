// Epilogues of the sm90 m-grouped GEMM family. Each consumer thread holds the wgmma accumulator
// of MI m64 x BN blocks; value v = 4j + 2r + c of block m sits at acc(v + m*BN/2), for
//   row = row0 + 64m + 16*warp + lane/4 + 8r,  col = 8j + 2*(lane%4) + c   (j < BN/8; r, c in {0,1})
// with row0 = 64*wg (cooperative, MI = 1) or 0 (ping-pong, MI = 2). Rows past the group's end are
// skipped; every written element is bf16. Each epilogue may prefetch operands before the mainloop
// (Pre, filled by prefetch()), so that their load latency hides under the MMAs.
#pragma once
#include <cstdint>
#include <cuda_bf16.h>
#include "ptx.cuh"
#include "scheduler.cuh"

namespace pk::sm90 {

struct EpilogueParams {
  __nv_bfloat16* out;   // StoreBf16: C rows; SwiGLU fwd: z [rows, 2I]; SwiGLU bwd: dz [rows, 2I]
  int64_t ld_out;
  __nv_bfloat16* out2;  // SwiGLU fwd: h [rows, I]; SwiGLU bwd: h*w [rows, I]
  int64_t ld_out2;
  const __nv_bfloat16* z;  // SwiGLU bwd: saved pre-activation [rows, 2I]
  int64_t ld_z;
  const float* topk_w;     // SwiGLU bwd: routing weights, by flat pair
  const int* sorted_pair;  // SwiGLU bwd: sorted row -> flat pair
  float* part;             // SwiGLU bwd: partial <dA, h> [rows, n_blocks]
  int n_out;               // valid output columns (StoreBf16)
  const int* out_rows;     // StoreBf16: when set, sorted row p is written to output row out_rows[p]
  int inter;               // I
  float clamp;             // +inf when no clamp
};

struct NoPre {};

__device__ __forceinline__ void store_bf16x2(__nv_bfloat16* p, float a, float b) {
  *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(a, b);
}

// Row of the group (0-based) held in accumulator block m, half r, for this thread.
template <int MI>
__device__ __forceinline__ int local_row(const TileCoord& c, int wg, int m, int r) {
  const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
  return c.m_block * 128 + (MI == 1 ? wg * 64 : 0) + m * 64 + warp * 16 + lane / 4 + 8 * r;
}

// Plain store of the tile: out[row, n_block*BN + col].
template <int BN, int MI>
struct EpiStoreBf16 {
  using Pre = NoPre;
  __device__ __forceinline__ static void prefetch(const EpilogueParams&, const TileCoord&, int, Pre&) {}
  template <class Accum>
  __device__ __forceinline__ static void apply(const EpilogueParams& e, const TileCoord& c, int wg,
                                               const Accum& acc, const Pre&) {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int m = 0; m < MI; ++m)
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int local = local_row<MI>(c, wg, m, r);
        if (local >= c.rows) continue;
        const int p = c.row_begin + local;
        const int64_t orow = e.out_rows ? (int64_t)__ldg(e.out_rows + p) : (int64_t)p;
        __nv_bfloat16* row = e.out + orow * e.ld_out;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
          const int col = c.n_block * BN + 8 * j + 2 * (lane % 4);
          const int v = m * (BN / 2) + 4 * j + 2 * r;
          if (col < e.n_out) store_bf16x2(row + col, acc(v), acc(v + 1));
        }
      }
  }
};

// GEMM 1 forward: the tile's first BN/2 columns are gate columns n0.., the last BN/2 the matching
// up columns (n0 = n_block*BN/2). Writes z = [g | u] (bf16) and h = silu(min(g,c)) * clamp(u,-c,c)
// computed from the bf16-rounded g, u (what the backward will reload).
template <int BN, int MI>
struct EpiSwiGLUFwd {
  using Pre = NoPre;
  __device__ __forceinline__ static void prefetch(const EpilogueParams&, const TileCoord&, int, Pre&) {}
  template <class Accum>
  __device__ __forceinline__ static void apply(const EpilogueParams& e, const TileCoord& c, int wg,
                                               const Accum& acc, const Pre&) {
    constexpr int H = BN / 2;
    const int lane = threadIdx.x % 32;
    const float cl = e.clamp;
#pragma unroll
    for (int m = 0; m < MI; ++m)
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int local = local_row<MI>(c, wg, m, r);
        if (local >= c.rows) continue;
        const int64_t row = c.row_begin + local;
        __nv_bfloat16* zrow = e.out + row * e.ld_out;
        __nv_bfloat16* hrow = e.out2 + row * e.ld_out2;
#pragma unroll
        for (int j = 0; j < H / 8; ++j) {
          const int col = c.n_block * H + 8 * j + 2 * (lane % 4);
          const int vg = m * (BN / 2) + 4 * j + 2 * r, vu = vg + 4 * (H / 8);
          const __nv_bfloat162 g2 = __floats2bfloat162_rn(acc(vg), acc(vg + 1));
          const __nv_bfloat162 u2 = __floats2bfloat162_rn(acc(vu), acc(vu + 1));
          *reinterpret_cast<__nv_bfloat162*>(zrow + col) = g2;
          *reinterpret_cast<__nv_bfloat162*>(zrow + e.inter + col) = u2;
          const float2 g = __bfloat1622float2(g2), u = __bfloat1622float2(u2);
          const float h0 = silu_f(fminf(g.x, cl)) * fminf(fmaxf(u.x, -cl), cl);
          const float h1 = silu_f(fminf(g.y, cl)) * fminf(fmaxf(u.y, -cl), cl);
          store_bf16x2(hrow + col, h0, h1);
        }
      }
  }
};

// Backward through GEMM 2 and SwiGLU: acc = dA = dy . W2 for columns n0.. of I (n0 = n_block*BN).
// Reloads z, then writes dz = [dg | du] (with the routing weight folded in), h*w (for dW2) and
// the row's partial <dA, round(h)> for d(topk_weights), one value per (row, n_block).
// kPrefetch: z and w are loaded into registers before the mainloop (cooperative mode, where both
// warpgroups' epilogues would otherwise stall on these loads at the same time).
template <int BN, int MI, bool kPrefetch>
struct EpiSwiGLUBwd {
  struct PreZ {
    __nv_bfloat162 g[2][BN / 8], u[2][BN / 8];
    float w[2];
  };
  using Pre = std::conditional_t<kPrefetch, PreZ, NoPre>;

  __device__ __forceinline__ static void load_row(const EpilogueParams& e, const TileCoord& c, int local,
                                                  __nv_bfloat162 (&g)[BN / 8], __nv_bfloat162 (&u)[BN / 8],
                                                  float& w) {
    const int lane = threadIdx.x % 32;
    if (local < c.rows) {
      const int64_t row = c.row_begin + local;
      w = __ldg(e.topk_w + __ldg(e.sorted_pair + row));
      const __nv_bfloat16* zrow = e.z + row * e.ld_z + c.n_block * BN + 2 * (lane % 4);
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        g[j] = *reinterpret_cast<const __nv_bfloat162*>(zrow + 8 * j);
        u[j] = *reinterpret_cast<const __nv_bfloat162*>(zrow + e.inter + 8 * j);
      }
    }
  }

  __device__ __forceinline__ static void prefetch(const EpilogueParams& e, const TileCoord& c, int wg, Pre& pre) {
    if constexpr (kPrefetch) {
      static_assert(MI == 1, "prefetch holds one m64 block");
#pragma unroll
      for (int r = 0; r < 2; ++r) load_row(e, c, local_row<MI>(c, wg, 0, r), pre.g[r], pre.u[r], pre.w[r]);
    }
  }

  template <class Accum>
  __device__ __forceinline__ static void apply(const EpilogueParams& e, const TileCoord& c, int wg,
                                               const Accum& acc, const Pre& pre) {
    const int lane = threadIdx.x % 32;
    const float cl = e.clamp;
    const int n_blocks = e.inter / BN;
#pragma unroll
    for (int m = 0; m < MI; ++m)
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int local = local_row<MI>(c, wg, m, r);
        const bool valid = local < c.rows;  // the whole quad agrees (same row)
        float dot = 0.f;
        if (valid) {
          __nv_bfloat162 gz[BN / 8], uz[BN / 8];
          float w;
          if constexpr (kPrefetch) {
#pragma unroll
            for (int j = 0; j < BN / 8; ++j) gz[j] = pre.g[r][j], uz[j] = pre.u[r][j];
            w = pre.w[r];
          } else {
            load_row(e, c, local, gz, uz, w);
          }
          const int64_t row = c.row_begin + local;
          __nv_bfloat16* dzrow = e.out + row * e.ld_out;
          __nv_bfloat16* hwrow = e.out2 + row * e.ld_out2;
#pragma unroll
          for (int j = 0; j < BN / 8; ++j) {
            const int col = c.n_block * BN + 8 * j + 2 * (lane % 4);
            const float2 g = __bfloat1622float2(gz[j]);
            const float2 u = __bfloat1622float2(uz[j]);
            float dg[2], du[2], hw[2];
#pragma unroll
            for (int q = 0; q < 2; ++q) {
              const float gq = q ? g.y : g.x, uq = q ? u.y : u.x;
              const float da = acc(m * (BN / 2) + 4 * j + 2 * r + q);
              const float gc = fminf(gq, cl);
              const float uc = fminf(fmaxf(uq, -cl), cl);
              const float sg = 1.0f / (1.0f + __expf(-gc));
              const float si = gc * sg;
              const float h = si * uc;
              dot += da * __bfloat162float(__float2bfloat16_rn(h));  // <dA, round(h)>
              const float dh = da * w;
              dg[q] = (gq <= cl) ? dh * uc * sg * (1.0f + gc * (1.0f - sg)) : 0.0f;
              du[q] = (uq >= -cl && uq <= cl) ? dh * si : 0.0f;
              hw[q] = h * w;
            }
            store_bf16x2(dzrow + col, dg[0], dg[1]);
            store_bf16x2(dzrow + e.inter + col, du[0], du[1]);
            store_bf16x2(hwrow + col, hw[0], hw[1]);
          }
        }
        dot += __shfl_xor_sync(0xffffffffu, dot, 1);
        dot += __shfl_xor_sync(0xffffffffu, dot, 2);
        if (valid && (lane % 4) == 0) e.part[(int64_t)(c.row_begin + local) * n_blocks + c.n_block] = dot;
      }
  }
};

}  // namespace pk::sm90
