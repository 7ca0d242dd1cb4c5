// Epilogues of the sm90 m-grouped GEMM family. Each consumer thread holds the wgmma accumulator
// of MI m64 x BN blocks; value v = 4j + 2r + c of block m sits at acc(v + m*BN/2), for
//   row = row0 + 64m + 16*warp + lane/4 + 8r,  col = 8j + 2*(lane%4) + c   (j < BN/8; r, c in {0,1})
// with row0 = 64*wg (cooperative, MI = 1) or 0 (ping-pong, MI = 2). Rows past the group's end are
// skipped; every written element is bf16. Each epilogue may prefetch operands before the mainloop
// (Pre, filled by prefetch()), so that their load latency hides under the MMAs.
#pragma once
#include <cstdint>
#include <type_traits>
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

// Timing-diagnostic builds only (ci/build_diag_libraries.sh, next to mainloop.cuh's PK_SM90_DIAG_NO_MMA /
// _NO_LOADS; never in a wheel): PK_SM90_DIAG_NO_STORES drops every store issued from the registers
// (EpiStoreBf16, EpiSwiGLUFwd, the staged GEMM 1's h, the epilogue warps of GEMM 1 and dH) and
// EpiStoreBf16WarpStaged's bulk copies, so that the time says what those stores cost
// (session 9, run 8: the ping-pong GEMM 1's 4-byte stores slowed every SM's operand loads).
#ifdef PK_SM90_DIAG_NO_STORES
constexpr bool kDiagNoStores = true;
#else
constexpr bool kDiagNoStores = false;
#endif
// PK_SM90_DIAG_NO_EPILOGUE (timing-diagnostic builds only): the epilogue warps only take each staged tile and hand
// it back (no loads, math or stores), so that the time says what the consumers' MMA path and hand-off alone cost.
#ifdef PK_SM90_DIAG_NO_EPILOGUE
constexpr bool kDiagNoEpilogue = true;
#else
constexpr bool kDiagNoEpilogue = false;
#endif

__device__ __forceinline__ void store_bf16x2(__nv_bfloat16* p, float a, float b) {
  *reinterpret_cast<__nv_bfloat162*>(p) = __floats2bfloat162_rn(a, b);
}

// The four lanes of a quad hold one accumulator row: lane q's w[s] is the bf16 pair at columns 8(4t + s) + 2q.
// Afterwards lane q's w[p] is lane p's pair of block 4t + q, i.e. lane q holds columns 8(4t + q) .. +7 of the
// row, 16 contiguous bytes: one 16-byte store instead of four 4-byte ones (4-byte stores from the registers,
// half an L2 sector each, slowed the operand loads of every SM: session 9, run 8). Two xor exchanges (lane
// bit 0 with slot bit 0, then bit 1 with bit 1). Every lane of the warp must take part.
__device__ __forceinline__ void quad_transpose(uint32_t (&w)[4]) {
  const int q = threadIdx.x & 3;
#pragma unroll
  for (int s1 = 0; s1 < 2; ++s1) {
    const uint32_t recv = __shfl_xor_sync(0xffffffffu, (q & 1) ? w[2 * s1] : w[2 * s1 + 1], 1);
    if (q & 1) w[2 * s1] = recv;
    else w[2 * s1 + 1] = recv;
  }
#pragma unroll
  for (int s0 = 0; s0 < 2; ++s0) {
    const uint32_t recv = __shfl_xor_sync(0xffffffffu, (q & 2) ? w[s0] : w[2 + s0], 2);
    if (q & 2) w[s0] = recv;
    else w[2 + s0] = recv;
  }
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
          if (col < e.n_out && !kDiagNoStores) store_bf16x2(row + col, acc(v), acc(v + 1));
        }
      }
  }
};

// Vector fp32 reduction into global memory (sm_90; dst 16-byte aligned), no return value.
__device__ __forceinline__ void red_add_v4_f32(float* dst, float a, float b, float c, float d) {
  asm volatile("red.global.add.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(dst), "f"(a), "f"(b), "f"(c), "f"(d)
               : "memory");
}

// GEMM 2 with the combine fused in (opt-in, PK_MOE_COMBINE=scatter): instead of storing sorted row p,
// adds w[pair] * acc row into the fp32 token row y32[pair / topk] with vector reductions
// (red.global.add.v4.f32; y32 zeroed first, converted to bf16 afterwards). Field use: e.part = y32
// [T, n_out] fp32 with row stride e.ld_out, e.sorted_pair (sorted row -> flat pair t*K+k), e.topk_w
// (by flat pair), e.inter = topk, e.n_out = valid columns (a multiple of 4). Float atomics: the
// order of the K additions into a token row varies run to run, so y is NOT bitwise deterministic
// (the gather-sum combine is).
// Lanes 2i, 2i+1 swap their fp32 pairs (shfl.xor 1) so that the even lane holds 4 consecutive columns
// of row r = 0 and the odd lane 4 of row r = 1: one 16-byte reduction per lane and j instead of two
// 8-byte ones. The token row offset and weight of the lane's row (r = lane & 1) are loaded before
// the mainloop.
template <int BN, int MI>
struct EpiScatterAddF32 {
  struct Pre {
    int64_t off[MI];  // element offset of the lane's token row in y32, -1 = past the group's end
    float w[MI];
  };
  __device__ __forceinline__ static void prefetch(const EpilogueParams& e, const TileCoord& c, int wg, Pre& pre) {
    const int r = threadIdx.x & 1;
#pragma unroll
    for (int m = 0; m < MI; ++m) {
      const int local = local_row<MI>(c, wg, m, r);
      pre.off[m] = -1;
      pre.w[m] = 0.f;
      if (local < c.rows) {
        const int pair = __ldg(e.sorted_pair + c.row_begin + local);
        pre.off[m] = (int64_t)(pair / e.inter) * e.ld_out;
        pre.w[m] = __ldg(e.topk_w + pair);
      }
    }
  }
  template <class Accum>
  __device__ __forceinline__ static void apply(const EpilogueParams& e, const TileCoord& c, int wg,
                                               const Accum& acc, const Pre& pre) {
    const int lane = threadIdx.x % 32;
    const bool odd = lane & 1;
    float* y32 = e.part;
#pragma unroll
    for (int m = 0; m < MI; ++m) {
      const float w = pre.w[m];
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int v = m * (BN / 2) + 4 * j;  // row r = 0: v, v+1; row r = 1: v+2, v+3
        // (every accumulator read unconditionally: selecting between accumulator registers by lane
        // parity made ptxas serialize the ping-pong kernel's wgmmas, warning C7514)
        const float a0 = acc(v), a1 = acc(v + 1), b0 = acc(v + 2), b1 = acc(v + 3);
        const float qa0 = __shfl_xor_sync(0xffffffffu, a0, 1), qa1 = __shfl_xor_sync(0xffffffffu, a1, 1);
        const float qb0 = __shfl_xor_sync(0xffffffffu, b0, 1), qb1 = __shfl_xor_sync(0xffffffffu, b1, 1);
        // even lane: columns col..col+3 of row 0 = (a, partner's a); odd lane: col-2..col+1 of row 1
        // = (partner's b, b)
        const int col = c.n_block * BN + 8 * j + 2 * (lane % 4) - (odd ? 2 : 0);
        if (pre.off[m] >= 0 && col < e.n_out) {
          float* dst = y32 + pre.off[m] + col;
          if (odd) red_add_v4_f32(dst, w * qb0, w * qb1, w * b0, w * b1);
          else red_add_v4_f32(dst, w * a0, w * a1, w * qa0, w * qa1);
        }
      }
    }
  }
};

