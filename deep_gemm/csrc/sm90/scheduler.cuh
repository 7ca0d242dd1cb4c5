// Persistent tile scheduler for m-grouped GEMMs whose group sizes live on the device.
//
// Groups (experts) e = 0..E-1 each own `rows_e` output rows that start at row `base_e` of the
// sorted operand. Two sources of sizes:
//   kOffsets: rows_e = offsets[e+1] - offsets[e], base_e = offsets[e]   (MoE / contiguous layout)
//   kMasked : rows_e = min(masked_m[e], max_m), base_e = e * max_m       (masked layout)
//   kPsum   : base_e = align(ends[e-1], max_m) (0 for e = 0), rows_e = ends[e] - base_e
//             (DeepGEMM's psum layout: ends [E] exclusive, groups start on alignment boundaries;
//             the alignment travels in max_m)
// Every CTA builds the prefix of per-group M-tile counts in shared memory once, then walks the
// global tile list t = blockIdx.x, blockIdx.x + gridDim.x, ...; group e owns tiles
// [P_e * NB, P_{e+1} * NB) (P: prefix of m-tiles, NB: n-blocks). Within a group the order is
//   n fastest (m_fastest = 0): tile = m * NB + n; the CTAs reading one A m-tile are neighbours;
//   m fastest (m_fastest = 1): tile = n * M_e + m; the CTAs reading one weight slice are neighbours.
// Neighbouring tiles run at about the same time, so what they share is read from DRAM once; the
// operand whose readers are spread over the whole group must stay in L2 for that long.
// The grid is sized on the host for the worst case; tiles past the real total simply end the loop,
// so nothing on the host needs the counts.
#pragma once
#include <cstdint>

namespace pk::sm90 {

enum class GroupMode : int { kOffsets = 0, kMasked = 1, kPsum = 2 };

struct GroupInfo {
  const int* sizes;  // offsets [E+1] (kOffsets), masked_m [E] (kMasked), ends [E] (kPsum)
  int num_groups;
  int max_m;         // kMasked: rows per group; kPsum: alignment
  GroupMode mode;
  int m_fastest;     // tile order within a group (see above); 0 when not set
};

constexpr int kMaxGroups = 1024;

struct TileCoord {
  int group, m_block, n_block;
  int row_begin;  // first sorted row of this group
  int rows;       // rows in this group
  bool b_shared;  // PairScheduler: the CTA pair shares this tile's B (same group and n-block)
};

// The group table every CTA builds in shared memory once, and the walk's shape; what a work unit is belongs
// to the scheduler built on it (Scheduler, PairScheduler).
struct GroupTable {
  int* prefix;     // smem [E+1]: prefix[e] = the units of groups before e
  int* row_base;   // smem [E]
  int* row_count;  // smem [E]
  int num_groups, n_blocks;
  bool m_fastest;

  // All threads of the CTA (ends with __syncthreads): row_base[e], row_count[e] and the prefix of count(rows_e).
  template <class Count>
  __device__ void build(const GroupInfo& g, int n_blocks_, int* smem_ints, Count count) {
    num_groups = g.num_groups;
    n_blocks = n_blocks_;
    m_fastest = g.m_fastest != 0;
    prefix = smem_ints;
    row_base = smem_ints + kMaxGroups + 1;
    row_count = row_base + kMaxGroups;
    for (int e = threadIdx.x; e < num_groups; e += blockDim.x) {
      int base, rows;
      if (g.mode == GroupMode::kOffsets) {
        base = g.sizes[e];
        rows = g.sizes[e + 1] - base;
      } else if (g.mode == GroupMode::kMasked) {
        base = e * g.max_m;
        rows = min(max(g.sizes[e], 0), g.max_m);
      } else {
        const int prev = e == 0 ? 0 : g.sizes[e - 1];
        base = e == 0 ? 0 : (prev + g.max_m - 1) / g.max_m * g.max_m;
        rows = max(g.sizes[e] - base, 0);
      }
      row_base[e] = base;
      row_count[e] = rows;
      prefix[e + 1] = count(rows);
    }
    __syncthreads();
    if (threadIdx.x < 32) {  // warp scan over groups, 32 at a time
      const int lane = threadIdx.x;
      int carry = 0;
      for (int e0 = 0; e0 < num_groups; e0 += 32) {
        const int e = e0 + lane;
        int v = e < num_groups ? prefix[e + 1] : 0;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
          const int o = __shfl_up_sync(0xffffffffu, v, d);
          if (lane >= d) v += o;
        }
        if (e < num_groups) prefix[e + 1] = carry + v;
        carry += __shfl_sync(0xffffffffu, v, 31);
      }
      if (lane == 0) prefix[0] = 0;
    }
    __syncthreads();
  }

