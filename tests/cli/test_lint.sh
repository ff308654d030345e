#!/usr/bin/env bash
# cgplan lint: what SGLang resolves from a launch line, each flag's status, exit 2 for a line
# that is not a launch line; the article's two launch lines (cgplan launch's own) read back with
# every flag modelled or without effect.
set -eu
# shellcheck source=../lib.sh
. "${CGPLAN_TESTLIB:-$(dirname "$0")/../lib.sh}"

PLAIN="python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --tp 8"

# The plain line on H200 at main, derived from SGLang's server_args.py (main 2026-07-20):
#  - max_bs: _handle_gpu_memory_settings' tiers: 60 GiB <= 143,771 MiB < 160 GiB with tp >= 4
#    gives cuda_graph_max_bs 512;
#  - grid: _generate_cuda_graph_batch_sizes: [1, 2, 4, 8, 12] + range(16, 257, 8) +
#    range(272, 512, 16) + range(512, 513, 32) = 5 + 31 + 15 + 1 = 52 sizes;
#  - pool: no --max-running-requests and no speculation: SGLang sizes it from the KV pool (null);
#  - backend: Hopper with a Llama (is_fa3_default_architecture): fa3;
#  - fraction: reserve 512 + 1.5 x 8192 (H200's default chunk) + 2 x 512 + 8/8 GiB + 58 prefill
#    graphs x 8 MiB = 15,312 MiB; (143,771 - 15,312) / 143,771 = 0.893.
expect_exit 0 "$CGPLAN" lint --set gpu=h200 --format json "$PLAIN"
check_py "j['max_bs'] == 512 and len(j['buckets']) == 52 and j['buckets'][:6] == [1, 2, 4, 8, 12, 16] and j['buckets'][-3:] == [480, 496, 512]" "plain tp 8: grid and max_bs"
check_py "j['max_running_requests'] is None and j['attention_backend'] == 'fa3' and j['sglang_default_mem_fraction_static'] == 0.893" "plain tp 8: pool, backend, fraction"
check_py "j['layout'] == {'tp': 8, 'dp': 1, 'dp_attention': False, 'ep': 1, 'dcp': 1} and j['model'] == 'llama-3.1-70b'" "plain tp 8: layout and model"
check_py "[(f['flag'], f['value'], f['status']) for f in j['sglang_args']] == [('--model-path', 'meta-llama/Llama-3.1-70B-Instruct', 'modelled'), ('--tp', '8', 'modelled')]" "plain tp 8: two modelled flags"
expect_exit 0 "$CGPLAN" lint --set gpu=h200 "$PLAIN"
contains "$OUT" "capture grid        52 graphs: [1, 2, 4, 8, 12, 16," "the table's grid"
contains "$OUT" "attention backend   fa3 (SGLang's choice)" "the table's backend"
contains "$OUT" "default fraction    0.893" "the table's fraction"
# the same line as several argv words, and on stdin
# shellcheck disable=SC2086
expect_exit 0 "$CGPLAN" lint --set gpu=h200 --format json $PLAIN
check_py "j['max_bs'] == 512 and len(j['buckets']) == 52" "argv words read as the one line"
set +e
OUT=$(printf '%s\n' "$PLAIN" | "$CGPLAN" lint --set gpu=h200 --format json - 2>/dev/null)
set -e
check_py "j['max_bs'] == 512 and j['attention_backend'] == 'fa3'" "the line from stdin"

# Without a GPU: the GPU-dependent parts say so
expect_exit 0 "$CGPLAN" lint "$PLAIN"
contains "$OUT" "max_bs              unknown (needs --set gpu=G" "max_bs needs the GPU"
contains "$OUT" "attention backend   unknown (needs --set gpu=G)" "backend needs the GPU"
contains "$OUT" "default fraction    unknown (needs --set gpu=G)" "fraction needs the GPU"
# a model the catalog lacks: the model's parts are unknown, the layout still read
expect_exit 0 "$CGPLAN" lint --set gpu=h200 --format json "python3 -m sglang.launch_server --model-path acme/NoSuchModel --tp 4 --cuda-graph-max-bs 64"
check_py "j['model'] is None and j['layout']['tp'] == 4 and j['max_bs'] == 64 and j['attention_backend'] is None" "unknown model"

# Not a launch line: exit 2
expect_exit 2 "$CGPLAN" lint "ls -la"
contains "$ERR" "not an SGLang launch line" "ls -la refused"
expect_exit 2 "$CGPLAN" lint ""
# an unterminated quote, a value out of range: exit 2 naming it
expect_exit 2 "$CGPLAN" lint "python3 -m sglang.launch_server --model-path 'x --tp 8"
contains "$ERR" "unterminated ' quote" "unterminated quote"
expect_exit 2 "$CGPLAN" lint "python3 -m sglang.launch_server --tp 0"
contains "$ERR" "world" "tp 0 refused by the knob"
# an over-long line: refused with its bound
expect_exit 2 "$CGPLAN" lint "python3 -m sglang.launch_server $(printf -- '--host h%.0s ' $(seq 1 2000))"
contains "$ERR" "longer than" "over-long line"

