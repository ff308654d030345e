#!/usr/bin/env bash
# cgplan estimate / sweep / presets / launch against REFERENCE-FIGURES.md (issue 2's "Done means").
source "$CGPLAN_TESTLIB"
set -e
GIB=1073741824

# --- k3-dp16
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --format json
check_py "[t for t in j['terms'] if t['id']=='static.logits'][0]['bytes'] == 94371840" "dp16 logits"
check_py "[t for t in j['terms'] if t['id']=='moe.deepep'][0]['bytes'] == 3757186176" "dp16 deepep"
check_py "round(sum(t['bytes'] for t in j['terms'] if t['id'] in ('moe.deepep','moe.masked_gemm'))/$GIB, 2) == 5.78" "dp16 MoE fixed 5.78"
check_py "abs(j['layers']['target']['static_bytes']/$GIB - 0.18) <= 0.03" "dp16 static"
check_py "abs(j['layers']['target']['largest_bytes']/$GIB - 7.17) <= 0.03*7.17" "dp16 largest"
check_py "abs(j['total_bytes']/$GIB - 8.16) <= 0.03*8.16" "dp16 total"
check_py "j['heuristic']['total_bytes'] == 3405774848" "dp16 heuristic"
check_py "j['knobs']['max_dispatch'] == 144 and j['knobs']['max_dispatch_auto'] is True" "dp16 auto dispatch"
check_py "j['knobs']['buckets'] == [1, 2, 4, 8, 16, 24]" "dp16 buckets"
check_py "j['rows'] == dict(j['rows'], bs_max=24, attn=144, moe=144, logits=144, heads_per_gpu=96)" "dp16 rows"
check_py "j['budget']['kv_cell_bytes'] == 28800 and j['budget']['wall_term'] == 'moe.deepep'" "dp16 budget"
check_py "all(set(t) >= {'id','group','layer','source','bytes','depends_on','runs'} for t in j['terms'])" "term keys"
check_py "[t for t in j['terms'] if t['id']=='static.kv_index'][0]['depends_on'] == ['max_bs','dp','mtp','world','buckets','context_len']" "kv_index depends_on"

# --- max_bs 128: the MoE floor becomes ~31 GiB (max_dispatch auto = 768)
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set max_bs=128 --format json
check_py "j['knobs']['max_dispatch'] == 768" "auto dispatch at bs 128"
check_py "round(sum(t['bytes'] for t in j['terms'] if t['id'] in ('moe.deepep','moe.masked_gemm'))/$GIB, 2) == 30.80" "MoE 30.80"

# --- k3-dp2-dcp8
expect_exit 0 "$CGPLAN" estimate --preset k3-dp2-dcp8 --format json
check_py "[t for t in j['terms'] if t['id']=='static.logits'][0]['bytes'] == 629145600" "dp2 logits"
check_py "[t for t in j['terms'] if t['id']=='static.kv_index'][0]['bytes'] == 805306368" "dp2 kv_index"
check_py "abs(j['layers']['target']['largest_bytes']/$GIB - 10.24) <= 0.03*10.24" "dp2 largest"
check_py "abs(j['total_bytes']/$GIB - 13.96) <= 0.03*13.96" "dp2 total"
check_py "j['heuristic']['total_bytes'] == 3758096384" "dp2 heuristic"
check_py "'dcp_with_speculation' in [w['code'] for w in j['warnings']]" "dp2 DCP + speculation warning"
check_py "len(j['knobs']['buckets']) == 23 and j['rows']['moe'] == 120 and j['rows']['attn'] == 960" "dp2 rows"

# --- max_dispatch below the rows: a warning that names the value that fits, exit 0
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set max_dispatch=128 --format json
check_py "any(w['code']=='dispatch_below_rows' and '144' in w['message'] for w in j['warnings'])" "dispatch warning names 144"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set max_dispatch=128
contains "$OUT" "dispatch_below_rows" "table shows the warning"
contains "$OUT" "144 fits" "table names 144"

