# Session 18 run 10 helper (not kept): calc_diff of test_gpu_mega_moe_matches_reference's 30-odd case over seeds,
# and the outputs of one fixed-seed layer saved for a bitwise comparison between libraries.
import sys, torch, deep_gemm
sys.path.insert(0, "tests")
from test_moe import make_inputs
out = sys.argv[1]
H, I, T, K, E = 256, 128, 1000, 8, 64
res = {}
seeds = [int(v) for v in sys.argv[2].split(",")] if len(sys.argv) > 2 else list(range(12))
for n_run, seed in enumerate(seeds):
    gen = torch.Generator().manual_seed(seed)
    x, idx, tw, w13, w2 = make_inputs(T, K, E, H, I, "uniform", gen)
    dy = torch.randn(T, H, generator=gen).bfloat16()
    outs = []
    for dev in ("cuda", "cpu"):
        leaves = [t.to(dev).requires_grad_() for t in (x, tw, w13, w2)]
        y = deep_gemm.mega_moe(leaves[0], idx.to(dev), leaves[1], leaves[2], leaves[3], activation_clamp=1.0)
        y.backward(dy.to(dev))
        outs.append([y.detach().cpu()] + [t.grad.cpu() for t in leaves])
    d = [deep_gemm.calc_diff(g, r) for g, r in zip(*outs)]
    print(seed, " ".join(f"{n}={v:.2e}" for n, v in zip(["y", "dx", "dtw", "dw13", "dw2"], d)))
    if n_run == 0:
        res = outs[0]
torch.save(res, out)
