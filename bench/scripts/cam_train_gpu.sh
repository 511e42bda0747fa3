#!/usr/bin/env bash
# CAM trainings on a lent GPU machine (issue 25, item 4), one prepared command:
#   bash bench/scripts/cam_train_gpu.sh SECONDS OUTDIR
# Checks that training on CUDA equals the CPU (tests/training/test_cuda.py), then runs the
# trainings below side by side, each one process with one CPU thread and the GPU (falls back to
# the CPU if the check fails), and packs every run folder and log into OUTDIR/runs.tgz.
# Runs from the repository root with the machine's python3 (no install: PYTHONPATH).
set -u
seconds=${1:-450}
out=${2:-${OUT:-/tmp/out}}
mkdir -p "$out" runs
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1
{ nvidia-smi -L; python3 -c "import sys, torch, numba, numpy, scipy, torch_geometric as g; print(sys.version.split()[0], 'torch', torch.__version__, 'numba', numba.__version__, 'numpy', numpy.__version__, 'scipy', scipy.__version__, 'pyg', g.__version__, 'cuda', torch.cuda.is_available())"; nproc --all; } > runs/environment.txt 2>&1
device=cuda
python3 -c "import torch; assert torch.cuda.is_available()" > runs/cuda_check.log 2>&1 &&
  timeout 150 python3 -m pytest -q -p no:cacheprovider tests/training/test_cuda.py >> runs/cuda_check.log 2>&1 || device=cpu
echo "device=$device" >> runs/environment.txt
nvidia-smi dmon -s u -d 15 > runs/gpu_utilisation.log 2>&1 &
monitor=$!
pids=()
train() {  # NAME PROBLEM DIST settings...
  local name=$1 problem=$2 dist=$3
  shift 3
  local sets=()
  for s in "$@"; do sets+=(--set "$s"); done
  python3 -m cosolve train cam --problem "$problem" --dist "$dist" --time "$seconds" --out "runs/$name" --threads 1 \
    --no-progress --set device=$device --set validate_every=30 "${sets[@]}" > "runs/$name.log" 2>&1 &
  pids+=($!)
}
train mis-rb-small-compare   mis    rb-small   graphs=32 train_chains=32 compare=1
train mis-rb-small-paper     mis    rb-small   graphs=32 train_chains=32
train mis-rb-small-residual  mis    rb-small   graphs=32 train_chains=32 compare=1 base=rlsa
train mis-frb-compare        mis    frb        graphs=8  train_chains=32 compare=1
train mis-er-compare         mis    er-700-800 graphs=8  train_chains=32 compare=1
train maxcut-gset-compare    maxcut gset       graphs=4  train_chains=32 compare=1
train maxcut-ba-large-compare maxcut ba-large  graphs=8  train_chains=32 compare=1
train maxcut-ba-small-paper  maxcut ba-small   graphs=32 train_chains=32
wait "${pids[@]}"
kill $monitor 2>/dev/null
tar czf "$out/runs.tgz" runs
tail -n 3 runs/*.log
