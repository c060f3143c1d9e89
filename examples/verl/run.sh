#!/bin/sh
# GRPO with verl's multi-turn ToolAgentLoop on a wasmenv environment.
# Needs: verl (with vLLM or SGLang), pip install ./clients/python, GPUs.
# Usage: examples/verl/run.sh BUNDLE ENV [extra verl overrides...]
set -eu
BUNDLE=$1; ENV=$2; shift 2
URL=${WASMENV_URL:-http://127.0.0.1:8080}
OUT=${OUT:-$PWD/wasmenv-verl}
mkdir -p "$OUT"
# 1. The environment, served (skip when it already is).
WASMENV=${WASMENV:-./wasmenv}   # the binary the README builds
curl -fsS "$URL/health" >/dev/null 2>&1 || { "$WASMENV" serve "$BUNDLE" --addr "${URL#http://}" & sleep 2; }
# 2. verl's tools and interaction YAML and the dataset, from the bundle and the server.
"$WASMENV" export verl-tools "$BUNDLE" --url "$URL" -o "$OUT/tools.yaml" --interaction "$OUT/interaction.yaml"
python3 "$(dirname "$0")/make_dataset.py" --url "$URL" --env "$ENV" -o "$OUT/train.parquet"
# 3. Train. The reward is the episode's task score with the final answer
#    checked: the tool rewards of a trajectory and the interaction's turn
#    score (the answer's part) sum to it; wasmenv_client.verl.compute_score
#    returns that sum (0.0, with env_fault 1.0, when the environment failed).
python3 -m verl.trainer.main_ppo \
    algorithm.adv_estimator=grpo \
    data.train_files="$OUT/train.parquet" data.val_files="$OUT/train.parquet" \
    data.return_raw_chat=True data.max_prompt_length=1024 data.max_response_length=2048 \
    data.train_batch_size=32 \
    actor_rollout_ref.model.path=${MODEL:-Qwen/Qwen2.5-3B-Instruct} \
    actor_rollout_ref.rollout.name=${ROLLOUT:-vllm} actor_rollout_ref.rollout.mode=async \
    actor_rollout_ref.rollout.n=8 \
    actor_rollout_ref.rollout.multi_turn.enable=True \
    actor_rollout_ref.rollout.multi_turn.format=hermes \
    actor_rollout_ref.rollout.multi_turn.max_assistant_turns=8 \
    actor_rollout_ref.rollout.multi_turn.tool_config_path="$OUT/tools.yaml" \
    actor_rollout_ref.rollout.multi_turn.interaction_config_path="$OUT/interaction.yaml" \
    custom_reward_function.path="$(python3 -c 'import wasmenv_client.verl as m; print(m.__file__)')" \
    custom_reward_function.name=compute_score \
    trainer.n_gpus_per_node=${GPUS:-1} trainer.nnodes=1 trainer.total_epochs=1 "$@"