// 16 rows of an accumulator fragment kCols wide (value 4j + 2r + c at row lane/4 + 8r, column 8j + 2(lane%4) + c,
// held at acc(v0 + value)) as bf16 into shared-memory rows row0 .. row0 + 15 at buf (pitch kRowBytes). Matrix
// q = lane/8 of stmatrix x4 #jj: rows 8(q&1).., columns 16jj + 8(q>>1)..; its fragment is value 8jj + 2q (+1)
// (j = 2jj + (q>>1), r = q&1).
template <int kCols, int kRowBytes, class Accum>
__device__ __forceinline__ void stmatrix_16rows(const Accum& acc, int v0, uint32_t buf, int row0) {
  const int lane = threadIdx.x % 32, q = lane / 8;
  const uint32_t addr = buf + (row0 + (q & 1) * 8 + lane % 8) * kRowBytes + (q >> 1) * 16;
#pragma unroll
  for (int jj = 0; jj < kCols / 16; ++jj) {
    const int v = v0 + 8 * jj;
    stmatrix_x4(addr + jj * 32, pack_bf16x2(acc(v), acc(v + 1)), pack_bf16x2(acc(v + 2), acc(v + 3)),
                pack_bf16x2(acc(v + 4), acc(v + 5)), pack_bf16x2(acc(v + 6), acc(v + 7)));
  }
}

// Helpers of the staged epilogues (cooperative layout, MI = 1; staging half of warpgroup wg at
// smem_c + wg * 64 * (BN*2 + 16)).
template <int BN>
struct StagedTile {
  static constexpr int kRowBytes = BN * 2 + 16;
  __device__ __forceinline__ static uint32_t buffer(uint8_t* smem_c, int wg) {
    return smem_u32(smem_c) + wg * 64 * kRowBytes;
  }
  // Steps 1-2: wait until this warpgroup's previous bulk copies (each issuing thread, `issuer`,
  // waits for its own) have read the buffer, write the accumulators to it as bf16 (kBoxCols = 0:
  // row-major [64][BN], pitch kRowBytes; else the TMA boxes of stmatrix_boxes<kBoxCols>), and make
  // the writes visible to the async proxy.
  // kPacked (boxes only): acc(k) is already the packed bf16 pair of values 2k, 2k + 1.
  // kTrans (boxes only): the transposed tile, as stmatrix_boxes_trans lays it out.
  // reads_left 1: wait only until all but the issuer's last bulk group have read their source (a buffer used
  // in alternation with another, kgrouped_wgrad.cuh's DBUF).
  template <int kBoxCols = 0, bool kPacked = false, bool kTrans = false, class Accum>
  __device__ __forceinline__ static void write(const Accum& acc, uint32_t buf, int wg, bool issuer,
                                               int reads_left = 0) {
    static_assert(!kPacked || kBoxCols != 0, "packed pairs go to the TMA boxes");
    static_assert(!kTrans || kBoxCols == 64, "the transposed tile goes to 64 x 64 boxes");
    const uint32_t bar_id = 1 + wg;  // named barriers 1, 2 (0 is __syncthreads)
    if (issuer) bulk_wait_read(reads_left);
    named_bar_sync(bar_id, 128);
    if constexpr (kBoxCols == 0) stmatrix_rows(acc, buf);
    else if constexpr (kTrans) stmatrix_boxes_trans<kPacked>(acc, buf);
    else stmatrix_boxes<kBoxCols, kPacked>(acc, buf);
    fence_proxy_async_smem();  // generic-proxy writes -> read by the bulk copies (async proxy)
    named_bar_sync(bar_id, 128);
  }
  // The accumulators (bf16) into the warpgroup's 64 staging rows (warp w: rows 16w ..).
  template <class Accum>
  __device__ __forceinline__ static void stmatrix_rows(const Accum& acc, uint32_t buf) {
    const int warp = (threadIdx.x % 128) / 32;
    stmatrix_16rows<BN, kRowBytes>(acc, 0, buf, warp * 16);
  }
  // The same accumulators as BN/kBoxCols boxes of 64 rows x kBoxCols columns (box q at buf +
  // q * 64 * kBoxCols * 2), each swizzled as a TMA box: 64 columns with the 128-byte swizzle (16-byte
  // piece j of row r at j ^ (r % 8)), 32 columns with the 64-byte one (j ^ ((r / 2) % 4)); so one TMA
  // tensor store per box writes them out, and the 8 rows of a stmatrix matrix land in 8 different bank
  // groups. Needs buf 1024-byte aligned and 64 * BN * 2 bytes (not more than the padded layout's).
  template <int kBoxCols = 64, bool kPacked = false, class Accum>
  __device__ __forceinline__ static void stmatrix_boxes(const Accum& acc, uint32_t buf) {
    static_assert((kBoxCols == 64 || kBoxCols == 32) && BN % kBoxCols == 0, "box width");
    constexpr int kRowBytes = kBoxCols * 2;
    const int tid = threadIdx.x % 128, warp = tid / 32, lane = tid % 32;
    const int q = lane / 8;
    const int r = warp * 16 + (q & 1) * 8 + lane % 8;
    const int swz = kBoxCols == 64 ? r % 8 : (r / 2) % 4;
    const uint32_t row_base = buf + r * kRowBytes;
#pragma unroll
    for (int jj = 0; jj < BN / 16; ++jj) {
      const int col = 16 * jj + 8 * (q >> 1);  // first column of this lane's matrix row
      const uint32_t addr =
          row_base + (col / kBoxCols) * (64 * kRowBytes) + ((((col % kBoxCols) / 8) ^ swz) << 4);
      auto pair = [&](int k) -> uint32_t {  // the bf16 pair of values 2k, 2k + 1
        if constexpr (kPacked) return acc(k);
        else return pack_bf16x2(acc(2 * k), acc(2 * k + 1));
      };
      stmatrix_x4(addr, pair(4 * jj), pair(4 * jj + 1), pair(4 * jj + 2), pair(4 * jj + 3));
    }
  }
  // The transpose of the warpgroup's 64 x BN tile: BN/64 boxes of 64 rows (tile columns) x 64 columns (its 64 tile
  // rows), box q at buf + q * 8192, 128-byte swizzle (16-byte piece j of row r at j ^ (r % 8)). A stmatrix matrix
  // (8 tile rows x 8 tile columns) is stored transposed: its 8 columns become 8 box rows holding the same 16-byte
  // piece, so they land in 8 different bank groups. Used where out is written as out^T (the weight gradient whose
  // operands the host swapped, kgrouped_wgrad.cuh).
  template <bool kPacked = false, class Accum>
  __device__ __forceinline__ static void stmatrix_boxes_trans(const Accum& acc, uint32_t buf) {
    static_assert(BN % 64 == 0, "box width");
    const int tid = threadIdx.x % 128, warp = tid / 32, lane = tid % 32;
    const int q = lane / 8;
    const int piece = warp * 2 + (q & 1);  // the matrix's 8 tile rows: a 16-byte piece of each box row
#pragma unroll
    for (int jj = 0; jj < BN / 16; ++jj) {
      const int col = 16 * jj + 8 * (q >> 1) + lane % 8;  // the tile column (box row) this lane addresses
      const uint32_t addr = buf + (col / 64) * 8192 + (col % 64) * 128 + ((piece ^ (col % 8)) << 4);
      auto pair = [&](int k) -> uint32_t {
        if constexpr (kPacked) return acc(k);
        else return pack_bf16x2(acc(2 * k), acc(2 * k + 1));
      };
      stmatrix_x4_trans(addr, pair(4 * jj), pair(4 * jj + 1), pair(4 * jj + 2), pair(4 * jj + 3));
    }
  }
  // Output row (sorted row, or out_rows[sorted row]) of staging row i of warpgroup wg; -1 past the
  // group's end.
  __device__ __forceinline__ static int out_row(const TileCoord& c, int wg, int i, const int* out_rows) {
    const int local = c.m_block * 128 + wg * 64 + i;
    if (local >= c.rows) return -1;
    const int p = c.row_begin + local;
    return out_rows ? __ldg(out_rows + p) : p;
  }
};

