#!/bin/sh
# The GPU measurements of issue 27 in one run (docs/TRAINING.md "GPU"):
#   1. `wasmlearn bench` on Qwen3-0.6B's shape: generation tokens/s at batch
#      1/16/64/256, one GRPO update's tokens/s, peak memory, MFU, profile;
#   2. a short GRPO run of a Qwen3-family model through the real engine on
#      the demonstration's synthesized environment: time per round, loss and
#      reward per round (metrics.jsonl), held-out success.
# Usage (from anywhere): rl/learner/gpu_check.sh WASMENV_BINARY OUT_DIR
# Environment: PYTHON (default python3), DEVICE (cuda), PRESET (qwen3-0.6b),
# QUICK=1 (tiny sizes, one round: the CPU smoke run of this script).
set -eu
W=$(readlink -f "$1")
OUT=$(mkdir -p "$2" && readlink -f "$2")
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
DEVICE=${DEVICE:-cuda}
if [ "${QUICK:-0}" = 1 ]; then
    BENCH="--preset tiny --batches 1,16 --update-seqs 8"
    TRAIN="--d-model 64 --layers 2 --heads 4 --max-len 512 --sft-epochs 2 --rounds 1 --group 4 --eval-group 1"
else
    BENCH="--preset ${PRESET:-qwen3-0.6b} --batches 1,16,64,256 --prompt-len 1024 --new-tokens 256
           --update-seqs 64 --seq-len 2048 --micro-batch 4 --peak-tflops 989 --profile"
    TRAIN="--d-model 512 --layers 8 --heads 8 --max-len 1024 --sft-epochs 12 --rounds 8 --group 16 --eval-group 4"
fi
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null || echo "no nvidia-smi"
  $PY -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda)'
} > "$OUT/versions.txt"
t0=$(date +%s)
# shellcheck disable=SC2086
timeout 240 $PY -m wasmlearn bench --device "$DEVICE" $BENCH > "$OUT/bench.txt" 2>&1 || echo "bench: exit $?" >> "$OUT/bench.txt"
t1=$(date +%s)
$PY -c "import sys; from wasmlearn import demo_env; demo_env.write('../../envs/store', sys.argv[1])" "$OUT/env"
"$W" build "$OUT/env" -o "$OUT/env.wasm" > "$OUT/build.txt" 2>&1
GLOBS=$($PY -c "from wasmlearn.demo import ROUND_GLOBS; print(ROUND_GLOBS['reason'])")
# shellcheck disable=SC2086
timeout 300 $PY -m wasmlearn train --arch qwen3 --device "$DEVICE" --bundle "$OUT/env.wasm" --env-dir "$OUT/env" \
    --wasmenv "$W" --out "$OUT/train" --round-tasks "$GLOBS" $TRAIN --sft-lr 1e-3 --sft-batch 8 --greedy-eval \
    --max-turns 3 --max-tokens 64 --lr 1e-4 --ppo-epochs 2 --batch 32 --beta 0.05 > "$OUT/train.txt" 2>&1 \
    || echo "train: exit $?" >> "$OUT/train.txt"
t2=$(date +%s)
echo "bench $((t1 - t0)) s, train $((t2 - t1)) s" >> "$OUT/versions.txt"
cat "$OUT/versions.txt"
grep '^{' "$OUT/bench.txt" || tail -20 "$OUT/bench.txt"
grep -E '"phase": "(setup|grpo|eval)"' "$OUT/train.txt" | cut -c1-400 || tail -20 "$OUT/train.txt"
