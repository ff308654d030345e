#!/usr/bin/env bash
# Every built-in model estimates from --model and a GPU, dense and MoE, for every attention
# backend its kind allows; a term from a coefficient only where the model's own preset gives it (issue 8).
source "$CGPLAN_TESTLIB"
set -e
expect_exit 0 "$CGPLAN" presets --format json
models=$(printf '%s' "$OUT" | python3 -c "import json,sys; print(' '.join(p['name'] for p in json.load(sys.stdin)['presets'] if p['kind']=='model'))")
[ "$(echo $models | wc -w)" -ge 20 ] && pass || fail "expected 20+ built-in models, got: $models"
mla_backends="flashinfer trtllm_mla flashmla cutlass_mla triton fa3"
gqa_backends="flashinfer fa3 fa4 triton trtllm_mha aiter torch_native"
for m in $models; do
  expect_exit 0 "$CGPLAN" estimate --model "$m" --set gpu=b200 --set tp=8 --format json
  kind=$(printf '%s' "$OUT" | python3 -c "
import json,sys; j=json.load(sys.stdin)
ab = j['knobs']['attention_backend']
print('mla' if j['terms'][[t['id'] for t in j['terms']].index('static.kv_index')]['formula'].find('block') >= 0 or ab.find('mla') >= 0 or ab.find('nsa') >= 0 else 'gqa')")
  # No model preset carries a coefficient (the article's K3 fit belongs to its deployment presets):
  # every term comes from its mechanism, and none is unknown.
  check_py "all(t['source'] != 'coefficient' for t in j['terms']) and j['total_complete'] is True" "$m: every term from its mechanism"
  check_py "j['total_bytes'] > 0 and j['budget']['weights_source'] in ('computed', 'measured')" "$m: a total and its weights"
  [ "$kind" = mla ] && backends=$mla_backends || backends=$gqa_backends
  for b in $backends; do
    expect_exit 0 "$CGPLAN" estimate --model "$m" --set gpu=b200 --set tp=8 --set attention_backend=$b --format json
    check_py "'backend_unsupported' not in [w['code'] for w in j['warnings']]" "$m with $b"
  done
done
# Every model at tp 8 on h200, and at its smallest fitting layout (tp 1, 2, 4, ... until --check
# passes) on each built-in GPU: complete, every term and part within its range, the total's range
# the sum of the terms', also where the layout does not fit (that is a warning, not a blank).
gpus=$("$CGPLAN" presets --format json | python3 -c "import json,sys; print(' '.join(p['name'] for p in json.load(sys.stdin)['presets'] if p['kind']=='gpu'))")
RESULT=$(python3 - "$CGPLAN" "$models" "$gpus" <<'PY'
import json, subprocess, sys
binary, models, gpus = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
bad, checked = [], 0
def est(m, g, tp):
    p = subprocess.run([binary, "estimate", "--model", m, "--set", "gpu=" + g, "--set", "tp=%d" % tp,
                        "--format", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p.returncode, json.loads(p.stdout) if p.stdout else None
def check(m, g, tp, j):
    where = "%s on %s tp %d" % (m, g, tp)
    if j is None or j.get("total_complete") is not True:
        bad.append(where + ": incomplete")
        return
    for t in j["terms"]:
        if not (t["low_bytes"] <= t["bytes"] <= t["high_bytes"]):
            bad.append("%s: %s out of its range" % (where, t["id"]))
        for part in t.get("parts", []):
            if not (part["low_bytes"] <= part["bytes"] <= part["high_bytes"]):
                bad.append("%s: %s out of its range" % (where, part["id"]))
    if j["total_low_bytes"] != sum(t["low_bytes"] for t in j["terms"]) or \
       j["total_high_bytes"] != sum(t["high_bytes"] for t in j["terms"]):
        bad.append(where + ": the total's range is not the terms' sum")
for m in models:
    rc, j = est(m, "h200", 8)
    check(m, "h200", 8, j)
    checked += 1
    for g in gpus:
        for tp in (1, 2, 4, 8, 16, 32, 64):
            rc, j = est(m, g, tp)
            check(m, g, tp, j)
            checked += 1
            if j is not None and j["budget"]["fits"]:
                break
print(checked, len(bad))
for b in bad[:20]:
    print(b)
PY
)
checked=$(printf '%s\n' "$RESULT" | head -1 | cut -d' ' -f1)
nbad=$(printf '%s\n' "$RESULT" | head -1 | cut -d' ' -f2)
[ "$nbad" = 0 ] && [ "$checked" -ge 100 ] && pass || fail "every model on every GPU: $RESULT"

# A backend of the other attention kind is refused as SGLang refuses it.
expect_exit 0 "$CGPLAN" estimate --model qwen3-8b --set gpu=h100 --set attention_backend=trtllm_mla --format json
check_py "'backend_unsupported' in [w['code'] for w in j['warnings']]" "GQA with an MLA backend"
finish