  // Largest e with prefix[e] <= x (groups with no units are skipped naturally).
  __device__ __forceinline__ int group_of(int x) const {
    int lo = 0, hi = num_groups - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) >> 1;
      if (prefix[mid] <= x) lo = mid; else hi = mid - 1;
    }
    return lo;
  }
};

// One CTA per unit; a unit is one BM-row m-tile x one n-block (prefix: m-tiles).
template <int BM>
struct Scheduler : GroupTable {
  // Called by all threads of the CTA (contains __syncthreads).
  __device__ void init(const GroupInfo& g, int n_blocks_, int* smem_ints) {
    build(g, n_blocks_, smem_ints, [](int rows) { return (rows + BM - 1) / BM; });
  }

  __device__ __forceinline__ int total_tiles() const { return prefix[num_groups] * n_blocks; }

  __device__ __forceinline__ TileCoord coord(int t) const {
    const int mt = t / n_blocks;  // group e holds tile t iff P_e <= t / NB < P_{e+1}
    TileCoord c;
    const int lo = group_of(mt);
    c.group = lo;
    if (m_fastest) {
      const int m_tiles = prefix[lo + 1] - prefix[lo];
      const int local = t - prefix[lo] * n_blocks;
      c.n_block = local / m_tiles;
      c.m_block = local - c.n_block * m_tiles;
    } else {
      c.n_block = t - mt * n_blocks;
      c.m_block = mt - prefix[lo];
    }
    c.row_begin = row_base[lo];
    c.rows = row_count[lo];
    c.b_shared = false;
    return c;
  }
};

// 2-CTA clusters: a unit is what one CTA pair computes at a time. A group of M 128-row m-tiles and NB
// n-blocks has floor(M / 2) * NB pair units (m-tiles 2p and 2p + 1, one n-block: the pair shares that
// weight tile, each CTA multicasting half of it) and, when M is odd, ceil(NB / 2) tail units (the last
// m-tile, n-blocks 2j and 2j + 1: nothing shared, each CTA loads its own weight tile). So no CTA of a
// pair idles on an m-tile past its group's end, as it did when the pair units were 256-row m-tiles (an
// odd M, about half the groups, cost one idle tile slot per n-block). The one idle slot left: the
// second n-block of a tail unit when NB is odd (m_block past the group's end, nothing to compute).
// Order within a group: the pair units n-block fastest, or with m_fastest m-pair fastest; the tail
// units last.
struct PairScheduler : GroupTable {  // (prefix: units)
  static constexpr int kTileRows = 128;

  __device__ void init(const GroupInfo& g, int n_blocks_, int* smem_ints) {
    const int nb = n_blocks_;
    build(g, n_blocks_, smem_ints, [nb](int rows) {
      const int m_tiles = (rows + kTileRows - 1) / kTileRows;
      return (m_tiles / 2) * nb + (m_tiles & 1) * ((nb + 1) / 2);
    });
  }

  __device__ __forceinline__ int total_tiles() const { return prefix[num_groups]; }

  // The tile of cluster rank `rank` (0 or 1) in unit u.
  __device__ __forceinline__ TileCoord coord(int u, int rank) const {
    TileCoord c;
    const int e = group_of(u);
    c.group = e;
    c.row_begin = row_base[e];
    c.rows = row_count[e];
    const int m_tiles = (c.rows + kTileRows - 1) / kTileRows;
    const int pairs = m_tiles / 2;
    const int local = u - prefix[e];
    if (local < pairs * n_blocks) {
      int p;
      if (m_fastest) {
        c.n_block = local / pairs;
        p = local - c.n_block * pairs;
      } else {
        p = local / n_blocks;
        c.n_block = local - p * n_blocks;
      }
      c.m_block = 2 * p + rank;
      c.b_shared = true;
    } else {
      const int n = 2 * (local - pairs * n_blocks) + rank;
      c.b_shared = false;
      c.m_block = n < n_blocks ? m_tiles - 1 : m_tiles;  // (m_tiles: past the end, an idle slot)
      c.n_block = n < n_blocks ? n : n_blocks - 1;
    }
    return c;
  }
};

}  // namespace pk::sm90