// Plain store of the tile through shared memory (cooperative layout only: each consumer warpgroup
// owns rows 64wg..64wg+63 of the tile and half of the staging buffer, row pitch BN*2 + 16 bytes):
//   1. the warpgroup's bulk copies of its previous tile have finished reading the buffer
//      (cp.async.bulk.wait_group.read by each issuing thread, then a warpgroup named barrier);
//   2. stmatrix of the accumulators (bf16) into the buffer; fence.proxy.async; named barrier;
//   3. lane l < 16 of warp w stores staging row 16w + l (the rows a warp writes, so the per-lane
//      bulk copies, which the hardware issues one lane at a time, are spread over all 4 warps)
//      with one cp.async.bulk shared->global of min(BN, n_out - n0) columns to output row
//      out_rows[p] (or p), skipping rows past the group's end (the same rows and columns as
//      EpiStoreBf16), then commits its bulk group.
// The consumers then go straight to the next tile's mainloop while the copies drain; step 1 of
// the next tile waits for them only after that tile's MMAs. Output rows must be 16-byte aligned
// (checked on the host: ld_out % 8 == 0 and an aligned base pointer).
// kTmaStore: a tile whose 128 rows all lie in its group, with BN columns to store and no out_rows,
// instead goes out by BN/64 TMA tensor stores a warpgroup (out_map: out as [rows, n_out], 64 x 64
// boxes, 128B swizzle) issued by one thread, from the swizzled layout of StagedTile::stmatrix_boxes:
// the per-row copies run as a per-lane loop in SASS (the weight gradients spent ~10 % of their
// consumer samples there). A group's partial last tile keeps the per-row copies (TMA would write
// the next group's rows).
template <int BN, bool kTmaStore = false>
struct EpiStoreBf16Staged {
  using Tile = StagedTile<BN>;
  struct Pre {
    int orow;  // output row of staging row srow() (issuing lanes), -1 = not written (one register:
               // it lives across the mainloop next to the 128 accumulators)
  };
  __device__ __forceinline__ static bool issuer() { return threadIdx.x % 32 < 16; }
  __device__ __forceinline__ static int srow() { return (threadIdx.x % 128) / 32 * 16 + threadIdx.x % 16; }
  __device__ __forceinline__ static void prefetch(const EpilogueParams& e, const TileCoord& c, int wg, Pre& pre) {
    pre.orow = issuer() ? Tile::out_row(c, wg, srow(), e.out_rows) : -1;
  }
  template <class Accum>
  __device__ __forceinline__ static void apply_staged(const EpilogueParams& e, const TileCoord& c, int wg,
                                                      const Accum& acc, const Pre& pre, uint8_t* smem_c,
                                                      const CUtensorMap* out_map) {
    if constexpr (kTmaStore) {
      const int n0 = c.n_block * BN;
      if (e.out_rows == nullptr && (c.m_block + 1) * 128 <= c.rows && n0 + BN <= e.n_out) {
        const uint32_t buf = smem_u32(smem_c) + wg * (64 * BN * 2);  // (1024-byte aligned)
        Tile::template write<64>(acc, buf, wg, issuer());  // (issuer(): every earlier copy, either form)
        if (threadIdx.x % 128 == 0) {
          const int row0 = c.row_begin + c.m_block * 128 + wg * 64;
#pragma unroll
          for (int q = 0; q < BN / 64; ++q) tma_store_2d(out_map, buf + q * (64 * 128), n0 + 64 * q, row0);
          bulk_commit();
        }
        return;
      }
    }
    const uint32_t buf = Tile::buffer(smem_c, wg);
    Tile::write(acc, buf, wg, issuer());
    if (issuer()) {
      if (pre.orow >= 0) {
        const int n0 = c.n_block * BN;
        const int cols = min(BN, e.n_out - n0);
        if (cols > 0)
          bulk_store_s2g(e.out + (int64_t)pre.orow * e.ld_out + n0, buf + srow() * Tile::kRowBytes,
                         static_cast<uint32_t>(cols) * 2u);
      }
      bulk_commit();
    }
  }
  __device__ __forceinline__ static void finish() {
    if (issuer()) bulk_wait_all();
  }
};