# --- table and csv
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16
contains "$OUT" "SGLang heuristic" "table heuristic line"
contains "$OUT" "total" "table total"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --format csv
contains "$OUT" "preset,group,layer,id,source,bytes,low_bytes,high_bytes" "csv header"
contains "$OUT" "k3-dp16,target,static,static.logits,exact,94371840" "csv logits row"
contains "$OUT" "k3-dp16,,,heuristic,,3405774848" "csv heuristic row"

# --- usage errors: one line, exit 2
for bad in "dcp=3" "max_bs=-1" "max_bs=abc" "nonsense=1" "max_bs=0" "mtp=17" "mem_fraction_static=1.5" "dp=5" "max_bs" "buckets=[1,x]"; do
  expect_exit 2 "$CGPLAN" estimate --preset k3-dp2-dcp8 --set "$bad"
  one_line "$ERR" "--set $bad error is one line"
  contains "$ERR" "cgplan: " "--set $bad error prefix"
done
expect_exit 2 "$CGPLAN" estimate --preset no-such-preset
one_line "$ERR" "unknown preset one line"
contains "$ERR" "k3-dp16" "unknown preset lists the known ones"
expect_exit 2 "$CGPLAN" estimate --preset k3-dp16 --format yaml
expect_exit 2 "$CGPLAN" estimate --preset k3-dp16 --bogus
expect_exit 2 "$CGPLAN" frobnicate
expect_exit 2 "$CGPLAN" estimate

# --- bad files: exit 1 with file:line:column
mkdir -p "$TEST_TMP/p"
printf 'kind: deployment\nname: broken\nmodel: [kimi-k3\n' > "$TEST_TMP/p/broken.yaml"
expect_exit 1 "$CGPLAN" estimate --preset "$TEST_TMP/p/broken.yaml"
one_line "$ERR" "malformed yaml one line"
contains "$ERR" "broken.yaml:" "malformed yaml names the file"
sed 's/^max_bs: 24/max_bs: 24\nmax_bss: 3/' "$CGPLAN_SRC/presets/deployments/k3-dp16.yaml" | sed 's/^name: k3-dp16/name: typo/' > "$TEST_TMP/p/typo.yaml"
expect_exit 1 "$CGPLAN" estimate --preset "$TEST_TMP/p/typo.yaml"
contains "$ERR" "max_bss" "unknown key named"
contains "$ERR" "typo.yaml:" "unknown key file"
sed 's/^model: kimi-k3/model: kimi-k9/; s/^name: k3-dp16/name: nomodel/' "$CGPLAN_SRC/presets/deployments/k3-dp16.yaml" > "$TEST_TMP/p/nomodel.yaml"
expect_exit 1 "$CGPLAN" estimate --preset "$TEST_TMP/p/nomodel.yaml"
contains "$ERR" "kimi-k9" "missing model named"
sed 's/^gpu: b200/gpu: z900/; s/^name: k3-dp16/name: nogpu/' "$CGPLAN_SRC/presets/deployments/k3-dp16.yaml" > "$TEST_TMP/p/nogpu.yaml"
expect_exit 1 "$CGPLAN" estimate --preset "$TEST_TMP/p/nogpu.yaml"
contains "$ERR" "z900" "missing gpu named"

# --- user presets override built-in ones
mkdir -p "$XDG_CONFIG_HOME/cgplan/presets"
sed 's/^max_bs: 24/max_bs: 48/' "$CGPLAN_SRC/presets/deployments/k3-dp16.yaml" > "$XDG_CONFIG_HOME/cgplan/presets/k3-dp16.yaml"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --format json
check_py "j['knobs']['max_bs'] == 48" "user preset overrides"
rm -r "$XDG_CONFIG_HOME/cgplan/presets"

# --- --set gpu
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set gpu=b300 --format json
check_py "j['gpu'] == 'b300' and j['budget']['kv_pool_bytes'] > 80*$GIB" "gpu b300 budget grows"

