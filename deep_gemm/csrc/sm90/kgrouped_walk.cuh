// The weight-gradient kernels' balanced tile walk (kgrouped_wgrad.cuh `walk_unit`), as a pure function of
// plain integers so that the host compiler can build it too: tests/test_sm90_kgrouped.py checks it is a
// bijection and that it deals units as benchmarks/wgrad_walk_model.py assumes.
#pragma once

#ifdef __CUDACC__
#define PK_WALK_FN __host__ __device__ __forceinline__
#else
#define PK_WALK_FN inline
#endif

namespace pk::sm90::kgrouped {

// Cluster c of a grid of `step` clusters takes the slots c + i * step. Round i holds the units
// [i * step, (i + 1) * step); an odd round that is whole is dealt backwards (cluster c takes its unit
// step - 1 - c), any other round forwards, so the unit is < num_units exactly when the slot is, and the
// clusters that drew a round's largest units draw the next round's smallest.
PK_WALK_FN int balanced_unit(int slot, int cluster, int step, int num_units) {
  const int from_c = slot - cluster;  // i * step
  const bool back = ((from_c / step) & 1) && from_c + step <= num_units;
  return back ? slot + step - 1 - 2 * cluster : slot;
}

}  // namespace pk::sm90::kgrouped

#undef PK_WALK_FN
