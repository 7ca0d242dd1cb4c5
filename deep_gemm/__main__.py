"""`python -m deep_gemm info | demo` (also installed as the `prime-kernels` console script)."""
from __future__ import annotations

import argparse
import json
import sys


def _print_info(as_json: bool) -> int:
    from ._backend import info
    data = info()
    if as_json:
        print(json.dumps(data, indent=2))
        return 0
    print(f"prime-kernels {data['prime-kernels']}")
    print(f"torch         {data['torch']} (CUDA {data['torch CUDA']})")
    if "CUDA driver" in data:
        print(f"CUDA driver   {data['CUDA driver']}")
    print(f"DG_BACKEND    {data['DG_BACKEND']}")
    dists = data["distributions"]
    print("installed as  " + (", ".join(f"{d} {v}" for d, v in dists.items()) or "a source checkout (no wheel)"))
    if len(dists) > 1:
        print("WARNING: several prime-kernels variants are installed and overwrite each other's files; "
              "uninstall all and install exactly one")
    print("libraries:")
    if not data["libraries"]:
        print("  none installed (only the reference backend is available)")
    for arch, lib in data["libraries"].items():
        extra = lib.get("error") or f"CUDA runtime {lib.get('built with CUDA runtime')}"
        print(f"  {arch:6s} {lib['path']}  [{extra}]")
    print("GPUs:")
    if not data["gpus"]:
        print("  none visible")
    for g in data["gpus"]:
        print(f"  cuda:{g['index']} {g['name']} (compute capability {g['capability']}) -> backend {g['backend']}")
    print(f"CPU tensors -> backend {data['CPU tensors backend']}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="prime-kernels", description=__doc__)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_info = sub.add_parser("info", help="versions, GPUs, installed arch libraries, backend choice")
    p_info.add_argument("--json", action="store_true")
    p_demo = sub.add_parser("demo", help="run and time the MoE layer on the available device")
    p_demo.add_argument("--device", default=None, help="cuda or cpu (default: cuda if available)")
    p_demo.add_argument("--tokens", type=int, default=None)
    p_demo.add_argument("--hidden", type=int, default=None)
    p_demo.add_argument("--intermediate", type=int, default=None)
    p_demo.add_argument("--experts", type=int, default=None)
    p_demo.add_argument("--topk", type=int, default=None)
    p_demo.add_argument("--precision", default="bf16", choices=["bf16", "fp8", "mxfp8", "fp8_bwd"])
    args = parser.parse_args(argv)
    if args.cmd == "info":
        return _print_info(args.json)
    if args.cmd == "demo":
        from .demo import run_demo
        return run_demo(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