// Staging per warp for the ping-pong 128 x BN forms (MI = 2): warp w of consumer warpgroup g owns 16 rows
// of the staging tile (pitch BN*2 + 16 bytes: the cooperative tile's 128 rows cut in 8) and passes its
// 32 rows of a tile (tile rows 64m + 16w .. +15 of accumulator blocks m = 0, 1) through them a block at a
// time: acquire (every lane's earlier bulk copies have read the buffer), stmatrix, publish, then each
// lane issues bulk copies of row pieces. The warp is the unit (no named barriers); the other warpgroup's
// MMAs run meanwhile. Why: stores from the registers, even 16-byte ones, slow every SM's operand loads
// (session 9, runs 7-8; session 10, run 2). (GEMM 1's SwiGLU through it, session 10 runs 1-3, ran no faster
// than the staged default: that kernel is bound by its operand loads, not its stores.)
template <int BN>
struct WarpStage {
  static constexpr int kRowBytes = BN * 2 + 16;
  __device__ __forceinline__ static uint32_t buffer(uint8_t* smem_c, int wg) {
    return smem_u32(smem_c) + (4 * wg + (threadIdx.x / 32) % 4) * 16 * kRowBytes;
  }
  __device__ __forceinline__ static void acquire() {
    bulk_wait_read_all();
    __syncwarp();
  }
  // (between the two: stmatrix_16rows into the warp's buffer)
  __device__ __forceinline__ static void publish() {
    fence_proxy_async_smem();  // generic-proxy writes -> read by the bulk copies (async proxy)
    __syncwarp();
  }
};

// Plain store of a ping-pong 128 x BN tile staged per warp (WarpStage): for each block m, lane l copies
// half l/16 of staging row l%16 (columns n0 + (l/16)*BN/2 .., clipped to n_out) to output row
// out_rows[p] (or p), skipping rows past the group's end: the same rows and columns as EpiStoreBf16.
template <int BN>
struct EpiStoreBf16WarpStaged {
  using Stage = WarpStage<BN>;
  struct Pre {
    int orow[2];  // output row of this lane's staging row in block m, -1 = not written
  };
  __device__ __forceinline__ static int local_row(const TileCoord& c, int m) {
    return c.m_block * 128 + 64 * m + (threadIdx.x / 32) % 4 * 16 + threadIdx.x % 16;
  }
  __device__ __forceinline__ static void prefetch(const EpilogueParams& e, const TileCoord& c, int, Pre& pre) {
#pragma unroll
    for (int m = 0; m < 2; ++m) {
      const int local = local_row(c, m);
      const int p = c.row_begin + local;
      pre.orow[m] = local >= c.rows ? -1 : e.out_rows ? __ldg(e.out_rows + p) : p;
    }
  }
  template <class Accum>
  __device__ __forceinline__ static void apply_staged(const EpilogueParams& e, const TileCoord& c, int wg,
                                                      const Accum& acc, const Pre& pre, uint8_t* smem_c,
                                                      const CUtensorMap*) {
    const int lane = threadIdx.x % 32, half = lane / 16;
    const uint32_t buf = Stage::buffer(smem_c, wg);
    const int c0 = c.n_block * BN + half * (BN / 2);
    const int cols = min(BN / 2, e.n_out - c0);
#pragma unroll
    for (int m = 0; m < 2; ++m) {
      Stage::acquire();
      stmatrix_16rows<BN, Stage::kRowBytes>(acc, m * BN / 2, buf, 0);
      Stage::publish();
      if (pre.orow[m] >= 0 && cols > 0 && !kDiagNoStores)
        bulk_store_s2g(e.out + (int64_t)pre.orow[m] * e.ld_out + c0,
                       buf + (lane % 16) * Stage::kRowBytes + half * BN, static_cast<uint32_t>(cols) * 2u);
      bulk_commit();
    }
  }
  __device__ __forceinline__ static void finish() { bulk_wait_all(); }
};

// h = silu(min(g, c)) * clamp(u, -c, c) of one element. kClamp = false: no clamp (c = +inf; the same
// for every non-NaN input, three FMNMX fewer: GEMM 1's staged loop, session 7).
template <bool kClamp>
__device__ __forceinline__ float swiglu_h(float g, float u, float cl) {
  return kClamp ? silu_f(fminf(g, cl)) * fminf(fmaxf(u, -cl), cl) : silu_f(g) * u;
}
// The bf16 pair of h from the bf16 pairs of g and u (z as stored: what the backward reloads).
template <bool kClamp>
__device__ __forceinline__ uint32_t swiglu_h_pair(uint32_t g2, uint32_t u2, float cl) {
  const float2 g = unpack_bf16x2(g2), u = unpack_bf16x2(u2);
  return pack_bf16x2(swiglu_h<kClamp>(g.x, u.x, cl), swiglu_h<kClamp>(g.y, u.y, cl));
}

// GEMM 1 forward, staged (cooperative, BN = gate BN/2 | up BN/2; used with BN = 192): z = [g | u] goes
// through the staging buffer (the accumulator tile is exactly [g | u]); thread i of the warpgroup
// copies half i/64 (g or u, BN bytes) of staging row i%64 to z[row, n0..] or z[row, I + n0..]; h (a
// third of the bytes; no room for a second staging tile next to 4 pipeline stages) is still written
// from registers, computed from the same bf16-rounded g, u as EpiSwiGLUFwd, as 16-byte pieces after a quad
// transpose (h 16-byte aligned: checked on the host).
// kTmaStore: a tile whose 128 rows all lie in its group stores z instead as BN/32 boxes of 64 rows x
// 32 columns a warpgroup (64-byte swizzle; out_map: z as [rows, 2I]) by one thread's TMA stores.
template <int BN, bool kTmaStore = false>
struct EpiSwiGLUFwdStaged {
  using Tile = StagedTile<BN>;
  struct Pre {
    int row;  // sorted row of staging row tid % 64, -1 = past the group's end
  };
  __device__ __forceinline__ static void prefetch(const EpilogueParams&, const TileCoord& c, int wg, Pre& pre) {
    pre.row = Tile::out_row(c, wg, threadIdx.x % 64, nullptr);
  }
  template <class Accum>
  __device__ __forceinline__ static void apply_staged(const EpilogueParams& e, const TileCoord& c, int wg,
                                                      const Accum& acc, const Pre& pre, uint8_t* smem_c,
                                                      const CUtensorMap* out_map) {
    constexpr int H = BN / 2;
    const int tid = threadIdx.x % 128;
    bool stored = false;
    if constexpr (kTmaStore) {
      if ((c.m_block + 1) * 128 <= c.rows) {
        static_assert(H % 32 == 0, "gate and up halves in 32-column boxes");
        const uint32_t buf = smem_u32(smem_c) + wg * (64 * BN * 2);  // (1024-byte aligned)
        Tile::template write<32>(acc, buf, wg, true);  // (every thread: every earlier copy, either form)
        if (tid == 0) {
          const int row0 = c.row_begin + c.m_block * 128 + wg * 64, g0 = c.n_block * H;
#pragma unroll
          for (int b = 0; b < BN / 32; ++b)
            tma_store_2d(out_map, buf + b * (64 * 64), (b < H / 32 ? 0 : e.inter - H) + g0 + 32 * b, row0);
          bulk_commit();
        }
        stored = true;
      }
    }
    if (!stored) {
      const uint32_t buf = Tile::buffer(smem_c, wg);
      Tile::write(acc, buf, wg, true);
      if (pre.row >= 0) {
        const int half = tid / 64;  // 0: gate columns, 1: up columns
        bulk_store_s2g(e.out + (int64_t)pre.row * e.ld_out + half * e.inter + c.n_block * H,
                       buf + (tid % 64) * Tile::kRowBytes + half * H * 2, H * 2);
      }
      bulk_commit();
    }
    const int n0 = c.n_block * H;
    const int lane = threadIdx.x % 32;
    const float cl = e.clamp;
    static_assert(H % 32 == 0, "h leaves in 16-byte pieces of quad-transposed groups of 4 column blocks");
    auto h_rows = [&](auto clamp) {
      constexpr bool kClamp = decltype(clamp)::value;
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        // (rows past the group's end compute too: the whole warp takes part in the transposes)
        const int local = local_row<1>(c, wg, 0, r);
        __nv_bfloat16* hrow = e.out2 + (int64_t)(c.row_begin + local) * e.ld_out2 + n0;
#pragma unroll
        for (int t = 0; t < H / 32; ++t) {
          uint32_t w[4];
#pragma unroll
          for (int s = 0; s < 4; ++s) {
            const int vg = 4 * (4 * t + s) + 2 * r, vu = vg + 4 * (H / 8);
            w[s] = swiglu_h_pair<kClamp>(pack_bf16x2(acc(vg), acc(vg + 1)), pack_bf16x2(acc(vu), acc(vu + 1)), cl);
          }
          quad_transpose(w);
          if (local < c.rows && !kDiagNoStores)
            *reinterpret_cast<uint4*>(hrow + 8 * (4 * t + lane % 4)) = make_uint4(w[0], w[1], w[2], w[3]);
        }
      }
    };
    if (cl == INFINITY) h_rows(std::false_type{});
    else h_rows(std::true_type{});
  }
  __device__ __forceinline__ static void finish() { bulk_wait_all(); }
};