# --- a knob moved to stay valid is reported (MODEL.md: the program says so each time)
expect_exit 0 "$CGPLAN" estimate --preset k3-dp2-dcp8 --set world=24 --format json
check_py "j['knobs']['world'] == 24 and j['knobs']['dp'] == 2 and j['knobs']['dcp'] == 6" "dcp moved to 6 on world 24"
check_py "any(w['code'] == 'adjusted' and 'dcp' in w['message'] for w in j['warnings'])" "adjusted warning"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set world=24 --format json
check_py "j['knobs']['dp'] == 12 and j['rows']['attn_tp'] == 2" "dp moved to 12 on world 24"

# --- sweep
expect_exit 0 "$CGPLAN" sweep --preset k3-dp16 --vary max_bs=24:128 --format json
check_py "j['vary'] == 'max_bs' and j['points'][0]['value'] == 24 and j['points'][-1]['value'] == 128" "sweep ends"
check_py "round((j['points'][-1]['terms']['moe.deepep'] + j['points'][-1]['terms']['moe.masked_gemm'])/$GIB, 2) == 30.80" "sweep last MoE"
check_py "all(a['total_bytes'] <= b['total_bytes'] for a, b in zip(j['points'], j['points'][1:]))" "sweep monotone"
expect_exit 0 "$CGPLAN" sweep --preset k3-dp2-dcp8 --vary max_bs=16:64:16 --format csv
contains "$OUT" "max_bs,static.logits,static.kv_index" "sweep csv header"
[ "$(printf '%s\n' "$OUT" | wc -l)" -eq 5 ] && pass || fail "sweep csv rows"
expect_exit 2 "$CGPLAN" sweep --preset k3-dp16 --vary max_bs=0:2000
expect_exit 2 "$CGPLAN" sweep --preset k3-dp16 --vary gpu=1:2
expect_exit 2 "$CGPLAN" sweep --preset k3-dp16

# --- presets
expect_exit 0 "$CGPLAN" presets --format json
check_py "{'k3-dp16','k3-dp2-dcp8','dsv3-h200-dp16'} <= {p['name'] for p in j['presets'] if p['kind']=='deployment'}" "deployments listed"
check_py "{'b200','b300','gb200','h200','h100','mi300x','mi355x','a100-40gb','a100-80gb','a10','a30','l4','l40s','h20','h100-pcie','h100-nvl','h200-nvl','gh200','gb300','rtx3090','rtx4090','rtx5090','rtx6000-ada','rtx-pro-6000','rtx4080-16gb','t4','gb10','mi250x','mi325x','h800'} <= {p['name'] for p in j['presets'] if p['kind']=='gpu'}" "gpus listed"
check_py "{'kimi-k3','deepseek-v3','kimi-k2'} <= {p['name'] for p in j['presets'] if p['kind']=='model'}" "models listed"
expect_exit 0 "$CGPLAN" estimate --preset dsv3-h200-dp16 --format json
check_py "'terms_unknown' not in [w['code'] for w in j['warnings']] and 'k3_coefficients' not in [w['code'] for w in j['warnings']]" "dsv3 borrows no K3 coefficient and has no unknown term"
# DeepEP's buffer set-up creates the TP group's NCCL communicator inside the window: 16 ranks over
# two nodes, ring 12 MiB x C + tree 6..12 MiB x C + pool pow2(C) x 16 x 128 KiB, C = 16..32.
check_py "[p for t in j['terms'] for p in t.get('parts', []) if p['id']=='lazy.nccl'][0]['low_bytes'] == 320 * 2**20 and [p for t in j['terms'] for p in t.get('parts', []) if p['id']=='lazy.nccl'][0]['high_bytes'] == 832 * 2**20 and j['total_complete'] is True" "dsv3 DeepEP: the TP communicator created in the window"
check_py "[t for t in j['terms'] if t['id']=='moe.deepep'][0]['bytes'] == 1908410496" "dsv3 deepep 128"