# --bogus-flag 3: listed as unknown, exit 0
expect_exit 0 "$CGPLAN" lint --format json "$PLAIN --bogus-flag 3"
check_py "{'flag': '--bogus-flag', 'value': '3', 'status': 'unknown'}.items() <= j['sglang_args'][-1].items()" "bogus flag unknown"
contains "$ERR" "lint: --bogus-flag 3: unknown" "the unknown flag warned on stderr, by name"

# Shell text: env before the command, export, quotes, \-newline continuations, comments
expect_exit 0 "$CGPLAN" lint --format json "# node 0
export SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=128
CUDA_VISIBLE_DEVICES=0,1 python3 -m sglang.launch_server \\
  --model-path 'meta-llama/Llama-3.1-70B-Instruct' \\
  --served-model-name \"my model\" --tp=8
python3 -m other.thing --tp 1"
check_py "j['layout']['tp'] == 8 and [f['flag'] for f in j['sglang_args']] == ['SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK', 'CUDA_VISIBLE_DEVICES', '--model-path', '--served-model-name', '--tp']" "shell text split as sh does; one command"
check_py "j['sglang_args'][3]['value'] == 'my model' and j['sglang_args'][3]['status'] == 'no_effect' and j['sglang_args'][0]['status'] == 'modelled'" "quoted value, env knob"
# sglang serve
expect_exit 0 "$CGPLAN" lint --format json "sglang serve --model-path meta-llama/Llama-3.1-70B-Instruct --tp-size 2"
check_py "j['program'] and j['layout']['tp'] == 2" "sglang serve"

# A release without the flag: rejected (release.c: --dcp-size is in main from 2026-06-24; the
# -decode graph flags from PR #23906)
expect_exit 0 "$CGPLAN" lint --set sglang=0.5.6 --format json "python3 -m sglang.launch_server --tp 16 --dp-size 2 --enable-dp-attention --dcp-size 8 --cuda-graph-max-bs-decode 64"
check_py "[f['status'] for f in j['sglang_args'] if f['flag'] in ('--dcp-size', '--cuda-graph-max-bs-decode')] == ['rejected', 'rejected'] and len(j['rejected']) == 2" "0.5.6 rejects dcp and the -decode flags"
expect_exit 0 "$CGPLAN" lint --format json "python3 -m sglang.launch_server --tp 16 --dp-size 2 --enable-dp-attention --dcp-size 8"
check_py "not any(f['status'] == 'rejected' for f in j['sglang_args']) and j['rejected'] == []" "main has --dcp-size"

# Round trip: the lines cgplan launch prints read back with every flag modelled or no_effect,
# and to the plan's own grid and max_bs (node 0's command of each)
node0() { sed -n '/^# node 0/,/^$/p' | sed '1d'; }
for spec in "--preset k3-dp16|b200|24|[1, 2, 4, 8, 16, 24]" \
            "--preset k3-dp2-dcp8 --allow-patched|b200|192|" \
            "--model deepseek-v3 --set gpu=h200 --set world=8|h200||"; do
  IFS='|' read -r args gpu max_bs grid <<<"$spec"
  # shellcheck disable=SC2086
  line=$("$CGPLAN" launch $args 2>/dev/null | node0)
  [ -z "$line" ] && line=$("$CGPLAN" launch $args 2>/dev/null | grep -v '^#')
  case "$line" in *sglang.launch_server*) pass ;; *) fail "launch $args printed no command" ;; esac
  expect_exit 0 "$CGPLAN" lint --set gpu="$gpu" --format json "$line"
  check_py "all(f['status'] in ('modelled', 'no_effect') for f in j['sglang_args']) and len(j['sglang_args']) >= 8" "launch $args: every flag modelled or no_effect"
  [ -n "$max_bs" ] && check_py "j['max_bs'] == $max_bs" "launch $args: max_bs"
  [ -n "$grid" ] && check_py "j['buckets'] == $grid" "launch $args: grid"
done
# the DP2 x DCP8 line is the combination main rejects (dcp with speculation): said
line=$("$CGPLAN" launch --preset k3-dp2-dcp8 --allow-patched 2>/dev/null | node0)
expect_exit 0 "$CGPLAN" lint --set gpu=b200 "$line"
contains "$OUT" "rejects dcp 8 with mtp 5" "DP2 x DCP8 with MTP: the release's refusal listed"
contains "$OUT" "layout              DP2 x DCP8: tp 16 · dp 2 · dp-attention on · ep 16 · dcp 8" "DP2 x DCP8 layout"

finish