// GEMM 1 forward: the tile's first BN/2 columns are gate columns n0.., the last BN/2 the matching
// up columns (n0 = n_block*BN/2). Writes z = [g | u] (bf16) and h = silu(min(g,c)) * clamp(u,-c,c)
// computed from the bf16-rounded g, u (what the backward will reload). Each row leaves in 16-byte
// pieces after quad transposes (z and h 16-byte aligned: checked on the host).
template <int BN, int MI>
struct EpiSwiGLUFwd {
  using Pre = NoPre;
  __device__ __forceinline__ static void prefetch(const EpilogueParams&, const TileCoord&, int, Pre&) {}
  template <class Accum>
  __device__ __forceinline__ static void apply(const EpilogueParams& e, const TileCoord& c, int wg,
                                               const Accum& acc, const Pre&) {
    constexpr int H = BN / 2;
    static_assert(H % 32 == 0, "rows leave in 16-byte pieces of quad-transposed groups of 4 column blocks");
    const int lane = threadIdx.x % 32;
    const float cl = e.clamp;
#pragma unroll
    for (int m = 0; m < MI; ++m)
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        // (rows past the group's end compute too: the whole warp takes part in the transposes)
        const int local = local_row<MI>(c, wg, m, r);
        const int64_t row = c.row_begin + local;
        __nv_bfloat16* zrow = e.out + row * e.ld_out + c.n_block * H;
        __nv_bfloat16* hrow = e.out2 + row * e.ld_out2 + c.n_block * H;
#pragma unroll
        for (int t = 0; t < H / 32; ++t) {
          uint32_t g4[4], u4[4], h4[4];
#pragma unroll
          for (int s = 0; s < 4; ++s) {
            const int vg = m * (BN / 2) + 4 * (4 * t + s) + 2 * r, vu = vg + 4 * (H / 8);
            g4[s] = pack_bf16x2(acc(vg), acc(vg + 1));
            u4[s] = pack_bf16x2(acc(vu), acc(vu + 1));
            h4[s] = swiglu_h_pair<true>(g4[s], u4[s], cl);
          }
          quad_transpose(g4);
          quad_transpose(u4);
          quad_transpose(h4);
          if (local < c.rows && !kDiagNoStores) {
            const int col = 8 * (4 * t + lane % 4);
            *reinterpret_cast<uint4*>(zrow + col) = make_uint4(g4[0], g4[1], g4[2], g4[3]);
            *reinterpret_cast<uint4*>(zrow + e.inter + col) = make_uint4(u4[0], u4[1], u4[2], u4[3]);
            *reinterpret_cast<uint4*>(hrow + col) = make_uint4(h4[0], h4[1], h4[2], h4[3]);
          }
        }
      }
  }
};

// SwiGLU backward of one element: dA = dy . W2 (unweighted), routing weight w, saved pre-activation
// (g, u), clamp cl. Writes dg, du (the weight folded in) and h * w; returns dA * round_bf16(h), the
// element's term of d(topk_weight). kFast: sigmoid with the approximate reciprocal. kClamp = false:
// no clamp (cl = +inf; the same results for every non-NaN input, six instructions fewer).
template <bool kFast, bool kClamp = true>
__device__ __forceinline__ float swiglu_bwd(float da, float w, float gq, float uq, float cl, float& dg, float& du,
                                            float& hw) {
  const float gc = kClamp ? fminf(gq, cl) : gq;
  const float uc = kClamp ? fminf(fmaxf(uq, -cl), cl) : uq;
  const float sg = kFast ? sigmoid_f(gc) : 1.0f / (1.0f + exp_neg_f(gc));
  const float si = gc * sg;
  const float h = si * uc;
  const float dh = da * w;
  // silu'(g) = sg (1 + g (1 - sg)) = sg + si (1 - sg): one FFMA and one FADD (one multiply fewer)
  const float dsilu = fmaf(si, -sg, si) + sg;
  if constexpr (kClamp) {
    dg = (gq <= cl) ? dh * uc * dsilu : 0.0f;
    du = (uq >= -cl && uq <= cl) ? dh * si : 0.0f;
  } else {
    dg = dh * uc * dsilu;
    du = dh * si;
  }
  hw = h * w;
  return da * __bfloat162float(__float2bfloat16_rn(h));
}