# --- launch (issue 9: the flags of the release the plan names; "--tp" was argparse's abbreviation
# of --tp-size and is now printed in full; DCP with MTP is refused unless --allow-patched)
expect_exit 3 "$CGPLAN" launch --preset k3-dp2-dcp8
contains "$ERR" "rejects dcp 8 with mtp 5" "launch refuses DCP + MTP on upstream SGLang"
expect_exit 0 "$CGPLAN" launch --preset k3-dp2-dcp8 --allow-patched
for flag in "--tp-size 16" "--ep-size 16" "--nnodes 2 --node-rank 0 --dist-init-addr HOST:PORT" \
            "--nnodes 2 --node-rank 1 --dist-init-addr HOST:PORT" "--dp-size 2 --enable-dp-attention" "--dcp-size 8" \
            "--moe-a2a-backend deepep" "--attention-backend flashinfer " \
            "--cuda-graph-max-bs-decode 192" "--cuda-graph-bs-decode 16 24" "--speculative-num-steps 4" "--speculative-eagle-topk 1" \
            "--speculative-num-draft-tokens 5" "--max-running-requests 384" "--context-length 1048576" "--mem-fraction-static 0." \
            "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=128" "# warning dcp_with_speculation" "--allow-patched"; do
  contains "$OUT" "$flag" "launch prints $flag"
done
case "$OUT" in *"--tp 16"*|*flashinfer_mla*|*"--cuda-graph-max-bs 192"*) fail "launch prints an old flag or value" ;; *) pass ;; esac
# the header's fraction is the one the command sets
hdr=$(printf '%s\n' "$OUT" | sed -n 's/^# planned at --mem-fraction-static \([0-9.]*\).*/\1/p')
contains "$OUT" "--mem-fraction-static $hdr" "launch sets the fraction its header states"
# a plan with no KV: exit 3 with the reason (the QP depth is still printed)
expect_exit 3 "$CGPLAN" launch --preset k3-dp16 --set max_bs=128
contains "$OUT" "NVSHMEM_QP_DEPTH=1538" "launch QP depth for 768"
contains "$ERR" "kv_pool_exhausted" "launch names why it does not fit"
expect_exit 0 "$CGPLAN" launch --preset k3-dp16 --format json
check_py "len(j['nodes']) == 2 and j['fits'] and '--tp-size 16' in j['args'] and j['mem_fraction_static'] == 0.919 and j['bound'] == 'high'" "launch json, one command per node, planned on the high end"
expect_exit 0 "$CGPLAN" launch --preset k3-dp16 --set bound=expected --format json
check_py "j['mem_fraction_static'] == 0.92 and j['bound'] == 'expected'" "bound=expected: the article's own 0.920"
# every built-in deployment: only flags of the release (server_args.py main 2026-07-20)
known="--model-path --trust-remote-code --tp-size --ep-size --dp-size --enable-dp-attention --dcp-size --moe-a2a-backend --deepep-mode --moe-runner-backend --attention-backend --kv-cache-dtype --page-size --enable-two-batch-overlap --cuda-graph-max-bs-decode --cuda-graph-bs-decode --speculative-algorithm --speculative-num-steps --speculative-eagle-topk --speculative-num-draft-tokens --speculative-draft-model-path --max-running-requests --context-length --mem-fraction-static --nnodes --node-rank --dist-init-addr --disaggregation-mode"
for p in k3-dp16 k3-dp2-dcp8 dsv3-h200-dp16; do
  set +e; OUT=$("$CGPLAN" launch --preset "$p" --allow-patched 2>/dev/null); set -e
  for f in $(printf '%s\n' "$OUT" | grep -v '^#' | grep -o -- '--[a-z0-9-]*'); do
    case " $known " in *" $f "*) pass ;; *) fail "launch $p prints $f, not a flag cgplan knows SGLang has" ;; esac
  done
  be=$(printf '%s\n' "$OUT" | sed -n 's/.*--attention-backend \([a-z0-9_]*\).*/\1/p' | head -1)
  case " triton torch_native nsa cutlass_mla fa3 fa4 flashinfer flashmla trtllm_mla trtllm_mha aiter " in
    *" $be "*) pass ;; *) fail "launch $p: attention backend '$be' is not an SGLang choice" ;; esac
done

# --- help
expect_exit 0 "$CGPLAN" --help
contains "$OUT" "max_dispatch" "help lists knobs"
expect_exit 0 "$CGPLAN" estimate --help
contains "$OUT" "--preset" "estimate help"

finish