// Backward through GEMM 2 and SwiGLU: acc = dA = dy . W2 for columns n0.. of I (n0 = n_block*BN).
// Reloads z, then writes dz = [dg | du] (with the routing weight folded in), h*w (for dW2) and
// the row's partial <dA, round(h)> for d(topk_weights), one value per (row, 128 columns): a BN = 256
// tile writes its sum into its first slot and 0 into the second.
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

  // Without prefetch, z is loaded kJ column groups at a time (BN = 256: 8 of 32, so that the loaded z
  // and the 128 accumulators fit the registers; all of them at once spilled 724 bytes).
  static constexpr int kJ = BN == 256 ? 8 : BN / 8;

  template <class Accum>
  __device__ __forceinline__ static void apply(const EpilogueParams& e, const TileCoord& c, int wg,
                                               const Accum& acc, const Pre& pre) {
    const int lane = threadIdx.x % 32;
    const float cl = e.clamp;
#pragma unroll
    for (int m = 0; m < MI; ++m)
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int local = local_row<MI>(c, wg, m, r);
        const bool valid = local < c.rows;  // the whole quad agrees (same row)
        float dot = 0.f;
        if (valid) {
          const int64_t row = c.row_begin + local;
          __nv_bfloat16* dzrow = e.out + row * e.ld_out;
          __nv_bfloat16* hwrow = e.out2 + row * e.ld_out2;
          float w;
          if constexpr (kPrefetch) w = pre.w[r];
          else w = __ldg(e.topk_w + __ldg(e.sorted_pair + row));
          // column group j: z pair (gz, uz) -> dz, h*w, and the running <dA, round(h)>
          auto emit = [&](int j, __nv_bfloat162 gz, __nv_bfloat162 uz) {
            const int col = c.n_block * BN + 8 * j + 2 * (lane % 4);
            const float2 g = __bfloat1622float2(gz);
            const float2 u = __bfloat1622float2(uz);
            float dg[2], du[2], hw[2];
#pragma unroll
            for (int q = 0; q < 2; ++q) {
              // exact division, not sigmoid_f: the fast reciprocal measured slower here (see ptx.cuh)
              dot += swiglu_bwd<false>(acc(m * (BN / 2) + 4 * j + 2 * r + q), w, q ? g.y : g.x,
                                       q ? u.y : u.x, cl, dg[q], du[q], hw[q]);
            }
            store_bf16x2(dzrow + col, dg[0], dg[1]);
            store_bf16x2(dzrow + e.inter + col, du[0], du[1]);
            store_bf16x2(hwrow + col, hw[0], hw[1]);
          };
          if constexpr (kPrefetch) {
#pragma unroll
            for (int j = 0; j < BN / 8; ++j) emit(j, pre.g[r][j], pre.u[r][j]);
          } else {
            const __nv_bfloat16* zrow = e.z + row * e.ld_z + c.n_block * BN + 2 * (lane % 4);
#pragma unroll
            for (int j0 = 0; j0 < BN / 8; j0 += kJ) {
              __nv_bfloat162 gz[kJ], uz[kJ];
#pragma unroll
              for (int j = 0; j < kJ; ++j) {
                gz[j] = *reinterpret_cast<const __nv_bfloat162*>(zrow + 8 * (j0 + j));
                uz[j] = *reinterpret_cast<const __nv_bfloat162*>(zrow + e.inter + 8 * (j0 + j));
              }
#pragma unroll
              for (int j = 0; j < kJ; ++j) emit(j0 + j, gz[j], uz[j]);
            }
          }
        }
        dot += __shfl_xor_sync(0xffffffffu, dot, 1);
        dot += __shfl_xor_sync(0xffffffffu, dot, 2);
        // part has I/128 slots a row whatever BN is: a BN = 256 tile fills its first slot, zeroes the other
        if (valid && (lane % 4) < BN / 128) {
          float* slot = e.part + (int64_t)(c.row_begin + local) * (e.inter / 128) + c.n_block * (BN / 128);
          slot[lane % 4] = (lane % 4) == 0 ? dot : 0.f;
        }
      }
  }
};

// What the epilogue-warps epilogues share (EpiSwiGLUFwdWarps, EpiSwiGLUBwdWarps; GemmConfig EpiWarps_ / EpiWG_):
// the consumers' hand-over of a finished tile through the staging buffer, and the clamp / no-clamp dispatch of the
// epilogue warps' Derived::tile.
template <int BN, class Derived>
struct EpilogueWarpsBase {
  using Tile = StagedTile<BN>;
  using Pre = NoPre;
  static constexpr int kTileRows = 128;

  __device__ __forceinline__ static void prefetch(const EpilogueParams&, const TileCoord&, int, Pre&) {}

  // Consumer side: wait until the epilogue warps have read tile j-1 back, write this tile (bf16), arrive.
  template <class Accum>
  __device__ __forceinline__ static void stage(const Accum& acc, uint8_t* smem_c, int wg, int j, uint64_t* full,
                                               uint64_t* empty) {
    mbar_wait(empty, (static_cast<uint32_t>(j) & 1u) ^ 1u);
    Tile::stmatrix_rows(acc, Tile::buffer(smem_c, wg));
    mbar_arrive(full);
  }

  // kWarps epilogue warps; this warp's index among them is threadIdx.x / 32 - kSkip (kSkip: the CTA's warps
  // before this warp's group of epilogue warps that are not epilogue warps).
  template <int kWarps, int kSkip>
  __device__ __forceinline__ static void epilogue_warps_tile(const EpilogueParams& e, const TileCoord& c, int j,
                                                             uint8_t* smem_c, uint64_t* full, uint64_t* empty) {
    if constexpr (kDiagNoEpilogue) {
      mbar_wait(full, static_cast<uint32_t>(j) & 1u);
      mbar_arrive(empty);
      return;
    }
    if (e.clamp == INFINITY) Derived::template tile<kWarps, kSkip, false>(e, c, j, smem_c, full, empty);
    else Derived::template tile<kWarps, kSkip, true>(e, c, j, smem_c, full, empty);
  }
};

// GEMM 1 forward with its SwiGLU in epilogue warps (GemmConfig EpiWG_: the fourth warpgroup; cooperative
// 128 x BN tiles, BN = gate BN/2 | up BN/2): the consumers stmatrix the bf16 tile [g | u] into the staging buffer
// (EpilogueWarpsBase::stage) and go on to the next tile's MMAs; epilogue warp w takes the row pairs
// (2 (w + kWarps i), + 1), lanes 0-15 the first, 16-31 the second, lane l < BN/16 columns 8l..8l+7 of the gate and
// up halves: z's two 16-byte pieces and h's one (computed from the bf16 g, u as every GEMM 1 form does).
template <int BN>
struct EpiSwiGLUFwdWarps : EpilogueWarpsBase<BN, EpiSwiGLUFwdWarps<BN>> {
  static constexpr int H = BN / 2;
  static_assert(H % 8 == 0 && H / 8 <= 16, "a half-warp covers the gate (and up) half of a row, 8 columns a lane");
  using Tile = StagedTile<BN>;
  static constexpr int kTileRows = 128;

  // (called by EpilogueWarpsBase::epilogue_warps_tile)
  template <int kWarps, int kSkip, bool kClamp>
  __device__ __forceinline__ static void tile(const EpilogueParams& e, const TileCoord& c, int j, uint8_t* smem_c,
                                              uint64_t* full, uint64_t* empty) {
    static_assert(kTileRows % (2 * kWarps) == 0, "row pairs per warp");
    const int warp = threadIdx.x / 32 - kSkip, lane = threadIdx.x % 32;
    const int l = lane % 16, pair_row = lane / 16;
    const int rows = min(c.rows - c.m_block * kTileRows, kTileRows);  // valid rows of this tile
    const int64_t p0 = c.row_begin + c.m_block * kTileRows;          // sorted row of tile row 0
    const int n0 = c.n_block * H + 8 * l;
    const float cl = e.clamp;
    const uint8_t* col0 = smem_c + l * 16;
    mbar_wait(full, static_cast<uint32_t>(j) & 1u);
#pragma unroll 4
    for (int i = 0; i < kTileRows / (2 * kWarps); ++i) {
      const int r = 2 * (warp + kWarps * i) + pair_row;
      if (l < H / 8 && r < rows) {
        const uint8_t* src = col0 + r * Tile::kRowBytes;
        const uint4 g = *reinterpret_cast<const uint4*>(src);
        const uint4 u = *reinterpret_cast<const uint4*>(src + H * 2);
        const uint4 h = make_uint4(swiglu_h_pair<kClamp>(g.x, u.x, cl), swiglu_h_pair<kClamp>(g.y, u.y, cl),
                                   swiglu_h_pair<kClamp>(g.z, u.z, cl), swiglu_h_pair<kClamp>(g.w, u.w, cl));
        if constexpr (!kDiagNoStores) {
          __nv_bfloat16* zrow = e.out + (p0 + r) * e.ld_out + n0;
          *reinterpret_cast<uint4*>(zrow) = g;
          *reinterpret_cast<uint4*>(zrow + e.inter) = u;
          *reinterpret_cast<uint4*>(e.out2 + (p0 + r) * e.ld_out2 + n0) = h;
        }
      }
    }
    mbar_arrive(empty);  // (after the last shared-memory read of this thread)
  }
};

// dH with the epilogue in the last warps of warpgroup 0 and / or a fourth warpgroup (GemmConfig EpiWarps_,
// EpiWG_; cooperative 128 x 256 tiles): what EpiSwiGLUBwd computes, without holding up the MMAs.
//   consumers (stage): wait until the epilogue warps have read the previous tile back, stmatrix dA
//     as bf16 into the staging buffer (rows 64wg.., pitch BN*2 + 16), arrive, start the next tile;
//   epilogue warp e < kWarps (epilogue_warps_tile): tile rows e, e+kWarps, ..., kBatch (2) rows at a time;
//     a full tile's batch has no branch (the two rows' chains interleave), a partial tile's rows past its
//     end compute on clamped addresses and store nothing; lane l columns 8l..8l+7, so every load and
//     store of a row is one coalesced 16-byte vector per lane (z gate and up, dA from shared memory;
//     dz gate and up, h*w). z is loaded one batch ahead, the first batch and the routing weights
//     (lane l: rows e + kWarps (l + 32h), shuffled to the warp) while the tile's MMAs still run.
//     d(topk_weights): lanes 0-15 sum the first 128 columns, 16-31 the rest.
//     Session 23 (notes "Session 23"): with the batch's shuffles ahead of the next batch's loads, dA by
//     ld.shared, addresses as row offsets and the branch-free full-tile copy, 30B dH -9 %.
// dA is rounded to bf16 in between (as torch's grouped_mm output would be); the sigmoid uses the
// approximate reciprocal and a tile without clamp takes a clamp-free path (these warps' instruction
// count and latency are what the epilogue costs).
// kPrefetchL1: z rows also go into L1 (prefetch.global.L1) two batches before their use. ptxas puts
// every global load of these warps on one scoreboard and waits for all of them at the first use of
// any (and at a shuffle), so a wait for batch b's z also waits for batch b+1's loads just issued
// (ncu: ~24 % of the epilogue warps' samples at 30B, results/session5/run5). With the lines in L1
// that wait is an L1 hit instead of a DRAM round trip.
template <int BN, bool kPrefetchL1 = false>
struct EpiSwiGLUBwdWarps : EpilogueWarpsBase<BN, EpiSwiGLUBwdWarps<BN, kPrefetchL1>> {
  static_assert(BN == 256, "a warp covers one 256-column row, 8 columns a lane");
  using Tile = StagedTile<BN>;
  static constexpr int kTileRows = 128;
  static constexpr int kBatch = 2;  // rows processed together (and z rows loaded ahead) per warp

  struct ZRow {
    uint4 g, u;
  };

  // (called by EpilogueWarpsBase::epilogue_warps_tile) A tile whose 128 rows all hold data (most tiles) runs a copy
  // of the loop without a row test: the tests' branches cut the loop into basic blocks that ptxas schedules apart.
  template <int kWarps, int kSkip, bool kClamp>
  __device__ __forceinline__ static void tile(const EpilogueParams& e, const TileCoord& c, int j, uint8_t* smem_c,
                                              uint64_t* full, uint64_t* empty) {
    const int rows = min(c.rows - c.m_block * kTileRows, kTileRows);  // valid rows of this tile
    if constexpr (kTileRows % kWarps == 0) {  // (else the warps' row counts differ even in a full tile)
      if (rows == kTileRows) return tile_rows<kWarps, kSkip, kClamp, true>(e, c, j, rows, smem_c, full, empty);
    }
    tile_rows<kWarps, kSkip, kClamp, false>(e, c, j, rows, smem_c, full, empty);
  }

  template <int kWarps, int kSkip, bool kClamp, bool kFull>
  __device__ __forceinline__ static void tile_rows(const EpilogueParams& e, const TileCoord& c, int j, int rows,
                                                   uint8_t* smem_c, uint64_t* full, uint64_t* empty) {
    constexpr int kSteps = (kTileRows + kWarps - 1) / kWarps;  // rows per warp
    static_assert(kSteps <= 64, "two routing weights a lane");
    static_assert(kBatch == 2, "the d(topk) reduction below pairs the batch's two rows");
    const int warp = threadIdx.x / 32 - kSkip, lane = threadIdx.x % 32;
    const int64_t p0 = c.row_begin + c.m_block * kTileRows;          // sorted row of tile row 0
    const int col = c.n_block * BN + 8 * lane;
    const float cl = e.clamp;
    float w_lane[2] = {0.f, 0.f};  // routing weights of tile rows warp + kWarps (lane + 32 h)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = warp + kWarps * (lane + 32 * h);
      if (r < (kFull ? kTileRows : rows)) w_lane[h] = __ldg(e.topk_w + __ldg(e.sorted_pair + p0 + r));
    }
    // This warp's k-th row is tile row warp + kWarps k, valid for k < nk. A row's address in each array is its
    // offset from the warp's first row (kWarps k times a 32-bit pitch: the host keeps I <= 2^28) added to that
    // row's address; the 64-bit (p0 + r) * ld of each row and array cost ~15 % of these warps' instructions.
    const int nk = kFull ? kSteps : (rows - warp + kWarps - 1) / kWarps;
    const int64_t r0 = p0 + warp;
    const uint4* z_row0 = reinterpret_cast<const uint4*>(e.z + r0 * e.ld_z + col);
    uint4* dz_row0 = reinterpret_cast<uint4*>(e.out + r0 * e.ld_out + col);
    uint4* hw_row0 = reinterpret_cast<uint4*>(e.out2 + r0 * e.ld_out2 + col);
    const int up = e.inter / 8;  // the up half's offset in a z / dz row, in uint4
    float* part_row0 = e.part + r0 * (e.inter / 128) + c.n_block * (BN / 128) + lane / 16;
    // (row0 advanced by kWarps k rows of `pitch` elements of its type; z, dz and h*w rows go as 16-byte vectors:
    // their pitches, 2I and I with I % 128 == 0 on the host, are whole uint4s, and the arithmetic runs on uint4
    // pointers so that ptxas keeps the vector stores (from a char pointer it split them into 4-byte ones))
    auto row_of = [&](auto* row0, int k, int pitch) {
      return row0 + static_cast<int64_t>(kWarps * k) * pitch;
    };
    const int z_pitch = static_cast<int>(e.ld_z) / 8, dz_pitch = static_cast<int>(e.ld_out) / 8,
              hw_pitch = static_cast<int>(e.ld_out2) / 8, part_pitch = e.inter / 128;  // in uint4 / float
    auto load_batch = [&](int k0, ZRow (&z)[kBatch]) {
#pragma unroll
      for (int d = 0; d < kBatch; ++d) {
        if (kFull || k0 + d < nk) {
          const uint4* zrow = row_of(z_row0, k0 + d, z_pitch);
          z[d].g = __ldg(zrow);
          z[d].u = __ldg(zrow + up);
        }
      }
    };
    auto prefetch_batch = [&](int k0) {  // this lane's 16-byte pieces of gate and up: their lines into L1
#pragma unroll
      for (int d = 0; d < kBatch; ++d) {
        if (kFull || k0 + d < nk) {
          const uint4* zrow = row_of(z_row0, k0 + d, z_pitch);
          prefetch_l1(zrow);
          prefetch_l1(zrow + up);
        }
      }
    };
    ZRow zc[kBatch], zn[kBatch];
#pragma unroll
    for (int d = 0; d < kBatch; ++d) zc[d].g = zc[d].u = zn[d].g = zn[d].u = make_uint4(0, 0, 0, 0);
    load_batch(0, zc);
    if constexpr (kPrefetchL1) {
      prefetch_batch(kBatch);
      prefetch_batch(2 * kBatch);
    }
    mbar_wait(full, static_cast<uint32_t>(j) & 1u);
    const uint32_t tile_row0 = smem_u32(smem_c) + lane * 16;
    for (int k0 = 0; k0 < kSteps; k0 += kBatch) {
      // The batch's routing weights first, then the next batch's z loads: ptxas waits for all of the warp's
      // outstanding global loads at a shuffle, so a shuffle after those loads waited a memory round trip
      // at every batch (ncu, session 21 run 7: the SHFL.IDX's long_sb samples).
      float wb[kBatch];
#pragma unroll
      for (int d = 0; d < kBatch; ++d) {
        const int k = k0 + d;
        wb[d] = __shfl_sync(0xffffffffu, k < 32 ? w_lane[0] : w_lane[1], k % 32);
      }
      if (k0 + kBatch < kSteps) load_batch(k0 + kBatch, zn);
      if constexpr (kPrefetchL1) {
        if (k0 + 3 * kBatch < kSteps) prefetch_batch(k0 + 3 * kBatch);
      }
      float dot[kBatch];
#pragma unroll
      for (int d = 0; d < kBatch; ++d) {
        const int k = k0 + d;
        const float w = wb[d];
        // dA from the staging tile by ld.shared (a generic load here cost 64-bit address math, session 23)
        const int r = warp + kWarps * k;
        const uint4 da4 = ld_shared_v4(tile_row0 + (kFull ? r : min(r, kTileRows - 1)) * Tile::kRowBytes);
        const uint32_t da[4] = {da4.x, da4.y, da4.z, da4.w};
        const uint32_t g[4] = {zc[d].g.x, zc[d].g.y, zc[d].g.z, zc[d].g.w};
        const uint32_t u[4] = {zc[d].u.x, zc[d].u.y, zc[d].u.z, zc[d].u.w};
        uint32_t dg[4], du[4], hw[4];
        dot[d] = 0.f;
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          const float2 a2 = unpack_bf16x2(da[i]), g2 = unpack_bf16x2(g[i]), u2 = unpack_bf16x2(u[i]);
          float dg0, du0, hw0, dg1, du1, hw1;
          dot[d] += swiglu_bwd<true, kClamp>(a2.x, w, g2.x, u2.x, cl, dg0, du0, hw0);
          dot[d] += swiglu_bwd<true, kClamp>(a2.y, w, g2.y, u2.y, cl, dg1, du1, hw1);
          dg[i] = pack_bf16x2(dg0, dg1);
          du[i] = pack_bf16x2(du0, du1);
          hw[i] = pack_bf16x2(hw0, hw1);
        }
        if ((kFull || k < nk) && !kDiagNoStores) {  // warp-uniform
          uint4* dzrow = row_of(dz_row0, k, dz_pitch);
          dzrow[0] = make_uint4(dg[0], dg[1], dg[2], dg[3]);
          dzrow[up] = make_uint4(du[0], du[1], du[2], du[3]);
          *row_of(hw_row0, k, hw_pitch) = make_uint4(hw[0], hw[1], hw[2], hw[3]);
        }
      }
      // Each row's d(topk) partial: the sum over each 16-lane half (128 columns). The first exchange (lanes l and
      // l ^ 8) sends one row and keeps the other, so three more shuffles finish both rows: lane 8 h + 16 q ends
      // with row h's sum over half q (4 dependent shuffles for both rows instead of 8).
      const int mine = (lane >> 3) & 1;  // the row this lane keeps
      float sum = (mine ? dot[1] : dot[0]) + __shfl_xor_sync(0xffffffffu, mine ? dot[0] : dot[1], 8);
#pragma unroll
      for (int s = 4; s >= 1; s >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, s);
      if ((lane & 7) == 0 && (kFull || k0 + mine < nk) && !kDiagNoStores)
        *row_of(part_row0, k0 + mine, part_pitch) = sum;
#pragma unroll
      for (int d = 0; d < kBatch; ++d) zc[d] = zn[d];
    }
    mbar_arrive(empty);  // (after the last shared-memory read of this thread)
  }
};

}  // namespace pk::sm90
